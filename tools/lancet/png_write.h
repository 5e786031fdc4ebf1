// PNG files from decoded frames (8-bit gray or RGB), written with zlib.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::cli {

/// \brief PNG bytes of an image of `width` x `height` with `channels` 1 (gray), 3 (RGB)
/// or 4 (RGBA, not premultiplied) bytes per pixel, rows tightly packed. InvalidArgument when `pixels` does not
/// hold exactly width * height * channels bytes or a size is 0.
Result<std::vector<uint8_t>> EncodePng(std::span<const uint8_t> pixels, uint32_t width, uint32_t height,
                                       int channels);

/// EncodePng written to `path` (created or truncated). IOError names the path.
Status WritePng(const std::string& path, std::span<const uint8_t> pixels, uint32_t width, uint32_t height,
                int channels);

}  // namespace lancet::cli
