// `lancet export ... out.parquet`: the format follows the suffix or --format, blob
// columns follow the IPC export's rules (--blob-bytes / --skip-blobs), and the codec
// names are checked against the output format. DuckDB checks the values themselves
// (tests/interop/parquet_write_interop.mjs).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli_test_util.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::cli {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

bool IsParquet(const std::string& bytes) {
  return bytes.size() >= 12 && bytes.starts_with("PAR1") && bytes.ends_with("PAR1");
}

// The footer: its length sits before the trailing magic.
std::string Footer(const std::string& bytes) {
  uint32_t length;
  std::memcpy(&length, bytes.data() + bytes.size() - 8, 4);
  return bytes.substr(bytes.size() - 8 - length, length);
}

// id int64 (field metadata), blob (a Blob V2 column), 200 rows in 2 fragments.
std::string MakeDataset(const ScopedTempDir& dir) {
  Schema schema;
  Field id = MakeField("id", MakeType(TypeId::kInt64), false);
  id.metadata["PARQUET:field_id"] = "42";
  schema.fields = {id, table::MakeBlobField("blob")};
  schema.metadata["owner"] = "parquet-export-test";
  std::vector<RecordBatch> batches;
  for (int b = 0; b < 2; ++b) {
    std::vector<int64_t> ids;
    std::vector<std::optional<std::string>> data, uris(100);
    std::vector<bool> valid;
    for (int i = 0; i < 100; ++i) {
      const int n = b * 100 + i;
      ids.push_back(n);
      data.push_back(n % 7 == 0 ? std::nullopt : std::optional<std::string>(std::string(n % 50, 'a' + n % 26)));
      valid.push_back(data.back().has_value());
    }
    Array blob = *MakeStructArray(
        schema.fields[1].type, 100,
        {*MakeBinaryArray(MakeType(TypeId::kLargeBinary), data), *MakeBinaryArray(MakeType(TypeId::kUtf8), uris)},
        valid);
    batches.push_back(RecordBatch{schema, 100, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), blob}});
  }
  const std::string ds = dir.Join("src.lance");
  table::WriteParams params;
  params.max_rows_per_file = 100;
  EXPECT_TRUE(table::WriteDataset(ds, schema, std::move(batches), params).ok());
  return ds;
}

TEST(ExportParquet, SuffixOrFormatPicksParquet) {
  ScopedTempDir dir;
  const std::string src = MakeDataset(dir);
  const std::string out = dir.Join("out.parquet");
  ASSERT_EQ(RunLancet({"export", src, out, "--skip-blobs"}), 0);
  const std::string bytes = ReadFile(out);
  ASSERT_TRUE(IsParquet(bytes));
  const std::string footer = Footer(bytes);
  EXPECT_NE(footer.find("ARROW:schema"), std::string::npos);
  EXPECT_NE(footer.find("parquet-export-test"), std::string::npos);  // schema metadata
  EXPECT_EQ(footer.find("blob"), std::string::npos);                 // left out
  // Any name with --format parquet; every codec.
  for (const char* codec : {"snappy", "gzip", "zstd", "lz4", "none"}) {
    const std::string named = dir.Join(std::string("out_") + codec + ".bin");
    ASSERT_EQ(RunLancet({"export", src, named, "--skip-blobs", "--format", "parquet", "--compression", codec,
                         "--row-group-rows", "64", "--no-dictionary"}),
              0)
        << codec;
    EXPECT_TRUE(IsParquet(ReadFile(named))) << codec;
  }
}

TEST(ExportParquet, BlobColumnsAsForIpc) {
  ScopedTempDir dir;
  const std::string src = MakeDataset(dir);
  const std::string out = dir.Join("blobs.parquet");
  // Refused without a choice, and nothing is left behind.
  EXPECT_NE(RunLancet({"export", src, out}), 0);
  EXPECT_FALSE(std::filesystem::exists(out));
  // --blob-bytes: struct<data: large_binary, uri: utf8> with the bytes inline.
  ASSERT_EQ(RunLancet({"export", src, out, "--blob-bytes", "--compression", "none"}), 0);
  const std::string bytes = ReadFile(out);
  ASSERT_TRUE(IsParquet(bytes));
  const std::string footer = Footer(bytes);
  for (const char* name : {"blob", "data", "uri"}) EXPECT_NE(footer.find(name), std::string::npos) << name;
  // Uncompressed, row 48's value (48 'w') is in the file as is.
  EXPECT_NE(bytes.find(std::string(48, 'a' + 48 % 26)), std::string::npos);
}

