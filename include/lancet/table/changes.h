// Change data capture: the rows a range of versions inserted, updated and deleted,
// from stable row ids and row lineage (docs/status.md, "Row lineage and CDC").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lancet/record_batch_reader.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

struct ChangesOptions {
  /// Top-level columns of the `to` version to output; empty = all of them.
  std::vector<std::string> columns;
  /// Also output each column's value at `from` as "old_<name>" (null for inserts, and
  /// for columns `from` lacks).
  bool with_old_values = false;
  uint64_t batch_size = 65536;
};

/// \brief The changes between versions `from` and `to` (from <= to) of `dataset`'s
/// table, one record per changed row: "op" (utf8: insert, update or delete),
/// "_rowid", "version" (the version that made the change: created_at for inserts,
/// last_updated for updates, the deleting version for deletes), then the values at
/// `to` (null for deletes) and, on request, the old values.
///
/// Inserted rows are live at `to` and created after `from`; updated ones were created
/// at or before `from` and updated after it; deleted ones are live at `from` but not
/// at `to`, found from fragment metadata (deletion files and vanished fragments, step
/// by step) without reading data. Inserts and updates come first, in `to`'s row
/// order; then deletes, by version. A row inserted and then updated within the range
/// is one insert with its last values. Overwrites read as deletes of every old row
/// plus inserts. Streamed: memory holds one batch and one step's deleted ids. The
/// reader opens the versions it needs itself, so `dataset` need not outlive it.
///
/// Errors: InvalidArgument naming the dataset without stable row ids at either end,
/// or for from > to; NotFound for a version that does not exist (or was cleaned up);
/// NotSupported, before any record, when a version in (from, to] restores an older one
/// (row lineage goes back with it, so its changes cannot be derived: diff the
/// snapshots instead).
Result<std::unique_ptr<RecordBatchReader>> Changes(const Dataset& dataset, uint64_t from, uint64_t to,
                                                   const ChangesOptions& options = {});

}  // namespace lancet::table
