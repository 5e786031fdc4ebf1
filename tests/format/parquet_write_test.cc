// The Parquet writer's pieces: thrift compact bytes and RLE/bit-packed runs against
// hand-derived encodings, Dremel levels of nested nullable data, compression round
// trips, and the writer's options (row groups, pages, dictionary fallback) read back
// from the footer it writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "format/ipc_reader.h"
#include "format/parquet_compress.h"
#include "format/parquet_decompress.h"
#include "format/parquet_encode.h"
#include "format/parquet_metadata.h"
#include "format/parquet_schema_write.h"
#include "format/parquet_shred.h"
#include "format/parquet_write_column.h"
#include "lancet/format/parquet.h"
#include "util/array_json.h"
#include "util/test_macros.h"

namespace lancet::format::parquet {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out.push_back(' ');
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Array FromJson(const DataType& type, std::string_view json) {
  auto a = ArrayFromJson(type, json);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return a.ok() ? *a : Array{};
}

// ---------------------------------------------------------------------------
// A generic thrift compact reader, only to look into what the writer wrote.

struct TValue;
using TStruct = std::map<int, TValue>;
using TList = std::vector<TValue>;
struct TValue {
  std::variant<int64_t, std::string, TStruct, TList> v;
  int64_t i() const { return std::get<int64_t>(v); }
  const std::string& s() const { return std::get<std::string>(v); }
  const TStruct& st() const { return std::get<TStruct>(v); }
  const TList& list() const { return std::get<TList>(v); }
  const TValue& operator[](int id) const { return st().at(id); }
  bool has(int id) const { return st().count(id) > 0; }
};

class CompactReader {
 public:
  explicit CompactReader(std::string_view bytes) : p_(bytes) {}
  size_t pos() const { return pos_; }

  TStruct Struct() {
    TStruct out;
    int last = 0;
    while (true) {
      const uint8_t h = Byte();
      if (h == 0) return out;
      const int type = h & 15;
      const int delta = h >> 4;
      const int id = delta ? last + delta : static_cast<int>(UnZigZag(Varint()));
      last = id;
      out[id] = Value(type);
    }
  }

 private:
  uint8_t Byte() { return static_cast<uint8_t>(p_.at(pos_++)); }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = Byte();
      v |= uint64_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  static int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

  TValue Value(int type) {
    switch (type) {
      case 1:
        return {int64_t{1}};
      case 2:
        return {int64_t{0}};
      case 3:
        return {int64_t{static_cast<int8_t>(Byte())}};
      case 4:
      case 5:
      case 6:
        return {UnZigZag(Varint())};
      case 8: {
        const uint64_t n = Varint();
        std::string s(p_.substr(pos_, n));
        pos_ += n;
        return {s};
      }
      case 9: {
        const uint8_t h = Byte();
        uint64_t n = h >> 4;
        if (n == 15) n = Varint();
        TList out;
        for (uint64_t k = 0; k < n; ++k) out.push_back((h & 15) == 1 ? TValue{int64_t{Byte()}} : Value(h & 15));
        return {out};
      }
      case 12:
        return {Struct()};
      default:
        ADD_FAILURE() << "unexpected compact type " << type;
        return {int64_t{0}};
    }
  }

