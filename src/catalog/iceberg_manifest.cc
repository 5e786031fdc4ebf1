#include "catalog/iceberg_manifest.h"

namespace lancet::catalog::iceberg {
namespace {

namespace avro = format::avro;

Type P(const char* name) { return Type::Primitive(name); }

NestedField Req(int32_t id, const char* name, Type t) { return {id, name, true, std::move(t)}; }
NestedField Opt(int32_t id, const char* name, Type t) { return {id, name, false, std::move(t)}; }

// Stats maps are int → long or int → binary, stored as arrays of k<id>_v<id> records.
NestedField StatsMap(int32_t id, const char* name, int32_t key_id, int32_t value_id, const char* value) {
  return Opt(id, name, Type::Map(key_id, P("int"), value_id, true, P(value)));
}

avro::Value LongMap(const std::map<int32_t, int64_t>& m) {
  if (m.empty()) return avro::Value();
  avro::Array entries;
  for (const auto& [k, v] : m) entries.push_back(avro::Record{{{"key", k}, {"value", v}}});
  return entries;
}

avro::Value BytesMap(const std::map<int32_t, std::string>& m) {
  if (m.empty()) return avro::Value();
  avro::Array entries;
  for (const auto& [k, v] : m) entries.push_back(avro::Record{{{"key", k}, {"value", avro::Bytes{v}}}});
  return entries;
}

Result<std::string> WriteAvro(const Type& type, const char* record_name, const std::vector<avro::Value>& records,
                              std::vector<std::pair<std::string, std::string>> meta, avro::Codec codec) {
  meta.emplace_back("iceberg.schema", SchemaJson(type, 0).dump());
  std::string out;
  avro::WriteOptions options;
  options.codec = codec;
  ASSIGN_OR_RETURN(auto writer, avro::Writer::Open(
                                    [&out](std::span<const uint8_t> b) {
                                      out.append(reinterpret_cast<const char*>(b.data()), b.size());
                                      return Status::OK();
                                    },
                                    ToAvroSchema(type, record_name).dump(), std::move(meta), options));
  for (const avro::Value& r : records) RETURN_IF_ERROR(writer->Append(r));
  RETURN_IF_ERROR(writer->Finish());
  return out;
}

}  // namespace

Type ManifestEntryType() {
  Type data_file = Type::Struct({
      Req(134, "content", P("int")),
      Req(100, "file_path", P("string")),
      Req(101, "file_format", P("string")),
      Req(102, "partition", Type::Struct({})),
      Req(103, "record_count", P("long")),
      Req(104, "file_size_in_bytes", P("long")),
      StatsMap(108, "column_sizes", 117, 118, "long"),
      StatsMap(109, "value_counts", 119, 120, "long"),
      StatsMap(110, "null_value_counts", 121, 122, "long"),
      StatsMap(137, "nan_value_counts", 138, 139, "long"),
      StatsMap(125, "lower_bounds", 126, 127, "binary"),
      StatsMap(128, "upper_bounds", 129, 130, "binary"),
      Opt(131, "key_metadata", P("binary")),
      Opt(132, "split_offsets", Type::List(133, true, P("long"))),
      Opt(135, "equality_ids", Type::List(136, true, P("int"))),
      Opt(140, "sort_order_id", P("int")),
      Opt(143, "referenced_data_file", P("string")),
  });
  return Type::Struct({
      Req(0, "status", P("int")),
      Opt(1, "snapshot_id", P("long")),
      Opt(3, "sequence_number", P("long")),
      Opt(4, "file_sequence_number", P("long")),
      Req(2, "data_file", std::move(data_file)),
  });
}

Type ManifestFileType() {
  Type summary = Type::Struct({
      Req(509, "contains_null", P("boolean")),
      Opt(518, "contains_nan", P("boolean")),
      Opt(510, "lower_bound", P("binary")),
      Opt(511, "upper_bound", P("binary")),
  });
  return Type::Struct({
      Req(500, "manifest_path", P("string")),
      Req(501, "manifest_length", P("long")),
      Req(502, "partition_spec_id", P("int")),
      Req(517, "content", P("int")),
      Req(515, "sequence_number", P("long")),
      Req(516, "min_sequence_number", P("long")),
      Req(503, "added_snapshot_id", P("long")),
      Req(504, "added_files_count", P("int")),
      Req(505, "existing_files_count", P("int")),
      Req(506, "deleted_files_count", P("int")),
      Req(512, "added_rows_count", P("long")),
      Req(513, "existing_rows_count", P("long")),
      Req(514, "deleted_rows_count", P("long")),
      Opt(507, "partitions", Type::List(508, true, std::move(summary))),
      Opt(519, "key_metadata", P("binary")),
  });
}

Result<std::string> WriteManifest(const std::vector<DataFile>& files, bool deletes, const Type& table_schema,
                                  int32_t schema_id, int64_t snapshot_id, avro::Codec codec) {
  std::vector<avro::Value> entries;
  for (const DataFile& f : files) {
    avro::Record data_file{{
        {"content", f.content},
        {"file_path", f.file_path},
        {"file_format", "PARQUET"},
        {"partition", avro::Record{}},
        {"record_count", f.record_count},
        {"file_size_in_bytes", f.file_size_in_bytes},
        {"value_counts", LongMap(f.value_counts)},
        {"null_value_counts", LongMap(f.null_value_counts)},
        {"nan_value_counts", LongMap(f.nan_value_counts)},
        {"lower_bounds", BytesMap(f.lower_bounds)},
        {"upper_bounds", BytesMap(f.upper_bounds)},
    }};
    // ADDED entries leave both sequence numbers null: readers inherit the manifest's.
    entries.push_back(
        avro::Record{{{"status", int32_t{1}}, {"snapshot_id", snapshot_id}, {"data_file", std::move(data_file)}}});
  }
  return WriteAvro(ManifestEntryType(), "manifest_entry", entries,
                   {{"schema", SchemaJson(table_schema, schema_id).dump()},
                    {"schema-id", std::to_string(schema_id)},
                    {"partition-spec", "[]"},
                    {"partition-spec-id", "0"},
                    {"format-version", "2"},
                    {"content", deletes ? "deletes" : "data"}},
                   codec);
}

Result<std::string> WriteManifestList(const std::vector<ManifestFile>& manifests, int64_t snapshot_id,
                                      std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                                      avro::Codec codec, const std::vector<avro::Value>& carried) {
  std::vector<avro::Value> records = carried;
  for (const ManifestFile& m : manifests) {
    records.push_back(avro::Record{{
        {"manifest_path", m.manifest_path},
        {"manifest_length", m.manifest_length},
        {"partition_spec_id", int32_t{0}},
        {"content", m.content},
        {"sequence_number", m.sequence_number},
        {"min_sequence_number", m.min_sequence_number},
        {"added_snapshot_id", m.added_snapshot_id},
        {"added_files_count", m.added_files_count},
        {"existing_files_count", int32_t{0}},
        {"deleted_files_count", int32_t{0}},
        {"added_rows_count", m.added_rows_count},
        {"existing_rows_count", int64_t{0}},
        {"deleted_rows_count", int64_t{0}},
        {"partitions", avro::Array{}},
    }});
  }
  return WriteAvro(ManifestFileType(), "manifest_file", records,
                   {{"snapshot-id", std::to_string(snapshot_id)},
                    {"parent-snapshot-id", parent_snapshot_id ? std::to_string(*parent_snapshot_id) : "null"},
                    {"sequence-number", std::to_string(sequence_number)},
                    {"format-version", "2"}},
                   codec);
}

}  // namespace lancet::catalog::iceberg
