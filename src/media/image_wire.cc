#include "media/image_wire.h"

#include <cstring>
#include <string>

#include "lancet/media_image.h"
#include "media/video_wire.h"

namespace lancet::media::image_wire {
namespace {

void Put32(std::vector<uint8_t>& out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

Result<std::vector<uint8_t>> EncodeImageRequest(const ImageRequest& r) {
  std::vector<uint8_t> out(LANCET_IMAGE_REQUEST_SIZE, 0);
  Put32(out, 0, LANCET_IMAGE_REQUEST_MAGIC);
  out[4] = 1;
  switch (r.kind) {
    case ImageRequest::Kind::kPage:
      break;
    case ImageRequest::Kind::kRegion:
      if (r.width == 0 || r.height == 0) {
        return Status::InvalidArgument("region " + std::to_string(r.width) + "x" + std::to_string(r.height) +
                                       " is empty");
      }
      Put32(out, 12, r.x);
      Put32(out, 16, r.y);
      Put32(out, 20, r.width);
      Put32(out, 24, r.height);
      break;
    case ImageRequest::Kind::kThumbnail:
      if (r.thumbnail == 0) return Status::InvalidArgument("a thumbnail needs a size of at least 1");
      Put32(out, 28, r.thumbnail);
      break;
    default:
      return Status::InvalidArgument("unknown image request kind " + std::to_string(static_cast<int>(r.kind)));
  }
  out[6] = static_cast<uint8_t>(r.kind);
  Put32(out, 8, r.page);
  return out;
}

Result<Image> ParseImage(std::span<const uint8_t> m, const BufferPtr& data) {
  using video_wire::U16;
  using video_wire::U32;
  if (m.size() < LANCET_IMAGE_DECODED_SIZE || U32(m, 0) != LANCET_IMAGE_DECODED_MAGIC) {
    return Status::Corruption("decode metadata of " + std::to_string(m.size()) +
                              " bytes is not a decoded-image header (magic LIDM)");
  }
  if (U16(m, 4) != 1) return Status::Corruption("decoded image version " + std::to_string(U16(m, 4)) + ", not 1");
  if (U16(m, 6) < LANCET_IMAGE_DECODED_SIZE || U16(m, 6) > m.size()) {
    return Status::Corruption("decoded image header size " + std::to_string(U16(m, 6)) + " does not fit its " +
                              std::to_string(m.size()) + " bytes");
  }
  Image img;
  img.page = U32(m, 8);
  img.width = U32(m, 12);
  img.height = U32(m, 16);
  if (m[20] != LANCET_IMAGE_PIX_RGB24 && m[20] != LANCET_IMAGE_PIX_GRAY8 && m[20] != LANCET_IMAGE_PIX_RGBA32) {
    return Status::Corruption("decoded image pixel format " + std::to_string(m[20]) +
                              " (known: 0 rgb24, 1 gray8, 3 rgba32)");
  }
  img.format = static_cast<ImagePixels>(m[20]);
  img.page_width = U32(m, 24);
  img.page_height = U32(m, 28);
  img.x = U32(m, 32);
  img.y = U32(m, 36);
  const std::string size = std::to_string(img.width) + "x" + std::to_string(img.height);
  if (img.width == 0 || img.height == 0 || img.page_width == 0 || img.page_height == 0) {
    return Status::Corruption("decoded image is " + size + " of a page of " + std::to_string(img.page_width) + "x" +
                              std::to_string(img.page_height));
  }
  if (img.x >= img.page_width || img.y >= img.page_height || img.width > img.page_width - img.x ||
      img.height > img.page_height - img.y) {
    return Status::Corruption("decoded image " + size + " at " + std::to_string(img.x) + "," + std::to_string(img.y) +
                              " lies outside its page");
  }
  const uint64_t need = uint64_t{img.width} * img.height * ImageChannels(img.format);
  const uint64_t got = data ? data->size() : 0;
  if (got != need) {
    return Status::Corruption("decoded image " + size + " " + ImagePixelsName(img.format) + " needs " +
                              std::to_string(need) + " bytes, the output has " + std::to_string(got));
  }
  img.pixels = data;
  return img;
}

}  // namespace lancet::media::image_wire
