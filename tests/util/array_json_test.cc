#include "util/array_json.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet {
namespace {

DataType Decimal(TypeId id, int32_t p, int32_t s) {
  DataType t = MakeType(id);
  t.precision = p;
  t.scale = s;
  return t;
}

TEST(ArrayJsonTest, Primitives) {
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromJson(MakeType(TypeId::kInt32), "[1, null, 3]"));
  ASSERT_OK_AND_ASSIGN(Array e, ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 0, 3}, {true, false, true}));
  EXPECT_TRUE(ArraysEqual(a, e));

  ASSERT_OK_AND_ASSIGN(Array big, ArrayFromJson(MakeType(TypeId::kInt64), R"(["9223372036854775807", -5])"));
  EXPECT_EQ(big.values<int64_t>()[0], INT64_MAX);
  EXPECT_EQ(big.values<int64_t>()[1], -5);
  ASSERT_OK_AND_ASSIGN(Array u, ArrayFromJson(MakeType(TypeId::kUInt64), "[18446744073709551615]"));
  EXPECT_EQ(u.values<uint64_t>()[0], UINT64_MAX);

  EXPECT_FALSE(ArrayFromJson(MakeType(TypeId::kInt8), "[128]").ok());
  EXPECT_FALSE(ArrayFromJson(MakeType(TypeId::kUInt8), "[-1]").ok());
  EXPECT_FALSE(ArrayFromJson(MakeType(TypeId::kInt32), R"(["x"])").ok());
  EXPECT_FALSE(ArrayFromJson(MakeType(TypeId::kInt32), "[1,").ok());
  EXPECT_FALSE(ArrayFromJson(MakeType(TypeId::kInt32), "{}").ok());

  ASSERT_OK_AND_ASSIGN(Array b, ArrayFromJson(MakeType(TypeId::kBool), "[true, false, null]"));
  EXPECT_TRUE(b.GetBool(0));
  EXPECT_FALSE(b.GetBool(1));
  EXPECT_TRUE(b.IsNull(2));

  ASSERT_OK_AND_ASSIGN(Array f, ArrayFromJson(MakeType(TypeId::kFloat64), R"([1.5, "NaN", "-Inf"])"));
  EXPECT_EQ(f.values<double>()[0], 1.5);
  EXPECT_TRUE(std::isnan(f.values<double>()[1]));
  EXPECT_TRUE(std::isinf(f.values<double>()[2]));

  ASSERT_OK_AND_ASSIGN(Array h, ArrayFromJson(MakeType(TypeId::kFloat16), "[1, -2, 0.5, 65504, 1e-7, 70000]"));
  const uint16_t* hv = h.values<uint16_t>();
  EXPECT_EQ(hv[0], 0x3c00);
  EXPECT_EQ(hv[1], 0xc000);
  EXPECT_EQ(hv[2], 0x3800);
  EXPECT_EQ(hv[3], 0x7bff);
  EXPECT_EQ(hv[4], 0x0002);  // subnormal
  EXPECT_EQ(hv[5], 0x7c00);  // overflows to infinity

  ASSERT_OK_AND_ASSIGN(Array n, ArrayFromJson(MakeType(TypeId::kNull), "[null, null]"));
  EXPECT_EQ(n.length, 2);
  EXPECT_FALSE(ArrayFromJson(MakeType(TypeId::kNull), "[1]").ok());
}

