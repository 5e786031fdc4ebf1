// Blob V2 columns in compaction: the bytes move into the new data file. Internal to the
// table layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "lancet/array.h"
#include "lancet/format/file_writer.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

/// \brief The descriptor column of top-level blob column `column` for rows of a new
/// data file: every inline, packed or dedicated blob of `descriptors` (as scanned, one
/// row per row id of `row_ids`) is copied into `writer` as an inline payload, since the
/// old position or sidecar belongs to the old data file; external blobs keep their
/// descriptor. Reads at most about 64 MiB of payload at a time.
Result<Array> InlineBlobs(const Dataset& dataset, const std::string& column, const Array& descriptors,
                          std::span<const uint64_t> row_ids, format::FileWriter* writer);

}  // namespace lancet::table
