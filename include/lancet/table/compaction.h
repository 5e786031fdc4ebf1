// Compaction of a Lance table: fewer, larger fragments and no deleted rows.
#pragma once

#include <cstdint>
#include <functional>

#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

struct CompactionOptions {
  /// Fragments with fewer rows than this are merged with their neighbours, and merged
  /// fragments hold up to this many rows.
  uint64_t target_rows_per_fragment = 1024 * 1024;
  /// A fragment whose deleted share is more than this is rewritten without them (0 =
  /// any fragment with deletions; 1 or more = never).
  double materialize_deletions_threshold = 0.1;
  bool materialize_deletions = true;
  int max_commit_attempts = 20;
  /// Called after each fragment is rewritten with the live rows copied so far and the
  /// live rows of every fragment being rewritten; from the calling thread.
  std::function<void(uint64_t rows_done, uint64_t rows_total)> progress;
};

struct CompactionMetrics {
  uint64_t fragments_removed = 0;
  uint64_t fragments_added = 0;
  uint64_t files_removed = 0;
  uint64_t files_added = 0;
  /// The committed version, or the input version when there was nothing to do.
  uint64_t version = 0;
};

/// \brief Rewrites runs of adjacent small fragments (and fragments with many deleted
/// rows) into new fragments and commits a Rewrite (one group per run).
///
/// Only the current schema's columns are copied (dropped columns' data goes away).
/// Rows of a run keep their order; the new fragments get fresh ids and, as in the
/// reference, the fragment list stays sorted by id, so a scan lists them after the
/// fragments that were not rewritten. With stable row ids on, every row keeps its row
/// id (and its created/updated versions); without them row addresses change. Blob V2
/// bytes (inline, packed or dedicated) are stored again with the new data file, placed
/// by the column's thresholds; external blobs keep their descriptor. Nothing to do is not an error (no
/// new version). CommitConflict if a concurrent change deleted from, rewrote or
/// removed a fragment being rewritten (a concurrent append is kept). NotSupported for
/// datasets with indices or with a blob column nested in a struct or list (for now).
Result<CompactionMetrics> Compact(const Dataset& dataset, const CompactionOptions& options = {});

}  // namespace lancet::table
