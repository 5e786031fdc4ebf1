// Round trips through FileWriter and FileReader: every type, nulls at every depth,
// chunk and page boundaries, and the layouts the writer chooses.
#include "lancet/format/file_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "format/repdef_writer.h"
#include "lancet/format/file_reader.h"
#include "util/array_builder.h"
#include "util/array_json.h"
#include "util/test_macros.h"

namespace lancet::format {
namespace {

DataType T(TypeId id) { return MakeType(id); }

DataType Decimal(TypeId id, int32_t p, int32_t s) {
  DataType t = MakeType(id);
  t.precision = p;
  t.scale = s;
  return t;
}

DataType FixedBinary(int32_t width) {
  DataType t = MakeType(TypeId::kFixedSizeBinary);
  t.byte_width = width;
  return t;
}

DataType WithUnit(TypeId id, TimeUnit unit) {
  DataType t = MakeType(id);
  t.unit = unit;
  return t;
}

struct Written {
  std::shared_ptr<io::ObjectStore> store;
  FileStats stats;
  Schema schema;
};

Result<Written> WriteFile(const Schema& schema, const std::vector<RecordBatch>& batches,
                          FileWriterOptions options = {}) {
  Written w;
  w.store = io::NewMemoryStore();
  ASSIGN_OR_RETURN(auto writer, FileWriter::Open(w.store, "f.lance", schema, options));
  for (const auto& b : batches) RETURN_IF_ERROR(writer->Write(b));
  w.schema = writer->schema();
  ASSIGN_OR_RETURN(w.stats, writer->Finish());
  return w;
}

// Reads every top-level field back and compares it with the concatenated input.
void ExpectRoundTrip(const Schema& schema, const std::vector<RecordBatch>& batches, FileWriterOptions options = {},
                     FileStats* stats_out = nullptr) {
  ASSERT_OK_AND_ASSIGN(Written w, WriteFile(schema, batches, options));
  if (stats_out != nullptr) *stats_out = w.stats;
  ASSERT_OK_AND_ASSIGN(auto file, w.store->OpenRead("f.lance"));
  ASSERT_OK_AND_ASSIGN(uint64_t size, w.store->Size("f.lance"));
  EXPECT_EQ(size, w.stats.file_size);
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file))));
  int64_t rows = 0;
  for (const auto& b : batches) rows += b.num_rows;
  ASSERT_EQ(reader->num_rows(), static_cast<uint64_t>(rows));
  ASSERT_EQ(w.stats.num_rows, static_cast<uint64_t>(rows));
  ASSERT_OK_AND_ASSIGN(auto leaves, internal::LeafColumnsOf(w.schema));
  ASSERT_EQ(reader->num_columns(), leaves.size());
  for (size_t f = 0; f < w.schema.fields.size(); ++f) {
    std::vector<int> cols;
    for (size_t c = 0; c < leaves.size(); ++c) {
      if (leaves[c].top_level_index == static_cast<int>(f)) cols.push_back(static_cast<int>(c));
    }
    std::vector<Array> parts;
    for (const auto& b : batches) parts.push_back(b.columns[f]);
    if (parts.empty()) {
      ASSERT_OK_AND_ASSIGN(Array none, MakeNullArray(w.schema.fields[f].type, 0));
      parts.push_back(none);
    }
    ASSERT_OK_AND_ASSIGN(Array expected, Concatenate(parts));
    ASSERT_OK_AND_ASSIGN(Array got, reader->ReadRange(w.schema.fields[f], cols, 0, static_cast<uint64_t>(rows)));
    EXPECT_TRUE(ArraysEqual(got, expected)) << "field " << w.schema.fields[f].name << " ("
                                            << w.schema.fields[f].type.ToString() << ") differs";
    if (rows > 3) {
      // A range in the middle exercises page and chunk lookup.
      const uint64_t b = static_cast<uint64_t>(rows) / 3, e = static_cast<uint64_t>(rows) - 1;
      ASSERT_OK_AND_ASSIGN(Array part, reader->ReadRange(w.schema.fields[f], cols, b, e));
      std::vector<int64_t> idx;
      for (uint64_t i = b; i < e; ++i) idx.push_back(static_cast<int64_t>(i));
      ASSERT_OK_AND_ASSIGN(Array want, TakeRows(expected, idx));
      EXPECT_TRUE(ArraysEqual(part, want)) << "field " << w.schema.fields[f].name << " rows [" << b << ", " << e
                                           << ") differ";
    }
  }
}