  std::string_view p_;
  size_t pos_ = 0;
};

// The FileMetaData of a whole file written by ParquetWriter.
TStruct Footer(const std::string& file) {
  EXPECT_EQ(file.substr(0, 4), "PAR1");
  EXPECT_EQ(file.substr(file.size() - 4), "PAR1");
  uint32_t length;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  CompactReader r(std::string_view(file).substr(file.size() - 8 - length, length));
  TStruct meta = r.Struct();
  EXPECT_EQ(r.pos(), length);
  return meta;
}

Result<std::string> WriteFile(const Schema& schema, const std::vector<RecordBatch>& batches,
                              const ParquetWriteOptions& options = {}) {
  std::string out;
  ASSIGN_OR_RETURN(auto writer, ParquetWriter::Open(
                                    [&out](std::span<const uint8_t> b) {
                                      out.append(reinterpret_cast<const char*>(b.data()), b.size());
                                      return Status::OK();
                                    },
                                    schema, options));
  for (const RecordBatch& b : batches) RETURN_IF_ERROR(writer->Write(b));
  RETURN_IF_ERROR(writer->Finish());
  EXPECT_EQ(writer->bytes_written(), out.size());
  return out;
}

// ---------------------------------------------------------------------------
// Thrift

TEST(ParquetThriftWrite, DataPageHeaderBytes) {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 50;
  h.data_page_header = DataPageHeader{10, Encoding::kPlain, Encoding::kRle, Encoding::kRle, std::nullopt};
  // Field headers are (delta << 4 | type); i32 values are zigzag varints (100 -> 200 =
  // c8 01); the nested struct (field 5, delta 2) ends with its own stop byte.
  EXPECT_EQ(Hex(EncodePageHeader(h)), "15 00 15 c8 01 15 64 2c 15 14 15 00 15 06 15 06 00 00");
}

TEST(ParquetThriftWrite, StatisticsBytes) {
  PageHeader h;
  h.data_page_header = DataPageHeader{};
  Statistics st;
  st.null_count = 0;
  st.max_value = "b";
  st.min_value = "a";
  st.nan_count = 2;
  h.data_page_header->statistics = st;
  const std::string bytes = EncodePageHeader(h);
  // ... 15 06 (field 4), then field 5 (1c): 3: null_count 0 (36 00), 5: "b" (28 01 62),
  // 6: "a" (18 01 61), 9: nan_count 2 (36 04), stop; the page header's stop.
  EXPECT_EQ(Hex(bytes.substr(bytes.size() - 16)), "15 06 1c 36 00 28 01 62 18 01 61 36 04 00 00 00");
}

TEST(ParquetThriftWrite, DictionaryPageHeaderBytes) {
  PageHeader h;
  h.type = PageType::kDictionaryPage;
  h.uncompressed_page_size = 3;
  h.compressed_page_size = 3;
  h.dictionary_page_header = DictionaryPageHeader{1, Encoding::kPlain, true};
  // Field 7 is 4 after field 3 (4c); the bool is the type nibble itself (11: next field, true).
  EXPECT_EQ(Hex(EncodePageHeader(h)), "15 04 15 06 15 06 4c 15 02 15 00 11 00 00");
}

TEST(ParquetThriftWrite, FileMetaDataBytes) {
  FileMetaData m;
  m.version = 1;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement leaf;
  leaf.type = PhysicalType::kInt64;
  leaf.repetition_type = Repetition::kRequired;
  leaf.name = "a";
  leaf.field_id = 300;
  leaf.logical_type.kind = LogicalType::Kind::kTimestamp;
  leaf.logical_type.is_adjusted_to_utc = true;
  leaf.logical_type.unit = TimeUnitKind::kMicros;
  m.schema = {root, leaf};
  m.created_by = "x";
  const std::string expected =
      "15 02 "                       // 1: version 1
      "19 2c "                       // 2: list of 2 structs
      "48 06 73 63 68 65 6d 61 "     //   root: 4: "schema"
      "15 02 00 "                    //         5: num_children 1
      "15 04 25 00 18 01 61 "        //   leaf: 1: INT64, 3: REQUIRED, 4: "a"
      "55 d8 04 "                    //         9: field_id 300
      "1c 8c 11 1c 2c 00 00 00 00 "  //         10: LogicalType{8: Timestamp{1: true, 2: {2: MICROS{}}}}
      "00 "                          //   leaf end
      "16 00 "                       // 3: num_rows 0
      "19 0c "                       // 4: empty list of structs
      "28 01 78 "                    // 6: created_by "x"
      "00";
  EXPECT_EQ(Hex(EncodeFileMetaData(m)), expected);
}

TEST(ParquetThriftWrite, LongListsAndColumnOrders) {
  FileMetaData m;
  SchemaElement root;
  root.name = "r";
  root.num_children = 15;
  m.schema.push_back(root);
  for (int k = 0; k < 15; ++k) {
    SchemaElement leaf;
    leaf.type = PhysicalType::kInt32;
    leaf.name = "c";
    m.schema.push_back(leaf);
  }
  m.type_defined_order = true;
  const std::string bytes = EncodeFileMetaData(m);
  CompactReader r(bytes);
  TValue meta{r.Struct()};
  // 16 elements: the list size goes in a varint after 0xf_.
  EXPECT_EQ(meta[2].list().size(), 16u);
  ASSERT_EQ(meta[7].list().size(), 15u);  // one ColumnOrder per leaf
  EXPECT_TRUE(meta[7].list()[0].has(1));  // TYPE_ORDER
}

// ---------------------------------------------------------------------------
// RLE / bit-packed hybrid

std::string Rle(const std::vector<uint32_t>& values, int width) {
  std::string out;
  AppendRleBitPacked(values, width, &out);
  return Hex(out);
}

TEST(ParquetRleWrite, RunsAndBitPacking) {
  EXPECT_EQ(Rle(std::vector<uint32_t>(10, 1), 1), "14 01");  // run of 10: header 10 << 1
  // Encodings.md's example: 0..7 at width 3 is one group, 88 c6 fa.
  EXPECT_EQ(Rle({0, 1, 2, 3, 4, 5, 6, 7}, 3), "03 88 c6 fa");
  // A run then a short tail, padded to a group of eight.
  EXPECT_EQ(Rle({5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 1, 2, 3}, 3), "14 05 03 d1 00 00");
  // Literals borrow the head of a run to fill their group; 8 of the run remain a run.
  std::vector<uint32_t> v = {1, 2, 3};
  v.insert(v.end(), 13, 7);
  EXPECT_EQ(Rle(v, 3), "03 d1 fe ff 10 07");
  // Too short a remainder stays bit-packed: 15 values, two groups.
  v.pop_back();
  EXPECT_EQ(Rle(v, 3).substr(0, 2), "05");
  // Values wider than a byte take two bytes in a run.
  EXPECT_EQ(Rle(std::vector<uint32_t>(9, 0x1234), 13), "12 34 12");
  EXPECT_EQ(Rle({}, 1), "");
}

TEST(ParquetRleWrite, LevelsHaveALengthPrefix) {
  std::string out;
  AppendLevelsV1(std::vector<uint32_t>(10, 1), 1, &out);
  EXPECT_EQ(Hex(out), "02 00 00 00 14 01");
  EXPECT_EQ(BitWidthFor(0), 0);
  EXPECT_EQ(BitWidthFor(1), 1);
  EXPECT_EQ(BitWidthFor(3), 2);
  EXPECT_EQ(BitWidthFor(4), 3);
}

TEST(ParquetRleWrite, PlainBools) {
  std::string out;
  AppendPlainBools(std::vector<uint8_t>{1, 0, 1, 1, 0, 0, 0, 0, 1}, &out);
  EXPECT_EQ(Hex(out), "0d 01");
}

// Decodes the hybrid back (a test oracle, not the reader's decoder).
std::vector<uint32_t> DecodeRle(const std::string& bytes, int width, size_t count) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = static_cast<uint8_t>(bytes.at(pos++));
      v |= uint64_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) return v;
    }
  };
  while (out.size() < count) {
    const uint64_t h = varint();
    if (h & 1) {
      const size_t n = (h >> 1) * 8;
      uint64_t bitpos = pos * 8;
      for (size_t k = 0; k < n; ++k) {
        uint32_t v = 0;
        for (int b = 0; b < width; ++b, ++bitpos) {
          v |= ((static_cast<uint8_t>(bytes.at(bitpos / 8)) >> (bitpos % 8)) & 1u) << b;
        }
        if (out.size() < count) out.push_back(v);
      }
      pos += n * width / 8;
    } else {
      uint32_t v = 0;
      for (int b = 0; b < (width + 7) / 8; ++b)
        v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes.at(pos++))) << (8 * b);
      out.insert(out.end(), h >> 1, v);
    }
  }
  EXPECT_EQ(pos, bytes.size());
  return out;
}

