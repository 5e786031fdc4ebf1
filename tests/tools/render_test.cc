// Row output of `lancet scan`/`take` and the JSON writer's separators.
#include "lancet/render.h"

#include <gtest/gtest.h>

#include "sink_test_util.h"
#include "util/array_builder.h"
#include "util/array_json.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

Result<std::string> Render(const std::vector<RecordBatch>& batches, RowFormat format, size_t width = 40) {
  RenderOptions options;
  options.format = format;
  options.max_width = width;
  return CaptureSink([&](OutputSink& sink) { return RenderRows(batches, options, sink); });
}

std::vector<RecordBatch> Sample() {
  std::vector<Array> cols = {
      *ArrayFromJson(MakeType(TypeId::kInt64), "[1, 22, null]"),
      *ArrayFromJson(MakeType(TypeId::kUtf8), R"(["plain", "a,b \"q\"\nnext", "a long value that goes on"])"),
      *ArrayFromJson(ListOf(MakeField("item", MakeType(TypeId::kFloat32))), "[[0.1, 2], [], null]"),
  };
  return {*MakeRecordBatch({"id", "s", "l"}, std::move(cols))};
}

TEST(RenderTest, Table) {
  ASSERT_OK_AND_ASSIGN(std::string out, Render(Sample(), RowFormat::kTable, 12));
  EXPECT_EQ(out,
            "id   | s            | l\n"
            "-----+--------------+--------\n"
            "1    | plain        | [0.1,2]\n"
            "22   | a,b \"q\"\xE2\x86\xB5next | []\n"
            "null | a long valu\xE2\x80\xA6 | null\n"
            "(3 rows)\n");
}

TEST(RenderTest, JsonLines) {
  ASSERT_OK_AND_ASSIGN(std::string out, Render(Sample(), RowFormat::kJson));
  EXPECT_EQ(out,
            "{\"id\":\"1\",\"s\":\"plain\",\"l\":[0.1,2]}\n"
            "{\"id\":\"22\",\"s\":\"a,b \\\"q\\\"\\nnext\",\"l\":[]}\n"
            "{\"id\":null,\"s\":\"a long value that goes on\",\"l\":null}\n");
}

TEST(RenderTest, Csv) {
  ASSERT_OK_AND_ASSIGN(std::string out, Render(Sample(), RowFormat::kCsv));
  EXPECT_EQ(out,
            "id,s,l\r\n"
            "1,plain,\"[0.1,2]\"\r\n"
            "22,\"a,b \"\"q\"\"\nnext\",[]\r\n"
            ",a long value that goes on,\r\n");
}

TEST(RenderTest, EmptyResult) {
  ASSERT_OK_AND_ASSIGN(std::string out, Render({}, RowFormat::kTable));
  EXPECT_EQ(out, "(0 rows)\n");
  ASSERT_OK_AND_ASSIGN(out, Render({}, RowFormat::kCsv));
  EXPECT_EQ(out, "");

  // With the requested columns known, an empty result still has its header.
  RenderOptions options;
  options.empty_header = {"id", "name"};
  ASSERT_OK_AND_ASSIGN(out, CaptureSink([&](OutputSink& sink) { return RenderRows({}, options, sink); }));
  EXPECT_EQ(out, "id | name\n---+-----\n(0 rows)\n");
}

TEST(RenderTest, FitCell) {
  EXPECT_EQ(FitCell("abc", 3), "abc");
  EXPECT_EQ(FitCell("abcd", 3), "ab\xE2\x80\xA6");
  EXPECT_EQ(FitCell("\xC3\xA9\xC3\xA9\xC3\xA9", 3), "\xC3\xA9\xC3\xA9\xC3\xA9");  // counts characters, not bytes
  EXPECT_EQ(FitCell("a\tb", 5), "a b");
}

TEST(JsonWriterTest, Separators) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(-1);
  w.UIntString(18446744073709551615ULL);
  w.BeginObject();
  w.EndObject();
  w.Null();
  w.EndArray();
  w.Key("b");
  w.Bool(false);
  w.Key("c");
  w.Raw("{\"x\":1}");
  w.EndObject();
  EXPECT_EQ(out, R"({"a":[-1,"18446744073709551615",{},null],"b":false,"c":{"x":1}})");
}

}  // namespace
}  // namespace lancet::cli
