// A Blob V2 value's blob_info (format 2.3): a media plugin's stream metadata and
// position index, opaque to the core.
#pragma once

#include <cstdint>

#include "lancet/buffer.h"

namespace lancet::table {

struct BlobInfoValue {
  uint8_t blob_type = 0;  // 1 video, 2 audio, 3 image, ...; never 0
  BufferPtr stream_info;
  BufferPtr entries;
};

}  // namespace lancet::table
