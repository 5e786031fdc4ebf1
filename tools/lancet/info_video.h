// The "Video rows" section of `lancet info`: what the video plugin's stream_info says
// about each row (or a summary for many rows), read without loading the plugin.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "lancet/info_media.h"
#include "lancet/result.h"

namespace lancet::cli {

/// \brief Appends, for blob column `column` (its blob_info rows, StreamInfoRows) when
/// some rows hold video stream_info: one line per such row (duration, fps, resolution,
/// codec, GOPs) when there are at most `list_limit`, else a summary (rows, total
/// duration, resolutions, codecs). Nothing otherwise.
/// Errors: Corruption naming the row for a video stream_info that does not parse.
Status AppendVideoRows(std::string& out, const std::string& column, std::span<const StreamInfoRow> rows,
                       uint64_t list_limit);

}  // namespace lancet::cli