TEST(ParquetRleWrite, RandomRoundTrip) {
  uint64_t seed = 42;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(seed >> 33);
  };
  for (int trial = 0; trial < 200; ++trial) {
    const int width = 1 + static_cast<int>(next() % 20);
    std::vector<uint32_t> values;
    const size_t n = next() % 300;
    while (values.size() < n) {
      const uint32_t v = next() & ((1u << width) - 1);
      values.insert(values.end(), 1 + next() % (next() % 2 ? 20 : 3), v);
    }
    std::string out;
    AppendRleBitPacked(values, width, &out);
    EXPECT_EQ(DecodeRle(out, width, values.size()), values) << "trial " << trial;
  }
}

// ---------------------------------------------------------------------------
// Shredding

struct Shredded {
  std::vector<uint32_t> def, rep;
  std::vector<int64_t> values;
};

std::vector<Shredded> Shred(const Field& field, const Array& array) {
  std::vector<LeafLevels> leaves;
  Status st = ShredColumn(field, array, &leaves);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::vector<Shredded> out;
  for (auto& l : leaves) out.push_back({l.def, l.rep, l.values});
  return out;
}

using U = std::vector<uint32_t>;
using I = std::vector<int64_t>;

TEST(ParquetShred, NullableListOfNullable) {
  Field f = MakeField("l", ListOf(MakeField("item", MakeType(TypeId::kInt32))));
  Array a = FromJson(f.type, "[[1, null], null, [], [2]]");
  // max_def 3 (l optional, list repeated, element optional), max_rep 1.
  auto leaves = Shred(f, a);
  ASSERT_EQ(leaves.size(), 1u);
  EXPECT_EQ(leaves[0].def, (U{3, 2, 0, 1, 3}));
  EXPECT_EQ(leaves[0].rep, (U{0, 1, 0, 0, 0}));
  EXPECT_EQ(leaves[0].values, (I{0, 2}));
  // A slice keeps its offset: rows 1..3 start at the null list.
  auto sliced = Shred(f, ArraySlice(a, 1, 3));
  EXPECT_EQ(sliced[0].def, (U{0, 1, 3}));
  EXPECT_EQ(sliced[0].rep, (U{0, 0, 0}));
  EXPECT_EQ(sliced[0].values, (I{2}));
}

TEST(ParquetShred, ListOfStructOfList) {
  // list<struct<x: int32, ys: list<int32>>>, everything nullable (the struct too): x
  // has max_def 4, ys' element max_def 6 and max_rep 2.
  Field f = MakeField(
      "n", ListOf(MakeField("item", StructOf({MakeField("x", MakeType(TypeId::kInt32)),
                                              MakeField("ys", ListOf(MakeField("item", MakeType(TypeId::kInt32))))}))));
  Array a = FromJson(f.type, R"([[{"x": 1, "ys": [1, 2]}, null, {"x": null, "ys": []}], null,
                                  [{"x": 2, "ys": [null]}, {"x": 3, "ys": null}]])");
  auto leaves = Shred(f, a);
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].def, (U{4, 2, 3, 0, 4, 4}));
  EXPECT_EQ(leaves[0].rep, (U{0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(leaves[0].values, (I{0, 3, 4}));
  // ys: [1,2] -> 6,6; null struct -> 2; [] -> 4 (ys present, empty); null row -> 0;
  // [null] -> 5; ys null -> 3.
  EXPECT_EQ(leaves[1].def, (U{6, 6, 2, 4, 0, 5, 3}));
  EXPECT_EQ(leaves[1].rep, (U{0, 2, 1, 1, 0, 0, 1}));
  EXPECT_EQ(leaves[1].values, (I{0, 1}));
}

TEST(ParquetShred, MapKeysAreRequired) {
  DataType entries =
      StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt32))});
  DataType map = MakeType(TypeId::kMap);
  map.children = {MakeField("entries", entries, false)};
  Field f = MakeField("m", map);
  Array a = FromJson(map, R"([[["a", 1], ["b", null]], null, []])");
  auto leaves = Shred(f, a);
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].def, (U{2, 2, 0, 1}));
  EXPECT_EQ(leaves[0].rep, (U{0, 1, 0, 0}));
  EXPECT_EQ(leaves[1].def, (U{3, 2, 0, 1}));
  EXPECT_EQ(leaves[1].values, (I{0}));
}