RecordBatch Batch(const Schema& schema, std::vector<Array> columns) {
  RecordBatch b;
  b.schema = schema;
  b.num_rows = columns.empty() ? 0 : columns[0].length;
  b.columns = std::move(columns);
  return b;
}

// One-column round trip from a JSON literal.
void ExpectJsonRoundTrip(const DataType& type, std::string_view json, bool nullable = true,
                         FileWriterOptions options = {}) {
  SCOPED_TRACE(type.ToString() + " " + std::string(json.substr(0, 80)));
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromJson(type, json));
  Schema schema{{MakeField("c", type, nullable)}, {}};
  ExpectRoundTrip(schema, {Batch(schema, {a})}, options);
}

TEST(FileWriterTest, Primitives) {
  ExpectJsonRoundTrip(T(TypeId::kBool), "[true, false, null, true, true]");
  ExpectJsonRoundTrip(T(TypeId::kInt8), "[1, -2, null, 127, -128]");
  ExpectJsonRoundTrip(T(TypeId::kInt16), "[1, -2, null, 32767]");
  ExpectJsonRoundTrip(T(TypeId::kInt32), "[1, -2, null, 2147483647]");
  ExpectJsonRoundTrip(T(TypeId::kInt64), R"([1, -2, null, "9223372036854775807"])");
  ExpectJsonRoundTrip(T(TypeId::kUInt8), "[1, 2, null, 255]");
  ExpectJsonRoundTrip(T(TypeId::kUInt16), "[1, 2, null, 65535]");
  ExpectJsonRoundTrip(T(TypeId::kUInt32), "[1, 2, null, 4294967295]");
  ExpectJsonRoundTrip(T(TypeId::kUInt64), R"([1, 2, null, "18446744073709551615"])");
  ExpectJsonRoundTrip(T(TypeId::kFloat16), "[1.5, -2, null, 0]");
  ExpectJsonRoundTrip(T(TypeId::kFloat32), R"([1.5, -2, null, "NaN", "Inf"])");
  ExpectJsonRoundTrip(T(TypeId::kFloat64), R"([1.5, -2, null, "-Inf", 1e300])");
  ExpectJsonRoundTrip(T(TypeId::kUtf8), R"(["a", "", null, "héllo", "xyz"])");
  ExpectJsonRoundTrip(T(TypeId::kLargeUtf8), R"(["a", "", null, "héllo"])");
  ExpectJsonRoundTrip(T(TypeId::kBinary), R"(["00ff", "", null, "0102"])");
  ExpectJsonRoundTrip(T(TypeId::kLargeBinary), R"(["00ff", "", null, "0102"])");
  ExpectJsonRoundTrip(FixedBinary(3), R"(["00ff00", null, "010203"])");
  ExpectJsonRoundTrip(T(TypeId::kDate32), "[0, 19000, null, -1]");
  ExpectJsonRoundTrip(T(TypeId::kDate64), "[0, 1641600000000, null]");
  ExpectJsonRoundTrip(WithUnit(TypeId::kTime32, TimeUnit::kMilli), "[0, 1000, null]");
  ExpectJsonRoundTrip(WithUnit(TypeId::kTime64, TimeUnit::kNano), "[0, 1000, null]");
  ExpectJsonRoundTrip(TimestampType(TimeUnit::kMicro), "[0, 1700000000000000, null]");
  ExpectJsonRoundTrip(TimestampType(TimeUnit::kSecond, "UTC"), "[0, 1700000000, null]");
  ExpectJsonRoundTrip(WithUnit(TypeId::kDuration, TimeUnit::kMilli), "[0, -5, null]");
  ExpectJsonRoundTrip(Decimal(TypeId::kDecimal128, 10, 2), R"(["1.25", "-3.00", null])");
  ExpectJsonRoundTrip(Decimal(TypeId::kDecimal256, 40, 3), R"(["1.250", "-3", null])");
}

