// Iceberg export metadata: Lance → Iceberg schema mapping (ids, widenings, refusals),
// manifests and manifest lists read back with Lancet's Avro reader (field ids in the
// schema, header keys, values), and the table metadata JSON keys.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "catalog/iceberg_manifest.h"
#include "catalog/iceberg_metadata.h"
#include "catalog/iceberg_schema.h"
#include "lancet/format/parquet.h"

namespace lancet::catalog::iceberg {
namespace {

namespace avro = format::avro;
using nlohmann::json;

Schema NestedLanceSchema() {
  Schema s;
  s.fields.push_back(MakeField("id", MakeType(TypeId::kInt64), false));
  s.fields.push_back(MakeField("tags", ListOf(MakeField("item", MakeType(TypeId::kUtf8), true))));
  s.fields.push_back(MakeField("point", StructOf({MakeField("x", MakeType(TypeId::kFloat64)),
                                                  MakeField("y", MakeType(TypeId::kUInt16), false)})));
  s.fields.push_back(MakeField("ts", TimestampType(TimeUnit::kMilli, "UTC")));
  return s;
}

TEST(IcebergSchema, AssignsIdsStructFirstThenNestedDepthFirst) {
  auto m = MapLanceSchema(NestedLanceSchema());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  json j = json::parse(SchemaJson(m->schema, 0).dump());
  EXPECT_EQ(j["type"], "struct");
  EXPECT_EQ(j["schema-id"], 0);
  ASSERT_EQ(j["fields"].size(), 4u);
  EXPECT_EQ(j["fields"][0], json::parse(R"({"id":1,"name":"id","required":true,"type":"long"})"));
  EXPECT_EQ(j["fields"][1]["id"], 2);
  EXPECT_EQ(j["fields"][1]["type"],
            json::parse(R"({"type":"list","element-id":5,"element":"string","element-required":false})"));
  EXPECT_EQ(j["fields"][2]["id"], 3);
  EXPECT_EQ(j["fields"][2]["type"]["fields"][0]["id"], 6);
  EXPECT_EQ(j["fields"][2]["type"]["fields"][1],
            json::parse(R"({"id":7,"name":"y","required":true,"type":"int"})"));  // uint16 widened
  EXPECT_EQ(j["fields"][3], json::parse(R"({"id":4,"name":"ts","required":false,"type":"timestamptz"})"));
  EXPECT_EQ(m->last_column_id, 7);
  EXPECT_EQ(MaxFieldId(m->schema), 7);
  EXPECT_EQ(m->notes.size(), 2u);  // point.y and ts

  // The Parquet schema carries the same ids, down to list elements and struct members.
  const Schema& p = m->parquet_schema;
  EXPECT_EQ(p.fields[0].metadata.at(format::kParquetFieldIdKey), "1");
  EXPECT_EQ(p.fields[1].type.children[0].metadata.at(format::kParquetFieldIdKey), "5");
  EXPECT_EQ(p.fields[2].type.children[1].metadata.at(format::kParquetFieldIdKey), "7");
  EXPECT_EQ(p.fields[2].type.children[1].type.id, TypeId::kInt32);
  EXPECT_EQ(p.fields[3].type.unit, TimeUnit::kMicro);
  EXPECT_EQ(p.fields[3].type.timezone, std::optional<std::string>("UTC"));
}

TEST(IcebergSchema, MapsAndFixedAndDecimal) {
  Schema s;
  DataType map;
  map.id = TypeId::kMap;
  map.children.push_back(MakeField(
      "entries",
      StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt32))}),
      false));
  s.fields.push_back(MakeField("m", map));
  DataType fixed = MakeType(TypeId::kFixedSizeBinary);
  fixed.byte_width = 16;
  s.fields.push_back(MakeField("f", fixed));
  DataType dec = MakeType(TypeId::kDecimal128);
  dec.precision = 10;
  dec.scale = 2;
  s.fields.push_back(MakeField("d", dec));
  auto m = MapLanceSchema(s);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  json j = json::parse(SchemaJson(m->schema, 0).dump());
  EXPECT_EQ(
      j["fields"][0]["type"],
      json::parse(R"({"type":"map","key-id":4,"key":"string","value-id":5,"value":"int","value-required":false})"));
  EXPECT_EQ(j["fields"][1]["type"], "fixed[16]");
  EXPECT_EQ(j["fields"][2]["type"], "decimal(10, 2)");
  const Field& entries = m->parquet_schema.fields[0].type.children[0];
  EXPECT_EQ(entries.type.children[0].metadata.at(format::kParquetFieldIdKey), "4");
  EXPECT_EQ(entries.type.children[1].metadata.at(format::kParquetFieldIdKey), "5");
}

