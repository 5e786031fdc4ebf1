// Compositing: frames from the target's restart frame to the target, each decoded on its
// own and drawn on a canvas that starts transparent, with the previous frame's disposal
// applied first. The output is the canvas, a region of it or a box-filtered thumbnail.
#include <algorithm>
#include <cstring>

#include "image_anim.h"

namespace lancet_image {
namespace {

constexpr uint32_t kMaxThumbnail = 4096;

// The bytes [offset, offset + size) of the stored stream inside one of the given ranges.
const uint8_t* Find(const LancetMediaRange* ranges, const uint8_t* const* data, uint64_t count, uint64_t offset,
                    uint64_t size, const std::string& what) {
  for (uint64_t i = 0; i < count; ++i) {
    const LancetMediaRange& r = ranges[i];
    if (offset >= r.offset && offset - r.offset <= r.length && size <= r.length - (offset - r.offset)) {
      if (data[i] == nullptr) break;
      return data[i] + (offset - r.offset);
    }
  }
  Fail(LANCET_MEDIA_EINVAL, "decode did not get the bytes of " + what + " [" + std::to_string(offset) + ", +" +
                                std::to_string(size) + ") in its ranges; pass the ranges plan returned");
}

struct Rect {
  uint32_t x0, y0, x1, y1;  // clipped to the canvas
};

Rect Clip(const Frame& f, uint32_t cw, uint32_t ch) {
  const uint32_t x0 = std::min(f.x, cw), y0 = std::min(f.y, ch);
  return {x0, y0, static_cast<uint32_t>(std::min<uint64_t>(uint64_t{f.x} + f.w, cw)),
          static_cast<uint32_t>(std::min<uint64_t>(uint64_t{f.y} + f.h, ch))};
}

void Clear(std::vector<uint8_t>& canvas, uint32_t cw, const Rect& r) {
  if (r.x0 >= r.x1) return;
  for (uint32_t y = r.y0; y < r.y1; ++y) {
    std::memset(&canvas[(uint64_t{y} * cw + r.x0) * 4], 0, uint64_t{r.x1 - r.x0} * 4);
  }
}

// Non-premultiplied "source over", in the integer arithmetic of libwebp's animation
// decoder (an approximation of the exact formula that viewers built on libwebp show).
void Over(const uint8_t* src, uint8_t* dst) {
  const uint32_t sa = src[3];
  if (sa == 0) return;
  const uint32_t da = (uint32_t{dst[3]} * (256 - sa)) >> 8;
  const uint32_t a = sa + da;
  const uint32_t scale = (1u << 24) / a;
  for (int k = 0; k < 3; ++k) dst[k] = static_cast<uint8_t>(((src[k] * sa + dst[k] * da) * scale) >> 24);
  dst[3] = static_cast<uint8_t>(a);
}

std::vector<uint8_t> Composite(const Request& r, const StreamInfo& si, const FrameIndex& index,
                               const LancetMediaRange* ranges, const uint8_t* const* data, uint64_t count) {
  const uint32_t cw = si.canvas_width, ch = si.canvas_height;
  std::vector<uint8_t> canvas(uint64_t{cw} * ch * 4, 0), saved;
  const uint32_t first = index.frames[r.page].restart;
  for (uint32_t k = first; k <= r.page; ++k) {
    const Frame& f = index.frames[k];
    const bool after_clear = k > first && index.frames[k - 1].disposal == LANCET_IMAGE_DISPOSE_BACKGROUND;
    Rect cleared{0, 0, 0, 0};
    if (k > first) {
      const Frame& p = index.frames[k - 1];
      if (p.disposal == LANCET_IMAGE_DISPOSE_BACKGROUND) {
        cleared = Clip(p, cw, ch);
        Clear(canvas, cw, cleared);
      } else if (p.disposal == LANCET_IMAGE_DISPOSE_PREVIOUS) {
        canvas.swap(saved);
      }
    }
    if (f.disposal == LANCET_IMAGE_DISPOSE_PREVIOUS && k < r.page) saved = canvas;
    const uint8_t* bytes =
        Find(ranges, data, count, f.offset + f.data_start, f.data_size, "frame " + std::to_string(k));
    const std::vector<uint8_t> px = si.format == LANCET_IMAGE_FORMAT_GIF
                                        ? DecodeGifFrame(index.header, bytes, f.data_size, f, k)
                                        : DecodeWebpFrame(bytes, f.data_size, f, k);
    // The restart frame paints on an empty canvas; later frames blend unless they replace.
    // Pixels a disposal just cleared take the frame's pixel as it is (over transparent,
    // exactly), as libwebp does.
    const bool replace = k == first || f.blend == LANCET_IMAGE_BLEND_REPLACE;
    const Rect to = Clip(f, cw, ch);
    if (to.x0 >= to.x1 || to.y0 >= to.y1) continue;  // entirely off the canvas
    for (uint32_t y = to.y0; y < to.y1; ++y) {
      const uint8_t* src = &px[(uint64_t{y - f.y} * f.w + (to.x0 - f.x)) * 4];
      uint8_t* dst = &canvas[(uint64_t{y} * cw + to.x0) * 4];
      const bool row_cleared = after_clear && y >= cleared.y0 && y < cleared.y1;
      for (uint32_t x = to.x0; x < to.x1; ++x, src += 4, dst += 4) {
        if (replace || src[3] == 255 || (row_cleared && x >= cleared.x0 && x < cleared.x1)) {
          std::memcpy(dst, src, 4);
        } else {
          Over(src, dst);
        }
      }
    }
  }
  return canvas;
}

std::vector<uint8_t> Metadata(const Request& r, const StreamInfo& si, uint32_t w, uint32_t h, uint32_t x, uint32_t y) {
  std::vector<uint8_t> m(LANCET_IMAGE_DECODED_SIZE, 0);
  PutU32(&m[0], LANCET_IMAGE_DECODED_MAGIC);
  PutU16(&m[4], 1);
  PutU16(&m[6], LANCET_IMAGE_DECODED_SIZE);
  PutU32(&m[8], r.page);
  PutU32(&m[12], w);
  PutU32(&m[16], h);
  m[20] = LANCET_IMAGE_PIX_RGBA32;
  PutU32(&m[24], si.canvas_width);
  PutU32(&m[28], si.canvas_height);
  PutU32(&m[32], x);
  PutU32(&m[36], y);
  return m;
}

// The box filter of TIFF thumbnails, on the four channels of the canvas.
std::vector<uint8_t> Downscale(const std::vector<uint8_t>& canvas, uint32_t w, uint32_t h, uint32_t ow, uint32_t oh) {
  std::vector<uint64_t> sums(uint64_t{ow} * oh * 4, 0), counts(uint64_t{ow} * oh, 0);
  for (uint32_t y = 0; y < h; ++y) {
    const uint64_t oy = uint64_t{y} * oh / h;
    for (uint32_t x = 0; x < w; ++x) {
      const uint64_t o = oy * ow + uint64_t{x} * ow / w;
      const uint8_t* px = &canvas[(uint64_t{y} * w + x) * 4];
      for (int k = 0; k < 4; ++k) sums[o * 4 + k] += px[k];
      ++counts[o];
    }
  }
  std::vector<uint8_t> out(sums.size());
  for (uint64_t o = 0; o < counts.size(); ++o) {
    const uint64_t n = std::max<uint64_t>(1, counts[o]);
    for (int k = 0; k < 4; ++k) out[o * 4 + k] = static_cast<uint8_t>((sums[o * 4 + k] + n / 2) / n);
  }
  return out;
}

}  // namespace

Decoded DecodeFrames(const Request& r, const StreamInfo& si, const FrameIndex& index, const LancetMediaRange* ranges,
                     const uint8_t* const* range_data, uint64_t range_count) {
  if (r.kind == LANCET_IMAGE_REQ_THUMBNAIL && r.thumbnail > kMaxThumbnail) {
    Fail(LANCET_MEDIA_EINVAL,
         "thumbnail size " + std::to_string(r.thumbnail) + " is over " + std::to_string(kMaxThumbnail));
  }
  const uint32_t cw = si.canvas_width, ch = si.canvas_height;
  std::vector<uint8_t> canvas = Composite(r, si, index, ranges, range_data, range_count);
  Decoded d;
  const uint32_t longer = std::max(cw, ch);
  if (r.kind == LANCET_IMAGE_REQ_REGION) {
    d.data.resize(uint64_t{r.w} * r.h * 4);
    for (uint32_t y = 0; y < r.h; ++y) {
      std::memcpy(&d.data[uint64_t{y} * r.w * 4], &canvas[(uint64_t{r.y + y} * cw + r.x) * 4], uint64_t{r.w} * 4);
    }
    d.metadata = Metadata(r, si, r.w, r.h, r.x, r.y);
  } else if (r.kind == LANCET_IMAGE_REQ_THUMBNAIL && r.thumbnail < longer) {
    const uint32_t shorter = std::min(cw, ch);
    const auto other =
        static_cast<uint32_t>(std::max<uint64_t>(1, (uint64_t{shorter} * r.thumbnail + longer / 2) / longer));
    const uint32_t ow = cw >= ch ? r.thumbnail : other, oh = cw >= ch ? other : r.thumbnail;
    d.data = Downscale(canvas, cw, ch, ow, oh);
    d.metadata = Metadata(r, si, ow, oh, 0, 0);
  } else {
    d.data = std::move(canvas);
    d.metadata = Metadata(r, si, cw, ch, 0, 0);
  }
  return d;
}

}  // namespace lancet_image
