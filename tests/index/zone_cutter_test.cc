#include "index/zone_cutter.h"

#include <gtest/gtest.h>

namespace lancet::index {
namespace {

TEST(ZoneCutterTest, ZonesCloseWhenFullOrAtAFragmentChange) {
  ZoneCutter cutter(3);
  const std::vector<uint64_t> rows = {1, 2, 5, 9, (1ULL << 32) | 4};
  EXPECT_EQ(cutter.Extend(rows).value(), 3u);
  EXPECT_EQ(cutter.Extend(std::span(rows).subspan(3)).value(), 0u);  // full
  ZoneBound a = cutter.Close().value();
  EXPECT_EQ(std::tuple(a.fragment_id, a.start, a.length), std::tuple(0ULL, 1ULL, 5ULL));
  EXPECT_EQ(cutter.Extend(std::span(rows).subspan(3)).value(), 1u);  // stops at fragment 1
  EXPECT_EQ(cutter.Extend(std::span(rows).subspan(4)).value(), 0u);
  EXPECT_EQ(cutter.Close()->length, 1u);
  EXPECT_EQ(cutter.Extend(std::span(rows).subspan(4)).value(), 1u);
  ZoneBound b = cutter.Close().value();
  EXPECT_EQ(std::tuple(b.fragment_id, b.start, b.length), std::tuple(1ULL, 4ULL, 1ULL));
  EXPECT_FALSE(cutter.Close().has_value());
  // Addresses must keep ascending across zones.
  EXPECT_TRUE(cutter.Extend(std::vector<uint64_t>{(1ULL << 32) | 4}).status().IsInvalidArgument());
}

TEST(ZoneCutterTest, ZoneRowsMergeOverlapsAndReachTheLastOffset) {
  const uint64_t last = 0xffffffffULL;
  Roaring64Map rows = ZoneRows({{2, last - 1, 2}, {0, 10, 5}, {0, 12, 5}, {3, 0, 1}});
  EXPECT_EQ(rows.cardinality(), 2u + 7u + 1u);
  EXPECT_TRUE(rows.contains(uint64_t{(2ULL << 32) | last}));
  EXPECT_TRUE(rows.contains(uint64_t{16}));
  EXPECT_FALSE(rows.contains(uint64_t{17}));
  EXPECT_FALSE(rows.contains(uint64_t{3ULL << 32 | 1}));
  EXPECT_TRUE(ZoneRows({}).isEmpty());
}

TEST(ZoneCutterTest, ParsesZoneRowParams) {
  EXPECT_EQ(ParseZoneRows({}, "rows_per_zone", 8192).value(), 8192u);
  EXPECT_EQ(ParseZoneRows({{"rows_per_zone", "4294967295"}}, "rows_per_zone", 1).value(), 0xffffffffULL);
  for (const char* bad : {"0", "4294967296", "-1", "1.5", ""}) {
    EXPECT_TRUE(ParseZoneRows({{"rows_per_zone", bad}}, "rows_per_zone", 1).status().IsInvalidArgument()) << bad;
  }
}

}  // namespace
}  // namespace lancet::index
