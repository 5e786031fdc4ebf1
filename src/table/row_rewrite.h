// Rewriting rows of one dataset version into new fragments and committing them as one
// Update transaction (lineage-notes §3): what Update and MergeInsert share.
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

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
  /// Blob V2 columns of `rows` may come in either shape: the logical input
  /// struct<data, uri> (the bytes are stored anew, placed by size), or the descriptor
  /// struct as base's scan reads it (the bytes of the replaced row move into the new
  /// files; a non-null descriptor therefore needs a replaced row). Format 2.3
  /// descriptors keep their blob_info. InvalidArgument for an address that is not a
  /// live row of base, or one replaced or removed twice.
  virtual Status Add(const RecordBatch& rows, std::span<const uint64_t> replaces) = 0;
  /// Row addresses in `base` removed with no replacement.
  virtual Status Remove(std::span<const uint64_t> addresses) = 0;
  /// Commits (nothing when nothing was added or removed: returns base's version).
  /// CommitConflict when a concurrent commit makes the edit invalid on top of it; the
  /// caller may re-run the edit on the latest version.
  virtual Result<uint64_t> Commit() = 0;
  virtual const RewriteCounts& counts() const = 0;
  /// The field ids recorded in Update.fields_for_preserving_frag_bitmap: the
  /// assigned columns for an update; by default every field (merge_insert).
  virtual void set_modified_fields(std::vector<uint32_t> field_ids) = 0;
};

}  // namespace lancet::table
