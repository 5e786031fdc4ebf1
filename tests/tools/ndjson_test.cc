// NDJSON import: value forms, batches, and errors naming the line and column.
#include "lancet/ndjson.h"

#include <gtest/gtest.h>

#include <cstring>

#include "cli_test_util.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

using nlohmann::json;

Result<json> Norm(const char* value, const Field& f) {
  json out;
  RETURN_IF_ERROR(NormalizeValue(json::parse(value), f, f.name, &out));
  return out;
}

TEST(NdjsonTest, NormalizesContractForms) {
  DataType dec = MakeType(TypeId::kDecimal128);
  dec.precision = 10;
  dec.scale = 4;
  ASSERT_OK_AND_ASSIGN(json d1, Norm(R"("-12345")", MakeField("d", dec)));
  EXPECT_EQ(d1, "-1.2345");
  ASSERT_OK_AND_ASSIGN(json d2, Norm(R"(7)", MakeField("d", dec)));
  EXPECT_EQ(d2, "0.0007");
  ASSERT_OK_AND_ASSIGN(json d3, Norm(R"("3.5")", MakeField("d", dec)));
  EXPECT_EQ(d3, "3.5");
  const Field f64 = MakeField("f", MakeType(TypeId::kFloat64));
  ASSERT_OK_AND_ASSIGN(json inf, Norm(R"("-Infinity")", f64));
  EXPECT_EQ(inf, "-Inf");
  ASSERT_OK_AND_ASSIGN(json negzero, Norm(R"("-0")", f64));
  EXPECT_TRUE(std::signbit(negzero.get<double>()));
  ASSERT_OK_AND_ASSIGN(json big, Norm(R"("18446744073709551615")", MakeField("u", MakeType(TypeId::kUInt64))));
  EXPECT_EQ(big, "18446744073709551615");
  DataType map = MakeType(TypeId::kMap);
  map.children = {MakeField(
      "entries",
      StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt32))}),
      false)};
  ASSERT_OK_AND_ASSIGN(json m, Norm(R"([["a", 1], {"key": "b", "value": null}])", MakeField("m", map)));
  EXPECT_EQ(m, json::parse(R"([{"key": "a", "value": 1}, {"key": "b", "value": null}])"));
}

TEST(NdjsonTest, RejectsBadValuesNamingTheColumn) {
  struct Case {
    const char* value;
    Field field;
    const char* needle;
  } cases[] = {
      {"300", MakeField("i", MakeType(TypeId::kInt8)), "column 'i': 300 does not fit int8"},
      {"-1", MakeField("u", MakeType(TypeId::kUInt32)), "is negative"},
      {"\"12x\"", MakeField("i", MakeType(TypeId::kInt64)), "is not an integer (int64)"},
      {"1.5", MakeField("i", MakeType(TypeId::kInt32)), "expected an integer"},
      {"null", MakeField("n", MakeType(TypeId::kUtf8), false), "null in a non-nullable field"},
      {"\"zz\"", MakeField("b", MakeType(TypeId::kBinary)), "is not a hex string"},
      {R"({"len": 300, "sha256": "00"})", MakeField("b", MakeType(TypeId::kBinary)), "digest"},
      {"[1, 2]", MakeField("e", FixedSizeListOf(MakeField("item", MakeType(TypeId::kInt32)), 3)), "expected 3 items"},
      {R"({"a": 1, "zz": 2})", MakeField("s", StructOf({MakeField("a", MakeType(TypeId::kInt32))})),
       "column 's': no member named 'zz'"},
      {R"({"a": "x"})", MakeField("s", StructOf({MakeField("a", MakeType(TypeId::kInt32))})), "column 's.a'"},
      {"[1, \"x\"]", MakeField("l", ListOf(MakeField("item", MakeType(TypeId::kInt32)))), "column 'l[1]'"},
      {"true", MakeField("f", MakeType(TypeId::kFloat32)), "expected a number"},
  };
  for (const Case& c : cases) {
    auto r = Norm(c.value, c.field);
    ASSERT_FALSE(r.ok()) << c.value;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().message();
  }
}

Schema SmallSchema() {
  Schema s;
  s.fields = {MakeField("id", MakeType(TypeId::kInt64), false), MakeField("name", MakeType(TypeId::kUtf8)),
              MakeField("tags", ListOf(MakeField("item", MakeType(TypeId::kInt32))))};
  return s;
}

TEST(NdjsonTest, ReadsBoundedBatches) {
  ScopedTempDir dir;
  const std::string path = dir.Join("rows.ndjson");
  std::string text;
  for (int i = 0; i < 25; ++i) {
    text += "{\"id\": " + std::to_string(i) + ", \"_rowaddr\": \"9\", \"name\": " +
            (i % 5 == 0 ? std::string("null") : "\"n" + std::to_string(i) + "\"") + ", \"tags\": [" +
            std::to_string(i) + "]}\n";
    if (i == 10) text += "   \n";
  }
  WriteTextFile(path, text);
  ASSERT_OK_AND_ASSIGN(auto reader, NdjsonReader::Open(path, SmallSchema(), 10));
  std::vector<int64_t> sizes;
  int64_t next_id = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(std::optional<RecordBatch> b, reader->Next());
    if (!b) break;
    sizes.push_back(b->num_rows);
    ASSERT_EQ(b->columns.size(), 3u);
    for (int64_t i = 0; i < b->num_rows; ++i, ++next_id) {
      EXPECT_EQ(b->columns[0].values<int64_t>()[i], next_id);
      EXPECT_EQ(b->columns[1].IsNull(i), next_id % 5 == 0);
      if (next_id % 5 != 0) {
        EXPECT_EQ(b->columns[1].GetView(i), "n" + std::to_string(next_id));
      }
    }
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{10, 10, 5}));
  EXPECT_EQ(reader->rows_read(), 25u);
}

Status FirstError(const std::string& text) {
  ScopedTempDir dir;
  const std::string path = dir.Join("bad.ndjson");
  WriteTextFile(path, text);
  ASSIGN_OR_RETURN(auto reader, NdjsonReader::Open(path, SmallSchema(), 100));
  while (true) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader->Next());
    if (!b) return Status::OK();
  }
}

TEST(NdjsonTest, ErrorsNameFileAndLine) {
  Status st = FirstError("{\"id\": 1}\n{\"id\": 2, \"nme\": \"x\"}\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bad.ndjson:2: no column named 'nme'"), std::string::npos) << st.message();
  st = FirstError("{\"id\": 1}\n\n{\"id\": \n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bad.ndjson:3: invalid JSON"), std::string::npos) << st.message();
  st = FirstError("{\"id\": 1, \"name\": \"ok\xff\"}\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bad.ndjson:1: invalid JSON"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("UTF-8"), std::string::npos) << st.message();
  st = FirstError("{\"name\": \"no id\"}\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("column 'id': null in a non-nullable field"), std::string::npos) << st.message();
  st = FirstError("[1, 2]\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("expected a JSON object per line"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace lancet::cli
