// DeleteWhere: find the rows a predicate matches, then delete them by address.
#include "lancet/expr/filter.h"
#include "lancet/table/write.h"

namespace lancet::table {

Result<uint64_t> DeleteWhere(const Dataset& dataset, const std::string& predicate, int max_commit_attempts) {
  auto bound = expr::Filter::Bind(predicate, dataset.read_schema());
  if (!bound.ok()) return bound.status().WithContext(dataset.uri());
  ScanOptions scan;
  scan.columns = bound->columns();
  scan.with_row_addr = true;
  ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, dataset.Scan(scan));
  std::vector<uint64_t> addresses;
  for (const RecordBatch& batch : batches) {
    ASSIGN_OR_RETURN(std::vector<bool> match, bound->Evaluate(batch));
    int addr_col = batch.schema.FieldIndex("_rowaddr");
    if (addr_col < 0) return Status::Internal(dataset.uri() + ": the scan returned no _rowaddr column");
    const uint64_t* addr = batch.columns[static_cast<size_t>(addr_col)].values<uint64_t>();
    for (size_t i = 0; i < match.size(); ++i) {
      if (match[i]) addresses.push_back(addr[i]);
    }
  }
  if (addresses.empty()) return dataset.version();
  return DeleteRows(dataset, addresses, max_commit_attempts);
}

}  // namespace lancet::table
