#include "scan/row_sets.h"

#include <algorithm>

#include "lancet/table/row_selection.h"

namespace lancet::scan {

// Row ids of the covered fragments that are live and pass `filter`.
Result<Roaring64Map> AllowedRows(const table::Dataset& dataset, const std::set<uint64_t>& fragments,
                                 const std::string& filter) {
  Roaring64Map rows;
  if (fragments.empty()) return rows;
  table::ScanOptions scan;
  scan.columns = {"_rowid"};
  scan.filter = filter;
  scan.fragment_ids.assign(fragments.begin(), fragments.end());
  scan.ordered = false;
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, dataset.NewScan(scan));
  for (;;) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
    if (!batch) break;
    const uint64_t* ids = batch->columns[0].values<uint64_t>();
    rows.addMany(static_cast<size_t>(batch->num_rows), ids);
  }
  return rows;
}

// Which of `rows` (row ids) pass `filter`: only those rows are read, through a
// selection, not their whole fragments.
Result<Roaring64Map> PassingRows(const table::Dataset& dataset, const std::vector<uint64_t>& rows,
                                 const std::string& filter) {
  ASSIGN_OR_RETURN(std::vector<uint64_t> addrs, dataset.RowIdsToAddresses(rows));
  std::sort(addrs.begin(), addrs.end());
  auto selection = std::make_shared<table::RowSelection>();
  for (uint64_t a : addrs) {
    auto& ranges = selection->fragments[a >> 32].ranges;
    const uint64_t offset = a & 0xffffffffULL;
    if (!ranges.empty() && ranges.back().second == offset) {
      ranges.back().second = offset + 1;
    } else if (ranges.empty() || ranges.back().second < offset) {
      ranges.emplace_back(offset, offset + 1);
    }
  }
  table::ScanOptions scan;
  scan.columns = {"_rowid"};
  scan.filter = filter;
  scan.ordered = false;
  for (const auto& [fragment, unused] : selection->fragments) scan.fragment_ids.push_back(fragment);
  scan.selection = std::move(selection);
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, dataset.NewScan(scan));
  Roaring64Map out;
  for (;;) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
    if (!batch) break;
    out.addMany(static_cast<size_t>(batch->num_rows), batch->columns[0].values<uint64_t>());
  }
  return out;
}

}  // namespace lancet::scan
