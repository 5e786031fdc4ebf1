#include "index/bloom_filter.h"

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "index/zone_index_test_util.h"
#include "lancet/format/file_reader.h"
#include "lancet/format/file_writer.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

using testing::BuildAndOpen;
using testing::Equals;
using testing::ExpectCovers;
using testing::In;
using testing::IsNull;
using testing::RowAddresses;

constexpr auto kBloom = ScalarIndexType::kBloomFilter;

Array I64(std::vector<int64_t> v) { return ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), v).MoveValue(); }
Array F64(std::vector<double> v) { return ArrayFromVector<double>(MakeType(TypeId::kFloat64), v).MoveValue(); }

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) out += {digits[b >> 4], digits[b & 15]};
  return out;
}

// The file's schema metadata and each zone's filter bytes, read with the plain reader.
std::pair<Metadata, std::vector<std::string>> ReadFilters(const std::shared_ptr<io::ObjectStore>& store) {
  auto reader = format::FileReader::Open(store->OpenRead("/idx/bloomfilter.lance").MoveValue()).MoveValue();
  const Schema& schema = reader->file_schema();
  EXPECT_EQ(schema.fields.size(), 5u);
  const int leaf = 4;
  Array data = reader->ReadRange(schema.fields[4], std::span<const int>(&leaf, 1), 0, reader->num_rows()).MoveValue();
  std::vector<std::string> filters;
  for (int64_t z = 0; z < data.length; ++z) filters.emplace_back(data.GetView(z));
  return {schema.metadata, filters};
}

// The expected filters were computed in Python (python3-xxhash over the reference's
// bytes(value): little-endian integers and floats, raw string bytes).
TEST(BloomFilterTest, FilterBytesMatchAnIndependentComputation) {
  auto store = io::NewMemoryStore();
  const std::map<std::string, std::string> tiny = {{"number_of_items", "3"}, {"probability", "0.5"}};
  Array ints = ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3}).MoveValue();
  ASSERT_TRUE(BuildAndOpen(kBloom, store, ints, RowAddresses({0}, {3}), tiny).ok());
  auto [metadata, filters] = ReadFilters(store);
  EXPECT_EQ(metadata.at("bloomfilter_item"), "3");
  EXPECT_EQ(metadata.at("bloomfilter_probability"), "0.5");
  ASSERT_EQ(filters.size(), 1u);
  EXPECT_EQ(Hex(filters[0]), "240004000000000c004080000502000080000084002040000000500200380000");

  ASSERT_TRUE(BuildAndOpen(kBloom, store, StringArray({"a", "bc"}), RowAddresses({0}, {2}), tiny).ok());
  EXPECT_EQ(Hex(ReadFilters(store).second.at(0)), "0000040000010200024000000012000000000300000000090010000820000080");
  ASSERT_TRUE(BuildAndOpen(kBloom, store, F64({1.5, -0.0}), RowAddresses({0}, {2}), tiny).ok());
  EXPECT_EQ(Hex(ReadFilters(store).second.at(0)), "0100000400000500001040000100020001000800820000000000400008000008");
}

