// The write subcommands end to end: import, export, delete, tag, restore,
// add-columns, compact and cleanup on real datasets in a private temp dir.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cli_test_util.h"
#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "lancet/schema_json.h"
#include "lancet/table/dataset.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

constexpr const char* kSchema = R"({"fields": [
  {"name": "id", "type": "int64", "nullable": false, "metadata": {"role": "key"}},
  {"name": "name", "type": "utf8"},
  {"name": "score", "type": "float32"},
  {"name": "dec", "type": "decimal128", "precision": 12, "scale": 2},
  {"name": "blob", "type": "binary"},
  {"name": "ts", "type": "timestamp", "unit": "us", "timezone": "UTC"},
  {"name": "tags", "type": "list", "children": [{"name": "item", "type": "int32"}]},
  {"name": "pt", "type": "struct", "children": [{"name": "x", "type": "float64"}, {"name": "y", "type": "utf8"}]}
], "metadata": {"owner": "cli-test"}})";

std::string Row(int i) {
  std::string name = i % 6 == 5 ? "null" : "\"n" + std::to_string(i) + "\\u00e9\"";
  return "{\"id\": " + std::to_string(i) + ", \"name\": " + name +
         ", \"score\": " + (i % 7 == 0 ? std::string("\"NaN\"") : std::to_string(i) + ".5") + ", \"dec\": \"" +
         std::to_string(i * 101) + "\", \"blob\": \"" + (i % 2 ? "00ff" : "") + "\", \"ts\": \"" +
         std::to_string(1700000000000000LL + i) + "\", \"tags\": [" + (i % 3 ? std::to_string(i) : "") +
         "], \"pt\": " + (i % 4 == 3 ? std::string("null") : "{\"x\": -0.5, \"y\": \"p\"}") + "}\n";
}

std::string Rows(int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) out += Row(i);
  return out;
}

class WriteCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = dir_.Join("schema.json");
    WriteTextFile(schema_, kSchema);
    rows_ = dir_.Join("rows.ndjson");
    WriteTextFile(rows_, Rows(0, 50));
    ds_ = dir_.Join("ds.lance");
  }
  std::unique_ptr<table::Dataset> Open(const std::string& path) {
    auto ds = table::Dataset::Open(path);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? std::move(*ds) : nullptr;
  }
  int Import(const std::string& src, const std::string& ds, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"import", src, ds, "--schema", schema_};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunLancet(args);
  }
  std::vector<std::string> Listing(const std::string& path) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path)) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  ScopedTempDir dir_;
  std::string schema_, rows_, ds_;
};

TEST_F(WriteCommandsTest, ImportExportImportIsExact) {
  ASSERT_EQ(Import(rows_, ds_, {"--max-rows-per-file", "16"}), 0);
  auto ds = Open(ds_);
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->CountRows(), 50u);
  EXPECT_EQ(ds->fragments().size(), 4u);
  EXPECT_EQ(ds->schema().fields[0].metadata.at("role"), "key");
  EXPECT_EQ(ds->schema().metadata.at("owner"), "cli-test");
  const std::vector<Array> original = ScanAll(ds_);
  for (const char* name : {"out.arrows", "out.arrow"}) {
    const std::string out = dir_.Join(name);
    for (const char* compression : {"none", "zstd", "lz4"}) {
      SCOPED_TRACE(out + " " + compression);
      ASSERT_EQ(RunLancet({"export", ds_, out, "--compression", compression}), 0);
      const std::string copy = dir_.Join("copy.lance");
      std::filesystem::remove_all(copy);
      ASSERT_EQ(RunLancet({"import", out, copy}), 0);
      auto back = Open(copy);
      ASSERT_NE(back, nullptr);
      ASSERT_EQ(back->schema().fields.size(), ds->schema().fields.size());
      for (size_t i = 0; i < ds->schema().fields.size(); ++i) {
        EXPECT_EQ(back->schema().fields[i], ds->schema().fields[i]) << ds->schema().fields[i].ToString();
      }
      EXPECT_EQ(back->schema().metadata, ds->schema().metadata);
      const std::vector<Array> copied = ScanAll(copy);
      ASSERT_EQ(copied.size(), original.size());
      for (size_t c = 0; c < original.size(); ++c) EXPECT_TRUE(ArraysEqual(copied[c], original[c])) << c;
    }
  }
  // --format overrides the extension; the file format starts with its magic.
  ASSERT_EQ(RunLancet({"export", ds_, dir_.Join("x.arrows"), "--format", "file", "--version", "1"}), 0);
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, ReadWholeFile(dir_.Join("x.arrows")));
  EXPECT_EQ(bytes->view().substr(0, 6), "ARROW1");
}

