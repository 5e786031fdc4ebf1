#include "format/lance_schema.h"

#include <gtest/gtest.h>

#include "lancet/format/file_reader.h"

namespace lancet::format {
namespace {

TEST(LanceSchema, ParsesEveryLogicalType) {
  struct Case {
    const char* lt;
    TypeId id;
  };
  for (const Case& c : std::vector<Case>{{"null", TypeId::kNull},
                                         {"bool", TypeId::kBool},
                                         {"int8", TypeId::kInt8},
                                         {"uint64", TypeId::kUInt64},
                                         {"halffloat", TypeId::kFloat16},
                                         {"float", TypeId::kFloat32},
                                         {"double", TypeId::kFloat64},
                                         {"string", TypeId::kUtf8},
                                         {"large_string", TypeId::kLargeUtf8},
                                         {"binary", TypeId::kBinary},
                                         {"large_binary", TypeId::kLargeBinary},
                                         {"json", TypeId::kLargeBinary},
                                         {"date32:day", TypeId::kDate32},
                                         {"date64:ms", TypeId::kDate64},
                                         {"time32:s", TypeId::kTime32},
                                         {"time64:ns", TypeId::kTime64},
                                         {"duration:us", TypeId::kDuration},
                                         {"fixed_size_binary:16", TypeId::kFixedSizeBinary},
                                         {"decimal:128:20:4", TypeId::kDecimal128},
                                         {"decimal:256:40:10", TypeId::kDecimal256},
                                         {"timestamp:us:-", TypeId::kTimestamp},
                                         {"fixed_size_list:float:128", TypeId::kFixedSizeList},
                                         {"dict:string:int32:false", TypeId::kDictionary}}) {
    auto t = ParseLogicalType(c.lt);
    ASSERT_TRUE(t.ok()) << c.lt << ": " << t.status().ToString();
    EXPECT_EQ(t->id, c.id) << c.lt;
    auto back = LogicalTypeString(*t);
    ASSERT_TRUE(back.ok()) << c.lt;
    if (std::string(c.lt) != "json") {
      EXPECT_EQ(*back, c.lt);
    }
  }
  auto ts = ParseLogicalType("timestamp:ms:America/New_York");
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(ts->unit, TimeUnit::kMilli);
  EXPECT_EQ(ts->timezone, "America/New_York");
  auto fsl = ParseLogicalType("fixed_size_list:int64:3");
  ASSERT_TRUE(fsl.ok());
  EXPECT_EQ(fsl->list_size, 3);
  EXPECT_EQ(fsl->children[0].name, "item");
  EXPECT_TRUE(fsl->children[0].nullable);
  EXPECT_EQ(fsl->children[0].type.id, TypeId::kInt64);
  auto dec = ParseLogicalType("decimal:128:20:4");
  EXPECT_EQ(dec->precision, 20);
  EXPECT_EQ(dec->scale, 4);
}

TEST(LanceSchema, UnknownTypesAreNotSupported) {
  for (const char* lt : {"float64", "utf8", "fixed_size_list:float32:4", "decimal:64:1:1", "time32:us", "",
                         "timestamp:xs:-", "fixed_size_binary:-1"}) {
    auto t = ParseLogicalType(lt);
    ASSERT_FALSE(t.ok()) << lt;
    EXPECT_TRUE(t.status().IsNotSupported()) << lt << ": " << t.status().ToString();
    EXPECT_NE(t.status().message().find(std::string("'") + lt + "'"), std::string::npos) << t.status().ToString();
  }
}

::lance::file::Field F(const std::string& name, int id, int parent, const std::string& lt, bool nullable = true) {
  ::lance::file::Field f;
  f.set_name(name);
  f.set_id(id);
  f.set_parent_id(parent);
  f.set_logical_type(lt);
  f.set_nullable(nullable);
  return f;
}

TEST(LanceSchema, RebuildsTheTree) {
  ::lance::file::Schema s;
  *s.add_fields() = F("id", 0, -1, "int64", false);
  *s.add_fields() = F("m", 1, -1, "map");
  *s.add_fields() = F("entries", 2, 1, "struct", false);
  *s.add_fields() = F("key", 3, 2, "string", false);
  *s.add_fields() = F("value", 4, 2, "int32");
  *s.add_fields() = F("lst", 5, -1, "list.struct");
  *s.add_fields() = F("item", 6, 5, "struct");
  *s.add_fields() = F("k", 7, 6, "string");
  *s.add_fields() = F("emb", 8, -1, "fixed_size_list:float:4");
  auto blob = F("img", 9, -1, "struct");
  (*blob.mutable_metadata())["lance-encoding:packed"] = "true";
  *s.add_fields() = blob;
  for (const char* child : {"kind", "position", "size", "blob_id", "blob_uri"}) {
    *s.add_fields() = F(child, -1, -1, std::string(child) == "blob_uri" ? "string" : "uint64", false);
  }
  *s.add_fields() = F("after", 10, -1, "bool");
  (*s.mutable_metadata())["k"] = "v";

  auto schema = SchemaFromLance(s, "test.lance");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  ASSERT_EQ(schema->fields.size(), 6u);
  EXPECT_EQ(schema->metadata.at("k"), "v");
  const Field& m = schema->fields[1];
  EXPECT_EQ(m.type.id, TypeId::kMap);
  EXPECT_EQ(m.id, 1);
  ASSERT_EQ(m.type.children[0].type.children.size(), 2u);
  EXPECT_EQ(m.type.children[0].type.children[1].name, "value");
  EXPECT_FALSE(IsLeafField(m));
  EXPECT_EQ(schema->fields[2].type.id, TypeId::kList);
  EXPECT_EQ(schema->fields[2].type.children[0].type.id, TypeId::kStruct);
  EXPECT_TRUE(IsLeafField(schema->fields[3]));
  const Field& img = schema->fields[4];
  EXPECT_EQ(img.type.children.size(), 5u);
  EXPECT_TRUE(IsLeafField(img));
  EXPECT_EQ(schema->fields[5].name, "after");
}

TEST(LanceSchema, BadTreesAreCorruption) {
  ::lance::file::Schema s;
  *s.add_fields() = F("orphan", 1, 7, "int32");
  auto r = SchemaFromLance(s, "x.lance");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("x.lance"), std::string::npos);

