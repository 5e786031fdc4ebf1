// The `fst` crate's (0.4) map format: the reference stores a partition's terms → token ids
// as one FST (`_token_fst_bytes`). Internal to the index layer.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "lancet/result.h"

namespace lancet::index::fst {

/// \brief A read-only FST map over bytes it owns. Thread-safe.
///
/// Every access bounds-checks: corrupt bytes give Corruption naming `what`, never a crash
/// or an endless walk.
class Map {
 public:
  /// Checks the header, footer and checksum (when the version has one).
  static Result<Map> Open(std::string bytes, std::string what);

  /// The value of `key`, or nullopt when absent.
  Result<std::optional<uint64_t>> Get(std::string_view key) const;
  /// Number of keys (from the footer).
  uint64_t size() const { return size_; }
  /// Visits keys in ascending byte order with their values; stops early when `fn` returns false.
  Status ForEach(const std::function<bool(std::string_view key, uint64_t value)>& fn) const;

 private:
  Map() = default;
  std::string bytes_;
  std::string what_;
  uint64_t size_ = 0;
  uint64_t root_ = 0;
  uint64_t version_ = 0;
  uint64_t limit_ = 0;  // end of the node area (where the footer starts)
};

/// Builds a map the `fst` crate reads. `entries` must be strictly ascending by key
/// (bytewise); InvalidArgument otherwise.
Result<std::string> BuildMap(std::span<const std::pair<std::string, uint64_t>> entries);

}  // namespace lancet::index::fst