TEST_F(WriteCommandsTest, ExportPicksColumnsAndRows) {
  ASSERT_EQ(Import(rows_, ds_, {"--max-rows-per-file", "16"}), 0);
  const std::string out = dir_.Join("part.arrows");
  ASSERT_EQ(RunLancet({"export", ds_, out, "--columns", "name,id", "--where", "id >= 10 AND id < 20"}), 0);
  const std::string copy = dir_.Join("part.lance");
  ASSERT_EQ(RunLancet({"import", out, copy}), 0);
  auto back = Open(copy);
  ASSERT_NE(back, nullptr);
  ASSERT_EQ(back->schema().fields.size(), 2u);
  EXPECT_EQ(back->schema().fields[0].name, "name");
  EXPECT_EQ(back->schema().fields[1].name, "id");
  EXPECT_EQ(back->schema().fields[1].metadata.at("role"), "key") << "field metadata kept";
  const std::vector<Array> cols = ScanAll(copy);
  ASSERT_EQ(cols[1].length, 10);
  for (int64_t r = 0; r < 10; ++r) EXPECT_EQ(cols[1].values<int64_t>()[r], 10 + r);
  EXPECT_EQ(RunLancet({"export", ds_, out, "--columns", "id,nosuch"}), kExitFailure);
  EXPECT_EQ(RunLancet({"export", ds_, out, "--where", "id >"}), kExitFailure);
}

TEST_F(WriteCommandsTest, AppendAndOverwrite) {
  ASSERT_EQ(Import(rows_, ds_), 0);
  const std::string more = dir_.Join("more.ndjson");
  WriteTextFile(more, Rows(50, 60));
  ASSERT_EQ(Import(more, ds_, {"--mode", "append"}), 0);
  EXPECT_EQ(Open(ds_)->CountRows(), 60u);
  EXPECT_EQ(Open(ds_)->version(), 2u);
  EXPECT_EQ(Import(more, ds_), kExitFailure) << "create on an existing dataset";
  ASSERT_EQ(Import(more, ds_, {"--mode", "overwrite"}), 0);
  EXPECT_EQ(Open(ds_)->CountRows(), 10u);
  EXPECT_EQ(RunLancet({"import", rows_, ds_, "--schema", schema_, "--mode", "upsert"}), kExitUsage);
  EXPECT_EQ(RunLancet({"import", rows_, ds_, "--mode", "append"}), kExitFailure) << "NDJSON without --schema";
}

TEST_F(WriteCommandsTest, FailedImportsLeaveTheDatasetUntouched) {
  ASSERT_EQ(Import(rows_, ds_), 0);
  const std::vector<std::string> before = Listing(ds_);
  // Another schema.
  RecordBatch other;
  other.schema.fields = {MakeField("id", MakeType(TypeId::kInt32))};
  other.num_rows = 2;
  other.columns = {*ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2})};
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, format::WriteIpcStream(other.schema, {other}));
  const std::string mismatch = dir_.Join("other.arrows");
  WriteTextFile(mismatch, std::string(stream->view()));
  EXPECT_EQ(RunLancet({"import", mismatch, ds_, "--mode", "append"}), kExitFailure);
  // A truncated copy of a valid export.
  ASSERT_EQ(RunLancet({"export", ds_, dir_.Join("full.arrow")}), 0);
  ASSERT_OK_AND_ASSIGN(BufferPtr full, ReadWholeFile(dir_.Join("full.arrow")));
  const std::string cut = dir_.Join("cut.arrow");
  WriteTextFile(cut, std::string(full->view().substr(0, full->size() / 2)));
  EXPECT_EQ(RunLancet({"import", cut, ds_, "--mode", "append"}), kExitFailure);
  // A bad NDJSON line late in the file.
  const std::string bad = dir_.Join("bad.ndjson");
  WriteTextFile(bad, Rows(0, 30) + "{\"id\": \"x\"}\n");
  EXPECT_EQ(Import(bad, ds_, {"--mode", "append"}), kExitFailure);
  EXPECT_EQ(Listing(ds_), before);
  EXPECT_EQ(Open(ds_)->version(), 1u);
}