TEST(IcebergSchema, RefusesTypesWithoutAnIcebergEquivalentNamingTheColumn) {
  for (TypeId id : {TypeId::kUInt64, TypeId::kFloat16, TypeId::kDuration, TypeId::kDate64}) {
    Schema s;
    s.fields.push_back(MakeField("ok", MakeType(TypeId::kInt32)));
    s.fields.push_back(MakeField("outer", StructOf({MakeField("bad", MakeType(id))})));
    auto m = MapLanceSchema(s);
    ASSERT_FALSE(m.ok()) << TypeIdName(id);
    EXPECT_TRUE(m.status().IsNotSupported());
    EXPECT_NE(m.status().message().find("'outer.bad'"), std::string::npos) << m.status().message();
  }
  Schema ns;
  ns.fields.push_back(MakeField("t", TimestampType(TimeUnit::kNano)));
  EXPECT_NE(MapLanceSchema(ns).status().message().find("version 3"), std::string::npos);
}

Array Primitive(TypeId id, const void* values, size_t bytes, int64_t length) {
  Array a;
  a.type = MakeType(id);
  a.length = length;
  a.buffers = {nullptr, Buffer::Copy(std::string_view(static_cast<const char*>(values), bytes))};
  return a;
}

TEST(IcebergSchema, ConformBatchWidensValues) {
  Schema s;
  s.fields.push_back(MakeField("u", MakeType(TypeId::kUInt16)));
  s.fields.push_back(MakeField("ts", TimestampType(TimeUnit::kSecond)));
  s.fields.push_back(MakeField("keep", MakeType(TypeId::kFloat64)));
  auto m = MapLanceSchema(s);
  ASSERT_TRUE(m.ok());
  const uint16_t u[] = {0, 65535, 7};
  const int64_t ts[] = {-1, 0, 1700000000};
  const double d[] = {1.5, 2.5, 3.5};
  RecordBatch b;
  b.schema = s;
  b.num_rows = 3;
  b.columns = {Primitive(TypeId::kUInt16, u, sizeof u, 3), Primitive(TypeId::kTimestamp, ts, sizeof ts, 3),
               Primitive(TypeId::kFloat64, d, sizeof d, 3)};
  b.columns[1].type = TimestampType(TimeUnit::kSecond);
  auto out = ConformBatch(b, *m);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->columns[0].type.id, TypeId::kInt32);
  EXPECT_EQ(out->columns[0].values<int32_t>()[1], 65535);
  EXPECT_EQ(out->columns[1].values<int64_t>()[0], -1000000);
  EXPECT_EQ(out->columns[1].values<int64_t>()[2], 1700000000000000);
  EXPECT_EQ(out->columns[2].buffers[1], b.columns[2].buffers[1]);  // untouched columns are shared
  const int64_t huge[] = {INT64_MAX / 10, 0, 0};
  b.columns[1] = Primitive(TypeId::kTimestamp, huge, sizeof huge, 3);
  b.columns[1].type = TimestampType(TimeUnit::kSecond);
  auto overflow = ConformBatch(b, *m);
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.status().message().find("'ts'"), std::string::npos);
}

// Collects every field-id / element-id in an Avro schema JSON.
void CollectIds(const json& j, std::set<int>* field_ids, std::set<int>* element_ids) {
  if (j.is_array()) {
    for (const json& e : j) CollectIds(e, field_ids, element_ids);
  } else if (j.is_object()) {
    if (j.contains("field-id")) field_ids->insert(j["field-id"].get<int>());
    if (j.contains("element-id")) element_ids->insert(j["element-id"].get<int>());
    for (const auto& [k, v] : j.items()) CollectIds(v, field_ids, element_ids);
  }
}

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

