// The dump contract's value and schema encodings (tests/peer/README.md, "Values").
#include "lancet/value_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "util/array_builder.h"
#include "util/array_json.h"
#include "util/sha256.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

// Every element of `array` as contract JSON, as one JSON array.
std::string Encode(const Array& array, const ValueOptions& options = {}) {
  std::string out;
  JsonWriter w(&out);
  w.BeginArray();
  for (int64_t i = 0; i < array.length; ++i) {
    Status st = WriteValue(w, array, i, nullptr, {}, options);
    if (!st.ok()) return "error: " + st.ToString();
  }
  w.EndArray();
  return out;
}

std::string EncodeJson(const DataType& type, std::string_view json) {
  auto a = ArrayFromJson(type, json);
  if (!a.ok()) return "bad literal: " + a.status().ToString();
  return Encode(*a);
}

TEST(ValueJsonTest, Integers) {
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kInt8), "[-128, 127, null]"), "[-128,127,null]");
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kUInt32), "[4294967295, 0]"), "[4294967295,0]");
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kInt64), R"(["-9223372036854775808", 5])"),
            R"(["-9223372036854775808","5"])");
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kUInt64), R"(["18446744073709551615"])"), R"(["18446744073709551615"])");
}

TEST(ValueJsonTest, Temporal) {
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kDate32), "[19000, -1]"), "[19000,-1]");
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kDate64), "[1640995200000]"), R"(["1640995200000"])");
  DataType t32 = MakeType(TypeId::kTime32);
  t32.unit = TimeUnit::kMilli;
  EXPECT_EQ(EncodeJson(t32, "[86399999]"), "[86399999]");
  DataType t64 = MakeType(TypeId::kTime64);
  t64.unit = TimeUnit::kMicro;
  EXPECT_EQ(EncodeJson(t64, "[86399999999]"), R"(["86399999999"])");
  // The stored integer in the field's unit; the zone does not change it.
  EXPECT_EQ(EncodeJson(TimestampType(TimeUnit::kNano, "UTC"), R"(["1700000000123456789", null])"),
            R"(["1700000000123456789",null])");
  DataType dur = MakeType(TypeId::kDuration);
  dur.unit = TimeUnit::kMicro;
  EXPECT_EQ(EncodeJson(dur, "[-5]"), R"(["-5"])");
}

TEST(ValueJsonTest, Floats) {
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kFloat64), R"([1.5, -0.0, "NaN", "Inf", "-Inf", 5e-324, 1e300])"),
            R"([1.5,"-0","NaN","Infinity","-Infinity",5e-324,1e+300])");
  // float32 is written as the double it widens to, like the peer.
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kFloat32), "[0.1, 3.4028234663852886e38, 0.0]"),
            "[0.10000000149011612,3.4028234663852886e+38,0]");
  ASSERT_OK_AND_ASSIGN(Array f32, ArrayFromJson(MakeType(TypeId::kFloat32), "[0.1]"));
  ValueOptions shortest;
  shortest.float32_shortest = true;
  EXPECT_EQ(Encode(f32, shortest), "[0.1]");
}

