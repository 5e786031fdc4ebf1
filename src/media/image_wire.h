// The image plugin's request and decode-result layouts (lancet/media_image.h) as C++.
// Internal to the media layer; tests use it directly.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lancet/media/image.h"

namespace lancet::media::image_wire {

/// The request bytes of `request`. InvalidArgument for an empty region or thumbnail size 0.
Result<std::vector<uint8_t>> EncodeImageRequest(const ImageRequest& request);

/// \brief Parses decode's metadata and checks it against `data`: the pixel bytes exactly
/// width x height x channels, sizes non-zero, the area inside the page. Corruption
/// describing the first violation. The image views `data`.
Result<Image> ParseImage(std::span<const uint8_t> metadata, const BufferPtr& data);

}  // namespace lancet::media::image_wire
