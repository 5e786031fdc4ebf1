#include "util/array_test_util.h"

#include <cstdlib>
#include <iostream>

#include "util/array_builder.h"

namespace lancet::testing {

namespace {

// Samples are fixed literals: a failure here is a bug in this file, so stop loudly.
Array Must(Result<Array> r, const char* what) {
  if (!r.ok()) {
    std::cerr << "sample " << what << " failed: " << r.status().ToString() << "\n";
    std::abort();
  }
  return r.MoveValue();
}

DataType WithUnit(TypeId id, TimeUnit unit) {
  DataType t = MakeType(id);
  t.unit = unit;
  return t;
}

DataType Decimal(TypeId id, int32_t p, int32_t s) {
  DataType t = MakeType(id);
  t.precision = p;
  t.scale = s;
  return t;
}

}  // namespace

Array Slice(const Array& a, int64_t begin, int64_t length) {
  Array out = a;
  out.offset = a.offset + begin;
  out.length = length;
  out.null_count = 0;
  for (int64_t i = 0; i < length; ++i) out.null_count += out.IsNull(i);
  return out;
}

std::vector<std::pair<std::string, Array>> SampleArrays() {
  std::vector<std::pair<std::string, Array>> out;
  const std::vector<bool> v5 = {true, false, true, true, false};
  auto add = [&](std::string name, Result<Array> r) {
    Array a = Must(std::move(r), name.c_str());
    out.emplace_back(std::move(name), std::move(a));
  };

  Array null_array;
  null_array.type = MakeType(TypeId::kNull);
  null_array.length = 4;
  null_array.null_count = 4;
  out.emplace_back("null", null_array);

  add("bool", ArrayFromVector<bool>(MakeType(TypeId::kBool), {true, false, true, false, true}, v5));
  add("int8", ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {1, -2, 3, -128, 127}, v5));
  add("int16", ArrayFromVector<int16_t>(MakeType(TypeId::kInt16), {1, -2, 3, 4, 5}, v5));
  add("int32", ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3, 4, 5}, v5));
  add("int64", ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {1, 2, INT64_MIN, 4, INT64_MAX}, v5));
  add("uint8", ArrayFromVector<uint8_t>(MakeType(TypeId::kUInt8), {1, 2, 255, 4, 5}));
  add("uint16", ArrayFromVector<uint16_t>(MakeType(TypeId::kUInt16), {1, 2, 65535, 4, 5}, v5));
  add("uint32", ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), {1, 2, 3, 4, 5}, v5));
  add("uint64", ArrayFromVector<uint64_t>(MakeType(TypeId::kUInt64), {1, 2, UINT64_MAX, 4, 5}, v5));
  add("float16", ArrayFromVector<uint16_t>(MakeType(TypeId::kFloat16), {0x3c00, 0x7e00, 0xc000, 0, 1}, v5));
  add("float32", ArrayFromVector<float>(MakeType(TypeId::kFloat32), {1.5f, 2, -0.0f, 4, 5}, v5));
  add("float64", ArrayFromVector<double>(MakeType(TypeId::kFloat64), {1.5, 2, 3, 0.25, 5}, v5));
  add("utf8", MakeBinaryArray(MakeType(TypeId::kUtf8), {"a", std::nullopt, "", "hello", "wörld"}));
  add("large_utf8", MakeBinaryArray(MakeType(TypeId::kLargeUtf8), {"x", "yy", std::nullopt, "", "zzz"}));
  add("binary", MakeBinaryArray(MakeType(TypeId::kBinary), {std::string("\0\1", 2), std::nullopt, "b", "", "c"}));
  add("large_binary", MakeBinaryArray(MakeType(TypeId::kLargeBinary), {"", "q", std::nullopt, "rs", "t"}));
  DataType fsb = MakeType(TypeId::kFixedSizeBinary);
  fsb.byte_width = 3;
  add("fixed_size_binary", MakeFixedWidthArray(fsb, std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 5, v5));
  add("date32", ArrayFromVector<int32_t>(MakeType(TypeId::kDate32), {1, 2, 3, 4, 5}, v5));
  add("date64", ArrayFromVector<int64_t>(MakeType(TypeId::kDate64), {86400000, 2, 3, 4, 5}, v5));
  add("time32", ArrayFromVector<int32_t>(WithUnit(TypeId::kTime32, TimeUnit::kMilli), {1, 2, 3, 4, 5}, v5));
  add("time64", ArrayFromVector<int64_t>(WithUnit(TypeId::kTime64, TimeUnit::kNano), {1, 2, 3, 4, 5}, v5));
  add("timestamp", ArrayFromVector<int64_t>(TimestampType(TimeUnit::kMicro, "UTC"), {1, 2, 3, 4, 5}, v5));
  add("timestamp_naive", ArrayFromVector<int64_t>(TimestampType(TimeUnit::kSecond), {1, 2, 3, 4, 5}));
  add("duration", ArrayFromVector<int64_t>(WithUnit(TypeId::kDuration, TimeUnit::kMilli), {1, 2, 3, 4, 5}, v5));
  {
    std::vector<uint8_t> d128(5 * 16);
    for (size_t i = 0; i < d128.size(); ++i) d128[i] = static_cast<uint8_t>(i);
    add("decimal128", MakeFixedWidthArray(Decimal(TypeId::kDecimal128, 10, 2), d128, 5, v5));
    std::vector<uint8_t> d256(5 * 32);
    for (size_t i = 0; i < d256.size(); ++i) d256[i] = static_cast<uint8_t>(i * 3);
    add("decimal256", MakeFixedWidthArray(Decimal(TypeId::kDecimal256, 40, 5), d256, 5, v5));
  }

  Array ints = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3, 4, 5, 6, 7},
                                             {true, true, false, true, true, true, true}),
                    "ints");
  add("list", MakeListArray(ListOf(MakeField("item", ints.type)), {0, 2, 2, 3, 5, 7}, ints, v5));
  Array strs = StringArray({"a", "b", std::nullopt, "d", "e", "f"});
  add("large_list", MakeListArray(LargeListOf(MakeField("item", strs.type)), {0, 1, 3, 3, 6}, strs,
                                  {true, true, false, true}));
  Array floats = Must(ArrayFromVector<float>(MakeType(TypeId::kFloat32), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                                             {true, true, true, false, true, true, true, true, true, true}),
                      "floats");
  add("fixed_size_list", MakeFixedSizeListArray(FixedSizeListOf(MakeField("item", floats.type), 2), 5, floats, v5));
  Array s_a = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {10, 20, 30, 40, 50}, {true, true, false, true, true}), "s_a");
  Array s_b = StringArray({"p", std::nullopt, "r", "s", "t"});
  add("struct", MakeStructArray({"a", "b"}, 5, {s_a, s_b}, {true, true, true, false, true}));
  {
    Array keys = StringArray({"k1", "k2", "k3", "k4", "k5"});
    Array vals = Must(ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {1, 2, 3, 4, 5}, {true, false, true, true, true}), "vals");
    std::vector<Field> kv = {MakeField("key", keys.type, false), MakeField("value", vals.type)};
    Array entries = Must(MakeStructArray(StructOf(kv), 5, {keys, vals}), "entries");
    DataType map = MakeType(TypeId::kMap);
    map.children.push_back(MakeField("entries", entries.type, false));
    add("map", MakeListArray(map, {0, 2, 2, 5, 5}, entries, {true, true, true, false}));
  }
  {
    Array indices = Must(ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {0, 1, 2, 1, 0}, v5), "indices");
    add("dictionary", MakeDictionaryArray(indices, StringArray({"red", "green", std::nullopt})));
  }
  {
    // list<struct<x: list<int8>>>: offsets at three levels.
    Array bytes = Must(ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {1, 2, 3, 4, 5, 6}), "bytes");
    Array inner = Must(MakeListArray(ListOf(MakeField("item", bytes.type)), {0, 1, 3, 3, 6}, bytes,
                                     {true, true, false, true}),
                       "inner");
    Array st = Must(MakeStructArray({"x"}, 4, {inner}, {true, false, true, true}), "nested struct");
    add("nested", MakeListArray(ListOf(MakeField("item", st.type)), {0, 1, 1, 4, 4}, st, {true, true, true, false}));
  }
  return out;
}

}  // namespace lancet::testing
