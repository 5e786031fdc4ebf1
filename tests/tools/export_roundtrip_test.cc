// `lancet export` then `lancet import` gives back the schema exactly (field and schema
// metadata included), also for blob columns with and without their own thresholds,
// and the export streams batch by batch into the output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_test_util.h"
#include "format/ipc_reader.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

Array BlobInput(const std::vector<std::optional<std::string>>& values) {
  std::vector<std::optional<std::string>> uris(values.size());
  std::vector<bool> valid;
  for (const auto& v : values) valid.push_back(v.has_value());
  Array data = *MakeBinaryArray(MakeType(TypeId::kLargeBinary), values);
  Array uri = *MakeBinaryArray(MakeType(TypeId::kUtf8), uris);
  return *MakeStructArray(table::MakeBlobField("x").type, static_cast<int64_t>(values.size()), {data, uri}, valid);
}

// id (with field metadata), `with` (a blob column with thresholds), `without` (a blob
// column with none), schema metadata; `batches` batches of 50 rows.
std::string MakeDataset(const ScopedTempDir& dir, int batches) {
  Schema schema;
  Field id = MakeField("id", MakeType(TypeId::kInt64), false);
  id.metadata["role"] = "key";
  table::BlobThresholds t;
  t.inline_max = 16;
  t.dedicated_min = 1000;
  schema.fields = {id, table::MakeBlobField("with", true, t), table::MakeBlobField("without")};
  schema.metadata["owner"] = "export-test";
  std::vector<RecordBatch> rows;
  for (int b = 0; b < batches; ++b) {
    std::vector<int64_t> ids;
    std::vector<std::optional<std::string>> blobs;
    for (int i = 0; i < 50; ++i) {
      const int n = b * 50 + i;
      ids.push_back(n);
      blobs.push_back(n % 9 == 0 ? std::nullopt : std::optional<std::string>(std::string(n * 37 % 2000, 'a' + n % 26)));
    }
    rows.push_back(
        RecordBatch{schema, 50, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), BlobInput(blobs), BlobInput(blobs)}});
  }
  const std::string ds = dir.Join("src.lance");
  table::WriteParams params;
  params.max_rows_per_file = 120;
  EXPECT_TRUE(table::WriteDataset(ds, schema, std::move(rows), params).ok());
  return ds;
}

TEST(ExportRoundTrip, SchemaAndMetadataComeBackExactly) {
  ScopedTempDir dir;
  const std::string src = MakeDataset(dir, 6);
  ASSERT_OK_AND_ASSIGN(auto a, table::Dataset::Open(src));
  ASSERT_EQ(a->schema().fields[2].metadata.count(table::kBlobInlineThresholdKey), 0u);
  for (const char* out_name : {"out.arrows", "out.arrow"}) {
    SCOPED_TRACE(out_name);
    const std::string out = dir.Join(out_name);
    ASSERT_EQ(RunLancet({"export", src, out, "--blob-bytes"}), 0);
    // The exported fields carry the dataset's metadata, nothing added.
    std::ifstream in(out, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    auto read = std::string(out_name).ends_with(".arrow") ? format::ReadIpcFileData(Buffer::Copy(bytes))
                                                          : format::ReadIpcStreamData(Buffer::Copy(bytes));
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_EQ(read->schema.fields.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(read->schema.fields[i].metadata, a->schema().fields[i].metadata) << i;
    EXPECT_EQ(read->schema.metadata, a->schema().metadata);
    // Several fragments, several batches: the output is written batch by batch.
    EXPECT_GE(read->batches.size(), 3u);

    const std::string copy = dir.Join(std::string(out_name) + ".lance");
    ASSERT_EQ(RunLancet({"import", out, copy}), 0);
    ASSERT_OK_AND_ASSIGN(auto b, table::Dataset::Open(copy));
    ASSERT_EQ(b->schema().fields.size(), a->schema().fields.size());
    for (size_t i = 0; i < a->schema().fields.size(); ++i) {
      EXPECT_EQ(b->schema().fields[i], a->schema().fields[i]) << a->schema().fields[i].name;
    }
    EXPECT_EQ(b->schema().metadata, a->schema().metadata);
    EXPECT_EQ(b->CountRows(), 300u);
    // The source has fragments of 120 rows, the copy one fragment.
    const std::vector<uint64_t> src_rows = {0, 1, 2, (uint64_t{1} << 32) | 11, (uint64_t{2} << 32) | 59};
    const std::vector<uint64_t> copy_rows = {0, 1, 2, 131, 299};
    for (const char* column : {"with", "without"}) {
      ASSERT_OK_AND_ASSIGN(auto want, a->TakeBlobs(column, src_rows, table::RowKey::kRowAddress));
      ASSERT_OK_AND_ASSIGN(auto got, b->TakeBlobs(column, copy_rows, table::RowKey::kRowAddress));
      ASSERT_EQ(want.size(), got.size());
      for (size_t r = 0; r < want.size(); ++r) {
        ASSERT_EQ(want[r].has_value(), got[r].has_value()) << column << " " << r;
        if (want[r]) {
          EXPECT_EQ((*want[r])->view(), (*got[r])->view()) << column << " " << r;
        }
      }
    }
  }
}

TEST(ExportRoundTrip, FailedExportLeavesNoFile) {
  ScopedTempDir dir;
  const std::string src = MakeDataset(dir, 2);
  const std::string out = dir.Join("out.arrows");
  // Blob columns without --blob-bytes or --skip-blobs are refused before any output.
  EXPECT_NE(RunLancet({"export", src, out}), 0);
  EXPECT_FALSE(std::filesystem::exists(out));
  // A data file gone under the scan fails the export midway: no output, no temporary.
  for (const auto& e : std::filesystem::directory_iterator(src + "/data")) {
    if (e.is_regular_file()) {
      std::filesystem::remove(e.path());
      break;
    }
  }
  EXPECT_NE(RunLancet({"export", src, out, "--skip-blobs"}), 0);
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename().string().find("out.arrows"), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace lancet::cli
