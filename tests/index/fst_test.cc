#include "index/fst.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "index/crc32c.h"
#include "index/fst_format.h"

namespace lancet::index::fst {
namespace {

using Entries = std::vector<std::pair<std::string, uint64_t>>;

Map Build(const Entries& entries) {
  auto bytes = BuildMap(entries);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto map = Map::Open(bytes.MoveValue(), "test fst");
  EXPECT_TRUE(map.ok()) << map.status().ToString();
  return map.MoveValue();
}

Entries All(const Map& map) {
  Entries out;
  EXPECT_TRUE(map.ForEach([&](std::string_view k, uint64_t v) {
                   out.emplace_back(std::string(k), v);
                   return true;
                 })
                  .ok());
  return out;
}

std::optional<uint64_t> Get(const Map& map, std::string_view key) {
  auto v = map.Get(key);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? *v : std::nullopt;
}

// Walks every read path; on hostile bytes each must end in a Status, never a crash.
void Exercise(const std::string& bytes) {
  auto map = Map::Open(bytes, "hostile");
  if (!map.ok()) {
    EXPECT_TRUE(map.status().IsCorruption()) << map.status().ToString();
    return;
  }
  for (std::string_view k : {"", "a", "ab", "abc", "b", "zz"}) (void)map->Get(k);
  size_t n = 0;
  (void)map->ForEach([&](std::string_view, uint64_t) { return ++n < 10000; });
}

// Rewrites the version-3 checksum so corruption reaches the node decoder.
std::string Reseal(std::string bytes) {
  if (bytes.size() < 4) return bytes;
  const size_t end = bytes.size() - 4;
  const uint32_t sum = MaskedChecksum({reinterpret_cast<const uint8_t*>(bytes.data()), end});
  for (int i = 0; i < 4; ++i) bytes[end + i] = static_cast<char>(sum >> (8 * i));
  return bytes;
}

TEST(Crc32cTest, KnownValues) {
  const std::string s = "123456789";
  EXPECT_EQ(Crc32c({reinterpret_cast<const uint8_t*>(s.data()), s.size()}), 0xE3069283u);
  std::vector<uint8_t> zeros(32, 0);
  EXPECT_EQ(Crc32c(zeros), 0x8A9136AAu);
  // Continuing a running checksum equals checksumming the whole.
  const uint32_t part = Crc32c({reinterpret_cast<const uint8_t*>(s.data()), 4});
  EXPECT_EQ(Crc32c({reinterpret_cast<const uint8_t*>(s.data()) + 4, 5}, part), 0xE3069283u);
}

TEST(FstTest, EmptyMap) {
  auto bytes = BuildMap({});
  ASSERT_TRUE(bytes.ok());
  Map map = Build({});
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(Get(map, ""), std::nullopt);
  EXPECT_EQ(Get(map, "a"), std::nullopt);
  EXPECT_TRUE(All(map).empty());
}

TEST(FstTest, OnlyTheEmptyKeyHasNoRootNode) {
  auto bytes = BuildMap(Entries{{"", 0}});
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->size(), 36u);  // header + footer: the root is the implicit empty final node
  Map map = Build({{"", 0}});
  EXPECT_EQ(Get(map, ""), 0u);
  EXPECT_EQ(Get(map, "x"), std::nullopt);
  EXPECT_EQ(All(map), (Entries{{"", 0}}));
  Map with_value = Build({{"", 77}});
  EXPECT_EQ(Get(with_value, ""), 77u);
}

TEST(FstTest, SmallMapsRoundTrip) {
  const Entries cases[] = {
      {{"a", 0}},
      {{"a", 1}},
      {{"", 5}, {"a", 3}, {"ab", 9}},
      {{"abc", 10}, {"abd", 2}, {"abdx", 2}, {"b", 1}},
      {{"mon", 1}, {"monday", 2}, {"month", 3}, {"tue", 4}, {"tuesday", 5}},
      {{"x", UINT64_MAX}, {"xy", UINT64_MAX - 1}, {"y", 1ULL << 40}},
      {{std::string("\0", 1), 1}, {std::string("\0\xff", 2), 2}, {"\xff", 3}},
  };
  for (const Entries& e : cases) {
    Map map = Build(e);
    EXPECT_EQ(map.size(), e.size());
    EXPECT_EQ(All(map), e);
    for (const auto& [k, v] : e) EXPECT_EQ(Get(map, k), v) << k;
  }
}

TEST(FstTest, AbsentKeys) {
  Map map = Build({{"car", 1}, {"card", 2}, {"care", 3}, {"cat", 4}});
  using namespace std::string_view_literals;
  for (std::string_view k : {""sv, "c"sv, "ca"sv, "cards"sv, "carf"sv, "cb"sv, "d"sv, "cat\0"sv}) {
    EXPECT_EQ(Get(map, k), std::nullopt) << k;
  }
}

TEST(FstTest, WideNodesUseTheTransitionIndex) {
  // Every byte value after a shared prefix: a 256-transition node (its count is stored as 1).
  Entries e;
  for (int b = 0; b < 256; ++b) e.emplace_back("k" + std::string(1, static_cast<char>(b)), b * 1000);
  Map map = Build(e);
  EXPECT_EQ(All(map), e);
  for (const auto& [k, v] : e) EXPECT_EQ(Get(map, k), v);
  EXPECT_EQ(Get(map, "k"), std::nullopt);
  // 33..64 transitions: above the index threshold but the count fits the state byte or not.
  for (int n : {33, 63, 64, 100}) {
    Entries w;
    for (int b = 0; b < n; ++b) w.emplace_back(std::string(1, static_cast<char>(b + 10)) + "z", b);
    Map m = Build(w);
    EXPECT_EQ(All(m), w) << n;
    for (const auto& [k, v] : w) EXPECT_EQ(Get(m, k), v);
    EXPECT_EQ(Get(m, "\x01z"), std::nullopt);
  }
}

TEST(FstTest, ManyRandomKeysRoundTrip) {
  std::mt19937_64 rng(7);
  std::map<std::string, uint64_t> want;
  const std::string alphabet = "abcdeéxyz019-_";
  while (want.size() < 20000) {
    std::string k;
    const size_t len = rng() % 12;
    for (size_t i = 0; i < len; ++i) k.push_back(alphabet[rng() % alphabet.size()]);
    want[k] = rng() % 3 == 0 ? rng() : rng() % 5000;
  }
  Entries e(want.begin(), want.end());
  Map map = Build(e);
  EXPECT_EQ(map.size(), e.size());
  EXPECT_EQ(All(map), e);
  for (const auto& [k, v] : e) ASSERT_EQ(Get(map, k), v) << k;
  for (int i = 0; i < 2000; ++i) {
    std::string k = e[rng() % e.size()].first + "q";
    EXPECT_EQ(Get(map, k), std::nullopt);
  }
}

TEST(FstTest, ForEachStopsEarly) {
  Map map = Build({{"a", 1}, {"b", 2}, {"c", 3}});
  std::vector<std::string> seen;
  ASSERT_TRUE(map.ForEach([&](std::string_view k, uint64_t) {
                   seen.emplace_back(k);
                   return seen.size() < 2;
                 })
                  .ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
}

TEST(FstTest, BuildRefusesUnsortedAndDuplicateKeys) {
  EXPECT_FALSE(BuildMap(Entries{{"b", 1}, {"a", 2}}).ok());
  EXPECT_FALSE(BuildMap(Entries{{"a", 1}, {"a", 2}}).ok());
  EXPECT_FALSE(BuildMap(Entries{{"a", 1}, {"", 2}}).ok());
}

TEST(FstTest, TruncationAndBadHeadersAreCorruption) {
  const std::string good = *BuildMap(Entries{{"alpha", 1}, {"beta", 2}, {"gamma", 300}});
  for (size_t n = 0; n < good.size(); ++n) {
    auto m = Map::Open(good.substr(0, n), "cut");
    ASSERT_FALSE(m.ok()) << n;
    EXPECT_TRUE(m.status().IsCorruption());
    EXPECT_NE(m.status().message().find("cut"), std::string::npos);
    Exercise(Reseal(good.substr(0, n)));
  }
  std::string v9 = good;
  v9[0] = 9;
  EXPECT_TRUE(Map::Open(Reseal(v9), "v").status().IsCorruption());
}

TEST(FstTest, BitFlipsNeverCrash) {
  const std::string good =
      *BuildMap(Entries{{"", 4}, {"a", 1}, {"ab", 700}, {"abc", 2}, {"b", 70000}, {"ba", 3}, {"zebra", 1ULL << 50}});
  for (size_t i = 0; i < good.size() * 8; ++i) {
    std::string bad = good;
    bad[i / 8] = static_cast<char>(bad[i / 8] ^ (1 << (i % 8)));
    // Without resealing the checksum catches every flip.
    EXPECT_FALSE(Map::Open(bad, "flip").ok()) << i;
    Exercise(Reseal(bad));
  }
  // Random bytes behind a valid header and footer.
  std::mt19937_64 rng(1);
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = good;
    for (size_t i = 16; i + 20 < bytes.size(); ++i) {
      if (rng() % 3 == 0) bytes[i] = static_cast<char>(rng());
    }
    Exercise(Reseal(bytes));
  }
}

TEST(FstTest, MillionKeysBuildAndLookUpQuickly) {
  Entries e;
  e.reserve(1000000);
  for (uint64_t i = 0; i < 1000000; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "term%07llu", static_cast<unsigned long long>(i * 7919 % 10000000));
    e.emplace_back(buf, i);
  }
  std::sort(e.begin(), e.end());
  const auto t0 = std::chrono::steady_clock::now();
  auto bytes = BuildMap(e);
  ASSERT_TRUE(bytes.ok());
  const auto t1 = std::chrono::steady_clock::now();
  auto map = Map::Open(bytes.MoveValue(), "big");
  ASSERT_TRUE(map.ok());
  for (const auto& [k, v] : e) ASSERT_EQ(Get(*map, k), v);
  const auto t2 = std::chrono::steady_clock::now();
  size_t n = 0;
  ASSERT_TRUE(map->ForEach([&](std::string_view, uint64_t) { return ++n > 0; }).ok());
  EXPECT_EQ(n, e.size());
  const auto ms = [](auto d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); };
  std::printf("1M keys: build %lld ms, open+get all %lld ms\n", static_cast<long long>(ms(t1 - t0)),
              static_cast<long long>(ms(t2 - t1)));
}

}  // namespace
}  // namespace lancet::index::fst
