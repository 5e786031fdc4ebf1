// Schema JSON: what `lancet dump` writes reads back as the same schema.
#include "lancet/schema_json.h"

#include <gtest/gtest.h>

#include "cli_test_util.h"
#include "lancet/value_json.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

using nlohmann::json;

Schema RichSchema() {
  Field ts = MakeField("ts", TimestampType(TimeUnit::kMicro, "UTC"));
  ts.metadata["unit-note"] = "micro";
  DataType dec = MakeType(TypeId::kDecimal128);
  dec.precision = 20;
  dec.scale = 4;
  DataType fsb = MakeType(TypeId::kFixedSizeBinary);
  fsb.byte_width = 16;
  DataType t32 = MakeType(TypeId::kTime32);
  t32.unit = TimeUnit::kMilli;
  DataType map = MakeType(TypeId::kMap);
  map.children = {MakeField(
      "entries",
      StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt32))}),
      false)};
  DataType dict = MakeType(TypeId::kDictionary);
  dict.index_type = std::make_shared<DataType>(MakeType(TypeId::kInt16));
  dict.value_type = std::make_shared<DataType>(MakeType(TypeId::kUtf8));
  Schema s;
  s.fields = {MakeField("id", MakeType(TypeId::kInt64), false),
              ts,
              MakeField("d", dec),
              MakeField("h", fsb),
              MakeField("t", t32),
              MakeField("emb", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32), false), 3)),
              MakeField("ll", LargeListOf(MakeField("item", ListOf(MakeField("item", MakeType(TypeId::kInt8)))))),
              MakeField("st", StructOf({MakeField("a", MakeType(TypeId::kBool)),
                                        MakeField("b", MakeType(TypeId::kLargeBinary))})),
              MakeField("m", map),
              MakeField("cat", dict)};
  s.metadata["origin"] = "test";
  return s;
}

std::string SchemaText(const Schema& s) {
  std::string out;
  JsonWriter w(&out);
  WriteSchemaJson(w, s);
  return out;
}

TEST(SchemaJsonTest, DumpShapeRoundTrips) {
  const Schema s = RichSchema();
  ASSERT_OK_AND_ASSIGN(Schema back, SchemaFromJson(json::parse(SchemaText(s))));
  ASSERT_EQ(back.fields.size(), s.fields.size());
  for (size_t i = 0; i < s.fields.size(); ++i) EXPECT_EQ(back.fields[i], s.fields[i]) << s.fields[i].ToString();
  EXPECT_EQ(back.metadata, s.metadata);
  // And the text is stable through a second round.
  EXPECT_EQ(SchemaText(back), SchemaText(s));
}

TEST(SchemaJsonTest, AcceptsBareArrayAndDumpDocument) {
  ASSERT_OK_AND_ASSIGN(Schema bare, SchemaFromJson(json::parse(R"([{"name": "x", "type": "int32"}])")));
  ASSERT_EQ(bare.fields.size(), 1u);
  EXPECT_TRUE(bare.fields[0].nullable);
  const json doc = {{"contract", "lance-peer-dump/1"},
                    {"snapshots", json::array({{{"version", 1}, {"schema", json::parse(SchemaText(RichSchema()))}}})}};
  ASSERT_OK_AND_ASSIGN(Schema from_dump, SchemaFromJson(doc));
  EXPECT_EQ(from_dump.fields.size(), RichSchema().fields.size());
}

TEST(SchemaJsonTest, ErrorsNameTheField) {
  struct Case {
    const char* text;
    const char* needle;
  } cases[] = {
      {R"({"fields": [{"name": "a", "type": "int33"}]})", "field 'a': unknown type \"int33\""},
      {R"({"fields": [{"name": "s", "type": "struct", "children": [{"name": "x", "type": "time32"}]}]})",
       "field 's.x': needs a \"unit\""},
      {R"({"fields": [{"name": "l", "type": "list"}]})", "field 'l': needs a \"children\" array"},
      {R"({"fields": [{"name": "l", "type": "list", "children": []}]})", "a list has one child"},
      {R"({"fields": [{"name": "d", "type": "decimal128", "precision": 50, "scale": 2}]})", "precision must be"},
      {R"({"fields": [{"name": "a", "type": "int8"}, {"name": "a", "type": "int8"}]})", "appears twice"},
      {R"({"fields": [{"name": "a", "type": "int8", "nullable": "yes"}]})", "\"nullable\" must be"},
      {R"({"fields": [{"name": "a", "type": "int8", "metadata": {"k": 1}}]})", "metadata value of 'k'"},
      {R"({"fields": []})", "no fields"},
      {R"({"nope": 1})", "expected {\"fields\""},
      {R"({"fields": [{"name": "f", "type": "fixed_size_list", "list_size": 5000, "children": [
          {"name": "item", "type": "fixed_size_binary", "byte_width": 5000}]}]})",
       "field 'f': fixed sizes too large"},
  };
  for (const Case& c : cases) {
    auto r = SchemaFromJson(json::parse(c.text));
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().message();
  }
}

TEST(SchemaJsonTest, ReadSchemaFileNamesTheFile) {
  ScopedTempDir dir;
  const std::string path = dir.Join("schema.json");
  WriteTextFile(path, "{not json");
  auto r = ReadSchemaFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path), std::string::npos);
  EXPECT_FALSE(ReadSchemaFile(dir.Join("missing.json")).ok());
  WriteTextFile(path, R"({"fields": [{"name": "a", "type": "utf8", "nullable": false}], "metadata": {"k": "v"}})");
  ASSERT_OK_AND_ASSIGN(Schema s, ReadSchemaFile(path));
  EXPECT_EQ(s.fields[0].type.id, TypeId::kUtf8);
  EXPECT_FALSE(s.fields[0].nullable);
  EXPECT_EQ(s.metadata.at("k"), "v");
}

}  // namespace
}  // namespace lancet::cli
