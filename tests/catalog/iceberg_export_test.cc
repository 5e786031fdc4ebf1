// ExportIceberg end to end on a local dataset: files laid out, exact record counts and
// sizes, per-column counts, metadata JSON, refusals that leave no table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lancet/catalog/iceberg.h"
#include "lancet/format/avro.h"
#include "lancet/format/parquet.h"
#include "lancet/io/object_store.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::catalog {
namespace {

namespace fs = std::filesystem;
namespace avro = format::avro;
using Json = nlohmann::json;

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path PathOf(const std::string& uri) {
  EXPECT_TRUE(uri.starts_with("file://")) << uri;
  return fs::path(uri.substr(7));
}

Result<avro::File> ReadAvro(const std::string& uri, std::string* bytes) {
  *bytes = ReadAll(PathOf(uri));
  return avro::ReadFile({reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()});
}

class IcebergExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("lancet_iceberg_export_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    ds_ = (root_ / "ds").string();
    std::vector<int64_t> ids;
    std::vector<std::optional<std::string>> names;
    std::vector<bool> valid;
    for (int64_t i = 0; i < 1000; ++i) {
      ids.push_back(i);
      names.push_back(i % 10 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(i)));
      valid.push_back(i % 7 != 0);
    }
    ASSERT_OK_AND_ASSIGN(Array id, ArrayFromVector(MakeType(TypeId::kInt64), ids));
    ASSERT_OK_AND_ASSIGN(Array u16,
                         ArrayFromVector(MakeType(TypeId::kUInt16), std::vector<uint16_t>(1000, 65535), valid));
    ASSERT_OK_AND_ASSIGN(RecordBatch batch, MakeRecordBatch({"id", "name", "u"}, {id, StringArray(names), u16}));
    batch.schema.fields[0].nullable = false;
    table::WriteParams params;
    params.max_rows_per_file = 300;
    ASSERT_OK(table::WriteDataset(ds_, batch.schema, {batch}, params).status());
    ASSERT_OK(table::DeleteWhere(**table::Dataset::Open(ds_), "id >= 900").status());
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
  std::string ds_;
};