TEST_F(WriteCommandsTest, DeleteTagRestore) {
  ASSERT_EQ(Import(rows_, ds_, {"--max-rows-per-file", "20"}), 0);
  EXPECT_EQ(RunLancet({"delete", ds_}), kExitUsage);
  EXPECT_EQ(RunLancet({"delete", ds_, "--where", "id < 5", "--rows", "1"}), kExitUsage);
  EXPECT_EQ(RunLancet({"delete", ds_, "--rows", "1,x"}), kExitUsage);
  ASSERT_EQ(RunLancet({"delete", ds_, "--rows", "0, 1,4294967296"}), 0);  // ids 0, 1, 20
  EXPECT_EQ(Open(ds_)->CountRows(), 47u);
  ASSERT_EQ(RunLancet({"delete", ds_, "--where", "id >= 40 OR name IS NULL"}), 0);
  // 40..49 (10) plus null names at 5, 11, 17, 23, 29, 35 (20 was gone already: 41, 47 in range).
  EXPECT_EQ(Open(ds_)->CountRows(), 31u);
  EXPECT_EQ(Open(ds_)->version(), 3u);
  ASSERT_EQ(RunLancet({"delete", ds_, "--where", "id > 1000"}), 0);
  EXPECT_EQ(Open(ds_)->version(), 3u) << "no match, no version";
  EXPECT_EQ(RunLancet({"delete", ds_, "--where", "nosuch = 1"}), kExitFailure);
  EXPECT_EQ(RunLancet({"delete", ds_, "--rows", "999999999999"}), kExitFailure);

  ASSERT_EQ(RunLancet({"tag", ds_, "create", "start", "1"}), 0);
  ASSERT_EQ(RunLancet({"tag", ds_, "create", "now"}), 0);
  EXPECT_EQ(RunLancet({"tag", ds_, "create", "now"}), kExitFailure) << "exists";
  EXPECT_EQ(RunLancet({"tag", ds_, "create", "later", "99"}), kExitFailure) << "no such version";
  EXPECT_EQ(RunLancet({"tag", ds_}), kExitUsage);
  ASSERT_EQ(RunLancet({"tag", ds_, "list"}), 0);
  auto tags = Open(ds_)->ListTags();
  ASSERT_TRUE(tags.ok());
  EXPECT_EQ(*tags, (std::map<std::string, uint64_t>{{"now", 3}, {"start", 1}}));
  // The order of branch and index (subcommand, then dataset) works as well.
  ASSERT_EQ(RunLancet({"tag", "create", ds_, "mid", "2"}), 0);
  EXPECT_EQ(RunLancet({"tag", "create", ds_}), kExitUsage) << "no name";
  EXPECT_EQ(RunLancet({"tag", "create", ds_, "x", "y"}), kExitUsage) << "bad version";
  EXPECT_EQ(RunLancet({"tag", "list", ds_, "extra"}), kExitUsage);
  ASSERT_EQ(RunLancet({"tag", "delete", ds_, "mid"}), 0);
  ASSERT_EQ(RunLancet({"tag", "list", ds_}), 0);
  ASSERT_EQ(RunLancet({"tag", ds_, "delete", "now"}), 0);
  EXPECT_EQ(RunLancet({"tag", ds_, "delete", "now"}), kExitFailure);
  EXPECT_EQ(Open(ds_)->ListTags()->size(), 1u);

  ASSERT_EQ(RunLancet({"restore", ds_, "1"}), 0);
  auto restored = Open(ds_);
  EXPECT_EQ(restored->version(), 4u);
  EXPECT_EQ(restored->CountRows(), 50u);
  EXPECT_EQ(RunLancet({"restore", ds_, "77"}), kExitFailure);
  // Export of an older version by tag.
  ASSERT_EQ(RunLancet({"export", ds_, dir_.Join("v1.arrows"), "--tag", "start"}), 0);
  ASSERT_EQ(RunLancet({"import", dir_.Join("v1.arrows"), dir_.Join("v1.lance")}), 0);
  EXPECT_EQ(Open(dir_.Join("v1.lance"))->CountRows(), 50u);
}