TEST(FileWriterTest, NonNullable) {
  ExpectJsonRoundTrip(T(TypeId::kInt32), "[1, 2, 3]", /*nullable=*/false);
  ExpectJsonRoundTrip(T(TypeId::kUtf8), R"(["a", "b"])", /*nullable=*/false);
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromJson(T(TypeId::kInt32), "[1, null]"));
  Schema schema{{MakeField("c", T(TypeId::kInt32), false)}, {}};
  auto r = WriteFile(schema, {Batch(schema, {a})});
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
}

TEST(FileWriterTest, NullType) {
  ExpectJsonRoundTrip(T(TypeId::kNull), "[null, null, null]");
  ExpectJsonRoundTrip(ListOf(MakeField("item", T(TypeId::kNull))), "[[null], [], null, [null, null]]");
}

TEST(FileWriterTest, FixedSizeList) {
  DataType f4 = FixedSizeListOf(MakeField("item", T(TypeId::kFloat32)), 4);
  ExpectJsonRoundTrip(f4, "[[1,2,3,4], null, [5,6,null,8], [0,0,0,0]]");
  ExpectJsonRoundTrip(f4, "[[1,2,3,4], [5,6,7,8]]", /*nullable=*/false);
  DataType b3 = FixedSizeListOf(MakeField("item", T(TypeId::kBool)), 3);
  ExpectJsonRoundTrip(b3, "[[true,false,true], null, [false,null,true]]");
  // 128 x f32 = 512 B per value: full-zip.
  std::string json = "[";
  for (int r = 0; r < 20; ++r) {
    if (r) json += ",";
    if (r == 3) {
      json += "null";
      continue;
    }
    json += "[";
    for (int i = 0; i < 128; ++i) json += (i ? "," : "") + (r == 5 && i == 7 ? std::string("null") : std::to_string(r * 1000 + i));
    json += "]";
  }
  json += "]";
  ExpectJsonRoundTrip(FixedSizeListOf(MakeField("item", T(TypeId::kFloat32)), 128), json);
}

TEST(FileWriterTest, Structs) {
  DataType inner = StructOf({MakeField("x", T(TypeId::kInt64)), MakeField("y", T(TypeId::kUtf8))});
  DataType outer = StructOf({MakeField("a", T(TypeId::kInt32)), MakeField("in", inner), MakeField("b", T(TypeId::kBool))});
  ExpectJsonRoundTrip(outer, R"([
    {"a": 1, "in": {"x": 10, "y": "p"}, "b": true},
    null,
    {"a": null, "in": null, "b": false},
    {"a": 4, "in": {"x": null, "y": null}, "b": null},
    {"a": 5, "in": {"x": 50, "y": ""}, "b": true}])");
  DataType ns = StructOf({MakeField("a", T(TypeId::kInt32), false)});
  ExpectJsonRoundTrip(ns, R"([{"a": 1}, {"a": 2}])", /*nullable=*/false);
}

TEST(FileWriterTest, Lists) {
  ExpectJsonRoundTrip(ListOf(MakeField("item", T(TypeId::kInt32))), "[[1,2,3], [], null, [null, 5], [6]]");
  ExpectJsonRoundTrip(ListOf(MakeField("item", T(TypeId::kInt32), false)), "[[1,2,3], [], null, [4, 5]]");
  ExpectJsonRoundTrip(ListOf(MakeField("item", T(TypeId::kInt32), false)), "[[1,2,3], [], [4, 5]]", false);
  ExpectJsonRoundTrip(LargeListOf(MakeField("item", T(TypeId::kUtf8))), R"([["a", null, ""], null, [], ["bcd"]])");
  ExpectJsonRoundTrip(ListOf(MakeField("item", ListOf(MakeField("item", T(TypeId::kInt64))))),
                      "[[[1,2],[],null,[3]], null, [], [null], [[4]]]");
  ExpectJsonRoundTrip(
      ListOf(MakeField("item", StructOf({MakeField("a", T(TypeId::kInt32)), MakeField("b", T(TypeId::kUtf8))}))),
      R"([[{"a":1,"b":"x"}, null, {"a":null,"b":"y"}], [], null, [{"a":3,"b":null}]])");
  ExpectJsonRoundTrip(StructOf({MakeField("l", ListOf(MakeField("item", T(TypeId::kFloat64)))),
                                MakeField("s", T(TypeId::kUtf8))}),
                      R"([{"l":[1.5,null],"s":"a"}, null, {"l":null,"s":null}, {"l":[],"s":"b"}])");
  ExpectJsonRoundTrip(ListOf(MakeField("item", FixedSizeListOf(MakeField("item", T(TypeId::kInt32)), 2))),
                      "[[[1,2],null,[3,null]], [], null, [[5,6]]]");
}