TEST(BloomFilterTest, DefaultsAndZoneCutting) {
  auto store = io::NewMemoryStore();
  std::vector<int64_t> v(9000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
  ASSERT_TRUE(BuildAndOpen(kBloom, store, I64(v), RowAddresses({0, 1}, {8500, 500}), {}, 4096).ok());
  auto [metadata, filters] = ReadFilters(store);
  EXPECT_EQ(metadata.at("bloomfilter_item"), "8192");
  EXPECT_EQ(metadata.at("bloomfilter_probability"), "0.00057");
  ASSERT_EQ(filters.size(), 3u);  // 8192 + 308 rows of fragment 0, 500 of fragment 1
  for (const auto& f : filters) EXPECT_EQ(f.size(), 32768u);
}

TEST(BloomFilterTest, PresentValuesFoundAbsentOnesSkipNearlyEveryZone) {
  auto store = io::NewMemoryStore();
  const auto rows =
      RowAddresses({0, 1, 7}, {20000, 9000, 11000}, [](uint64_t f, uint64_t o) { return f == 1 && o % 5 == 1; });
  std::mt19937_64 rng(3);
  std::vector<int64_t> v(rows.size());
  std::vector<std::optional<std::string>> s(rows.size());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<int64_t>(rng() % 1000000) * 2;  // even: odd values are absent
    s[i] = "s" + std::to_string(v[i]);
  }
  Array ints = I64(v), strings = StringArray(s);
  const std::map<std::string, std::string> params = {{"number_of_items", "1000"}, {"probability", "0.01"}};
  auto int_reader = BuildAndOpen(kBloom, store, ints, rows, params);
  ASSERT_TRUE(int_reader.ok()) << int_reader.status().ToString();
  auto string_store = io::NewMemoryStore();
  auto string_reader = BuildAndOpen(kBloom, string_store, strings, rows, params);
  ASSERT_TRUE(string_reader.ok()) << string_reader.status().ToString();
  const uint64_t zones = 20 + 8 + 11;
  for (int i = 0; i < 50; ++i) {
    const size_t at = rng() % v.size();
    auto hit = (*int_reader)->Search(Equals(I64({v[at]})));
    ASSERT_TRUE(hit.ok());
    ExpectCovers(ints, rows, Equals(I64({v[at]})), *hit);
    auto shit = (*string_reader)->Search(Equals(StringArray({s[at]})));
    ASSERT_TRUE(shit.ok());
    ExpectCovers(strings, rows, Equals(StringArray({s[at]})), *shit);

    const int64_t absent = static_cast<int64_t>(rng() % 1000000) * 2 + 1;
    auto miss = (*int_reader)->Search(Equals(I64({absent})));
    ASSERT_TRUE(miss.ok());
    EXPECT_LE(miss->rows.cardinality(), zones / 10 * 1100) << absent;  // >= 90% of zones skipped
    auto smiss = (*string_reader)->Search(Equals(StringArray({"s" + std::to_string(absent)})));
    ASSERT_TRUE(smiss.ok());
    EXPECT_LE(smiss->rows.cardinality(), zones / 10 * 1100) << absent;
  }
  const ScalarQuery in = In(I64({v[5], v[25000], 7, v[v.size() - 1]}));
  ExpectCovers(ints, rows, in, (*int_reader)->Search(in).MoveValue());
}

