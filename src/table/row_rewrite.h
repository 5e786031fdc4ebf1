// Rewriting rows of one dataset version into new fragments and committing them as one
// Update transaction (lineage-notes §3): what Update and MergeInsert share.
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>

#include "lancet/array.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"

namespace lancet::table {

/// In RowRewriter::Add: the row replaces nothing (a merge_insert insert).
inline constexpr uint64_t kInsertedRow = std::numeric_limits<uint64_t>::max();

struct RewriteCounts {
  uint64_t updated = 0;   // rows written in place of an old copy
  uint64_t inserted = 0;  // rows written with no old copy
  uint64_t deleted = 0;   // old rows removed with no replacement
};

/// \brief Collects the rows an edit writes and commits them once.
///
/// Rows are streamed into new data files as they are added (memory bounded by one
/// file's buffer). Commit() turns the replaced and removed addresses into deletion
/// files (a fragment left with no live row is removed), keeps each replaced row's
/// stable row id and created_at version, stamps last_updated with the committed
/// version, gives inserted rows fresh ids, and commits an Update transaction with the
/// reference's conflict rules. A RowRewriter that is destroyed without committing
/// deletes the files it wrote.
class RowRewriter {
 public:
  virtual ~RowRewriter() = default;

  /// `base` is the version being edited; it must outlive the rewriter.
  static Result<std::unique_ptr<RowRewriter>> Make(const Dataset& base, const WriteParams& params);

  /// Rows with base.schema() (every column, in order). `replaces[i]` is the row
  /// address in `base` of the row that row i replaces, or kInsertedRow.
  virtual Status Add(const RecordBatch& rows, std::span<const uint64_t> replaces) = 0;
  /// Row addresses in `base` removed with no replacement.
  virtual Status Remove(std::span<const uint64_t> addresses) = 0;
  /// Commits (nothing when nothing was added or removed: returns base's version).
  /// CommitConflict when a concurrent commit makes the edit invalid on top of it; the
  /// caller may re-run the edit on the latest version.
  virtual Result<uint64_t> Commit() = 0;
  virtual const RewriteCounts& counts() const = 0;
};

}  // namespace lancet::table
