// ZoneMap: min, max, null and NaN counts per zone of rows, in zonemap.lance (the
// reference's layout, docs/index-format-notes §2.4). The factories are in scalar_index.h.
#pragma once

#include <cstdint>

namespace lancet::index {

inline constexpr const char* kZoneMapFile = "zonemap.lance";
/// Schema metadata and build param: live rows a zone holds at most.
inline constexpr const char* kZoneMapRowsKey = "rows_per_zone";
inline constexpr uint64_t kZoneMapDefaultRows = 8192;

}  // namespace lancet::index
