// The "Audio rows" section of `lancet info`: what the audio plugin's stream_info says
// about each row (or a summary for many rows), read without loading the plugin.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "lancet/info_media.h"
#include "lancet/result.h"

namespace lancet::cli {

/// \brief Appends, for blob column `column` (its blob_info rows, StreamInfoRows) when
/// some rows hold audio stream_info: one line per such row (duration, rate, channels,
/// codec) when there are at most `list_limit`, else a summary. Nothing otherwise.
/// Errors: Corruption naming the row for an audio stream_info that does not parse.
Status AppendAudioRows(std::string& out, const std::string& column, std::span<const StreamInfoRow> rows,
                       uint64_t list_limit);

}  // namespace lancet::cli
