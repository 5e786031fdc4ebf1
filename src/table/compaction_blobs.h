// Blob V2 columns in compaction: the bytes move with their rows. Internal to the
// table layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "lancet/array.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/dataset.h"
#include "table/blob_sink.h"

namespace lancet::table {

/// \brief The descriptor column of top-level blob column `column` for rows of a new
/// data file. Inline, packed and dedicated values of `descriptors` (as scanned, one row
/// per row id of `row_ids`) are stored again through `sink` (sink column
/// `sink_column`) and placed by `thresholds`, since old positions and sidecars belong
/// to the old data file; external blobs keep their descriptor. Reads at most about
/// 64 MiB of payload at a time (a single larger value is read whole).
Result<Array> ReplaceBlobs(const Dataset& dataset, const std::string& column, const Array& descriptors,
                           std::span<const uint64_t> row_ids, const BlobThresholds& thresholds, size_t sink_column,
                           BlobSink* sink);

}  // namespace lancet::table
