#include "index/zonemap.h"

#include <cmath>
#include <cstring>
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
using testing::Range;
using testing::RowAddresses;

constexpr auto kZoneMap = ScalarIndexType::kZoneMap;

Array I64(std::vector<int64_t> v) { return ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), v).MoveValue(); }
Array F64(std::vector<double> v) { return ArrayFromVector<double>(MakeType(TypeId::kFloat64), v).MoveValue(); }

// The zone rows as written, read back with the plain file reader.
struct ZoneRowsRead {
  Metadata metadata;
  std::vector<uint64_t> fragments, starts, lengths;
  std::vector<uint32_t> nulls;
};

ZoneRowsRead ReadZones(const std::shared_ptr<io::ObjectStore>& store) {
  auto reader = format::FileReader::Open(store->OpenRead("/idx/zonemap.lance").MoveValue()).MoveValue();
  ZoneRowsRead out;
  const Schema& schema = reader->file_schema();
  out.metadata = schema.metadata;
  EXPECT_EQ(schema.fields.size(), 7u);
  auto column = [&](int i) {
    const int leaf = i;
    return reader->ReadRange(schema.fields[i], std::span<const int>(&leaf, 1), 0, reader->num_rows()).MoveValue();
  };
  Array nulls = column(2), fragments = column(4), starts = column(5), lengths = column(6);
  for (int64_t z = 0; z < fragments.length; ++z) {
    out.nulls.push_back(nulls.values<uint32_t>()[z]);
    out.fragments.push_back(fragments.values<uint64_t>()[z]);
    out.starts.push_back(starts.values<uint64_t>()[z]);
    out.lengths.push_back(lengths.values<uint64_t>()[z]);
  }
  return out;
}

TEST(ZoneMapTest, ZonesNeverCrossFragmentsAndEndPartial) {
  auto store = io::NewMemoryStore();
  const auto rows = RowAddresses({0, 1, 5}, {250, 30, 101});
  std::vector<int64_t> v(rows.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i);
  ASSERT_TRUE(BuildAndOpen(kZoneMap, store, I64(v), rows, {{"rows_per_zone", "100"}}, 64).ok());
  ZoneRowsRead z = ReadZones(store);
  EXPECT_EQ(z.metadata.at("rows_per_zone"), "100");
  EXPECT_EQ(z.fragments, (std::vector<uint64_t>{0, 0, 0, 1, 5, 5}));
  EXPECT_EQ(z.starts, (std::vector<uint64_t>{0, 100, 200, 0, 0, 100}));
  EXPECT_EQ(z.lengths, (std::vector<uint64_t>{100, 100, 50, 30, 100, 1}));
}

// Deleted rows are not counted: a zone holds rows_per_zone live rows and its span
// covers the gaps, as the reference's zone trainer cuts them.
TEST(ZoneMapTest, ZonesCountLiveRowsAndSpanDeletedOnes) {
  auto store = io::NewMemoryStore();
  const auto rows = RowAddresses({3}, {30}, [](uint64_t, uint64_t o) { return o % 3 == 0 || o == 29; });
  ASSERT_EQ(rows.size(), 19u);
  std::vector<int64_t> v(rows.size(), 7);
  ASSERT_TRUE(BuildAndOpen(kZoneMap, store, I64(v), rows, {{"rows_per_zone", "8"}}).ok());
  ZoneRowsRead z = ReadZones(store);
  // Live offsets 1,2,4,5,7,8,10,11 | 13,14,16,17,19,20,22,23 | 25,26,28.
  EXPECT_EQ(z.starts, (std::vector<uint64_t>{1, 13, 25}));
  EXPECT_EQ(z.lengths, (std::vector<uint64_t>{11, 11, 4}));
}