TEST(FileWriterTest, Maps) {
  DataType entries = StructOf({MakeField("key", T(TypeId::kUtf8), false), MakeField("value", T(TypeId::kInt32))});
  DataType map = MakeType(TypeId::kMap);
  map.children.push_back(MakeField("entries", entries, false));
  ExpectJsonRoundTrip(map, R"([[["a", 1], ["b", null]], [], null, [["c", 3]]])");
}

TEST(FileWriterTest, Dictionary) {
  DataType dict = MakeType(TypeId::kDictionary);
  dict.index_type = std::make_shared<DataType>(T(TypeId::kInt32));
  dict.value_type = std::make_shared<DataType>(T(TypeId::kUtf8));
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromJson(dict, R"(["x", "y", null, "x", "z"])"));
  ASSERT_OK_AND_ASSIGN(Array plain, ArrayFromJson(T(TypeId::kUtf8), R"(["x", "y", null, "x", "z"])"));
  Schema schema{{MakeField("c", dict)}, {}};
  ASSERT_OK_AND_ASSIGN(Written w, WriteFile(schema, {Batch(schema, {a})}));
  ASSERT_OK_AND_ASSIGN(auto file, w.store->OpenRead("f.lance"));
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file))));
  std::vector<int> cols = {0};
  // Dictionary columns are stored as their values.
  ASSERT_OK_AND_ASSIGN(Array got, reader->ReadRange(MakeField("c", T(TypeId::kUtf8)), cols, 0, 5));
  EXPECT_TRUE(ArraysEqual(got, plain));
}

// Deterministic pseudo-random data large enough for many chunks and pages.
struct Big {
  Schema schema;
  std::vector<RecordBatch> batches;
};

Big MakeBig(int64_t rows, int64_t batch_rows, uint32_t seed) {
  std::mt19937 rng(seed);
  Big big;
  big.schema.fields = {
      MakeField("seq", T(TypeId::kInt64), false),
      MakeField("small", T(TypeId::kInt32)),
      MakeField("wide", T(TypeId::kUInt64)),
      MakeField("f", T(TypeId::kFloat32)),
      MakeField("b", T(TypeId::kBool)),
      MakeField("s", T(TypeId::kUtf8)),
      MakeField("l", ListOf(MakeField("item", T(TypeId::kInt32)))),
      MakeField("long", T(TypeId::kLargeUtf8)),
  };
  for (int64_t start = 0; start < rows; start += batch_rows) {
    const int64_t n = std::min(batch_rows, rows - start);
    std::vector<int64_t> seq(n);
    std::vector<int32_t> small(n);
    std::vector<uint64_t> wide(n);
    std::vector<float> f(n);
    std::vector<bool> b(n), small_valid(n), f_valid(n);
    std::vector<std::optional<std::string>> s(n), lng(n);
    std::vector<int64_t> offsets{0};
    std::vector<int32_t> items;
    std::vector<bool> item_valid, list_valid;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = start + i;
      seq[i] = r;
      small[i] = static_cast<int32_t>(rng() % 1000);
      small_valid[i] = rng() % 10 != 0;
      wide[i] = (static_cast<uint64_t>(rng()) << 32) | rng();
      f[i] = static_cast<float>(rng() % 100000) / 7.0f;
      f_valid[i] = rng() % 7 != 0;
      b[i] = rng() % 2;
      if (rng() % 9 != 0) s[i] = "row-" + std::to_string(r) + std::string(rng() % 20, 'x');
      if (rng() % 5 != 0) lng[i] = std::string(200 + rng() % 200, static_cast<char>('a' + r % 26));
      const uint32_t kind = rng() % 10;
      list_valid.push_back(kind != 0);
      if (kind > 1) {
        const int len = static_cast<int>(rng() % 6);
        for (int k = 0; k < len; ++k) {
          items.push_back(static_cast<int32_t>(rng() % 50000));
          item_valid.push_back(rng() % 11 != 0);
        }
      }
      offsets.push_back(static_cast<int64_t>(items.size()));
    }
    std::vector<Array> cols;
    cols.push_back(*ArrayFromVector(T(TypeId::kInt64), seq));
    cols.push_back(*ArrayFromVector(T(TypeId::kInt32), small, small_valid));
    cols.push_back(*ArrayFromVector(T(TypeId::kUInt64), wide));
    cols.push_back(*ArrayFromVector(T(TypeId::kFloat32), f, f_valid));
    cols.push_back(*ArrayFromVector(T(TypeId::kBool), b));
    cols.push_back(*MakeBinaryArray(T(TypeId::kUtf8), s));
    Array child = *ArrayFromVector(T(TypeId::kInt32), items, item_valid);
    cols.push_back(*MakeListArray(big.schema.fields[6].type, offsets, child, list_valid));
    cols.push_back(*MakeBinaryArray(T(TypeId::kLargeUtf8), lng));
    big.batches.push_back(Batch(big.schema, std::move(cols)));
  }
  return big;
}

