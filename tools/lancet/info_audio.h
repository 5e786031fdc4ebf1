// The "Audio rows" section of `lancet info`: what the audio plugin's stream_info says
// about each row (or a summary for many rows), read without loading the plugin.
#pragma once

#include <cstdint>
#include <string>

#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::cli {

/// \brief Appends, for every top-level blob column with blob_info whose rows hold audio
/// stream_info: one line per row (duration, rate, channels, codec) when there are at most
/// `list_limit` such rows, else a summary. Nothing for datasets without such columns.
/// Errors: the scan's, and Corruption naming the row for a stream_info that does not parse.
Status AppendAudioRows(std::string& out, const table::Dataset& ds, uint64_t list_limit);

}  // namespace lancet::cli
