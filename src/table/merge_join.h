// The join of a merge: source rows against the target's keys, partition by partition,
// turned into replaced, inserted and removed rows. Internal to the table layer.
#pragma once

#include <cstdint>
#include <span>

#include "lancet/array.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"
#include "lancet/table/merge_insert.h"
#include "table/merge_spill.h"

namespace lancet::table {

/// Where the join's decisions go (RowRewriter's Add/Remove in MergeInsert; a recorder
/// in tests).
class MergeSink {
 public:
  virtual ~MergeSink() = default;
  /// Rows of the target's schema; replaces[i] is the address row i replaces, or kInsertedRow.
  virtual Status Add(const RecordBatch& rows, std::span<const uint64_t> replaces) = 0;
  virtual Status Remove(std::span<const uint64_t> addresses) = 0;
};

struct MergeCounts {
  uint64_t inserted = 0;
  uint64_t updated = 0;
  uint64_t deleted = 0;
};

/// \brief Joins `source` (ingested with keys `options.on`) with the version `target`
/// and hands every change to `sink`. Checks the source's columns against the target's
/// schema and binds the conditions first (InvalidArgument naming the dataset). The
/// target's keys are scanned once; with a spilled source they are partitioned into its
/// spill directory too.
Result<MergeCounts> RunMergeJoin(const Dataset& target, const MergeSource& source,
                                 const MergeInsertOptions& options, MergeSink& sink);

}  // namespace lancet::table
