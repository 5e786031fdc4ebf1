// One scan batch: the rows of one fragment read with late materialisation (the
// filter's columns first, the rest only for the rows that pass). Internal to table.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "lancet/table/dataset.h"
#include "lancet/expr/filter.h"
#include "table/scan_projection.h"
#include "table/scan_source.h"

namespace lancet::table {

/// What every batch of one scan shares. Immutable once built.
struct ScanContext {
  const Dataset* dataset = nullptr;
  const ScanSource* source = nullptr;
  ScanProjection projection;
  std::optional<expr::Filter> filter;
  /// The whole top-level fields the filter reads, as a schema to evaluate it on.
  Schema filter_schema;
  /// Per filter_schema field: the meta column it is (computed, not read), if one.
  std::vector<std::optional<RowMeta>> filter_meta;
  /// Per projection field: its index in filter_schema when the filter reads it whole
  /// (then it is not read twice), else -1.
  std::vector<int> reuse;
};

/// Binds `options.filter` (when set) and plans the projection. Errors as NewScan's.
Result<ScanContext> MakeScanContext(const Dataset& dataset, const ScanSource& source, const ScanOptions& options);

struct ScanTask {
  size_t frag_idx = 0;
  std::vector<uint64_t> offsets;  // live, ascending
  bool exact = false;             // an index found these rows: the filter is not evaluated
};

/// The projected rows of `task` that pass the filter (all of them without one).
Result<RecordBatch> RunScanTask(const ScanContext& context, const ScanTask& task);

}  // namespace lancet::table
