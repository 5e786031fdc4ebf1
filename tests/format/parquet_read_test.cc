// OpenParquetReader and ReadParquetSchema on hand-built files: flat and nested schemas
// (levels to validity, list offsets, structs, maps, legacy lists), data pages v1 and v2,
// dictionaries, several row groups in small batches, projection, and corrupt files.
#include <gtest/gtest.h>

#include <cstring>

#include "format/ipc_writer.h"
#include "format/parquet_read_util.h"
#include "lancet/format/parquet.h"
#include "util/test_macros.h"

namespace lancet::format {
namespace {

using parquet::Encoding;
using parquet::PhysicalType;
using parquet::testing::Chunk;
using parquet::testing::Element;
using parquet::testing::Group;

std::shared_ptr<const io::RandomAccessFile> AsFile(const std::string& bytes) {
  auto store = io::NewMemoryStore();
  EXPECT_OK(store->Put("/t.parquet", {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
  auto f = store->OpenRead("/t.parquet");
  EXPECT_OK(f.status());
  return std::shared_ptr<const io::RandomAccessFile>(std::move(*f));
}

Result<std::vector<RecordBatch>> ReadAll(const std::string& bytes, ParquetReadOptions options = {}) {
  ASSIGN_OR_RETURN(auto reader, OpenParquetReader(AsFile(bytes), options));
  ASSIGN_OR_RETURN(auto batches, ReadAllBatches(*reader));
  for (const auto& b : batches) {
    for (const auto& c : b.columns) RETURN_IF_ERROR(c.Validate());
  }
  return batches;
}

std::string Page(const std::string& body, int32_t n, Encoding enc = Encoding::kPlain) {
  return parquet::testing::DataPageV1Header(body.size(), n, enc) + body;
}

Element Root(int n) { return Element{.name = "schema", .repetition = -1, .num_children = n}; }

// Optional int32 a (field id 3) with a null, required string s.
std::string FlatFile() {
  Element a{.name = "a", .type = 1, .repetition = 1, .field_id = 3};
  Element s{.name = "s", .type = 6, .repetition = 0, .converted = 0};
  Chunk ca{.path = {"a"},
           .type = PhysicalType::kInt32,
           .num_values = 3,
           .pages = Page(parquet::testing::RleLevels({1, 0, 1}, 1, true) + parquet::testing::PlainInt32({10, 30}), 3)};
  Chunk cs{.path = {"s"},
           .type = PhysicalType::kByteArray,
           .num_values = 3,
           .pages = Page(parquet::testing::PlainStrings({"x", "", "zz"}), 3)};
  return parquet::testing::BuildFile({Root(2), a, s}, {{3, {ca, cs}}}, {{"origin", "test"}});
}

TEST(ParquetRead, FlatColumnsWithNullsAndMetadata) {
  ASSERT_OK_AND_ASSIGN(Schema schema, ReadParquetSchema(*AsFile(FlatFile())));
  ASSERT_EQ(schema.fields.size(), 2u);
  EXPECT_EQ(schema.fields[0].type.id, TypeId::kInt32);
  EXPECT_TRUE(schema.fields[0].nullable);
  EXPECT_EQ(schema.fields[0].metadata.at(kParquetFieldIdKey), "3");
  EXPECT_EQ(schema.fields[1].type.id, TypeId::kUtf8);
  EXPECT_FALSE(schema.fields[1].nullable);
  EXPECT_EQ(schema.metadata.at("origin"), "test");
  ASSERT_OK_AND_ASSIGN(auto batches, ReadAll(FlatFile()));
  ASSERT_EQ(batches.size(), 1u);
  const Array& a = batches[0].columns[0];
  ASSERT_EQ(a.length, 3);
  EXPECT_EQ(a.null_count, 1);
  EXPECT_EQ(a.values<int32_t>()[0], 10);
  EXPECT_TRUE(a.IsNull(1));
  EXPECT_EQ(a.values<int32_t>()[2], 30);
  const Array& s = batches[0].columns[1];
  EXPECT_EQ(s.GetView(0), "x");
  EXPECT_EQ(s.GetView(1), "");
  EXPECT_EQ(s.GetView(2), "zz");
}

// Records the ranges read, to see what a projection touches.
class RecordingFile : public io::RandomAccessFile {
 public:
  explicit RecordingFile(std::shared_ptr<const io::RandomAccessFile> inner) : inner_(std::move(inner)) {}
  const std::string& path() const override { return inner_->path(); }
  Result<uint64_t> Size() const override { return inner_->Size(); }
  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) const override {
    reads.emplace_back(offset, length);
    return inner_->ReadAt(offset, length);
  }
  mutable std::vector<std::pair<uint64_t, uint64_t>> reads;

 private:
  std::shared_ptr<const io::RandomAccessFile> inner_;
};

TEST(ParquetRead, ProjectionReadsOnlyNamedColumns) {
  ParquetReadOptions options;
  options.columns = {"s"};
  auto file = std::make_shared<RecordingFile>(AsFile(FlatFile()));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenParquetReader(file, options));
  ASSERT_OK_AND_ASSIGN(auto batches, ReadAllBatches(*reader));
  ASSERT_EQ(batches[0].columns.size(), 1u);
  EXPECT_EQ(batches[0].schema.fields[0].name, "s");
  EXPECT_EQ(batches[0].columns[0].GetView(2), "zz");
  // Column a's chunk follows the magic (as FlatFile builds it): no read but the magic's
  // may touch it.
  const size_t a_end =
      4 + Page(parquet::testing::RleLevels({1, 0, 1}, 1, true) + parquet::testing::PlainInt32({10, 30}), 3).size();
  ASSERT_FALSE(file->reads.empty());
  for (const auto& [offset, length] : file->reads) {
    if (offset == 0 && length == 4) continue;
    EXPECT_GE(offset, a_end) << "read [" << offset << ", +" << length << ")";
  }
  options.columns = {"nope"};
  EXPECT_TRUE(ReadAll(FlatFile(), options).status().IsInvalidArgument());
}

// optional group l (LIST) { repeated group list { optional int64 element } }:
// rows [1, null], null, [], [2].
std::string ListFile(bool v2) {
  Element l{.name = "l", .repetition = 1, .num_children = 1, .converted = 3};
  Element list{.name = "list", .repetition = 2, .num_children = 1};
  Element el{.name = "element", .type = 2, .repetition = 1};
  const std::vector<int> def = {3, 2, 0, 1, 3}, rep = {0, 1, 0, 0, 0};
  const std::string values = parquet::testing::PlainInt64({1, 2});
  std::string pages;
  if (v2) {
    std::string r = parquet::testing::RleLevels(rep, 1, false), d = parquet::testing::RleLevels(def, 2, false);
    pages = parquet::testing::DataPageV2Header(r.size() + d.size() + values.size(), 5, 3, 4, Encoding::kPlain,
                                               static_cast<int32_t>(d.size()), static_cast<int32_t>(r.size())) +
            r + d + values;
  } else {
    pages = Page(parquet::testing::RleLevels(rep, 1, true) + parquet::testing::RleLevels(def, 2, true) + values, 5);
  }
  Chunk c{.path = {"l", "list", "element"}, .type = PhysicalType::kInt64, .num_values = 5, .pages = pages};
  return parquet::testing::BuildFile({Root(1), l, list, el}, {{4, {c}}});
}

void ExpectListRows(const Array& l) {
  ASSERT_EQ(l.type.id, TypeId::kList);
  ASSERT_EQ(l.length, 4);
  EXPECT_EQ(l.ListRange(0), (std::pair<int64_t, int64_t>{0, 2}));
  EXPECT_TRUE(l.IsNull(1));
  EXPECT_TRUE(l.IsValid(2));
  EXPECT_EQ(l.ListRange(2).first, l.ListRange(2).second);
  EXPECT_EQ(l.ListRange(3), (std::pair<int64_t, int64_t>{2, 3}));
  const Array& items = l.children[0];
  ASSERT_EQ(items.length, 3);
  EXPECT_EQ(items.values<int64_t>()[0], 1);
  EXPECT_TRUE(items.IsNull(1));
  EXPECT_EQ(items.values<int64_t>()[2], 2);
}

TEST(ParquetRead, ThreeLevelListV1AndV2) {
  for (bool v2 : {false, true}) {
    ASSERT_OK_AND_ASSIGN(auto batches, ReadAll(ListFile(v2)));
    ASSERT_EQ(batches.size(), 1u);
    ExpectListRows(batches[0].columns[0]);
  }
}

TEST(ParquetRead, BatchesSplitAtRowBoundaries) {
  ParquetReadOptions options;
  options.batch_rows = 1;
  ASSERT_OK_AND_ASSIGN(auto batches, ReadAll(ListFile(false), options));
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batches[0].columns[0].children[0].length, 2);
  EXPECT_TRUE(batches[1].columns[0].IsNull(0));
  EXPECT_EQ(batches[3].columns[0].children[0].values<int64_t>()[0], 2);
}

// Legacy 2-level list: required group l (LIST) { repeated int32 array }, and a bare
// repeated field r: both lists of required items.
TEST(ParquetRead, LegacyTwoLevelAndBareRepeated) {
  Element l{.name = "l", .repetition = 0, .num_children = 1, .converted = 3};
  Element arr{.name = "array", .type = 1, .repetition = 2};
  Element r{.name = "r", .type = 1, .repetition = 2};
  // Rows: [5, 6], [].
  const std::string levels =
      parquet::testing::RleLevels({0, 1, 0}, 1, true) + parquet::testing::RleLevels({1, 1, 0}, 1, true);
  Chunk cl{.path = {"l", "array"},
           .type = PhysicalType::kInt32,
           .num_values = 3,
           .pages = Page(levels + parquet::testing::PlainInt32({5, 6}), 3)};
  Chunk cr{.path = {"r"},
           .type = PhysicalType::kInt32,
           .num_values = 3,
           .pages = Page(levels + parquet::testing::PlainInt32({5, 6}), 3)};
  ASSERT_OK_AND_ASSIGN(auto batches, ReadAll(parquet::testing::BuildFile({Root(2), l, arr, r}, {{2, {cl, cr}}})));
  for (int c = 0; c < 2; ++c) {
    const Array& a = batches[0].columns[c];
    ASSERT_EQ(a.type.id, TypeId::kList);
    EXPECT_FALSE(a.type.children[0].nullable);
    EXPECT_EQ(a.ListRange(0), (std::pair<int64_t, int64_t>{0, 2}));
    EXPECT_EQ(a.ListRange(1), (std::pair<int64_t, int64_t>{2, 2}));
    EXPECT_EQ(a.children[0].values<int32_t>()[1], 6);
  }
}

// optional group m (MAP) { repeated group key_value { required binary key (UTF8);
// optional int32 value } } and optional group st { optional int32 x; optional group ys
// (LIST) {...} } over rows: {a: 1, b: null}, null map.
TEST(ParquetRead, MapsAndStructsOfLists) {
  Element m{.name = "m", .repetition = 1, .num_children = 1, .converted = 1};
  Element kv{.name = "key_value", .repetition = 2, .num_children = 2};
  Element key{.name = "key", .type = 6, .repetition = 0, .converted = 0};
  Element value{.name = "value", .type = 1, .repetition = 1};
  Element st{.name = "st", .repetition = 1, .num_children = 2};
  Element x{.name = "x", .type = 1, .repetition = 1};
  Element ys{.name = "ys", .repetition = 1, .num_children = 1, .logical = 3};
  Element ylist{.name = "list", .repetition = 2, .num_children = 1};
  Element y{.name = "element", .type = 1, .repetition = 0};
  using parquet::testing::PlainInt32;
  using parquet::testing::RleLevels;
  Chunk ck{.path = {"m", "key_value", "key"},
           .type = PhysicalType::kByteArray,
           .num_values = 3,
           .pages = Page(RleLevels({0, 1, 0}, 1, true) + RleLevels({2, 2, 0}, 2, true) +
                             parquet::testing::PlainStrings({"a", "b"}),
                         3)};
  Chunk cv{.path = {"m", "key_value", "value"},
           .type = PhysicalType::kInt32,
           .num_values = 3,
           .pages = Page(RleLevels({0, 1, 0}, 1, true) + RleLevels({3, 2, 0}, 2, true) + PlainInt32({1}), 3)};
  // st rows: {x: 4, ys: [7, 8]}, null.
  Chunk cx{.path = {"st", "x"},
           .type = PhysicalType::kInt32,
           .num_values = 2,
           .pages = Page(RleLevels({2, 0}, 2, true) + PlainInt32({4}), 2)};
  Chunk cy{.path = {"st", "ys", "list", "element"},
           .type = PhysicalType::kInt32,
           .num_values = 3,
           .pages = Page(RleLevels({0, 1, 0}, 1, true) + RleLevels({3, 3, 0}, 2, true) + PlainInt32({7, 8}), 3)};
  const std::string file =
      parquet::testing::BuildFile({Root(2), m, kv, key, value, st, x, ys, ylist, y}, {{2, {ck, cv, cx, cy}}});
  auto read = ReadAll(file);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const auto& batches = *read;
  const Array& map = batches[0].columns[0];
  ASSERT_EQ(map.type.id, TypeId::kMap);
  EXPECT_EQ(map.ListRange(0), (std::pair<int64_t, int64_t>{0, 2}));
  EXPECT_TRUE(map.IsNull(1));
  const Array& entries = map.children[0];
  EXPECT_EQ(entries.children[0].GetView(1), "b");
  EXPECT_EQ(entries.children[1].values<int32_t>()[0], 1);
  EXPECT_TRUE(entries.children[1].IsNull(1));
  const Array& s = batches[0].columns[1];
  ASSERT_EQ(s.type.id, TypeId::kStruct);
  EXPECT_TRUE(s.IsValid(0));
  EXPECT_TRUE(s.IsNull(1));
  EXPECT_EQ(s.children[0].values<int32_t>()[0], 4);
  EXPECT_EQ(s.children[1].ListRange(0), (std::pair<int64_t, int64_t>{0, 2}));
  EXPECT_EQ(s.children[1].children[0].values<int32_t>()[1], 8);
}

// Two row groups, a dictionary page, logical types: INTEGER(8), DATE, TIMESTAMP(us, UTC),
// DECIMAL(9, 2) on INT32, FLOAT16 and DECIMAL(20, 0) on FIXED_LEN_BYTE_ARRAY, INT96.
TEST(ParquetRead, LogicalTypesDictionaryAndRowGroups) {
  Element i8{.name = "i8", .type = 1, .repetition = 0, .logical = 10, .logical_a = 8, .logical_b = 1};
  Element date{.name = "d", .type = 1, .repetition = 0, .converted = 6};
  Element ts{.name = "ts", .type = 2, .repetition = 0, .logical = 8, .logical_a = 1, .logical_b = 2};
  Element dec{.name = "dec", .type = 1, .repetition = 0, .converted = 5, .scale = 2, .precision = 9};
  Element f16{.name = "h", .type = 7, .repetition = 0, .type_length = 2, .logical = 15};
  Element big{
      .name = "big", .type = 7, .repetition = 0, .type_length = 9, .logical = 5, .logical_a = 0, .logical_b = 20};
  Element i96{.name = "t96", .type = 3, .repetition = 0};
  std::vector<Group> groups;
  for (int g = 0; g < 2; ++g) {
    Group group;
    group.num_rows = 2;
    const std::string dict = parquet::testing::PlainInt32({-5, 100});
    const std::string idx = {0x01, 0x03, static_cast<char>(g == 0 ? 0b01 : 0b10)};  // width 1, one packed group
    group.chunks.push_back(
        {{"i8"},
         PhysicalType::kInt32,
         2,
         parquet::testing::DictionaryPageHeader(dict.size(), 2) + dict + Page(idx, 2, Encoding::kRleDictionary)});
    group.chunks.push_back({{"d"}, PhysicalType::kInt32, 2, Page(parquet::testing::PlainInt32({19000, -1}), 2)});
    group.chunks.push_back({{"ts"}, PhysicalType::kInt64, 2, Page(parquet::testing::PlainInt64({1, -2}), 2)});
    group.chunks.push_back({{"dec"}, PhysicalType::kInt32, 2, Page(parquet::testing::PlainInt32({-12345, 7}), 2)});
    group.chunks.push_back({{"h"}, PhysicalType::kFixedLenByteArray, 2, Page(std::string("\x00\x3c\x00\xc0", 4), 2)});
    std::string be(9, '\xff');  // -1
    std::string be2(9, '\0');
    be2[8] = 1;  // 1
    group.chunks.push_back({{"big"}, PhysicalType::kFixedLenByteArray, 2, Page(be + be2, 2)});
    std::string t96(24, '\0');
    const int64_t nanos = 5;
    const int32_t day = 2440589;  // 1970-01-02
    std::memcpy(t96.data(), &nanos, 8);
    std::memcpy(t96.data() + 8, &day, 4);
    std::memcpy(t96.data() + 20, &day, 4);
    group.chunks.push_back({{"t96"}, PhysicalType::kInt96, 2, Page(t96, 2)});
    groups.push_back(group);
  }
  const std::string file = parquet::testing::BuildFile({Root(7), i8, date, ts, dec, f16, big, i96}, groups);
  ASSERT_OK_AND_ASSIGN(Schema schema, ReadParquetSchema(*AsFile(file)));
  EXPECT_EQ(schema.fields[0].type.id, TypeId::kInt8);
  EXPECT_EQ(schema.fields[1].type.id, TypeId::kDate32);
  EXPECT_EQ(schema.fields[2].type, TimestampType(TimeUnit::kMicro, "UTC"));
  EXPECT_EQ(schema.fields[3].type.id, TypeId::kDecimal128);
  EXPECT_EQ(schema.fields[3].type.scale, 2);
  EXPECT_EQ(schema.fields[4].type.id, TypeId::kFloat16);
  EXPECT_EQ(schema.fields[5].type.precision, 20);
  EXPECT_EQ(schema.fields[6].type, TimestampType(TimeUnit::kNano));
  ParquetReadOptions options;
  options.batch_rows = 3;
  ASSERT_OK_AND_ASSIGN(auto batches, ReadAll(file, options));
  ASSERT_EQ(batches.size(), 2u);  // a batch never spans row groups
  EXPECT_EQ(batches[0].num_rows, 2);
  EXPECT_EQ(batches[0].columns[0].values<int8_t>()[0], 100);
  EXPECT_EQ(batches[0].columns[0].values<int8_t>()[1], -5);
  EXPECT_EQ(batches[1].columns[0].values<int8_t>()[0], -5);
  EXPECT_EQ(batches[1].columns[0].values<int8_t>()[1], 100);
  EXPECT_EQ(batches[0].columns[1].values<int32_t>()[1], -1);
  EXPECT_EQ(batches[0].columns[2].values<int64_t>()[1], -2);
  const auto* dec128 = batches[0].columns[3].values<int64_t>();
  EXPECT_EQ(dec128[0], -12345);
  EXPECT_EQ(dec128[1], -1);  // sign-extended high word
  EXPECT_EQ(batches[0].columns[4].values<uint16_t>()[0], 0x3c00);
  const auto* big128 = batches[0].columns[5].values<int64_t>();
  EXPECT_EQ(big128[0], -1);
  EXPECT_EQ(big128[1], -1);
  EXPECT_EQ(big128[2], 1);
  EXPECT_EQ(big128[3], 0);
  EXPECT_EQ(batches[0].columns[6].values<int64_t>()[0], 86400LL * 1000000000 + 5);
}

// An Arrow writer's ARROW:schema restores what Parquet cannot say: fixed_size_list (null
// rows padded with null elements), large_utf8, duration and a timestamp's zone name.
TEST(ParquetRead, RestoresTypesFromArrowSchema) {
  Element l{.name = "l", .repetition = 1, .num_children = 1, .converted = 3};
  Element list{.name = "list", .repetition = 2, .num_children = 1};
  Element el{.name = "element", .type = 1, .repetition = 0};
  Element s{.name = "s", .type = 6, .repetition = 0, .converted = 0};
  Element d{.name = "d", .type = 2, .repetition = 0};
  Element t{.name = "t", .type = 2, .repetition = 0, .logical = 8, .logical_a = 1, .logical_b = 1};
  using parquet::testing::RleLevels;
  // l rows: [1, 2], null, [3, 4].
  Chunk cl{.path = {"l", "list", "element"},
           .type = PhysicalType::kInt32,
           .num_values = 5,
           .pages = Page(RleLevels({0, 1, 0, 0, 1}, 1, true) + RleLevels({2, 2, 0, 2, 2}, 2, true) +
                             parquet::testing::PlainInt32({1, 2, 3, 4}),
                         5)};
  Chunk cs{.path = {"s"},
           .type = PhysicalType::kByteArray,
           .num_values = 3,
           .pages = Page(parquet::testing::PlainStrings({"a", "bc", ""}), 3)};
  Chunk cd{.path = {"d"},
           .type = PhysicalType::kInt64,
           .num_values = 3,
           .pages = Page(parquet::testing::PlainInt64({5, -6, 7}), 3)};
  Chunk ct{.path = {"t"},
           .type = PhysicalType::kInt64,
           .num_values = 3,
           .pages = Page(parquet::testing::PlainInt64({1, 2, 3}), 3)};
  DataType duration = MakeType(TypeId::kDuration);
  duration.unit = TimeUnit::kMilli;
  Schema arrow;
  arrow.fields = {MakeField("l", FixedSizeListOf(MakeField("item", MakeType(TypeId::kInt32), false), 2)),
                  MakeField("s", MakeType(TypeId::kLargeUtf8), false), MakeField("d", duration, false),
                  MakeField("t", TimestampType(TimeUnit::kMilli, "Europe/Paris"), false)};
  ASSERT_OK_AND_ASSIGN(BufferPtr ipc, WriteIpcStream(arrow, {}));
  const std::string file = parquet::testing::BuildFile(
      {Root(4), l, list, el, s, d, t}, {{3, {cl, cs, cd, ct}}},
      {{"ARROW:schema", parquet::testing::Base64(std::string(ipc->view()))}, {"other", "kept"}});
  ASSERT_OK_AND_ASSIGN(Schema schema, ReadParquetSchema(*AsFile(file)));
  EXPECT_EQ(schema.fields[0].type, arrow.fields[0].type);
  EXPECT_EQ(schema.fields[1].type.id, TypeId::kLargeUtf8);
  EXPECT_EQ(schema.fields[2].type, duration);
  EXPECT_EQ(schema.fields[3].type.timezone, "Europe/Paris");
  EXPECT_EQ(schema.metadata.count("ARROW:schema"), 0u);
  EXPECT_EQ(schema.metadata.at("other"), "kept");
  auto read = ReadAll(file);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const RecordBatch& b = (*read)[0];
  const Array& fsl = b.columns[0];
  ASSERT_EQ(fsl.children[0].length, 6);
  EXPECT_TRUE(fsl.IsNull(1));
  EXPECT_EQ(fsl.children[0].values<int32_t>()[4], 3);
  EXPECT_EQ(b.columns[1].GetView(1), "bc");
  EXPECT_EQ(b.columns[2].values<int64_t>()[1], -6);
  // A list row of the wrong length cannot be a fixed_size_list: Corruption, not a guess.
  arrow.fields[0] = MakeField("l", FixedSizeListOf(MakeField("item", MakeType(TypeId::kInt32), false), 3));
  ASSERT_OK_AND_ASSIGN(ipc, WriteIpcStream(arrow, {}));
  const std::string bad =
      parquet::testing::BuildFile({Root(4), l, list, el, s, d, t}, {{3, {cl, cs, cd, ct}}},
                                  {{"ARROW:schema", parquet::testing::Base64(std::string(ipc->view()))}});
  EXPECT_TRUE(ReadAll(bad).status().IsCorruption());
  // An undecodable key is ignored.
  const std::string junk = parquet::testing::BuildFile({Root(4), l, list, el, s, d, t}, {{3, {cl, cs, cd, ct}}},
                                                       {{"ARROW:schema", "!!not base64"}});
  ASSERT_OK_AND_ASSIGN(schema, ReadParquetSchema(*AsFile(junk)));
  EXPECT_EQ(schema.fields[0].type.id, TypeId::kList);
}

// Data pages v2 in the encodings DuckDB does not write (DELTA_BYTE_ARRAY, RLE booleans),
// the ones it does (DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT), and decimals on BYTE_ARRAY
// and a decimal256 on FIXED_LEN_BYTE_ARRAY. Rows: 3, the middle one null.
TEST(ParquetRead, EncodedPagesV2) {
  using parquet::testing::DeltaBinaryPacked;
  using parquet::testing::RleLevels;
  const std::string def = RleLevels({1, 0, 1}, 1, false);
  auto page = [&](const std::string& values, Encoding enc) {
    return parquet::testing::DataPageV2Header(def.size() + values.size(), 3, 1, 3, enc,
                                              static_cast<int32_t>(def.size()), 0) +
           def + values;
  };
  Element i64{.name = "i", .type = 2, .repetition = 1};
  Element str{.name = "s", .type = 6, .repetition = 1, .converted = 0};
  Element f{.name = "f", .type = 4, .repetition = 1};
  Element b{.name = "b", .type = 0, .repetition = 1};
  Element dba{.name = "dba", .type = 6, .repetition = 1, .converted = 5, .scale = 1, .precision = 30};
  Element d256{
      .name = "d256", .type = 7, .repetition = 1, .type_length = 20, .logical = 5, .logical_a = 3, .logical_b = 45};
  const float floats[2] = {1.5f, -0.25f};
  std::string bss(8, '\0');
  for (int v = 0; v < 2; ++v) {
    for (int k = 0; k < 4; ++k) bss[k * 2 + v] = reinterpret_cast<const char*>(&floats[v])[k];
  }
  // "prefix-a", "prefix-b": prefixes 0 and 7.
  const std::string strings = DeltaBinaryPacked({0, 7}) + DeltaBinaryPacked({8, 1}) + "prefix-ab";
  const std::string bools = std::string("\x02\0\0\0", 4) + std::string("\x04\x01", 2);  // RLE run: 2 x true
  std::string big(20, '\0');
  big[0] = '\x80';  // the most negative 160-bit value's top byte, sign-extended to 256 bits
  const std::string big2 = std::string(19, '\0') + "\x09";
  std::vector<Chunk> chunks = {
      {{"i"}, PhysicalType::kInt64, 3, page(DeltaBinaryPacked({-5, 1000000000000}), Encoding::kDeltaBinaryPacked)},
      {{"s"}, PhysicalType::kByteArray, 3, page(strings, Encoding::kDeltaByteArray)},
      {{"f"}, PhysicalType::kFloat, 3, page(bss, Encoding::kByteStreamSplit)},
      {{"b"}, PhysicalType::kBoolean, 3, page(bools, Encoding::kRle)},
      {{"dba"},
       PhysicalType::kByteArray,
       3,
       page(parquet::testing::PlainStrings({"\xff", std::string("\x01\x00", 2)}), Encoding::kPlain)},
      {{"d256"}, PhysicalType::kFixedLenByteArray, 3, page(big + big2, Encoding::kPlain)}};
  const std::string file = parquet::testing::BuildFile({Root(6), i64, str, f, b, dba, d256}, {{3, chunks}});
  auto read = ReadAll(file);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const RecordBatch& batch = (*read)[0];
  for (const Array& c : batch.columns) {
    EXPECT_EQ(c.null_count, 1);
    EXPECT_TRUE(c.IsNull(1));
  }
  EXPECT_EQ(batch.columns[0].values<int64_t>()[0], -5);
  EXPECT_EQ(batch.columns[0].values<int64_t>()[2], 1000000000000);
  EXPECT_EQ(batch.columns[1].GetView(0), "prefix-a");
  EXPECT_EQ(batch.columns[1].GetView(2), "prefix-b");
  EXPECT_EQ(batch.columns[2].values<float>()[0], 1.5f);
  EXPECT_EQ(batch.columns[2].values<float>()[2], -0.25f);
  EXPECT_TRUE(batch.columns[3].GetBool(0));
  EXPECT_TRUE(batch.columns[3].GetBool(2));
  EXPECT_EQ(batch.columns[4].type.id, TypeId::kDecimal128);
  EXPECT_EQ(batch.columns[4].values<int64_t>()[0], -1);
  EXPECT_EQ(batch.columns[4].values<int64_t>()[4], 256);
  const Array& wide = batch.columns[5];
  EXPECT_EQ(wide.type.id, TypeId::kDecimal256);
  EXPECT_EQ(wide.values<uint64_t>()[2], 0xffffffff80000000ULL);  // bytes 16..23 of value 0
  EXPECT_EQ(wide.values<uint64_t>()[3], ~0ULL);
  EXPECT_EQ(wide.values<uint64_t>()[8], 9u);
}

TEST(ParquetRead, CorruptFilesFailWithCorruption) {
  const std::string good = FlatFile();
  EXPECT_TRUE(ReadParquetSchema(*AsFile("PAR1")).status().IsCorruption());
  EXPECT_TRUE(ReadParquetSchema(*AsFile("XXXX" + good.substr(4))).status().IsCorruption());
  // Every truncation and every single-byte change: an error or valid arrays, never a crash.
  for (size_t n = 0; n < good.size(); ++n) {
    std::string bad = good;
    bad[n] = static_cast<char>(bad[n] ^ 0x5a);
    (void)ReadAll(bad);
    (void)ReadAll(good.substr(0, n));
  }
  // A level above the column's maximum.
  Element a{.name = "a", .type = 1, .repetition = 1};
  Chunk ca{.path = {"a"},
           .type = PhysicalType::kInt32,
           .num_values = 1,
           .pages = Page(parquet::testing::RleLevels({3}, 2, true) + parquet::testing::PlainInt32({1}), 1)};
  auto r = ReadAll(parquet::testing::BuildFile({Root(1), a}, {{1, {ca}}}));
  ASSERT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("/t.parquet"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("column 'a'"), std::string::npos) << r.status().ToString();
  // Fewer rows than the row group claims.
  Chunk one{.path = {"a"},
            .type = PhysicalType::kInt32,
            .num_values = 1,
            .pages = Page(parquet::testing::RleLevels({1}, 1, true) + parquet::testing::PlainInt32({1}), 1)};
  EXPECT_TRUE(ReadAll(parquet::testing::BuildFile({Root(1), a}, {{2, {one}}})).status().IsCorruption());
  // A page bigger than max_page_bytes.
  ParquetReadOptions small;
  small.max_page_bytes = 4;
  EXPECT_TRUE(ReadAll(good, small).status().IsCorruption());
}

}  // namespace
}  // namespace lancet::format
