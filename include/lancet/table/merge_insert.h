// MergeInsert: upsert a stream of rows into a dataset by key columns, the way the
// reference's merge_insert does (lineage-notes §3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/record_batch_reader.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

enum class WhenMatched : uint8_t {
  kUpdateAll,      // every source column replaces the target's
  kUpdateColumns,  // only MergeInsertOptions::update_columns replace the target's
  kDoNothing,
};
enum class WhenNotMatched : uint8_t { kInsert, kSkip };
enum class WhenNotMatchedBySource : uint8_t { kKeep, kDelete };

struct MergeInsertOptions {
  /// Key columns (at least one), present in the source and the target with the same
  /// type: bool, integers, floats, dates, times, timestamps, durations, (large)
  /// utf8/binary, fixed_size_binary. A null key matches nothing (as a SQL join).
  std::vector<std::string> on;
  WhenMatched when_matched = WhenMatched::kUpdateAll;
  /// For kUpdateColumns: source columns to copy into the matched row.
  std::vector<std::string> update_columns;
  /// Filter over `target.<col>` and `source.<col>` (the reference's names); a matched
  /// pair is updated only where it is true. Empty = always.
  std::string when_matched_condition;
  WhenNotMatched when_not_matched = WhenNotMatched::kInsert;
  WhenNotMatchedBySource when_not_matched_by_source = WhenNotMatchedBySource::kKeep;
  /// Filter over the target's columns (unprefixed) for kDelete; empty = every row.
  std::string by_source_condition;
  /// Source bytes held in memory; beyond it the source is hash-partitioned by key into
  /// spill files (Arrow IPC under spill_dir) and joined a partition at a time.
  uint64_t memory_budget_bytes = 256ull << 20;
  /// Partitions of a spilled source (0 = 64, at most 4096): each should fit in the budget.
  uint32_t spill_partitions = 0;
  /// Where the spill directory is made (removed afterwards); empty = the system temp dir.
  std::string spill_dir;
  /// Rows per new data file.
  uint64_t max_rows_per_file = 1024 * 1024;
  /// Whole merges run before CommitConflict: a concurrent commit that invalidates the
  /// merge makes it re-run against the latest version (the source is replayed).
  int max_commit_attempts = 20;
};

struct MergeInsertResult {
  uint64_t version = 0;
  uint64_t rows_inserted = 0;
  uint64_t rows_updated = 0;
  uint64_t rows_deleted = 0;
  int attempts = 0;
  /// Source bytes written to spill files (0 when the source fit in the budget).
  uint64_t spilled_bytes = 0;
};

/// \brief Merges `source` into the latest-at-call version `dataset` and commits one
/// Update transaction; returns the new version (dataset's when nothing changed).
///
/// Source columns must exist in the target with the same types; columns the source
/// lacks keep their old values in updated rows and are null in inserted rows. Two
/// source rows matching one target row while when_matched updates is the reference's
/// "Ambiguous merge inserts are prohibited" InvalidArgument naming the key; duplicate
/// source keys that match nothing are all inserted. Memory is bounded by the budget
/// (plus one partition's matched pairs), whatever the source's and target's sizes.
/// On any error nothing is committed.
///
/// A Blob V2 column takes new bytes as binary, large_binary or the input
/// struct<data, uri>, placed by size as a write places them; rows it is left out of
/// keep their blobs (the bytes move with the row). In a format 2.3 dataset (blob_info)
/// a source holding the blob column is InvalidArgument: only a media plugin makes
/// those values.
Result<MergeInsertResult> MergeInsert(const Dataset& dataset, RecordBatchReader& source,
                                      const MergeInsertOptions& options);

}  // namespace lancet::table