TEST(ParquetShred, StructSliceAndFixedSizeList) {
  Field s = MakeField(
      "s", StructOf({MakeField("a", MakeType(TypeId::kInt64)), MakeField("b", MakeType(TypeId::kBool), false)}));
  Array a = FromJson(s.type, R"([{"a": 1, "b": true}, null, {"a": null, "b": false}, {"a": 4, "b": true}])");
  auto leaves = Shred(s, ArraySlice(a, 2, 2));
  EXPECT_EQ(leaves[0].def, (U{1, 2}));
  EXPECT_EQ(leaves[0].values, (I{3}));  // struct offset 2 carried to the child
  EXPECT_EQ(leaves[1].def, (U{1, 1}));  // b is required: no level of its own
  EXPECT_EQ(leaves[1].values, (I{2, 3}));

  Field fsl = MakeField("v", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 2));
  Array v = FromJson(fsl.type, "[[1, 2], null, [3, null]]");
  auto fl = Shred(fsl, ArraySlice(v, 1, 2));
  EXPECT_EQ(fl[0].def, (U{0, 3, 2}));
  EXPECT_EQ(fl[0].rep, (U{0, 0, 1}));
  EXPECT_EQ(fl[0].values, (I{4}));
}

// Random list<struct<a: int32, b: list<int16>>> rows, nulls and empties at every level,
// shredded from random slices; the expected levels come from the rows themselves.
TEST(ParquetShred, RandomNestedAgainstTheRows) {
  struct Item {
    bool null = false;
    std::optional<int32_t> a;
    bool b_null = false;
    std::vector<std::optional<int16_t>> b;
  };
  struct Row {
    bool null = false;
    std::vector<Item> items;
  };
  uint64_t seed = 7;
  auto next = [&](uint32_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(seed >> 33) % n;
  };
  Field f = MakeField(
      "n", ListOf(MakeField("item", StructOf({MakeField("a", MakeType(TypeId::kInt32)),
                                              MakeField("b", ListOf(MakeField("item", MakeType(TypeId::kInt16))))}))));
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Row> rows(1 + next(40));
    std::string json = "[";
    for (size_t r = 0; r < rows.size(); ++r) {
      Row& row = rows[r];
      json += r ? "," : "";
      row.null = next(6) == 0;
      if (row.null) {
        json += "null";
        continue;
      }
      row.items.resize(next(4));
      json += "[";
      for (size_t i = 0; i < row.items.size(); ++i) {
        Item& it = row.items[i];
        json += i ? "," : "";
        it.null = next(5) == 0;
        if (it.null) {
          json += "null";
          continue;
        }
        if (next(4) != 0) it.a = static_cast<int32_t>(next(1000)) - 500;
        it.b_null = next(5) == 0;
        json += "{\"a\": " + (it.a ? std::to_string(*it.a) : "null") + ", \"b\": ";
        if (it.b_null) {
          json += "null}";
          continue;
        }
        it.b.resize(next(4));
        json += "[";
        for (size_t j = 0; j < it.b.size(); ++j) {
          if (next(4) != 0) it.b[j] = static_cast<int16_t>(next(200) - 100);
          json += (j ? "," : "") + (it.b[j] ? std::to_string(*it.b[j]) : "null");
        }
        json += "]}";
      }
      json += "]";
    }
    json += "]";
    Array array = FromJson(f.type, json);
    const int64_t begin = next(static_cast<uint32_t>(rows.size()));
    const int64_t length = next(static_cast<uint32_t>(rows.size() - begin) + 1);

    // Expected: definition levels count the present optional/repeated ancestors.
    U a_def, a_rep, b_def, b_rep;
    std::vector<int32_t> a_values;
    std::vector<int16_t> b_values;
    for (int64_t r = begin; r < begin + length; ++r) {
      const Row& row = rows[r];
      if (row.null || row.items.empty()) {
        for (U* d : {&a_def, &b_def}) d->push_back(row.null ? 0 : 1);
        a_rep.push_back(0);
        b_rep.push_back(0);
        continue;
      }
      for (size_t i = 0; i < row.items.size(); ++i) {
        const Item& it = row.items[i];
        const uint32_t rep = i == 0 ? 0 : 1;
        a_rep.push_back(rep);
        a_def.push_back(it.null ? 2 : it.a ? 4 : 3);
        if (!it.null && it.a) a_values.push_back(*it.a);
        if (it.null || it.b_null || it.b.empty()) {
          b_def.push_back(it.null ? 2 : it.b_null ? 3 : 4);
          b_rep.push_back(rep);
          continue;
        }
        for (size_t j = 0; j < it.b.size(); ++j) {
          b_rep.push_back(j == 0 ? rep : 2);
          b_def.push_back(it.b[j] ? 6 : 5);
          if (it.b[j]) b_values.push_back(*it.b[j]);
        }
      }
    }
    std::vector<LeafLevels> leaves;
    ASSERT_OK(ShredColumn(f, ArraySlice(array, begin, length), &leaves));
    ASSERT_EQ(leaves.size(), 2u);
    SCOPED_TRACE(json + " slice " + std::to_string(begin) + "+" + std::to_string(length));
    EXPECT_EQ(leaves[0].def, a_def);
    EXPECT_EQ(leaves[0].rep, a_rep);
    EXPECT_EQ(leaves[1].def, b_def);
    EXPECT_EQ(leaves[1].rep, b_rep);
    std::vector<int32_t> got_a;
    for (int64_t i : leaves[0].values) got_a.push_back(leaves[0].values_array.values<int32_t>()[i]);
    std::vector<int16_t> got_b;
    for (int64_t i : leaves[1].values) got_b.push_back(leaves[1].values_array.values<int16_t>()[i]);
    EXPECT_EQ(got_a, a_values);
    EXPECT_EQ(got_b, b_values);
  }
}

