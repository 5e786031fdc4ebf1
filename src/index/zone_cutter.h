// How ZoneMap and BloomFilter cut rows into zones, as the reference's zone trainer does:
// at most rows_per_zone live rows a zone, never across a fragment. Internal to the index layer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <roaring/roaring64map.hh>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::index {

/// Where a zone's rows are. The span covers deleted offsets between live rows, so it
/// stays a superset of the zone's rows: [start, start + length) in the fragment.
struct ZoneBound {
  uint64_t fragment_id = 0;
  uint64_t start = 0;
  uint64_t length = 0;
};

/// \brief Assigns ascending row addresses ((fragment << 32) | offset) to zones.
class ZoneCutter {
 public:
  explicit ZoneCutter(uint64_t rows_per_zone) : rows_per_zone_(rows_per_zone) {}

  /// How many leading rows of `rows` join the current zone (they are consumed).
  /// 0 means the current zone is complete (full, or the next row is in another
  /// fragment): Close it, then call again. InvalidArgument unless the addresses
  /// ascend strictly across every call.
  Result<size_t> Extend(std::span<const uint64_t> rows);
  /// The current zone's bound, if it has rows; starts an empty zone.
  std::optional<ZoneBound> Close();

 private:
  uint64_t rows_per_zone_;
  uint64_t rows_ = 0;                 // in the current zone
  uint64_t first_ = 0, last_ = 0;     // addresses of the current zone's first and last rows
  std::optional<uint64_t> previous_;  // the last address consumed, across zones
};

/// The row addresses of `zones` (in any order, overlaps allowed).
Roaring64Map ZoneRows(std::vector<ZoneBound> zones);

/// The rows_per_zone-style count param `key` of `params`, or `fallback`; InvalidArgument
/// unless it is an integer in [1, 2^32 - 1] (a zone's counts are u32).
/// InvalidArgument, naming the index kind `what`, unless `values` are of `type` and one
/// per row.
Status CheckZoneInput(const Array& values, std::span<const uint64_t> rows, const DataType& type,
                      const std::string& what);

Result<uint64_t> ParseZoneRows(const std::map<std::string, std::string>& params, const std::string& key,
                               uint64_t fallback);

}  // namespace lancet::index