TEST(IcebergManifest, DataManifestHasJavaIdsHeaderKeysAndValues) {
  auto m = MapLanceSchema(NestedLanceSchema());
  ASSERT_TRUE(m.ok());
  DataFile f;
  f.file_path = "file:///t/data/00000.parquet";
  f.record_count = 42;
  f.file_size_in_bytes = 1234;
  f.value_counts = {{1, 42}};
  f.null_value_counts = {{1, 0}};
  f.lower_bounds = {{1, std::string("\x01\0\0\0\0\0\0\0", 8)}};
  for (avro::Codec codec : {avro::Codec::kNull, avro::Codec::kDeflate}) {
    auto bytes = WriteManifest({f, f}, false, m->schema, 0, 77, codec);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto file = avro::ReadFile(Bytes(*bytes));
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    for (const char* key : {"schema", "schema-id", "partition-spec", "partition-spec-id", "format-version", "content",
                            "iceberg.schema", "avro.schema", "avro.codec"}) {
      EXPECT_TRUE(file->metadata.count(key)) << key;
    }
    EXPECT_EQ(file->metadata["format-version"], "2");
    EXPECT_EQ(file->metadata["content"], "data");
    EXPECT_EQ(file->metadata["partition-spec"], "[]");
    EXPECT_EQ(json::parse(file->metadata["schema"]), json::parse(SchemaJson(m->schema, 0).dump()));
    std::set<int> field_ids, element_ids;
    const json schema = json::parse(file->schema_json);
    EXPECT_EQ(schema["name"], "manifest_entry");
    CollectIds(schema, &field_ids, &element_ids);
    EXPECT_EQ(field_ids,
              (std::set<int>{0,   1,   2,   3,   4,   100, 101, 102, 103, 104, 108, 109, 110, 117, 118, 119, 120,
                             121, 122, 125, 126, 127, 128, 129, 130, 131, 132, 134, 135, 137, 138, 139, 140, 143}));
    EXPECT_EQ(element_ids, (std::set<int>{133, 136}));
    EXPECT_NE(file->schema_json.find(R"("name":"r2")"), std::string::npos);
    EXPECT_NE(file->schema_json.find(R"("name":"r102")"), std::string::npos);
    EXPECT_NE(file->schema_json.find(R"("name":"k119_v120")"), std::string::npos);
    ASSERT_EQ(file->records.size(), 2u);
    const auto& entry = std::get<avro::Record>(file->records[0].v);
    EXPECT_EQ(*entry.Find("status"), avro::Value(int32_t{1}));
    EXPECT_EQ(*entry.Find("snapshot_id"), avro::Value(int64_t{77}));
    EXPECT_TRUE(entry.Find("sequence_number")->is_null());  // inherited from the manifest list
    const auto& df = std::get<avro::Record>(entry.Find("data_file")->v);
    EXPECT_EQ(*df.Find("file_path"), avro::Value("file:///t/data/00000.parquet"));
    EXPECT_EQ(*df.Find("file_format"), avro::Value("PARQUET"));
    EXPECT_EQ(*df.Find("record_count"), avro::Value(int64_t{42}));
    EXPECT_EQ(*df.Find("file_size_in_bytes"), avro::Value(int64_t{1234}));
    EXPECT_TRUE(df.Find("upper_bounds")->is_null());
    const auto& lower = std::get<avro::Array>(df.Find("lower_bounds")->v);
    ASSERT_EQ(lower.size(), 1u);
    EXPECT_EQ(*std::get<avro::Record>(lower[0].v).Find("value"),
              avro::Value(avro::Bytes{std::string("\x01\0\0\0\0\0\0\0", 8)}));
  }
}