TEST(ParquetShred, NullInNonNullableFieldFails) {
  Field f = MakeField("x", MakeType(TypeId::kInt32), false);
  std::vector<LeafLevels> leaves;
  Status st = ShredColumn(f, FromJson(f.type, "[1, null]"), &leaves);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.ToString().find("'x'"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Values, statistics, compression

TEST(ParquetValuesWrite, PlainDecimalIsBigEndianAtItsWidth) {
  DataType d = MakeType(TypeId::kDecimal128);
  d.precision = 5;
  d.scale = 2;
  Field f = MakeField("d", d);
  ASSERT_OK_AND_ASSIGN(auto plan, PlanParquetSchema(Schema{{f}, {}}));
  ASSERT_EQ(plan.leaves[0].type_length, 3);
  std::string out;
  AppendPlainValue(plan.leaves[0], FromJson(d, R"(["-1.00", "123.45"])"), 0, &out);
  AppendPlainValue(plan.leaves[0], FromJson(d, R"(["-1.00", "123.45"])"), 1, &out);
  EXPECT_EQ(Hex(out), "ff ff 9c 00 30 39");
  EXPECT_EQ(DecimalByteWidth(9), 4);
  EXPECT_EQ(DecimalByteWidth(18), 8);
  EXPECT_EQ(DecimalByteWidth(38), 16);
}

TEST(ParquetValuesWrite, UnitsParquetLacksAreConverted) {
  // Seconds become milliseconds, date64 becomes days (rounding down before the epoch).
  LeafPlan plan;
  auto plain = [&](const DataType& t, std::string_view json) {
    std::string out;
    Array a = FromJson(t, json);
    for (int64_t i = 0; i < a.length; ++i) AppendPlainValue(plan, a, i, &out);
    return Hex(out);
  };
  DataType t32s = MakeType(TypeId::kTime32);
  t32s.unit = TimeUnit::kSecond;
  EXPECT_EQ(plain(t32s, "[1]"), "e8 03 00 00");
  EXPECT_EQ(plain(TimestampType(TimeUnit::kSecond), "[-1]"), "18 fc ff ff ff ff ff ff");
  EXPECT_EQ(plain(MakeType(TypeId::kDate64), "[86400000, -1]"), "01 00 00 00 ff ff ff ff");
  EXPECT_EQ(plain(MakeType(TypeId::kUInt16), "[65535]"), "ff ff 00 00");  // zero-extended
  EXPECT_EQ(plain(MakeType(TypeId::kInt8), "[-1]"), "ff ff ff ff");       // sign-extended
  EXPECT_EQ(plain(MakeType(TypeId::kUtf8), R"(["hé"])"), "03 00 00 00 68 c3 a9");

  DataType d256 = MakeType(TypeId::kDecimal256);
  d256.precision = 40;
  d256.scale = 0;
  ASSERT_OK_AND_ASSIGN(auto p256, PlanParquetSchema(Schema{{MakeField("d", d256)}, {}}));
  EXPECT_EQ(p256.leaves[0].type_length, 17);
  plan = p256.leaves[0];
  EXPECT_EQ(plain(d256, R"(["-2"])"), "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff fe");
}

TEST(ParquetValuesWrite, DictionaryArraysAreWrittenAsTheirValues) {
  DataType dict = MakeType(TypeId::kDictionary);
  dict.index_type = std::make_shared<DataType>(MakeType(TypeId::kInt8));
  dict.value_type = std::make_shared<DataType>(MakeType(TypeId::kUtf8));
  Field f = MakeField("d", dict);
  ASSERT_OK_AND_ASSIGN(auto plan, PlanParquetSchema(Schema{{f}, {}}));
  ASSERT_EQ(plan.leaves.size(), 1u);
  EXPECT_EQ(plan.leaves[0].physical, PhysicalType::kByteArray);
  EXPECT_EQ(plan.elements[1].logical_type.kind, LogicalType::Kind::kString);
  Array a = FromJson(dict, R"(["b", null, "a", "b"])");
  auto leaves = Shred(f, ArraySlice(a, 1, 3));
  ASSERT_EQ(leaves.size(), 1u);
  EXPECT_EQ(leaves[0].def, (U{0, 1, 1}));
  // Indices into the dictionary, which holds each value once.
  ASSERT_EQ(leaves[0].values.size(), 2u);
  std::vector<LeafLevels> raw;
  ASSERT_OK(ShredColumn(f, ArraySlice(a, 1, 3), &raw));
  EXPECT_EQ(raw[0].values_array.GetView(raw[0].values[0]), "a");
  EXPECT_EQ(raw[0].values_array.GetView(raw[0].values[1]), "b");
}

TEST(ParquetValuesWrite, NullColumnsAreUnknownInt32) {
  Schema schema{{MakeField("n", MakeType(TypeId::kNull)), MakeField("x", MakeType(TypeId::kInt32))}, {}};
  ASSERT_OK_AND_ASSIGN(auto plan, PlanParquetSchema(schema));
  EXPECT_EQ(plan.elements[1].logical_type.kind, LogicalType::Kind::kUnknown);
  ASSERT_OK_AND_ASSIGN(Array nulls, MakeNullArray(MakeType(TypeId::kNull), 3));
  RecordBatch b{schema, 3, {nulls, FromJson(MakeType(TypeId::kInt32), "[1, 2, 3]")}};
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(schema, {b}));
  TValue meta{Footer(file)};
  const TValue& chunk = meta[4].list()[0][1].list()[0][3];
  EXPECT_EQ(chunk[5].i(), 3);      // three slots
  EXPECT_EQ(chunk[12][3].i(), 3);  // all null
  EXPECT_FALSE(chunk[12].has(5));  // no bounds
  EXPECT_FALSE(chunk.has(11));     // and no dictionary
}

TEST(ParquetValuesWrite, StatisticsOrders) {
  auto stats_of = [](SortOrder order, const std::vector<std::string>& values) {
    ChunkStatistics s(order);
    for (const auto& v : values) s.Update(v);
    return s.Take();
  };
  auto i32 = [](int32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  auto f64 = [](double v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
  Statistics s = stats_of(SortOrder::kSigned, {i32(3), i32(-5), i32(7)});
  EXPECT_EQ(*s.min_value, i32(-5));
  EXPECT_EQ(*s.max_value, i32(7));
  s = stats_of(SortOrder::kUnsigned, {i32(3), i32(-5), i32(7)});
  EXPECT_EQ(*s.min_value, i32(3));
  EXPECT_EQ(*s.max_value, i32(-5));  // 0xfffffffb unsigned
  // NaN never bounds; zeros are -0 as a min and +0 as a max.
  s = stats_of(SortOrder::kFloat, {f64(NAN), f64(0.0), f64(-0.0)});
  EXPECT_EQ(*s.min_value, f64(-0.0));
  EXPECT_EQ(*s.max_value, f64(0.0));
  EXPECT_EQ(s.nan_count, 1);
  s = stats_of(SortOrder::kFloat, {f64(NAN)});
  EXPECT_FALSE(s.min_value.has_value());
  EXPECT_EQ(s.nan_count, 1);
  EXPECT_FALSE(stats_of(SortOrder::kSigned, {i32(1)}).nan_count.has_value());
  s = stats_of(SortOrder::kBytes, {std::string("b"), std::string("\xff"), std::string("a")});
  EXPECT_EQ(*s.min_value, "a");
  EXPECT_EQ(*s.max_value, "\xff");
  s = stats_of(SortOrder::kDecimal,
               {std::string("\xff\x9c", 2), std::string("\x00\x01", 2), std::string("\x80\x00", 2)});
  EXPECT_EQ(*s.min_value, std::string("\x80\x00", 2));
  EXPECT_EQ(*s.max_value, std::string("\x00\x01", 2));
}

TEST(ParquetCompressWrite, EveryCodecRoundTrips) {
  std::string data;
  for (int k = 0; k < 5000; ++k) data += "value " + std::to_string(k % 97) + ";";
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  for (Codec c : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd, Codec::kLz4Raw}) {
    std::string packed;
    ASSERT_TRUE(CompressPage(c, 0, bytes, &packed).ok());
    if (c != Codec::kUncompressed) {
      EXPECT_LT(packed.size(), data.size() / 4) << static_cast<int>(c);
    }
    auto unpacked = DecompressPage(c, {reinterpret_cast<const uint8_t*>(packed.data()), packed.size()}, data.size());
    ASSERT_TRUE(unpacked.ok()) << unpacked.status().ToString();
    EXPECT_EQ((*unpacked)->view(), data);
  }
  // gzip output is a gzip member (RFC 1952 magic).
  std::string gz;
  ASSERT_TRUE(CompressPage(Codec::kGzip, 0, bytes, &gz).ok());
  EXPECT_EQ(Hex(gz.substr(0, 2)), "1f 8b");
}

// ---------------------------------------------------------------------------
// The writer and its options

RecordBatch IntBatch(const Schema& schema, int64_t begin, int64_t rows, int64_t modulo) {
  std::string json = "[";
  for (int64_t r = 0; r < rows; ++r) json += (r ? "," : "") + std::to_string((begin + r) % modulo);
  json += "]";
  return RecordBatch{schema, rows, {FromJson(schema.fields[0].type, json)}};
}

TEST(ParquetWriterOptions, RowGroupsRollOverInsideBatches) {
  Schema schema{{MakeField("x", MakeType(TypeId::kInt64))}, {}};
  ParquetWriteOptions o;
  o.row_group_rows = 300;
  ASSERT_OK_AND_ASSIGN(std::string file,
                       WriteFile(schema, {IntBatch(schema, 0, 250, 1000), IntBatch(schema, 250, 500, 1000)}, o));
  TValue meta{Footer(file)};
  EXPECT_EQ(meta[1].i(), 1);
  EXPECT_EQ(meta[3].i(), 750);
  const TList& groups = meta[4].list();
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0][3].i(), 300);
  EXPECT_EQ(groups[1][3].i(), 300);
  EXPECT_EQ(groups[2][3].i(), 150);
  // Statistics per chunk: the second group holds 300..599.
  const TValue& cm = groups[1][1].list()[0][3];
  const TValue& stats = cm[12];
  int64_t min, max;
  std::memcpy(&min, stats[6].s().data(), 8);
  std::memcpy(&max, stats[5].s().data(), 8);
  EXPECT_EQ(min, 300);
  EXPECT_EQ(max, 599);
  EXPECT_EQ(stats[3].i(), 0);
  // The chunk starts where its pages are: data_page_offset past the dictionary page.
  EXPECT_EQ(cm[11].i(), groups[1][5].i());
  EXPECT_GT(cm[9].i(), cm[11].i());
  // The footer carries the Arrow schema and a column order per leaf.
  bool arrow_schema = false;
  for (const TValue& kv : meta[5].list()) arrow_schema |= kv[1].s() == "ARROW:schema";
  EXPECT_TRUE(arrow_schema);
  EXPECT_EQ(meta[7].list().size(), 1u);
}