  ::lance::file::Schema dup;
  *dup.add_fields() = F("a", 1, -1, "int32");
  *dup.add_fields() = F("b", 1, -1, "int32");
  EXPECT_TRUE(SchemaFromLance(dup, "x").status().IsCorruption());

  ::lance::file::Schema list;
  *list.add_fields() = F("l", 1, -1, "list");
  EXPECT_TRUE(SchemaFromLance(list, "x").status().IsCorruption());

  ::lance::file::Schema stray;
  *stray.add_fields() = F("a", -1, -1, "int32");
  EXPECT_TRUE(SchemaFromLance(stray, "x").status().IsCorruption());
}

TEST(LanceSchema, RoundTripsThroughLanceFields) {
  Schema schema;
  schema.fields.push_back(MakeField("id", MakeType(TypeId::kInt64), false));
  schema.fields.push_back(MakeField("s", MakeType(TypeId::kUtf8)));
  schema.fields.push_back(MakeField("emb", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 8)));
  schema.fields.push_back(MakeField("l", ListOf(MakeField("item", MakeType(TypeId::kInt32)))));
  schema.fields.push_back(
      MakeField("st", StructOf({MakeField("a", MakeType(TypeId::kInt32)),
                                MakeField("ts", TimestampType(TimeUnit::kMicro, std::string("UTC")))})));
  Field blob = MakeField("blob", StructOf({MakeField("data", MakeType(TypeId::kLargeBinary)),
                                           MakeField("uri", MakeType(TypeId::kUtf8))}));
  blob.metadata[kArrowExtensionName] = kBlobV2ExtensionName;
  schema.fields.push_back(blob);

  auto fields = SchemaToLance(schema);
  ASSERT_TRUE(fields.ok()) << fields.status().ToString();
  // emb has no child entry: 1+1+1+2+3+3 entries.
  ASSERT_EQ(fields->size(), 11u);
  const auto& f = *fields;
  EXPECT_EQ(f[0].logical_type(), "int64");
  EXPECT_EQ(f[0].encoding(), ::lance::file::PLAIN);
  EXPECT_EQ(f[1].encoding(), ::lance::file::VAR_BINARY);
  EXPECT_EQ(f[2].logical_type(), "fixed_size_list:float:8");
  EXPECT_EQ(f[3].logical_type(), "list");
  EXPECT_EQ(f[4].parent_id(), f[3].id());
  EXPECT_EQ(f[5].encoding(), ::lance::file::NONE);
  EXPECT_EQ(f[7].logical_type(), "timestamp:us:UTC");
  EXPECT_EQ(f[8].extension_name(), "lance.blob.v2");
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(f[i].id(), static_cast<int>(i));

  ::lance::file::Schema proto;
  for (const auto& x : f) *proto.add_fields() = x;
  auto back = SchemaFromLance(proto, "roundtrip");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->fields.size(), schema.fields.size());
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    EXPECT_EQ(back->fields[i], schema.fields[i]) << back->fields[i].ToString() << " vs " << schema.fields[i].ToString();
  }
}

TEST(LanceSchema, KeepsExistingIdsAndContinuesAfterTheMax) {
  Schema schema;
  Field a = MakeField("a", MakeType(TypeId::kInt32));
  a.id = 5;
  schema.fields.push_back(a);
  schema.fields.push_back(MakeField("b", MakeType(TypeId::kInt32)));
  auto fields = SchemaToLance(schema);
  ASSERT_TRUE(fields.ok());
  EXPECT_EQ((*fields)[0].id(), 5);
  EXPECT_EQ((*fields)[1].id(), 6);

  schema.fields[1].id = 5;
  EXPECT_TRUE(SchemaToLance(schema).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lancet::format