TEST(FileWriterTest, ManyChunksOnePage) {
  Big big = MakeBig(10000, 3000, 1);
  FileStats stats;
  ExpectRoundTrip(big.schema, big.batches, {}, &stats);
  for (const auto& c : stats.columns) {
    EXPECT_EQ(c.num_pages, 1u) << c.path;
  }
}

TEST(FileWriterTest, ManyPages) {
  Big big = MakeBig(20000, 4096, 2);
  FileWriterOptions options;
  options.max_page_bytes = 4096;
  FileStats stats;
  ExpectRoundTrip(big.schema, big.batches, options, &stats);
  for (const auto& c : stats.columns) EXPECT_GT(c.num_pages, 3u) << c.path;
}

TEST(FileWriterTest, BoundariesAt1024) {
  for (int64_t n : {1, 2, 3, 1023, 1024, 1025, 2048, 4095, 4096, 4097}) {
    SCOPED_TRACE(n);
    Big big = MakeBig(n, 1000, static_cast<uint32_t>(n));
    ExpectRoundTrip(big.schema, big.batches);
  }
}

TEST(FileWriterTest, NoBitpacking) {
  Big big = MakeBig(5000, 5000, 3);
  FileWriterOptions options;
  options.enable_bitpacking = false;
  ExpectRoundTrip(big.schema, big.batches, options);
}

TEST(FileWriterTest, EmptyBatchesAndZeroRows) {
  Big big = MakeBig(0, 1, 4);
  Big some = MakeBig(5, 5, 4);
  ASSERT_OK_AND_ASSIGN(RecordBatch empty, [&]() -> Result<RecordBatch> {
    RecordBatch b = some.batches[0];
    for (auto& c : b.columns) {
      ASSIGN_OR_RETURN(c, TakeRows(c, {}));
    }
    b.num_rows = 0;
    return b;
  }());
  ExpectRoundTrip(some.schema, {});
  ExpectRoundTrip(some.schema, {empty});
  ExpectRoundTrip(some.schema, {empty, some.batches[0], empty});
}

