// DeleteWhere: stream the addresses of the rows a predicate matches, then delete them.
#include "lancet/table/write.h"

namespace lancet::table {

Result<uint64_t> DeleteWhere(const Dataset& dataset, const std::string& predicate, int max_commit_attempts) {
  // The scan reads the predicate's columns batch by batch and keeps only the matching
  // addresses, so memory follows the matches, not the version.
  // An empty filter means "every row" to a scan; here it is a mistake, not a request.
  if (predicate.empty()) return Status::InvalidArgument(dataset.uri() + ": predicate is empty");
  ScanOptions scan;
  scan.columns = {"_rowaddr"};
  scan.filter = predicate;
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, dataset.NewScan(scan));
  std::vector<uint64_t> addresses;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
    if (!batch) break;
    const uint64_t* addr = batch->columns.back().values<uint64_t>();
    addresses.insert(addresses.end(), addr, addr + batch->num_rows);
  }
  if (addresses.empty()) return dataset.version();
  return DeleteRows(dataset, addresses, max_commit_attempts);
}

}  // namespace lancet::table