TEST_F(WriteCommandsTest, AddColumnsCompactCleanup) {
  ASSERT_EQ(Import(rows_, ds_, {"--max-rows-per-file", "10"}), 0);
  ASSERT_EQ(RunLancet({"delete", ds_, "--where", "id < 3"}), 0);
  const std::string extra_schema = dir_.Join("extra.json");
  WriteTextFile(extra_schema, R"({"fields": [{"name": "double_id", "type": "int64"}]})");
  std::string extra;
  for (int i = 3; i < 50; ++i) extra += "{\"double_id\": " + std::to_string(2 * i) + "}\n";
  const std::string extra_rows = dir_.Join("extra.ndjson");
  WriteTextFile(extra_rows, extra);
  const std::string short_rows = dir_.Join("short.ndjson");
  WriteTextFile(short_rows, "{\"double_id\": 1}\n");
  EXPECT_EQ(RunLancet({"add-columns", ds_, short_rows, "--schema", extra_schema}), kExitFailure);
  ASSERT_EQ(RunLancet({"add-columns", ds_, extra_rows, "--schema", extra_schema}), 0);
  auto cols = ScanAll(ds_);
  ASSERT_EQ(cols.size(), 9u);
  for (int64_t i = 0; i < cols[0].length; ++i) {
    EXPECT_EQ(cols[8].values<int64_t>()[i], 2 * cols[0].values<int64_t>()[i]);
  }
  const uint64_t before_compact = Open(ds_)->version();
  EXPECT_EQ(RunLancet({"compact", ds_, "--target-rows", "0"}), kExitUsage);
  ASSERT_EQ(RunLancet({"compact", ds_, "--target-rows", "100"}), 0);
  auto compacted = Open(ds_);
  EXPECT_EQ(compacted->version(), before_compact + 1);
  EXPECT_EQ(compacted->fragments().size(), 1u);
  EXPECT_EQ(compacted->CountRows(), 47u);
  const auto after = ScanAll(ds_);
  ASSERT_EQ(after.size(), cols.size());
  for (size_t c = 0; c < cols.size(); ++c) EXPECT_TRUE(ArraysEqual(after[c], cols[c])) << c;

  EXPECT_EQ(RunLancet({"cleanup", ds_, "--older-than", "soon"}), kExitUsage);
  ASSERT_EQ(RunLancet({"cleanup", ds_, "--older-than", "0s"}), 0);
  auto versions = Open(ds_)->ListVersions();
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 1u);
  EXPECT_EQ(versions->front().version, compacted->version());
  const auto final_cols = ScanAll(ds_);
  for (size_t c = 0; c < cols.size(); ++c) EXPECT_TRUE(ArraysEqual(final_cols[c], cols[c])) << c;
}

TEST_F(WriteCommandsTest, ExportRefusesBlobColumnsUnlessSkipped) {
  const char* corpus = std::getenv("LANCET_CORPUS_DIR");
  const std::string blobs = corpus ? std::string(corpus) + "/data/blobs.lance" : "";
  if (blobs.empty() || !std::filesystem::exists(blobs)) GTEST_SKIP() << "no corpus (LANCET_CORPUS_DIR)";
  EXPECT_EQ(RunLancet({"export", blobs, dir_.Join("b.arrows")}), kExitFailure);
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("b.arrows")));
  ASSERT_EQ(RunLancet({"export", blobs, dir_.Join("b.arrows"), "--skip-blobs"}), 0);
  ASSERT_EQ(RunLancet({"import", dir_.Join("b.arrows"), dir_.Join("b.lance")}), 0);
  auto ds = Open(dir_.Join("b.lance"));
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->CountRows(), 15u);
  for (const Field& f : ds->schema().fields) EXPECT_FALSE(IsBlobV2Field(f)) << f.name;
}

}  // namespace
}  // namespace lancet::cli