TEST(BloomFilterTest, NullsZerosAndNaN) {
  auto store = io::NewMemoryStore();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Zones of 3: {1, null, 2} {-0, 4, 5} {-nan, 7, 8} {9, 10, 11}
  std::vector<double> v = {1, 0, 2, -0.0, 4, 5, -nan, 7, 8, 9, 10, 11};
  std::vector<bool> valid(v.size(), true);
  valid[1] = false;
  Array col = ArrayFromVector<double>(MakeType(TypeId::kFloat64), v, valid).MoveValue();
  const auto rows = RowAddresses({2}, {v.size()});
  auto reader = BuildAndOpen(kBloom, store, col, rows, {{"number_of_items", "3"}}, 4);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto zones = [&](const ScalarQuery& q) {
    auto r = (*reader)->Search(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return std::string();
    ExpectCovers(col, rows, q, *r);
    std::string out;
    for (uint64_t z = 0; z < 4; ++z) out += r->rows.contains(uint64_t{(2ULL << 32) + z * 3}) ? '1' : '0';
    return out;
  };
  EXPECT_EQ(zones(IsNull()), "1000");
  EXPECT_EQ(zones(Equals(F64({0.0}))), "0100");  // the filter holds -0's bits
  EXPECT_EQ(zones(Equals(F64({nan}))), "1111");  // a NaN's bits cannot be trusted
  EXPECT_EQ(zones(In(F64({10, 1}))), "1001");
  Array null_literal = ArrayFromVector<double>(MakeType(TypeId::kFloat64), {0}, {false}).MoveValue();
  EXPECT_EQ(zones(Equals(null_literal)), "1000");
  ScalarQuery range;
  range.kind = ScalarQuery::Kind::kRange;
  EXPECT_FALSE((*reader)->Supports(range));
  EXPECT_TRUE((*reader)->Search(range).status().IsNotSupported());
}

TEST(BloomFilterTest, TypesTheReferenceCannotFilterAreRefused) {
  auto store = io::NewMemoryStore();
  for (TypeId id : {TypeId::kBool, TypeId::kFloat16, TypeId::kDecimal128, TypeId::kStruct}) {
    auto b = MakeScalarIndexBuilder(kBloom, MakeField("x", MakeType(id)), store, "/b", {});
    EXPECT_TRUE(b.status().IsInvalidArgument()) << TypeIdName(id);
  }
  BuildOptions bad;
  bad.params = {{"probability", "1.5"}};
  EXPECT_TRUE(MakeScalarIndexBuilder(kBloom, MakeField("x", MakeType(TypeId::kInt32)), store, "/b", bad)
                  .status()
                  .IsInvalidArgument());
  bad.params = {{"rows_per_zone", "10"}};
  EXPECT_TRUE(MakeScalarIndexBuilder(kBloom, MakeField("x", MakeType(TypeId::kInt32)), store, "/b", bad)
                  .status()
                  .IsInvalidArgument());
}

Status OpenHandMadeFilter(std::string filter) {
  auto store = io::NewMemoryStore();
  const DataType u64 = MakeType(TypeId::kUInt64);
  Schema schema;
  schema.fields = {MakeField("fragment_id", u64), MakeField("zone_start", u64), MakeField("zone_length", u64),
                   MakeField("has_null", MakeType(TypeId::kBool)),
                   MakeField("bloom_filter_data", MakeType(TypeId::kBinary))};
  auto writer = format::FileWriter::Open(store, "/h/bloomfilter.lance", schema).MoveValue();
  auto one = ArrayFromVector<uint64_t>(u64, {1}).MoveValue();
  std::vector<Array> columns = {one, one, one, MakeBoolArray({false}).MoveValue(),
                                MakeBinaryArray(MakeType(TypeId::kBinary), {filter}).MoveValue()};
  RETURN_IF_ERROR(writer->Write(RecordBatch{writer->schema(), 1, std::move(columns)}));
  RETURN_IF_ERROR(writer->Finish().status());
  return OpenScalarIndex(kBloom, store, "/h", MakeType(TypeId::kInt64)).status();
}

TEST(BloomFilterTest, BadFiltersAreCorrupt) {
  EXPECT_TRUE(OpenHandMadeFilter(std::string(64, '\0')).ok());
  for (size_t n : {0, 33, 40}) {
    Status st = OpenHandMadeFilter(std::string(n, '\0'));
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find("/h/bloomfilter.lance: BloomFilterIndex: zone 0"), std::string::npos) << st.message();
  }
}

TEST(BloomFilterTest, TruncatedAndBitFlippedFilesFailCleanly) {
  auto store = io::NewMemoryStore();
  std::vector<int64_t> v(2000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
  ASSERT_TRUE(BuildAndOpen(kBloom, store, I64(v), RowAddresses({0}, {v.size()}), {{"number_of_items", "500"}}).ok());
  const uint64_t size = store->Size("/idx/bloomfilter.lance").MoveValue();
  const BufferPtr good = store->OpenRead("/idx/bloomfilter.lance").MoveValue()->ReadAt(0, size).MoveValue();
  const std::vector<uint8_t> bytes(good->data(), good->data() + good->size());
  auto attempt = [&](const std::vector<uint8_t>& b) {
    auto s = io::NewMemoryStore();
    EXPECT_TRUE(s->Put("/t/bloomfilter.lance", b).ok());
    auto r = OpenScalarIndex(kBloom, s, "/t", MakeType(TypeId::kInt64));
    if (r.ok()) {
      EXPECT_TRUE((*r)->Search(In(I64({3, 1999}))).ok());
    }
    return r.status();
  };
  for (size_t n = 0; n < bytes.size(); n += 1 + n / 8) {
    Status st = attempt(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n));
    EXPECT_TRUE(st.IsCorruption() || st.IsNotSupported()) << n << ": " << st.ToString();
  }
  std::mt19937 rng(9);
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> flipped = bytes;
    flipped[rng() % flipped.size()] ^= static_cast<uint8_t>(1 << (rng() % 8));
    (void)attempt(flipped);
  }
}

}  // namespace
}  // namespace lancet::index