TEST(ParquetWriterOptions, RowGroupBytesEndRowGroupsEarly) {
  Schema schema{{MakeField("x", MakeType(TypeId::kInt64))}, {}};
  ParquetWriteOptions o;
  o.row_group_bytes = 40000;  // 5000 PLAIN int64 values
  o.dictionary = false;
  o.compression = ParquetCompression::kNone;
  std::vector<RecordBatch> batches;
  for (int b = 0; b < 20; ++b) batches.push_back(IntBatch(schema, b * 1000, 1000, 1 << 30));
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(schema, batches, o));
  TValue meta{Footer(file)};
  const TList& groups = meta[4].list();
  ASSERT_EQ(groups.size(), 4u);
  for (const TValue& g : groups) EXPECT_EQ(g[3].i(), 5000);
}

// Pages per encoding from a chunk's encoding_stats.
std::map<std::pair<int64_t, int64_t>, int64_t> PageCounts(const TValue& column_meta) {
  std::map<std::pair<int64_t, int64_t>, int64_t> out;
  for (const TValue& s : column_meta[13].list()) out[{s[1].i(), s[2].i()}] = s[3].i();
  return out;
}

TEST(ParquetWriterOptions, PageSizeAndDictionaryFallback) {
  Schema schema{{MakeField("x", MakeType(TypeId::kInt64))}, {}};
  ParquetWriteOptions o;
  o.page_bytes = 1024;
  o.compression = ParquetCompression::kNone;
  // 64 distinct values: the dictionary (512 bytes) fits, indices are 6 bits a value.
  ASSERT_OK_AND_ASSIGN(std::string small, WriteFile(schema, {IntBatch(schema, 0, 10000, 64)}, o));
  TValue meta{Footer(small)};
  auto counts = PageCounts(meta[4].list()[0][1].list()[0][3]);
  EXPECT_EQ(counts[std::make_pair(2, 0)], 1);  // one PLAIN dictionary page
  EXPECT_GE(counts[std::make_pair(0, 8)], 6);  // ~7.5 KB of indices in 1 KB pages
  EXPECT_EQ(counts.count(std::make_pair(0, 0)), 0u);

  // All distinct: the dictionary passes page_bytes after 128 values and PLAIN takes over.
  ASSERT_OK_AND_ASSIGN(std::string big, WriteFile(schema, {IntBatch(schema, 0, 10000, 1 << 30)}, o));
  meta = TValue{Footer(big)};
  counts = PageCounts(meta[4].list()[0][1].list()[0][3]);
  EXPECT_EQ(counts[std::make_pair(2, 0)], 1);
  EXPECT_EQ(counts[std::make_pair(0, 8)], 1);
  EXPECT_GE(counts[std::make_pair(0, 0)], 70);  // 80 KB of PLAIN values in 1 KB pages

  o.dictionary = false;
  ASSERT_OK_AND_ASSIGN(std::string plain, WriteFile(schema, {IntBatch(schema, 0, 10000, 64)}, o));
  meta = TValue{Footer(plain)};
  counts = PageCounts(meta[4].list()[0][1].list()[0][3]);
  EXPECT_EQ(counts.size(), 1u);
  EXPECT_FALSE(meta[4].list()[0][1].list()[0][3].has(11));  // no dictionary_page_offset
}

