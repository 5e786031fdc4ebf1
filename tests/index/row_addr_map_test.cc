// RowAddrTreeMap: the reference's bytes, whole fragments, run containers on read, and
// hostile bytes.
#include "index/row_addr_map.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "util/test_macros.h"

namespace lancet::index {
namespace {

uint32_t U32At(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

std::vector<uint8_t> U32s(std::initializer_list<uint32_t> vals) {
  std::vector<uint8_t> out;
  for (uint32_t v : vals) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), p, p + 4);
  }
  return out;
}

std::vector<uint8_t> Portable(const Roaring& r) {
  std::vector<uint8_t> out(r.getSizeInBytes(true));
  r.write(reinterpret_cast<char*>(out.data()), true);
  return out;
}

TEST(RowAddrMapTest, ReferenceLayoutForOneFragment) {
  // "blue" of the notes: offsets 2, 6, 10, ... (750 values) in fragment 0.
  Roaring64Map rows;
  for (uint64_t i = 0; i < 750; ++i) rows.add(2 + 4 * i);
  const std::vector<uint8_t> b = EncodeRowAddrMap(rows);
  ASSERT_EQ(b.size(), 12u + 1516u);
  EXPECT_EQ(U32At(b, 0), 1u);
  EXPECT_EQ(U32At(b, 4), 0u);
  EXPECT_EQ(U32At(b, 8), 1516u);
  EXPECT_EQ(U32At(b, 12), 12346u);  // cookie, no run containers
  EXPECT_EQ(U32At(b, 16), 1u);      // one container
}

TEST(RowAddrMapTest, FragmentsRoundTripWithoutRunContainers) {
  Roaring64Map rows;
  rows.addMany(3, std::array<uint64_t, 3>{5, 7, 99}.data());
  for (uint64_t i = 0; i < 70000; ++i) rows.add((uint64_t{3} << 32) | i);  // contiguous: runs if optimized
  rows.add((uint64_t{0xffffffff} << 32) | 0xffffffff);
  rows.runOptimize();
  const std::vector<uint8_t> b = EncodeRowAddrMap(rows);
  EXPECT_EQ(U32At(b, 0), 3u);
  size_t pos = 4;
  for (int f = 0; f < 3; ++f) {
    EXPECT_EQ(U32At(b, pos + 8), 12346u) << "fragment " << f;
    pos += 8 + U32At(b, pos + 4);
  }
  EXPECT_EQ(pos, b.size());
  ASSERT_OK_AND_ASSIGN(Roaring64Map back, DecodeRowAddrMap(b, "t"));
  EXPECT_TRUE(back == rows);
  ASSERT_OK_AND_ASSIGN(Roaring64Map empty, DecodeRowAddrMap(EncodeRowAddrMap(Roaring64Map()), "t"));
  EXPECT_TRUE(empty.isEmpty());
  EXPECT_EQ(EncodeRowAddrMap(Roaring64Map()), U32s({0}));
}

TEST(RowAddrMapTest, ReadsRunContainersAndWholeFragments) {
  Roaring runs;
  runs.addRange(10, 50000);
  runs.runOptimize();
  std::vector<uint8_t> bits = Portable(runs);
  ASSERT_EQ(U32At(bits, 0) & 0xffff, 12347u);
  std::vector<uint8_t> b = U32s({2, 4, static_cast<uint32_t>(bits.size())});
  b.insert(b.end(), bits.begin(), bits.end());
  const std::vector<uint8_t> whole = U32s({9, 0});
  b.insert(b.end(), whole.begin(), whole.end());
  ASSERT_OK_AND_ASSIGN(Roaring64Map rows, DecodeRowAddrMap(b, "t"));
  EXPECT_EQ(rows.cardinality(), 49990u + (uint64_t{1} << 32));
  EXPECT_TRUE(rows.contains((uint64_t{4} << 32) | 10));
  EXPECT_FALSE(rows.contains((uint64_t{4} << 32) | 9));
  EXPECT_TRUE(rows.contains((uint64_t{9} << 32) | 0xffffffff));
  EXPECT_FALSE(rows.contains(uint64_t{10} << 32));
}

void ExpectCorrupt(const std::vector<uint8_t>& b, const char* what) {
  auto r = DecodeRowAddrMap(b, "idx/f.lance");
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_TRUE(r.status().IsCorruption()) << what;
  EXPECT_NE(r.status().ToString().find("idx/f.lance"), std::string::npos);
}

TEST(RowAddrMapTest, MalformedBytesAreCorruption) {
  Roaring64Map rows;
  for (uint64_t i = 0; i < 3000; i += 3) rows.add((uint64_t{i % 4} << 32) | i);
  const std::vector<uint8_t> good = EncodeRowAddrMap(rows);
  for (size_t len = 0; len < good.size(); ++len) {
    ExpectCorrupt(std::vector<uint8_t>(good.begin(), good.begin() + static_cast<ptrdiff_t>(len)), "truncated");
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  ExpectCorrupt(longer, "trailing byte");
  ExpectCorrupt(U32s({0xffffffff}), "huge count");
  ExpectCorrupt(U32s({2, 5, 0, 5, 0}), "repeated fragment");
  ExpectCorrupt(U32s({2, 5, 0, 4, 0}), "descending fragments");
  ExpectCorrupt(U32s({1, 0, 8, 1, 2}), "not a roaring bitmap");
  std::vector<uint8_t> many = U32s({kMaxWholeFragments + 1});
  for (uint32_t f = 0; f <= kMaxWholeFragments; ++f) {
    const auto e = U32s({f, 0});
    many.insert(many.end(), e.begin(), e.end());
  }
  ExpectCorrupt(many, "too many whole fragments");
  // Decodes that share an allowance (a search's bitmaps) share the limit.
  uint32_t left = 1;
  EXPECT_OK(DecodeRowAddrMap(U32s({1, 3, 0}), "t", &left).status());
  EXPECT_FALSE(DecodeRowAddrMap(U32s({1, 4, 0}), "t", &left).ok());
  std::mt19937 rng(3);
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bad = good;
    for (int k = 0; k < 3; ++k) bad[rng() % bad.size()] ^= static_cast<uint8_t>(rng());
    auto r = DecodeRowAddrMap(bad, "t");  // either outcome, but no crash
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsCorruption());
    }
  }
}

}  // namespace
}  // namespace lancet::index
