// Stable row ids: a fragment's RowIdSequence (docs/format §4.2, protos/rowids.proto).
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::table {

/// \brief The row id of every physical row of a fragment, in row-offset order.
///
/// Segments are kept in their compact form: a Range of 2^40 ids costs nothing, and
/// memory stays proportional to the serialized bytes. Immutable and thread-safe.
class RowIdSequence {
 public:
  /// Decodes a serialized lance.table.RowIdSequence. Corruption (prefixed by `context`)
  /// for protobuf garbage, a missing segment or array kind, misaligned offset bytes,
  /// a range that ends before it starts, holes outside their range or unsorted, or a
  /// bitmap shorter than its range.
  static Result<RowIdSequence> Parse(std::span<const uint8_t> bytes, const std::string& context);

  /// Number of row ids (must equal the fragment's physical rows).
  uint64_t size() const { return total_; }

  /// The row id at position `index`. REQUIRES: index < size().
  uint64_t Get(uint64_t index) const;
  /// Appends the ids at positions [begin, end) to `out`. REQUIRES: end <= size().
  void AppendRange(uint64_t begin, uint64_t end, std::vector<uint64_t>* out) const;
  /// Every position holding `row_id` (a sequence may repeat an id only if corrupt, but
  /// callers want all candidates so deletions can pick the live one).
  void Find(uint64_t row_id, std::vector<uint64_t>* positions) const;

 private:
  enum class Kind : uint8_t { kRange, kRangeWithHoles, kRangeWithBitmap, kSortedArray, kArray };
  struct Segment {
    Kind kind = Kind::kRange;
    uint64_t start = 0, end = 0;       // ranges: [start, end)
    std::vector<uint64_t> values;      // holes (sorted) or array values
    std::vector<uint64_t> bitmap;      // bit i (LSB first) set = start + i present
    std::vector<uint64_t> word_ranks;  // bitmap: set bits before each word
    uint64_t length = 0;               // ids in this segment
  };

  uint64_t GetInSegment(const Segment& seg, uint64_t i) const;

  std::vector<Segment> segments_;
  std::vector<uint64_t> starts_;  // position of each segment's first id
  uint64_t total_ = 0;
};

}  // namespace lancet::table