TEST(ParquetWriterOptions, RepeatedColumnsCutPagesAtRowStarts) {
  Field f = MakeField("l", ListOf(MakeField("item", MakeType(TypeId::kInt32))));
  Schema schema{{f}, {}};
  std::string json = "[";
  for (int r = 0; r < 500; ++r) json += std::string(r ? "," : "") + "[1,2,3,4,5,6,7,8,9,10]";
  json += "]";
  ParquetWriteOptions o;
  o.page_bytes = 100;
  o.dictionary = false;
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(schema, {RecordBatch{schema, 500, {FromJson(f.type, json)}}}, o));
  // Walk the pages: each data page holds whole lists, a multiple of 10 values.
  TValue meta{Footer(file)};
  const TValue& cm = meta[4].list()[0][1].list()[0][3];
  EXPECT_EQ(cm[5].i(), 5000);
  size_t pos = static_cast<size_t>(cm[9].i());
  int64_t total = 0;
  int pages = 0;
  while (total < 5000) {
    CompactReader r(std::string_view(file).substr(pos));
    TValue h{r.Struct()};
    const int64_t n = h[5][1].i();
    EXPECT_EQ(n % 10, 0);
    total += n;
    pos += r.pos() + static_cast<size_t>(h[3].i());
    ++pages;
  }
  EXPECT_EQ(total, 5000);
  EXPECT_GT(pages, 10);
}

