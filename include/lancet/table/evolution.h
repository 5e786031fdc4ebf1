// Schema evolution of a Lance table without rewriting the columns it keeps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/data_type.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

/// \brief Adds the columns of `schema` with values from `batches`, whose rows line up
/// with `dataset`'s visible rows in scan order (fragment by fragment, by offset,
/// deleted rows skipped). Each fragment gets one new data file holding only the new
/// columns, one row per physical row (deleted rows get a copy of a visible value); the
/// existing data files are not rewritten. Commits a Merge; returns the new version.
/// InvalidArgument if a name is taken, the row count differs or a batch does not match
/// `schema`; NotSupported for a Blob V2 column; CommitConflict if a concurrent change
/// rewrote, removed or added a fragment or changed the schema (a concurrent delete is
/// kept).
Result<uint64_t> AddColumns(const Dataset& dataset, const Schema& schema, std::vector<RecordBatch> batches,
                            int max_commit_attempts = 20);

/// \brief Adds nullable columns that read as null everywhere: a metadata-only change
/// (no data files are written; a Merge of the unchanged fragments). InvalidArgument for
/// a taken name or a non-nullable field (or child); NotSupported for Blob V2 columns.
Result<uint64_t> AddNullColumns(const Dataset& dataset, const std::vector<Field>& fields, int max_commit_attempts = 20);

/// \brief Drops top-level columns or struct members (dotted paths): a metadata-only
/// change (a Project). Data files keep the dropped ids (so they are never reused) until
/// compaction; a data file left without any column leaves its fragment. NotFound for an
/// unknown column; InvalidArgument when no column or an empty struct would be left, or
/// for a member of a Blob V2 column.
Result<uint64_t> DropColumns(const Dataset& dataset, const std::vector<std::string>& columns,
                             int max_commit_attempts = 20);

/// \brief Renames a column (dotted path for a struct member; `to` is the new last
/// name): a metadata-only change (a Project). NotFound / InvalidArgument (name taken,
/// empty or containing '.', or a member of a Blob V2 column).
Result<uint64_t> RenameColumn(const Dataset& dataset, const std::string& from, const std::string& to,
                              int max_commit_attempts = 20);

/// \brief Casts a top-level column to `type`, rewriting only that column (a new data
/// file per fragment; the column gets a new field id and keeps its place, name,
/// nullability and metadata; the old data files keep the old id, as the reference
/// does). Supported: integer to integer, float to double and back, utf8 and large_utf8,
/// binary and large_binary. InvalidArgument when a value does not fit (naming it and
/// its row), the cast is not supported or the type is unchanged; conflicts as
/// AddColumns.
Result<uint64_t> AlterColumnType(const Dataset& dataset, const std::string& column, const DataType& type,
                                 int max_commit_attempts = 20);

}  // namespace lancet::table