TEST(ZoneMapTest, IntegersEveryQueryKindAgainstBruteForce) {
  auto store = io::NewMemoryStore();
  const auto rows =
      RowAddresses({0, 2, 9}, {3000, 1234, 2000}, [](uint64_t f, uint64_t o) { return f == 2 && o % 7 == 0; });
  std::mt19937_64 rng(11);
  std::vector<int64_t> v(rows.size());
  std::vector<bool> valid(rows.size());
  for (size_t i = 0; i < v.size(); ++i) {
    // Mostly ascending, so zones prune, with noise and nulls.
    v[i] = static_cast<int64_t>(i) * 3 + static_cast<int64_t>(rng() % 50) - 25;
    valid[i] = rng() % 10 != 0;
  }
  Array col = ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), v, valid).MoveValue();
  auto reader = BuildAndOpen(kZoneMap, store, col, rows, {{"rows_per_zone", "256"}});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto check = [&](const ScalarQuery& q) {
    auto r = (*reader)->Search(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? ExpectCovers(col, rows, q, *r) : 0;
  };
  // Zone spans in fragment 2 cover deleted rows too, so a zone is at most ~300 rows.
  const uint64_t all = check(Range(std::nullopt, true, std::nullopt, true));
  EXPECT_GT(all, rows.size());
  EXPECT_EQ(check(IsNull()), all);  // every zone of 256 has a null
  EXPECT_LE(check(Equals(I64({3000}))), 2 * 300u);
  EXPECT_EQ(check(Equals(I64({-1000}))), 0u);
  EXPECT_LE(check(In(I64({5, 9000, 14000}))), 6 * 300u);
  EXPECT_LE(check(Range(I64({6000}), true, I64({6300}), false)), 3 * 300u);
  EXPECT_LE(check(Range(I64({18000}), false, std::nullopt, true)), 2 * 300u);
  EXPECT_LE(check(Range(std::nullopt, true, I64({100}), true)), 2 * 300u);
  EXPECT_EQ(check(Range(I64({500}), true, I64({400}), true)), 0u);
  EXPECT_EQ(check(Range(I64({500}), true, I64({500}), false)), 0u);
  for (int i = 0; i < 200; ++i) {
    const int64_t a = static_cast<int64_t>(rng() % 20000) - 100, b = a + static_cast<int64_t>(rng() % 500);
    check(Equals(I64({a})));
    check(Range(I64({a}), i % 2 == 0, I64({b}), i % 3 == 0));
  }
}