TEST(ArrayJsonTest, BinaryAndDecimal) {
  ASSERT_OK_AND_ASSIGN(Array s, ArrayFromJson(MakeType(TypeId::kLargeUtf8), R"(["a", null, ""])"));
  EXPECT_EQ(s.GetView(0), "a");
  EXPECT_TRUE(s.IsNull(1));
  ASSERT_OK_AND_ASSIGN(Array b, ArrayFromJson(MakeType(TypeId::kBinary), R"(["00ff", ""])"));
  EXPECT_EQ(b.GetView(0), std::string_view("\0\xff", 2));
  EXPECT_FALSE(ArrayFromJson(MakeType(TypeId::kBinary), R"(["0g"])").ok());
  DataType fsb = MakeType(TypeId::kFixedSizeBinary);
  fsb.byte_width = 2;
  ASSERT_OK_AND_ASSIGN(Array w, ArrayFromJson(fsb, R"(["0102", null])"));
  EXPECT_EQ(w.buffers[1]->data()[1], 2);
  EXPECT_FALSE(ArrayFromJson(fsb, R"(["01"])").ok());

  ASSERT_OK_AND_ASSIGN(Array d, ArrayFromJson(Decimal(TypeId::kDecimal128, 10, 2), R"(["-12.3", 5, "0.01"])"));
  const int64_t* dv = d.buffers[1]->data_as<int64_t>();
  EXPECT_EQ(dv[0], -1230);
  EXPECT_EQ(dv[1], -1);  // high word of a negative value
  EXPECT_EQ(dv[2], 500);
  EXPECT_EQ(dv[4], 1);
  EXPECT_FALSE(ArrayFromJson(Decimal(TypeId::kDecimal128, 3, 2), R"(["12.3"])").ok());  // precision
  EXPECT_FALSE(ArrayFromJson(Decimal(TypeId::kDecimal128, 10, 1), R"(["1.23"])").ok());  // scale
  ASSERT_OK_AND_ASSIGN(Array d256, ArrayFromJson(Decimal(TypeId::kDecimal256, 76, 0), R"(["-1"])"));
  for (int i = 0; i < 32; ++i) EXPECT_EQ(d256.buffers[1]->data()[i], 0xff);
}

TEST(ArrayJsonTest, Nested) {
  DataType list = ListOf(MakeField("item", MakeType(TypeId::kInt32)));
  ASSERT_OK_AND_ASSIGN(Array l, ArrayFromJson(list, "[[1, 2], null, [], [null]]"));
  ASSERT_OK(l.Validate());
  EXPECT_EQ(l.length, 4);
  EXPECT_EQ(l.ListRange(0), std::make_pair(int64_t{0}, int64_t{2}));
  EXPECT_TRUE(l.IsNull(1));
  EXPECT_TRUE(l.children[0].IsNull(2));

  DataType st = StructOf({MakeField("a", MakeType(TypeId::kInt8)), MakeField("b", MakeType(TypeId::kUtf8))});
  ASSERT_OK_AND_ASSIGN(Array s, ArrayFromJson(st, R"([{"a": 1, "b": "x"}, null, {"a": 2}, [3, "z"]])"));
  ASSERT_OK(s.Validate());
  EXPECT_TRUE(s.IsNull(1));
  EXPECT_TRUE(s.children[1].IsNull(2));
  EXPECT_EQ(s.children[1].GetView(3), "z");
  EXPECT_FALSE(ArrayFromJson(st, R"([{"c": 1}])").ok());

  DataType fsl = FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 2);
  ASSERT_OK_AND_ASSIGN(Array f, ArrayFromJson(fsl, "[[1, 2], null, [3, null]]"));
  EXPECT_EQ(f.children[0].length, 6);
  EXPECT_FALSE(ArrayFromJson(fsl, "[[1]]").ok());

  DataType entries = StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt64))});
  DataType map = MakeType(TypeId::kMap);
  map.children.push_back(MakeField("entries", entries, false));
  ASSERT_OK_AND_ASSIGN(Array m, ArrayFromJson(map, R"([[["a", 1], {"key": "b", "value": null}], null, []])"));
  ASSERT_OK(m.Validate());
  EXPECT_EQ(m.children[0].length, 2);

  DataType dict = MakeType(TypeId::kDictionary);
  dict.index_type = std::make_shared<DataType>(MakeType(TypeId::kInt8));
  dict.value_type = std::make_shared<DataType>(MakeType(TypeId::kUtf8));
  ASSERT_OK_AND_ASSIGN(Array d, ArrayFromJson(dict, R"(["x", "y", null, "x"])"));
  ASSERT_OK(d.Validate());
  EXPECT_EQ(d.dictionary->length, 2);
  ASSERT_OK_AND_ASSIGN(Array d2, ArrayFromJson(dict, R"(["y", "x", null, "y"])"));
  EXPECT_FALSE(ArraysEqual(d, d2));
  ASSERT_OK_AND_ASSIGN(Array d3, ArrayFromJson(dict, R"(["x", "y", null, "x"])"));
  EXPECT_TRUE(ArraysEqual(d, d3));
}

}  // namespace
}  // namespace lancet
