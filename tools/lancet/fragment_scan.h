// A dataset's scan as a RecordBatchReader, one fragment at a time: the stand-in the
// CLI streams exports through until the scan layer's Dataset::NewScan replaces it
// (swap this one helper; callers only see a RecordBatchReader).
#pragma once

#include <memory>

#include "lancet/record_batch_reader.h"
#include "lancet/table/dataset.h"

namespace lancet::cli {

/// \brief The batches of `ds.Scan(options)` (options.fragment_ids must be empty),
/// produced by scanning one fragment when the previous one is used up, so memory
/// holds one fragment's batches at a time. `ds` must outlive the reader. Errors of
/// Dataset::Scan, from Next.
std::unique_ptr<RecordBatchReader> ScanByFragment(const table::Dataset& ds, table::ScanOptions options);

}  // namespace lancet::cli