TEST(ZoneMapTest, FloatsWithNaNZerosAndInfinities) {
  auto store = io::NewMemoryStore();
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  // Zones of 4: {1,2,NaN,3} {-0,-0,5,6} {NaN,NaN,null,NaN} {-NaN,10,11,12} {null,null,null,null} {-inf,0,inf,7}
  std::vector<double> v = {1,    2,  nan, 3,  -0.0, -0.0, 5, 6, nan,  nan, 0,   nan,
                           -nan, 10, 11,  12, 0,    0,    0, 0, -inf, 0.0, inf, 7};
  std::vector<bool> valid(v.size(), true);
  valid[10] = valid[16] = valid[17] = valid[18] = valid[19] = false;
  Array col = ArrayFromVector<double>(MakeType(TypeId::kFloat64), v, valid).MoveValue();
  const auto rows = RowAddresses({0}, {v.size()});
  auto reader = BuildAndOpen(kZoneMap, store, col, rows, {{"rows_per_zone", "4"}}, 5);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto zones = [&](const ScalarQuery& q) {
    auto r = (*reader)->Search(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return std::string();
    ExpectCovers(col, rows, q, *r);
    std::string out;
    for (uint64_t z = 0; z < 6; ++z) out += r->rows.contains(z * 4) ? '1' : '0';
    return out;
  };
  // Zone 3's min is -NaN (IEEE totalOrder puts it below -inf), its max 12: it may hold
  // any value up to 12, but not +inf.
  EXPECT_EQ(zones(Equals(F64({0.0}))), "010101");
  EXPECT_EQ(zones(Equals(F64({-0.0}))), "010101");
  EXPECT_EQ(zones(Equals(F64({nan}))), "101100");
  EXPECT_EQ(zones(Equals(F64({2.5}))), "110101");
  EXPECT_EQ(zones(Equals(F64({inf}))), "100001");
  EXPECT_EQ(zones(IsNull()), "001010");
  EXPECT_EQ(zones(In(F64({5.5, 11}))), "110101");
  // Bounded ranges skip zones by min/max; one-sided ones keep every zone with a NaN,
  // since -NaN sorts below every number in the scan's order.
  EXPECT_EQ(zones(Range(F64({4}), true, F64({8}), true)), "110101");
  EXPECT_EQ(zones(Range(F64({100}), true, std::nullopt, true)), "101101");
  EXPECT_EQ(zones(Range(std::nullopt, true, F64({-1}), false)), "101101");
  EXPECT_EQ(zones(Range(F64({nan}), true, std::nullopt, true)), "111101");
}

TEST(ZoneMapTest, StringsRangesAndPrefixes) {
  auto store = io::NewMemoryStore();
  std::vector<std::optional<std::string>> v;
  for (int i = 0; i < 1000; ++i)
    v.push_back(i % 17 == 0 ? std::nullopt : std::optional("k" + std::to_string(10000 + i)));
  Array col = StringArray(v);
  const auto rows = RowAddresses({4}, {v.size()});
  auto reader = BuildAndOpen(kZoneMap, store, col, rows, {{"rows_per_zone", "100"}});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto check = [&](const ScalarQuery& q) {
    auto r = (*reader)->Search(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? ExpectCovers(col, rows, q, *r) : 0;
  };
  EXPECT_EQ(check(Equals(StringArray({"k10555"}))), 100u);
  EXPECT_EQ(check(Equals(StringArray({"k1055"}))), 100u);  // between k10549 and k10550
  EXPECT_EQ(check(Equals(StringArray({"zz"}))), 0u);
  EXPECT_EQ(check(Range(StringArray({"k10250"}), true, StringArray({"k10420"}), false)), 300u);
  ScalarQuery prefix;
  prefix.kind = ScalarQuery::Kind::kPrefix;
  prefix.prefix = "k103";
  ASSERT_TRUE((*reader)->Supports(prefix));
  EXPECT_EQ(check(prefix), 100u);
  prefix.prefix = "k1";
  EXPECT_EQ(check(prefix), 1000u);
  prefix.prefix = "j";
  EXPECT_EQ(check(prefix), 0u);
}

TEST(ZoneMapTest, EmptyIndexAndBadInput) {
  auto store = io::NewMemoryStore();
  auto reader = BuildAndOpen(kZoneMap, store, I64({}), {}, {});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->Search(Equals(I64({1})))->rows.isEmpty());
  EXPECT_EQ(ReadZones(store).metadata.at("rows_per_zone"), "8192");

  const Field x = MakeField("x", MakeType(TypeId::kInt64));
  auto make = [&](std::map<std::string, std::string> params) {
    BuildOptions o;
    o.params = std::move(params);
    return MakeScalarIndexBuilder(kZoneMap, x, store, "/b", o);
  };
  EXPECT_TRUE(make({{"rows_per_zone", "0"}}).status().IsInvalidArgument());
  EXPECT_TRUE(make({{"rows_per_zone", "12x"}}).status().IsInvalidArgument());
  EXPECT_TRUE(make({{"zone_size", "10"}}).status().IsInvalidArgument());
  EXPECT_TRUE(
      MakeScalarIndexBuilder(kZoneMap, MakeField("s", StructOf({x})), store, "/b", {}).status().IsInvalidArgument());
  auto builder = make({});
  ASSERT_TRUE(builder.ok());
  const std::vector<uint64_t> backwards = {5, 4};
  EXPECT_TRUE((*builder)->Add(I64({1, 2}), backwards).IsInvalidArgument());
  EXPECT_TRUE((*builder)->Add(F64({1}), std::vector<uint64_t>{9}).IsInvalidArgument());
  EXPECT_TRUE(OpenScalarIndex(kZoneMap, store, "/missing", MakeType(TypeId::kInt64)).status().IsNotFound());
  // An index over int64 opened as int32 is refused rather than misread.
  auto wrong = OpenScalarIndex(kZoneMap, store, "/idx", MakeType(TypeId::kInt32));
  EXPECT_TRUE(wrong.status().IsCorruption());
  EXPECT_NE(wrong.status().message().find("/idx/zonemap.lance"), std::string::npos);
}

// A zone file written by hand with one broken column.
Status OpenHandMade(std::vector<Field> fields, std::vector<Array> columns) {
  auto store = io::NewMemoryStore();
  Schema schema;
  schema.fields = std::move(fields);
  auto writer = format::FileWriter::Open(store, "/h/zonemap.lance", schema).MoveValue();
  RETURN_IF_ERROR(writer->Write(RecordBatch{writer->schema(), columns[0].length, std::move(columns)}));
  RETURN_IF_ERROR(writer->Finish().status());
  return OpenScalarIndex(kZoneMap, store, "/h", MakeType(TypeId::kInt64)).status();
}

TEST(ZoneMapTest, HandMadeFilesWithBadColumnsAreCorrupt) {
  const DataType u32 = MakeType(TypeId::kUInt32), u64 = MakeType(TypeId::kUInt64);
  auto u64s = [&](std::vector<uint64_t> v) { return ArrayFromVector<uint64_t>(u64, v).MoveValue(); };
  auto u32s = [&](std::vector<uint32_t> v) { return ArrayFromVector<uint32_t>(u32, v).MoveValue(); };
  std::vector<Field> fields = {MakeField("min", MakeType(TypeId::kInt64)),
                               MakeField("max", MakeType(TypeId::kInt64)),
                               MakeField("null_count", u32),
                               MakeField("nan_count", u32),
                               MakeField("fragment_id", u64),
                               MakeField("zone_start", u64),
                               MakeField("zone_length", u64)};
  auto columns = [&](uint64_t fragment, uint64_t start, uint64_t length) {
    return std::vector<Array>{I64({1}),         I64({2}),      u32s({0}),     u32s({0}),
                              u64s({fragment}), u64s({start}), u64s({length})};
  };
  EXPECT_TRUE(OpenHandMade(fields, columns(0, 0, 10)).ok());
  // The span must stay inside one fragment's offsets and hold a row.
  for (auto [f, s, l] : {std::tuple<uint64_t, uint64_t, uint64_t>{0, 0, 0},
                         {1ULL << 32, 0, 1},
                         {0, 1ULL << 32, 1},
                         {0, 10, (1ULL << 32) - 9}}) {
    Status st = OpenHandMade(fields, columns(f, s, l));
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find("/h/zonemap.lance: ZoneMapIndex"), std::string::npos) << st.message();
  }
  auto bad_start = fields;
  bad_start[5] = MakeField("zone_start", MakeType(TypeId::kInt64));
  auto cols = columns(0, 0, 1);
  cols[5] = I64({0});
  Status st = OpenHandMade(bad_start, cols);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("'zone_start' column is int64"), std::string::npos) << st.message();
  auto missing = fields;
  missing.pop_back();
  cols = columns(0, 0, 1);
  cols.pop_back();
  st = OpenHandMade(missing, cols);
  EXPECT_NE(st.message().find("missing 'zone_length' column"), std::string::npos) << st.message();
}