TEST_F(IcebergExportTest, WritesAWholeTableWithExactCounts) {
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
  IcebergExportOptions options;
  options.rows_per_file = 256;
  const std::string table_dir = (root_ / "tbl").string();
  ASSERT_OK_AND_ASSIGN(IcebergExportResult r, ExportIceberg(*ds, ds_, table_dir, options));
  EXPECT_EQ(r.rows, 900u);
  EXPECT_EQ(r.lance_version, ds->version());
  EXPECT_GE(r.data_files.size(), 3u);  // 900 rows in files closed once past 256 rows
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("u: uint16"), std::string::npos);
  EXPECT_EQ(ReadAll(root_ / "tbl/metadata/version-hint.text"), "1");

  Json md = Json::parse(ReadAll(PathOf(r.metadata_file)));
  EXPECT_EQ(md["location"], "file://" + fs::absolute(table_dir).lexically_normal().string());
  EXPECT_EQ(md["current-snapshot-id"], r.snapshot_id);
  EXPECT_EQ(md["last-column-id"], 3);
  const Json& snap = md["snapshots"][0];
  EXPECT_EQ(snap["summary"]["lance.version"], std::to_string(ds->version()));
  EXPECT_EQ(snap["summary"]["lance.dataset"], ds_);
  EXPECT_EQ(snap["summary"]["total-records"], "900");

  std::string list_bytes, manifest_bytes;
  ASSERT_OK_AND_ASSIGN(avro::File list, ReadAvro(snap["manifest-list"], &list_bytes));
  EXPECT_EQ(list.codec, avro::Codec::kDeflate);
  ASSERT_EQ(list.records.size(), 1u);
  const auto& mf = std::get<avro::Record>(list.records[0].v);
  const std::string manifest_uri = std::get<std::string>(mf.Find("manifest_path")->v);
  ASSERT_OK_AND_ASSIGN(avro::File manifest, ReadAvro(manifest_uri, &manifest_bytes));
  EXPECT_EQ(*mf.Find("manifest_length"), avro::Value(static_cast<int64_t>(manifest_bytes.size())));
  EXPECT_EQ(*mf.Find("added_rows_count"), avro::Value(int64_t{900}));
  ASSERT_EQ(manifest.records.size(), r.data_files.size());

  int64_t rows = 0, name_nulls = 0, u_nulls = 0, id_values = 0;
  for (const avro::Value& e : manifest.records) {
    const auto& df = std::get<avro::Record>(std::get<avro::Record>(e.v).Find("data_file")->v);
    const fs::path p = PathOf(std::get<std::string>(df.Find("file_path")->v));
    const std::string bytes = ReadAll(p);
    EXPECT_EQ(bytes.substr(0, 4), "PAR1");
    EXPECT_EQ(bytes.substr(bytes.size() - 4), "PAR1");
    EXPECT_EQ(*df.Find("file_size_in_bytes"), avro::Value(static_cast<int64_t>(bytes.size())));
    const int64_t count = std::get<int64_t>(df.Find("record_count")->v);
    // Lancet's own Parquet reader: the Iceberg ids on the columns, the ids in order.
    ASSERT_OK_AND_ASSIGN(auto file, io::LocalFileSystem()->OpenRead(p.string()));
    std::shared_ptr<const io::RandomAccessFile> shared = std::move(file);
    ASSERT_OK_AND_ASSIGN(Schema pschema, format::ReadParquetSchema(*shared));
    ASSERT_EQ(pschema.fields.size(), 3u);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(pschema.fields[i].metadata[format::kParquetFieldIdKey], std::to_string(i + 1));
    EXPECT_EQ(pschema.fields[2].type.id, TypeId::kInt32);  // uint16 widened
    ASSERT_OK_AND_ASSIGN(auto reader, format::OpenParquetReader(shared));
    int64_t read_rows = 0;
    while (true) {
      ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
      if (!batch) break;
      for (int64_t r = 0; r < batch->num_rows; ++r) {
        const int64_t id = batch->columns[0].values<int64_t>()[r];
        EXPECT_LT(id, 900);
        EXPECT_EQ(batch->columns[2].IsNull(r), id % 7 == 0);
        if (!batch->columns[2].IsNull(r)) {
          EXPECT_EQ(batch->columns[2].values<int32_t>()[r], 65535);
        }
      }
      read_rows += batch->num_rows;
    }
    EXPECT_EQ(read_rows, count);
    EXPECT_LE(count, 256 + 300);  // rows_per_file, plus at most one batch
    rows += count;
    for (const avro::Value& kv : std::get<avro::Array>(df.Find("null_value_counts")->v)) {
      const auto& rec = std::get<avro::Record>(kv.v);
      const int32_t id = std::get<int32_t>(rec.Find("key")->v);
      (id == 2 ? name_nulls : id == 3 ? u_nulls : id_values) += std::get<int64_t>(rec.Find("value")->v);
    }
    for (const avro::Value& kv : std::get<avro::Array>(df.Find("value_counts")->v)) {
      const auto& rec = std::get<avro::Record>(kv.v);
      if (std::get<int32_t>(rec.Find("key")->v) == 1) id_values += std::get<int64_t>(rec.Find("value")->v);
    }
  }
  EXPECT_EQ(rows, 900);
  EXPECT_EQ(id_values, 900);  // id: 900 values, no nulls
  EXPECT_EQ(name_nulls, 90);  // every tenth of ids 0..899
  EXPECT_EQ(u_nulls, 129);    // every seventh of ids 0..899
}

TEST_F(IcebergExportTest, RefusesAnExistingTableAndLeavesItAlone) {
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
  const std::string table_dir = (root_ / "tbl").string();
  ASSERT_OK(ExportIceberg(*ds, ds_, table_dir).status());
  const std::string before = ReadAll(root_ / "tbl/metadata/v1.metadata.json");
  auto again = ExportIceberg(*ds, ds_, table_dir);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(ReadAll(root_ / "tbl/metadata/v1.metadata.json"), before);
}

TEST_F(IcebergExportTest, UnsupportedColumnLeavesNoTable) {
  ASSERT_OK_AND_ASSIGN(Array big, ArrayFromVector(MakeType(TypeId::kUInt64), std::vector<uint64_t>{1, 2}));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, MakeRecordBatch({"big"}, {big}));
  const std::string other = (root_ / "u64").string();
  ASSERT_OK(table::WriteDataset(other, batch.schema, {batch}).status());
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(other));
  auto r = ExportIceberg(*ds, other, (root_ / "bad").string());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotSupported());
  EXPECT_NE(r.status().message().find("'big'"), std::string::npos);
  EXPECT_FALSE(fs::exists(root_ / "bad/metadata/v1.metadata.json"));
}

}  // namespace
}  // namespace lancet::catalog
