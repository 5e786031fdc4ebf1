// The media sections of `lancet info`: what each plugin's stream_info says about the rows
// of the blob columns a plugin ingested, read without loading any plugin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::cli {

/// One row of a blob column whose blob_info is set: its row id and stream_info bytes.
struct StreamInfoRow {
  uint64_t row_id = 0;
  std::string stream_info;
};

/// The rows of blob column `column` with blob_info, in row order, from one scan.
Result<std::vector<StreamInfoRow>> StreamInfoRows(const table::Dataset& ds, const std::string& column);

/// \brief Appends the "Video rows" sections, then the "Audio rows" sections, of every
/// top-level blob column a plugin ingested (info_video.h, info_audio.h); each such column
/// is scanned once for both. Errors as those sections', in the dataset's context.
Status AppendMediaRows(std::string& out, const table::Dataset& ds, uint64_t list_limit);

}  // namespace lancet::cli