TEST(ZoneMapTest, TruncatedAndBitFlippedFilesFailCleanly) {
  auto store = io::NewMemoryStore();
  std::vector<int64_t> v(3000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i % 1000);
  ASSERT_TRUE(BuildAndOpen(kZoneMap, store, I64(v), RowAddresses({0}, {v.size()}), {{"rows_per_zone", "100"}}).ok());
  const BufferPtr good = store->OpenRead("/idx/zonemap.lance")
                             .MoveValue()
                             ->ReadAt(0, store->Size("/idx/zonemap.lance").MoveValue())
                             .MoveValue();
  const std::vector<uint8_t> bytes(good->data(), good->data() + good->size());
  auto attempt = [&](const std::vector<uint8_t>& b) {
    auto s = io::NewMemoryStore();
    EXPECT_TRUE(s->Put("/t/zonemap.lance", b).ok());
    auto r = OpenScalarIndex(kZoneMap, s, "/t", MakeType(TypeId::kInt64));
    if (r.ok()) {
      EXPECT_TRUE((*r)->Search(Range(I64({10}), true, I64({20}), true)).ok());
    }
    return r.status();
  };
  for (size_t n = 0; n < bytes.size(); n += 1 + n / 8) {
    Status st = attempt(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n));
    EXPECT_FALSE(st.ok()) << n;
    EXPECT_TRUE(st.IsCorruption() || st.IsNotSupported()) << n << ": " << st.ToString();
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> flipped = bytes;
    flipped[rng() % flipped.size()] ^= static_cast<uint8_t>(1 << (rng() % 8));
    (void)attempt(flipped);
  }
}

}  // namespace
}  // namespace lancet::index