TEST(FileWriterTest, ListsAcrossChunks) {
  // Long lists split across chunks, runs of empty/null lists at chunk edges.
  std::vector<int64_t> offsets{0};
  std::vector<bool> valid;
  std::vector<int32_t> items;
  for (int r = 0; r < 3000; ++r) {
    const int kind = r % 7;
    valid.push_back(kind != 3);
    int len = kind == 0 ? 700 : kind == 1 ? 0 : kind == 3 ? 0 : (r % 5);
    if (r > 1000 && r < 1100) len = 0;  // a run of empty lists
    for (int k = 0; k < len; ++k) items.push_back(r * 10 + k);
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  DataType lt = ListOf(MakeField("item", T(TypeId::kInt32)));
  Array child = *ArrayFromVector(T(TypeId::kInt32), items);
  ASSERT_OK_AND_ASSIGN(Array l, MakeListArray(lt, offsets, child, valid));
  Schema schema{{MakeField("l", lt)}, {}};
  ExpectRoundTrip(schema, {Batch(schema, {l})});
  FileWriterOptions no_bp;
  no_bp.enable_bitpacking = false;
  ExpectRoundTrip(schema, {Batch(schema, {l})}, no_bp);
  // Full-zip lists, too.
  Schema fz{{MakeField("l", lt)}, {}};
  fz.fields[0].metadata[kStructuralEncodingKey] = "fullzip";
  ExpectRoundTrip(fz, {Batch(fz, {l})});
}

TEST(FileWriterTest, ManyEmptyListsSplitPages) {
  // 100k empty lists: levels with no values must not overflow a chunk.
  std::vector<int64_t> offsets(100001, 0);
  offsets.back() = 1;
  DataType lt = ListOf(MakeField("item", T(TypeId::kInt32)));
  Array child = *ArrayFromVector(T(TypeId::kInt32), std::vector<int32_t>{7});
  ASSERT_OK_AND_ASSIGN(Array l, MakeListArray(lt, offsets, child));
  Schema schema{{MakeField("l", lt)}, {}};
  ExpectRoundTrip(schema, {Batch(schema, {l})});
}

TEST(FileWriterTest, FieldMetadata) {
  Big big = MakeBig(3000, 3000, 5);
  for (const char* comp : {"zstd", "lz4", "none"}) {
    SCOPED_TRACE(comp);
    Schema schema = big.schema;
    for (auto& f : schema.fields) f.metadata[kCompressionKey] = comp;
    schema.fields[1].metadata[kCompressionLevelKey] = "3";
    std::vector<RecordBatch> batches = big.batches;
    for (auto& b : batches) b.schema = schema;
    ExpectRoundTrip(schema, batches);
  }
  {
    Schema schema = big.schema;
    for (auto& f : schema.fields) f.metadata[kStructuralEncodingKey] = "fullzip";
    schema.fields[4].metadata.erase(kStructuralEncodingKey);  // bools have no full-zip form
    ExpectRoundTrip(schema, big.batches);
  }
  {
    Schema schema = big.schema;
    schema.fields[7].metadata[kStructuralEncodingKey] = "miniblock";
    ExpectRoundTrip(schema, big.batches);
  }
  Schema bad = big.schema;
  bad.fields[0].metadata[kCompressionKey] = "snappy";
  EXPECT_TRUE(FileWriter::Open(io::NewMemoryStore(), "x", bad).status().IsInvalidArgument());
}

TEST(FileWriterTest, HugeValuesAreCompressed) {
  std::vector<std::optional<std::string>> v;
  for (int i = 0; i < 6; ++i) {
    if (i == 2) {
      v.push_back(std::nullopt);
    } else {
      v.push_back(std::string(40000 + i * 1000, static_cast<char>('a' + i)));
    }
  }
  ASSERT_OK_AND_ASSIGN(Array a, MakeBinaryArray(T(TypeId::kLargeBinary), v));
  Schema schema{{MakeField("c", T(TypeId::kLargeBinary))}, {}};
  FileStats stats;
  ExpectRoundTrip(schema, {Batch(schema, {a})}, {}, &stats);
  ASSERT_EQ(stats.columns.size(), 1u);
  EXPECT_LT(stats.file_size, 20000u);
}

TEST(FileWriterTest, PackedStruct) {
  // The Blob V2 descriptor shape: one full-zip column with VariablePackedStruct.
  DataType desc = StructOf({MakeField("kind", T(TypeId::kUInt8), false), MakeField("position", T(TypeId::kUInt64), false),
                            MakeField("size", T(TypeId::kUInt64), false), MakeField("blob_id", T(TypeId::kUInt32), false),
                            MakeField("blob_uri", T(TypeId::kUtf8), false)});
  Field f = MakeField("blob", desc);
  f.metadata[kPackedStructKey] = "true";
  f.metadata["lance-encoding:blob"] = "true";
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromJson(desc, R"([
     {"kind":0,"position":64,"size":10,"blob_id":0,"blob_uri":""},
     null,
     {"kind":3,"position":0,"size":0,"blob_id":0,"blob_uri":"file:///x"}])"));
  Schema schema{{MakeField("id", T(TypeId::kInt64)), f}, {}};
  ASSERT_OK_AND_ASSIGN(Array ids, ArrayFromJson(T(TypeId::kInt64), "[1,2,3]"));
  FileStats stats;
  ExpectRoundTrip(schema, {Batch(schema, {ids, a})}, {}, &stats);
  ASSERT_EQ(stats.columns.size(), 2u);
  ASSERT_EQ(stats.columns[1].encodings.size(), 1u);
  EXPECT_EQ(stats.columns[1].encodings[0].rfind("fullzip", 0), 0u) << stats.columns[1].encodings[0];
}