TEST(ParquetWriterOptions, RejectsWhatParquetCannotHold) {
  Schema empty_struct{{MakeField("s", StructOf({}))}, {}};
  auto st = WriteFile(empty_struct, {});
  EXPECT_EQ(st.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.status().ToString().find("'s'"), std::string::npos);
  Field bad_id = MakeField("x", MakeType(TypeId::kInt32));
  bad_id.metadata[kParquetFieldIdKey] = "seven";
  EXPECT_EQ(WriteFile(Schema{{bad_id}, {}}, {}).status().code(), StatusCode::kInvalidArgument);
  Schema schema{{MakeField("x", MakeType(TypeId::kInt32))}, {}};
  RecordBatch wrong{schema, 1, {FromJson(MakeType(TypeId::kInt64), "[1]")}};
  EXPECT_EQ(WriteFile(schema, {wrong}).status().code(), StatusCode::kInvalidArgument);
  // Offsets past the end of the data are refused, not followed.
  Schema strings{{MakeField("s", MakeType(TypeId::kUtf8))}, {}};
  Array bad = FromJson(strings.fields[0].type, R"(["ab", "c"])");
  const int32_t offsets[] = {0, 2, 99};
  bad.buffers[1] = Buffer::Copy(std::string_view(reinterpret_cast<const char*>(offsets), sizeof(offsets)));
  EXPECT_EQ(WriteFile(strings, {RecordBatch{strings, 2, {bad}}}).status().code(), StatusCode::kInvalidArgument);
  ParquetWriteOptions o;
  o.row_group_rows = 0;
  EXPECT_EQ(WriteFile(schema, {}, o).status().code(), StatusCode::kInvalidArgument);
}

// ARROW:schema is base64 of an encapsulated IPC schema message: with an end-of-stream
// marker after it, Lancet's IPC reader gets the exact schema back.
TEST(ParquetWriterOptions, ArrowSchemaKeyRestoresTheSchema) {
  DataType t32 = MakeType(TypeId::kTime32);
  t32.unit = TimeUnit::kSecond;
  Field fid = MakeField("f", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat16)), 2));
  fid.metadata[kParquetFieldIdKey] = "3";
  Schema schema{{fid, MakeField("t", t32), MakeField("ts", TimestampType(TimeUnit::kSecond, "Asia/Tokyo"))},
                {{"k", "v"}}};
  ASSERT_OK_AND_ASSIGN(std::string value, ArrowSchemaFooterValue(schema));
  std::string raw;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : value) {
    if (c == '=') break;
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    acc = (acc << 6) | static_cast<uint32_t>(std::strchr(alphabet, c) - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      raw.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  EXPECT_EQ(value.size() % 4, 0u);
  raw += std::string("\xff\xff\xff\xff\0\0\0\0", 8);
  ASSERT_OK_AND_ASSIGN(auto data, ReadIpcStreamData(Buffer::Copy(raw)));
  ASSERT_EQ(data.schema.fields.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(data.schema.fields[i], schema.fields[i]) << i;
  EXPECT_EQ(data.schema.metadata, schema.metadata);
}

TEST(ParquetWriterOptions, EmptyFileAndSinkErrors) {
  Schema schema{{MakeField("x", MakeType(TypeId::kInt32))}, {}};
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(schema, {}));
  TValue meta{Footer(file)};
  EXPECT_EQ(meta[3].i(), 0);
  EXPECT_TRUE(meta[4].list().empty());
  int calls = 0;
  auto writer = ParquetWriter::Open(
      [&calls](std::span<const uint8_t>) { return ++calls > 1 ? Status::IOError("disk full") : Status::OK(); }, schema);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write(IntBatch(schema, 0, 10, 10)).ok());
  EXPECT_EQ((*writer)->Finish().code(), StatusCode::kIOError);
}

}  // namespace
}  // namespace lancet::format::parquet