namespace lancet::index {
namespace {

// Every orderable type round-trips through zonemap.lance and prunes by its order.
TEST(ZoneMapTest, EveryOrderableTypeRoundTrips) {
  std::vector<DataType> types;
  for (TypeId id :
       {TypeId::kBool, TypeId::kInt8, TypeId::kInt16, TypeId::kInt32, TypeId::kInt64, TypeId::kUInt8, TypeId::kUInt16,
        TypeId::kUInt32, TypeId::kUInt64, TypeId::kFloat16, TypeId::kFloat32, TypeId::kFloat64, TypeId::kUtf8,
        TypeId::kLargeUtf8, TypeId::kBinary, TypeId::kLargeBinary, TypeId::kDate32, TypeId::kDate64}) {
    types.push_back(MakeType(id));
  }
  DataType time32 = MakeType(TypeId::kTime32), time64 = MakeType(TypeId::kTime64),
           duration = MakeType(TypeId::kDuration);
  time32.unit = TimeUnit::kMilli;
  time64.unit = TimeUnit::kNano;
  duration.unit = TimeUnit::kMicro;
  types.insert(types.end(), {time32, time64, duration, TimestampType(TimeUnit::kMicro, "UTC")});
  for (const DataType& type : types) {
    SCOPED_TRACE(type.ToString());
    // Two zones: values 0..9 and 10..19 (bool: false then true), one null each.
    std::vector<uint8_t> small(20);
    std::vector<std::optional<std::string>> strings(20);
    for (int i = 0; i < 20; ++i) {
      small[i] = static_cast<uint8_t>(type.id == TypeId::kBool ? i / 10 : i);
      strings[i] = std::string(1, static_cast<char>('a' + i));
    }
    std::vector<bool> valid(20, true);
    valid[3] = valid[13] = false;
    Array col;
    if (type.IsBinaryLike() || type.IsLargeBinaryLike()) {
      strings[3] = strings[13] = std::nullopt;
      col = MakeBinaryArray(type, strings).MoveValue();
    } else if (type.id == TypeId::kBool) {
      col = MakeBoolArray(std::vector<bool>(small.begin(), small.end()), valid).MoveValue();
    } else {
      const size_t width = type.BitWidth() / 8;
      std::vector<uint8_t> bytes(20 * width, 0);
      for (int i = 0; i < 20; ++i) {
        if (type.id == TypeId::kFloat16) {
          const uint16_t h = small[i] == 0 ? 0 : static_cast<uint16_t>(0x3c00 + (small[i] << 6));  // ascending
          std::memcpy(&bytes[i * width], &h, 2);
        } else if (type.id == TypeId::kFloat32) {
          const float f = small[i];
          std::memcpy(&bytes[i * width], &f, 4);
        } else if (type.id == TypeId::kFloat64) {
          const double d = small[i];
          std::memcpy(&bytes[i * width], &d, 8);
        } else {
          bytes[i * width] = small[i];
        }
      }
      col = MakeFixedWidthArray(type, bytes, 20, valid).MoveValue();
    }
    auto store = io::NewMemoryStore();
    const auto rows = RowAddresses({0}, {20});
    auto reader = BuildAndOpen(kZoneMap, store, col, rows, {{"rows_per_zone", "10"}}, 7);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto hit = (*reader)->Search(Equals(TakeRows(col, {15}).MoveValue()));
    ASSERT_TRUE(hit.ok()) << hit.status().ToString();
    EXPECT_EQ(hit->rows.cardinality(), 10u);
    EXPECT_TRUE(hit->rows.contains(uint64_t{15}));
    EXPECT_EQ((*reader)->Search(IsNull())->rows.cardinality(), 20u);
  }
}

}  // namespace
}  // namespace lancet::index