TEST(ExportParquet, CodecsBelongToTheirFormat) {
  ScopedTempDir dir;
  const std::string src = MakeDataset(dir);
  EXPECT_NE(RunLancet({"export", src, dir.Join("x.arrows"), "--skip-blobs", "--compression", "snappy"}), 0);
  EXPECT_NE(RunLancet({"export", src, dir.Join("x.arrows"), "--skip-blobs", "--compression", "gzip"}), 0);
  EXPECT_EQ(RunLancet({"export", src, dir.Join("x.parquet"), "--skip-blobs", "--compression", "zstd"}), 0);
  EXPECT_NE(RunLancet({"export", src, dir.Join("y.parquet"), "--skip-blobs", "--row-group-rows", "0"}), 0);
}

// Every type of the reference's corpus tables goes
// out to Parquet and comes back through `lancet import` with the same schema (the
// ARROW:schema footer key restores what Parquet's own types lose: large offsets, fixed
// size lists, date64, second units) and the same values, under each codec.
TEST(ExportParquet, CorpusRoundTripsThroughImport) {
  const char* corpus = std::getenv("LANCET_CORPUS_DIR");
  if (corpus == nullptr || !std::filesystem::exists(std::string(corpus) + "/data/types.lance")) {
    GTEST_SKIP() << "no corpus (LANCET_CORPUS_DIR)";
  }
  ScopedTempDir dir;
  for (const char* name : {"types", "types_extra", "evolution"}) {
    const std::string src = std::string(corpus) + "/data/" + name + ".lance";
    for (const char* codec : {"snappy", "zstd", "none"}) {
      SCOPED_TRACE(std::string(name) + " " + codec);
      const std::string out = dir.Join(std::string(name) + "_" + codec + ".parquet");
      const std::string back = dir.Join(std::string(name) + "_" + codec + ".lance");
      ASSERT_EQ(RunLancet({"export", src, out, "--compression", codec, "--row-group-rows", "7", "--blob-bytes"}), 0);
      ASSERT_EQ(RunLancet({"import", out, back}), 0);
      auto a = table::Dataset::Open(src);
      auto b = table::Dataset::Open(back);
      ASSERT_TRUE(a.ok() && b.ok());
      auto rows_a = (*a)->Scan({});
      auto rows_b = (*b)->Scan({});
      ASSERT_TRUE(rows_a.ok() && rows_b.ok());
      ASSERT_EQ((*a)->CountRows(), (*b)->CountRows());
      ASSERT_EQ((*a)->schema().fields.size(), (*b)->schema().fields.size());
      for (size_t f = 0; f < (*a)->schema().fields.size(); ++f) {
        const Field& fa = (*a)->schema().fields[f];
        const Field& fb = (*b)->schema().fields[f];
        EXPECT_EQ(fa.name, fb.name);
        EXPECT_EQ(fa.type, fb.type) << fa.name << ": " << fa.type.ToString() << " vs " << fb.type.ToString();
        EXPECT_EQ(fa.nullable, fb.nullable) << fa.name;
        // Values, compared row by row across differently cut batches.
        std::vector<Array> va, vb;
        for (const RecordBatch& batch : *rows_a) {
          for (int64_t i = 0; i < batch.num_rows; ++i) va.push_back(ArraySlice(batch.columns[f], i, 1));
        }
        for (const RecordBatch& batch : *rows_b) {
          for (int64_t i = 0; i < batch.num_rows; ++i) vb.push_back(ArraySlice(batch.columns[f], i, 1));
        }
        ASSERT_EQ(va.size(), vb.size());
        int64_t differ = 0;
        for (size_t i = 0; i < va.size(); ++i) differ += ArraysEqual(va[i], vb[i]) ? 0 : 1;
        EXPECT_EQ(differ, 0) << fa.name << " (" << fa.type.ToString() << ")";
      }
    }
  }
}

}  // namespace
}  // namespace lancet::cli
