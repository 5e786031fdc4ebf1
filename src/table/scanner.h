// The streaming scanner behind Dataset::NewScan. Internal to the table layer.
#pragma once

#include <memory>

#include "lancet/record_batch_reader.h"
#include "lancet/table/dataset.h"
#include "table/scan_source.h"

namespace lancet::table {

/// A reader over `dataset` (read through `source`, the same object's internals) as
/// ScanOptions describes. Checks the options, the projection and the filter before it
/// returns; everything else is read lazily by Next(). REQUIRES: both outlive the reader.
Result<std::unique_ptr<RecordBatchReader>> MakeScanner(const Dataset& dataset, const ScanSource& source,
                                                       const ScanOptions& options);

}  // namespace lancet::table
