// Import sources: format detection, UTF-8 checks, bad IPC and Parquet input, durations.
#include "lancet/import_source.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "cli_test_util.h"
#include "format/ipc_writer.h"
#include "lancet/cli_common.h"
#include "util/array_builder.h"
#include "util/array_json.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

TEST(ImportSourceTest, DetectsFormats) {
  EXPECT_EQ(*DetectFormat(std::string("ARROW1\0\0", 8)), SourceFormat::kIpcFile);
  EXPECT_EQ(*DetectFormat(std::string("\xFF\xFF\xFF\xFF\x10\0\0\0", 8)), SourceFormat::kIpcStream);
  EXPECT_EQ(*DetectFormat("  \n{\"a\": 1}"), SourceFormat::kNdjson);
  EXPECT_EQ(*DetectFormat(std::string("PAR1\x15\x04", 6)), SourceFormat::kParquet);
  EXPECT_FALSE(DetectFormat("hello world, not data").ok());
  EXPECT_FALSE(DetectFormat("").ok());
}

RecordBatch Utf8Batch(std::vector<std::optional<std::string>> values) {
  Array a = *MakeBinaryArray(MakeType(TypeId::kUtf8), values);
  RecordBatch b;
  b.schema.fields = {MakeField("s", MakeType(TypeId::kUtf8))};
  b.num_rows = a.length;
  b.columns = {a};
  return b;
}

TEST(ImportSourceTest, CheckUtf8NamesColumnAndRow) {
  EXPECT_OK(CheckUtf8(Utf8Batch({"plain", std::nullopt, "\xC3\xA9t\xC3\xA9", "\xF0\x9F\x98\x80"})));
  for (const char* bad : {"\xC3\x28", "\xE0\x80\xAF" /* overlong */, "\xED\xA0\x80" /* surrogate */,
                          "\xF4\x90\x80\x80" /* past U+10FFFF */, "abc\xC3"}) {
    Status st = CheckUtf8(Utf8Batch({"fine", bad}), 100);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.message(), "row 101: column 's': invalid UTF-8");
  }
  // Nested inside a struct in a list.
  DataType t = ListOf(MakeField("item", StructOf({MakeField("x", MakeType(TypeId::kUtf8))})));
  ASSERT_OK_AND_ASSIGN(Array nested, ArrayFromJson(t, R"([[{"x": "a"}], [{"x": "b"}, {"x": "c"}]])"));
  // Corrupt the byte of "c" in the shared character data.
  Array& x = nested.children[0].children[0];
  auto data = Buffer::Copy(x.buffers[2]->view());
  data->mutable_data()[2] = 0xFF;
  x.buffers[2] = data;
  RecordBatch b{Schema{{MakeField("l", t)}, {}}, 2, {nested}};
  Status st = CheckUtf8(b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "row 1: column 'l.x': invalid UTF-8");
}

TEST(ImportSourceTest, IpcErrorsNameTheFile) {
  ScopedTempDir dir;
  RecordBatch good = Utf8Batch({"a", "b"});
  ASSERT_OK_AND_ASSIGN(BufferPtr file, format::WriteIpcFile(good.schema, {good}));
  const std::string truncated = dir.Join("truncated.arrow");
  WriteTextFile(truncated, std::string(file->view().substr(0, file->size() - 20)));
  auto r = ReadImportSource(truncated, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("truncated.arrow (Arrow IPC file)"), std::string::npos) << r.status().message();

  RecordBatch bad = Utf8Batch({"a", "b\xFF"});
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, format::WriteIpcStream(bad.schema, {good, bad}));
  const std::string invalid = dir.Join("invalid.arrows");
  WriteTextFile(invalid, std::string(stream->view()));
  r = ReadImportSource(invalid, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), invalid + ": row 3: column 's': invalid UTF-8");

  const std::string ok = dir.Join("ok.arrows");
  ASSERT_OK_AND_ASSIGN(BufferPtr ok_stream, format::WriteIpcStream(good.schema, {good, good}));
  WriteTextFile(ok, std::string(ok_stream->view()));
  ASSERT_OK_AND_ASSIGN(ImportSource src, ReadImportSource(ok, std::nullopt));
  EXPECT_EQ(src.num_rows, 4u);
  EXPECT_EQ(src.batches.size(), 2u);

  const std::string ndjson = dir.Join("rows.ndjson");
  WriteTextFile(ndjson, "{\"s\": \"x\"}\n");
  r = ReadImportSource(ndjson, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("NDJSON input needs --schema"), std::string::npos);
  EXPECT_TRUE(ReadImportSource(dir.Join("nope.arrows"), std::nullopt).status().IsNotFound());
}

TEST(ImportSourceTest, ReadsParquetFiles) {
  // 40 rows (fuzz/seeds/parquet/README.md).
  const std::string seed = std::string(LANCET_SOURCE_DIR) + "/fuzz/seeds/parquet/flat_v1.parquet";
  ASSERT_OK_AND_ASSIGN(ImportSource src, ReadImportSource(seed, std::nullopt));
  EXPECT_EQ(src.num_rows, 40u);
  EXPECT_EQ(src.batches.size(), 1u);
  EXPECT_EQ(src.schema.fields.size(), 6u);
  ScopedTempDir dir;
  std::ifstream in(seed, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string truncated = dir.Join("truncated.parquet");
  WriteTextFile(truncated, bytes.substr(0, bytes.size() - 9));
  auto r = ReadImportSource(truncated, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("truncated.parquet (Parquet)"), std::string::npos) << r.status().message();
}

TEST(ImportSourceTest, ParsesDurations) {
  EXPECT_EQ(*ParseDuration("7d"), std::chrono::seconds(7 * 86400));
  EXPECT_EQ(*ParseDuration("12h"), std::chrono::seconds(12 * 3600));
  EXPECT_EQ(*ParseDuration("30m"), std::chrono::seconds(1800));
  EXPECT_EQ(*ParseDuration("0s"), std::chrono::seconds(0));
  for (const char* bad : {"", "7", "d", "7w", "-1d", "1.5h", "7dd", "99999999999999d"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace lancet::cli