TEST(FileWriterTest, RawBuffersAndStats) {
  auto store = io::NewMemoryStore();
  Schema schema{{MakeField("a", T(TypeId::kInt32))}, {}};
  ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(store, "f.lance", schema));
  std::vector<uint8_t> payload = {1, 2, 3, 4, 5};
  ASSERT_OK_AND_ASSIGN(uint64_t at, writer->WriteRawBuffer(payload));
  EXPECT_EQ(at % 64, 0u);
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromJson(T(TypeId::kInt32), "[1,2,3]"));
  ASSERT_OK(writer->Write(Batch(schema, {a})));
  EXPECT_EQ(writer->schema().fields[0].id, 0);
  ASSERT_OK_AND_ASSIGN(FileStats stats, writer->Finish());
  EXPECT_EQ(stats.num_rows, 3u);
  ASSERT_EQ(stats.columns.size(), 1u);
  EXPECT_EQ(stats.columns[0].field_id, 0);
  EXPECT_FALSE(writer->Finish().ok());
  ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead("f.lance"));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, file->ReadAt(at, payload.size()));
  EXPECT_EQ(std::vector<uint8_t>(bytes->data(), bytes->data() + bytes->size()), payload);
  ASSERT_OK_AND_ASSIGN(uint64_t size, store->Size("f.lance"));
  ASSERT_OK_AND_ASSIGN(BufferPtr footer, file->ReadAt(size - 4, 4));
  EXPECT_EQ(footer->view(), "LANC");
}

TEST(FileWriterTest, RejectsMismatchedBatch) {
  Schema schema{{MakeField("a", T(TypeId::kInt32))}, {}};
  ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(io::NewMemoryStore(), "f", schema));
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromJson(T(TypeId::kInt64), "[1]"));
  EXPECT_TRUE(writer->Write(Batch(schema, {a})).IsInvalidArgument());
  EXPECT_TRUE(writer->Write(Batch(schema, {})).IsInvalidArgument());
}

TEST(FileWriterTest, LocalStoreStreamsAndPublishesAtFinish) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("lancet_fw_stream_" + std::to_string(getpid()) + "_" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto store = io::LocalFileSystem();
  Big big = MakeBig(3000, 3000, 9);
  FileWriterOptions small_pages;
  small_pages.max_page_bytes = 4096;  // pages reach the store before Finish
  {
    ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(store, (dir / "a.lance").string(), big.schema, small_pages));
    ASSERT_OK(writer->Write(big.batches[0]));
    EXPECT_FALSE(fs::exists(dir / "a.lance"));
    ASSERT_OK_AND_ASSIGN(FileStats stats, writer->Finish());
    EXPECT_EQ(fs::file_size(dir / "a.lance"), stats.file_size);
  }
  {
    // Abandoned before Finish: no object and no temporary file stays behind.
    ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(store, (dir / "b.lance").string(), big.schema, small_pages));
    ASSERT_OK(writer->Write(big.batches[0]));
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"a.lance"});
  ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead((dir / "a.lance").string()));
  ASSERT_OK_AND_ASSIGN(auto reader, FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file))));
  EXPECT_EQ(reader->num_rows(), 3000u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lancet::format
