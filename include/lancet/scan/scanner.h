// The scan planner: a dataset scan whose filter is answered by the dataset's scalar
// indexes wherever they can, the rest read and filtered as Dataset::NewScan does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lancet/record_batch_reader.h"
#include "lancet/table/dataset.h"

namespace lancet::scan {

/// What the planner did with a filter (`lancet scan --explain`).
struct ScanExplain {
  struct IndexUse {
    std::string query;  // the filter part, e.g. "id = 77"
    std::string index;  // index name
    std::string type;   // "BTree", "ZoneMap", ...
    uint64_t rows = 0;  // rows it returned (candidates for zone indexes)
    bool exact = true;
  };
  std::vector<IndexUse> uses;
  std::vector<uint64_t> indexed_fragments;  // answered through the indexes
  std::vector<uint64_t> scanned_fragments;  // read whole with the filter
  uint64_t selected_rows = 0;               // rows of indexed fragments read
  bool rechecked = true;                    // the filter is evaluated on the selected rows too
  /// Lines as `lancet scan --explain` prints them.
  std::string ToString() const;
};

/// \brief Dataset::NewScan, with `options.filter` answered through the scalar indexes
/// of the version where they can (same rows, same order, same errors).
///
/// Exact indexes (BTree, Bitmap, LabelList) turn comparisons, IN, IS NULL, LIKE
/// 'prefix%' and array_has/array_has_any into row sets, combined under AND/OR/NOT; zone
/// indexes (ZoneMap, BloomFilter) give candidate zones. Fragments no index covers are
/// scanned with the filter; deleted rows never come back. The filter is rechecked on
/// the selected rows unless exact indexes answered all of it. A corrupt index file is an
/// error naming it (never a wrong answer). `explain`, when given, is filled in.
Result<std::unique_ptr<RecordBatchReader>> NewScan(const table::Dataset& dataset, table::ScanOptions options,
                                                   ScanExplain* explain = nullptr);

/// Opened index segments are kept (up to 64, process-wide) so later scans reuse them:
/// committed segments never change. Drops them, e.g. to free their memory.
void ClearIndexCache();

/// The plan NewScan would follow, after running the index searches but reading no data.
Result<ScanExplain> Explain(const table::Dataset& dataset, const table::ScanOptions& options);

}  // namespace lancet::scan
