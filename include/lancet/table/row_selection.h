// RowSelection: the rows of some fragments an index already picked for a scan.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace lancet::table {

/// The rows of one fragment a scan reads instead of all of them.
struct FragmentSelection {
  /// Offsets [begin, end), ascending and disjoint. Deleted rows in them are skipped.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  /// The rows are known to pass the scan's filter (an exact index answered all of it),
  /// so it is not evaluated on them; false: candidates the filter rechecks.
  bool exact = false;
};

/// Per fragment id; a fragment not in the map is scanned whole with the filter.
struct RowSelection {
  std::map<uint64_t, FragmentSelection> fragments;
};

}  // namespace lancet::table
