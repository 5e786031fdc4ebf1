// Update: rewrite the rows a predicate matches with new column values (a new version).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

struct UpdateOptions {
  /// Runs of the whole update; a run that meets a conflicting concurrent commit
  /// (CommitConflict) starts again on the latest version. Also the commit attempts of
  /// each run (lost races rebase without re-reading the rows).
  int max_commit_attempts = 20;
  /// Rows per new data file.
  uint64_t max_rows_per_file = 1024 * 1024;
};

struct UpdateResult {
  uint64_t version = 0;       // the committed version (the dataset's when no row matched)
  uint64_t rows_updated = 0;  // rows rewritten
};

/// \brief Sets columns of the rows of `dataset`'s version for which `where` is true
/// (empty: every row) and commits the result as an Update (lineage-notes §3).
///
/// `set` pairs a top-level column with an expression in the filter language
/// (docs/filters.md) over the row's old values (`price * 2`, `lower(name)`, NULL),
/// cast to the column's type. Rows move to new fragments: with stable row ids they
/// keep `_rowid` and `_row_created_at_version` and get `_row_last_updated_at_version`
/// = the new version; `_rowaddr` changes. A Blob V2 column takes a binary or string
/// expression (its bytes) or NULL; the other blob columns keep their bytes.
/// Streams: memory follows one scan batch and one file's buffers, plus each new
/// file's row ids and versions in compact (run-length) form with stable row ids.
/// Errors (nothing is committed and the files written are deleted): InvalidArgument
/// naming the column for an unknown or repeated column, a lineage column (`_rowid`,
/// `_rowaddr`, ...), a blob column of a format 2.3 dataset (its values carry blob_info),
/// an expression that does not bind or a value that does not fit the column's type
/// or a null in a non-nullable column; CommitConflict when every run met a conflict.
Result<UpdateResult> Update(const Dataset& dataset, const std::string& where,
                            const std::vector<std::pair<std::string, std::string>>& set,
                            const UpdateOptions& options = {});

}  // namespace lancet::table