TEST(ValueJsonTest, Float16) {
  EXPECT_EQ(HalfToDouble(0x3C00), 1.0);
  EXPECT_EQ(HalfToDouble(0xC000), -2.0);
  EXPECT_EQ(HalfToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(HalfToDouble(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(HalfToDouble(0x0400), std::ldexp(1.0, -14));  // smallest normal
  EXPECT_TRUE(std::isinf(HalfToDouble(0x7C00)) && HalfToDouble(0x7C00) > 0);
  EXPECT_TRUE(std::isnan(HalfToDouble(0x7E00)));
  EXPECT_TRUE(std::signbit(HalfToDouble(0x8000)));
  ASSERT_OK_AND_ASSIGN(Array halves,
                       ArrayFromVector(MakeType(TypeId::kFloat16), std::vector<uint16_t>{0x3555, 0x8000, 0xFC00, 0x0001}));
  EXPECT_EQ(Encode(halves), R"([0.333251953125,"-0","-Infinity",5.960464477539063e-08])");
}

TEST(ValueJsonTest, DecimalText) {
  auto dec = [](std::initializer_list<uint8_t> le) {
    std::vector<uint8_t> v(le);
    return SignedLittleEndianToDecimal(v);
  };
  EXPECT_EQ(dec({0, 0}), "0");
  EXPECT_EQ(dec({0xFF, 0xFF}), "-1");
  EXPECT_EQ(dec({0x39, 0x30}), "12345");
  EXPECT_EQ(dec({0xC7, 0xCF}), "-12345");
  EXPECT_EQ(dec({0xFF, 0xFF, 0xFF}), "-1");  // width that is not a multiple of 4

  std::vector<uint8_t> b128(16, 0xFF);
  b128[15] = 0x7F;
  EXPECT_EQ(SignedLittleEndianToDecimal(b128), "170141183460469231731687303715884105727");
  std::fill(b128.begin(), b128.end(), 0);
  b128[15] = 0x80;
  EXPECT_EQ(SignedLittleEndianToDecimal(b128), "-170141183460469231731687303715884105728");
  // 10^18 exercises a zero-padded inner chunk of nine digits.
  std::fill(b128.begin(), b128.end(), 0);
  uint64_t e18 = 1000000000000000000ULL;
  for (int k = 0; k < 8; ++k) b128[k] = static_cast<uint8_t>(e18 >> (8 * k));
  EXPECT_EQ(SignedLittleEndianToDecimal(b128), "1000000000000000000");

  std::vector<uint8_t> b256(32, 0);
  b256[31] = 0x80;
  EXPECT_EQ(SignedLittleEndianToDecimal(b256),
            "-57896044618658097711785492504343953926634992332820282019728792003956564819968");
  std::fill(b256.begin(), b256.end(), 0xFF);
  b256[31] = 0x7F;
  EXPECT_EQ(SignedLittleEndianToDecimal(b256),
            "57896044618658097711785492504343953926634992332820282019728792003956564819967");
}

TEST(ValueJsonTest, DecimalArrays) {
  DataType d128 = MakeType(TypeId::kDecimal128);
  d128.precision = 20;
  d128.scale = 4;
  // The unscaled integer: -1.2345 at scale 4 is -12345.
  EXPECT_EQ(EncodeJson(d128, R"(["-1.2345", "0", null, "9999999999999999.9999"])"),
            R"(["-12345","0",null,"99999999999999999999"])");
  DataType d256 = MakeType(TypeId::kDecimal256);
  d256.precision = 40;
  d256.scale = 10;
  EXPECT_EQ(EncodeJson(d256, R"(["-123456789012345678901234567890.0123456789"])"),
            R"(["-1234567890123456789012345678900123456789"])");
}

TEST(ValueJsonTest, StringsAndBinaryDigestPast256Bytes) {
  const std::string s256(256, 'a');
  const std::string s257(257, 'a');
  ASSERT_OK_AND_ASSIGN(Array strings,
                       MakeBinaryArray(MakeType(TypeId::kUtf8), {s256, s257, std::nullopt, std::string("\xC3\xA9\"\n")}));
  EXPECT_EQ(Encode(strings), "[\"" + s256 + "\",{\"len\":257,\"sha256\":\"" + Sha256Hex(s257) +
                                 "\"},null,\"\xC3\xA9\\\"\\n\"]");
  ASSERT_OK_AND_ASSIGN(Array large, MakeBinaryArray(MakeType(TypeId::kLargeUtf8), {s257}));
  EXPECT_EQ(Encode(large), "[{\"len\":257,\"sha256\":\"" + Sha256Hex(s257) + "\"}]");

  const std::string bytes256(256, '\xAB');
  ASSERT_OK_AND_ASSIGN(Array bin, MakeBinaryArray(MakeType(TypeId::kLargeBinary),
                                                  {std::string("\x00\x0f", 2), std::string(), bytes256, bytes256 + "x"}));
  std::string hex256;
  for (int i = 0; i < 256; ++i) hex256 += "ab";
  EXPECT_EQ(Encode(bin), "[\"000f\",\"\",\"" + hex256 + "\",{\"len\":257,\"sha256\":\"" +
                             Sha256Hex(bytes256 + "x") + "\"}]");

  DataType fsb = MakeType(TypeId::kFixedSizeBinary);
  fsb.byte_width = 3;
  EXPECT_EQ(EncodeJson(fsb, R"(["00ff10", null])"), R"(["00ff10",null])");

  ValueOptions full;
  full.digest_threshold = std::numeric_limits<size_t>::max();
  EXPECT_EQ(Encode(large, full), "[\"" + s257 + "\"]");
}

TEST(ValueJsonTest, InvalidUtf8IsReplaced) {
  std::string out;
  AppendJsonString(&out, std::string("a\xFF" "b\xE2\x82" "c\xF0\x9F\x98\x80\x7F\x01", 12));
  EXPECT_EQ(out, "\"a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xF0\x9F\x98\x80\x7F\\u0001\"");
  out.clear();
  AppendJsonString(&out, "\xED\xA0\x80");  // an encoded surrogate is not UTF-8
  EXPECT_EQ(out, "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST(ValueJsonTest, NestedTypes) {
  DataType list = ListOf(MakeField("item", MakeType(TypeId::kInt32)));
  EXPECT_EQ(EncodeJson(list, "[[1, null, 3], [], null]"), "[[1,null,3],[],null]");

  DataType fsl = FixedSizeListOf(MakeField("item", MakeType(TypeId::kInt64)), 2);
  EXPECT_EQ(EncodeJson(fsl, "[[1, 2], null, [3, null]]"), R"([["1","2"],null,["3",null]])");

  DataType st = StructOf({MakeField("a", MakeType(TypeId::kInt32)),
                          MakeField("c", StructOf({MakeField("x", MakeType(TypeId::kUtf8)),
                                                   MakeField("y", ListOf(MakeField("item", MakeType(TypeId::kBool))))}))});
  // A null struct is null as a whole; its children are not emitted.
  EXPECT_EQ(EncodeJson(st, R"([{"a": 1, "c": {"x": "q", "y": [true, null]}}, null, {"a": null, "c": null}])"),
            R"([{"a":1,"c":{"x":"q","y":[true,null]}},null,{"a":null,"c":null}])");

  DataType map = MakeType(TypeId::kMap);
  map.children = {MakeField("entries", StructOf({MakeField("key", MakeType(TypeId::kUtf8), false),
                                                 MakeField("value", MakeType(TypeId::kInt32))}),
                            false)};
  EXPECT_EQ(EncodeJson(map, R"([[["a", 1], ["b", null]], [], null])"),
            R"([[{"key":"a","value":1},{"key":"b","value":null}],[],null])");

  DataType dict = MakeType(TypeId::kDictionary);
  dict.index_type = std::make_shared<DataType>(MakeType(TypeId::kInt8));
  dict.value_type = std::make_shared<DataType>(MakeType(TypeId::kUtf8));
  EXPECT_EQ(EncodeJson(dict, R"(["x", "y", null, "x"])"), R"(["x","y",null,"x"])");

  EXPECT_EQ(EncodeJson(MakeType(TypeId::kNull), "[null, null]"), "[null,null]");
  EXPECT_EQ(EncodeJson(MakeType(TypeId::kBool), "[true, false, null]"), "[true,false,null]");
}

TEST(ValueJsonTest, HonoursArrayOffset) {
  ASSERT_OK_AND_ASSIGN(Array ints, ArrayFromJson(MakeType(TypeId::kInt32), "[1, null, 3, 4]"));
  Array sliced = ints;
  sliced.offset = 1;
  sliced.length = 3;
  EXPECT_EQ(Encode(sliced), "[null,3,4]");

  DataType st = StructOf({MakeField("a", MakeType(TypeId::kInt32))});
  ASSERT_OK_AND_ASSIGN(Array structs, ArrayFromJson(st, R"([{"a": 1}, null, {"a": 3}])"));
  structs.offset = 1;
  structs.length = 2;
  EXPECT_EQ(Encode(structs), R"([null,{"a":3}])");

  DataType fsl = FixedSizeListOf(MakeField("item", MakeType(TypeId::kInt32)), 2);
  ASSERT_OK_AND_ASSIGN(Array lists, ArrayFromJson(fsl, "[[1, 2], [3, 4]]"));
  lists.offset = 1;
  lists.length = 1;
  EXPECT_EQ(Encode(lists), "[[3,4]]");
}

TEST(ValueJsonTest, BlobWriterSeesStructDepthBlobs) {
  Field blob = MakeField("img", StructOf({MakeField("data", MakeType(TypeId::kLargeBinary)),
                                          MakeField("uri", MakeType(TypeId::kUtf8))}));
  blob.metadata[kArrowExtensionName] = kBlobV2ExtensionName;
  Field outer = MakeField("s", StructOf({MakeField("n", MakeType(TypeId::kInt32)), blob}));

  // What a scan returns for it: the descriptor in place of the logical blob struct.
  DataType desc = StructOf({MakeField("kind", MakeType(TypeId::kUInt8)), MakeField("size", MakeType(TypeId::kUInt64))});
  DataType read = StructOf({MakeField("n", MakeType(TypeId::kInt32)), MakeField("img", desc)});
  ASSERT_OK_AND_ASSIGN(Array arr, ArrayFromJson(read, R"([{"n": 1, "img": {"kind": 0, "size": 3}}, null])"));

  std::vector<std::string> seen;
  ValueOptions options;
  options.blob_writer = [&](JsonWriter& w, std::string_view path, const Array& d, int64_t i) {
    seen.emplace_back(path);
    w.String("blob@" + std::to_string(i));
  };
  std::string out;
  JsonWriter w(&out);
  w.BeginArray();
  ASSERT_OK(WriteValue(w, arr, 0, &outer, "s", options));
  ASSERT_OK(WriteValue(w, arr, 1, &outer, "s", options));
  w.EndArray();
  EXPECT_EQ(out, R"([{"n":1,"img":"blob@0"},null])");
  EXPECT_EQ(seen, std::vector<std::string>{"s.img"});

  Schema schema;
  schema.fields = {outer, blob, MakeField("l", ListOf(blob))};
  EXPECT_EQ(BlobFieldPaths(schema), (std::vector<std::string>{"s.img", "img"}));
}

TEST(ValueJsonTest, SchemaJson) {
  Schema schema;
  Field ts = MakeField("ts", TimestampType(TimeUnit::kMilli, "America/New_York"), false);
  ts.metadata = {{"z", "1"}, {"a", "2"}};
  DataType dec = MakeType(TypeId::kDecimal128);
  dec.precision = 20;
  dec.scale = 4;
  DataType map = MakeType(TypeId::kMap);
  map.children = {MakeField("entries", StructOf({MakeField("key", MakeType(TypeId::kUtf8), false),
                                                 MakeField("value", MakeType(TypeId::kInt32))}),
                            false)};
  DataType dict = MakeType(TypeId::kDictionary);
  dict.index_type = std::make_shared<DataType>(MakeType(TypeId::kInt16));
  dict.value_type = std::make_shared<DataType>(MakeType(TypeId::kUtf8));
  DataType t64 = MakeType(TypeId::kTime64);
  t64.unit = TimeUnit::kNano;
  schema.fields = {ts,
                   MakeField("ts2", TimestampType(TimeUnit::kSecond)),
                   MakeField("d", dec),
                   MakeField("v", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 128)),
                   MakeField("m", map),
                   MakeField("k", dict),
                   MakeField("t", t64)};
  schema.metadata = {{"m", "v"}};
  std::string out;
  JsonWriter w(&out);
  WriteSchemaJson(w, schema);
  EXPECT_EQ(
      out,
      R"({"fields":[)"
      R"({"name":"ts","type":"timestamp","unit":"ms","timezone":"America/New_York","nullable":false,"metadata":{"a":"2","z":"1"}},)"
      R"({"name":"ts2","type":"timestamp","unit":"s","timezone":null,"nullable":true,"metadata":{}},)"
      R"({"name":"d","type":"decimal128","precision":20,"scale":4,"nullable":true,"metadata":{}},)"
      R"({"name":"v","type":"fixed_size_list","list_size":128,"nullable":true,"metadata":{},"children":[)"
      R"({"name":"item","type":"float32","nullable":true,"metadata":{}}]},)"
      R"({"name":"m","type":"map","keys_sorted":false,"nullable":true,"metadata":{},"children":[)"
      R"({"name":"entries","type":"struct","nullable":false,"metadata":{},"children":[)"
      R"({"name":"key","type":"utf8","nullable":false,"metadata":{}},)"
      R"({"name":"value","type":"int32","nullable":true,"metadata":{}}]}]},)"
      R"({"name":"k","type":"dictionary","index_type":"int16","ordered":false,"value_type":{"type":"utf8"},"nullable":true,"metadata":{}},)"
      R"({"name":"t","type":"time64","unit":"ns","nullable":true,"metadata":{}}],)"
      R"("metadata":{"m":"v"}})");
}

}  // namespace
}  // namespace lancet::cli