TEST(IcebergManifest, ManifestListHasIdsAndHeaderKeys) {
  ManifestFile mf;
  mf.manifest_path = "file:///t/metadata/a-m0.avro";
  mf.manifest_length = 999;
  mf.sequence_number = mf.min_sequence_number = 1;
  mf.added_snapshot_id = 5;
  mf.added_files_count = 3;
  mf.added_rows_count = 300;
  auto bytes = WriteManifestList({mf}, 5, std::nullopt, 1, avro::Codec::kDeflate);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto file = avro::ReadFile(Bytes(*bytes));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->metadata["snapshot-id"], "5");
  EXPECT_EQ(file->metadata["parent-snapshot-id"], "null");
  EXPECT_EQ(file->metadata["sequence-number"], "1");
  EXPECT_EQ(file->metadata["format-version"], "2");
  EXPECT_EQ(file->metadata["avro.codec"], "deflate");
  std::set<int> field_ids, element_ids;
  CollectIds(json::parse(file->schema_json), &field_ids, &element_ids);
  EXPECT_EQ(field_ids, (std::set<int>{500, 501, 502, 503, 504, 505, 506, 507, 509, 510, 511, 512, 513, 514, 515, 516,
                                      517, 518, 519}));
  EXPECT_EQ(element_ids, std::set<int>{508});
  ASSERT_EQ(file->records.size(), 1u);
  const auto& r = std::get<avro::Record>(file->records[0].v);
  EXPECT_EQ(*r.Find("manifest_path"), avro::Value("file:///t/metadata/a-m0.avro"));
  EXPECT_EQ(*r.Find("manifest_length"), avro::Value(int64_t{999}));
  EXPECT_EQ(*r.Find("added_rows_count"), avro::Value(int64_t{300}));
  EXPECT_EQ(*r.Find("added_files_count"), avro::Value(int32_t{3}));
}

TEST(IcebergMetadata, V2JsonHasEveryRequiredKey) {
  auto m = MapLanceSchema(NestedLanceSchema());
  ASSERT_TRUE(m.ok());
  TableMetadata md;
  md.table_uuid = NewUuid();
  md.location = "file:///t";
  md.last_updated_ms = 1700000000000;
  md.schema = m->schema;
  md.last_column_id = m->last_column_id;
  Snapshot s;
  s.snapshot_id = NewSnapshotId();
  s.sequence_number = 1;
  s.timestamp_ms = md.last_updated_ms;
  s.manifest_list = "file:///t/metadata/snap.avro";
  s.summary = {{"operation", "append"}, {"lance.version", "3"}};
  md.snapshots.push_back(s);
  md.properties = {{"lance.dataset", "/data/ds"}};
  json j = json::parse(TableMetadataJson(md).dump());
  for (const char* key :
       {"format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms", "last-column-id",
        "schemas", "current-schema-id", "partition-specs", "default-spec-id", "last-partition-id", "sort-orders",
        "default-sort-order-id", "current-snapshot-id", "snapshots", "snapshot-log", "refs", "properties"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["format-version"], 2);
  EXPECT_EQ(j["last-column-id"], 7);
  EXPECT_EQ(j["last-sequence-number"], 1);
  EXPECT_EQ(j["current-snapshot-id"], s.snapshot_id);
  EXPECT_EQ(j["refs"]["main"]["snapshot-id"], s.snapshot_id);
  EXPECT_EQ(j["refs"]["main"]["type"], "branch");
  EXPECT_EQ(j["snapshots"][0]["summary"]["operation"], "append");
  EXPECT_EQ(j["snapshots"][0]["summary"]["lance.version"], "3");
  EXPECT_EQ(j["snapshots"][0]["manifest-list"], "file:///t/metadata/snap.avro");
  EXPECT_EQ(j["snapshot-log"][0]["snapshot-id"], s.snapshot_id);
  EXPECT_EQ(j["table-uuid"].get<std::string>().size(), 36u);
  EXPECT_EQ(j["table-uuid"].get<std::string>()[14], '4');

  md.snapshots.clear();
  json empty = json::parse(TableMetadataJson(md).dump());
  EXPECT_EQ(empty["current-snapshot-id"], -1);
  EXPECT_TRUE(empty["refs"].empty());
}

TEST(IcebergMetadata, SnapshotIdsArePositiveAndExactInJavaScript) {
  std::set<int64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    int64_t id = NewSnapshotId();
    EXPECT_GT(id, 0);
    EXPECT_LE(id, (int64_t{1} << 53) - 1);
    seen.insert(id);
  }
  EXPECT_GT(seen.size(), 990u);
}

}  // namespace
}  // namespace lancet::catalog::iceberg
