// ScanSource: what the scanner needs of an opened dataset version, so the scanner
// lives in its own files and reads through the same paths as take. Internal to table.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <roaring/roaring.hh>

#include "lancet/array.h"
#include "lancet/result.h"
#include "table/row_meta.h"

namespace lancet::table {

/// Fragments are indexes into Dataset::fragments() (ascending fragment id).
/// Thread-safe: the scanner calls it from several threads.
class ScanSource {
 public:
  virtual ~ScanSource() = default;
  /// The fragment's deleted offsets; null when it has no deletion file. Errors name the file.
  virtual Result<std::shared_ptr<const Roaring>> FragmentDeletions(size_t frag_idx) const = 0;
  /// Rows [begin, end) of `field` (a read_schema() field, or one pruned to some of its
  /// struct members, same ids); nulls where the fragment lacks the column.
  virtual Result<Array> ReadFragmentRange(size_t frag_idx, const Field& field, uint64_t begin, uint64_t end) const = 0;
  /// Rows `offsets` (ascending) of `field`, reading only the ranges they need.
  virtual Result<Array> ReadFragmentOffsets(size_t frag_idx, const Field& field,
                                            std::span<const uint64_t> offsets) const = 0;
  /// Where the fragment's batches should end when they can: the page ends of the column
  /// of `fields` (as for ReadFragmentRange) that holds the most bytes, since a range
  /// inside one of its pages may be read without a copy. Empty when the files do not say.
  virtual Result<std::vector<uint64_t>> FragmentBatchBreaks(size_t frag_idx, std::span<const Field> fields) const = 0;
  /// The row ids of `offsets` (their addresses without stable row ids).
  virtual std::vector<uint64_t> FragmentRowIds(size_t frag_idx, std::span<const uint64_t> offsets) const = 0;
  /// Whether rows carry stable ids and lineage versions.
  virtual bool HasStableRowIds() const = 0;
  /// The created_at or last_updated versions (`which`) of `offsets`. REQUIRES:
  /// HasStableRowIds(). Corruption or NotSupported naming the fragment when its
  /// sequence is unreadable or stored outside the manifest.
  virtual Result<std::vector<uint64_t>> FragmentRowVersions(size_t frag_idx, RowMeta which,
                                                            std::span<const uint64_t> offsets) const = 0;
};

/// Meta column `meta` of `offsets` of fragment `frag_idx` (whose id is `frag_id`).
Result<Array> ComputeRowMeta(const ScanSource& source, size_t frag_idx, uint64_t frag_id, RowMeta meta,
                             std::span<const uint64_t> offsets);

}  // namespace lancet::table
