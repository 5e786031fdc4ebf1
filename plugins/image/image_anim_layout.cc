// The frame index of GIF and WebP (LIFX): writer, bounds-checked reader, restart frames
// and the ranges a request needs.
#include <cstring>

#include "image_anim.h"

namespace lancet_image {
namespace {

uint32_t U32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24); }
uint64_t U64(const uint8_t* p) { return U32(p) | (static_cast<uint64_t>(U32(p + 4)) << 32); }
uint16_t U16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

bool Covers(const Frame& f, uint32_t cw, uint32_t ch) { return f.x == 0 && f.y == 0 && f.w >= cw && f.h >= ch; }

}  // namespace

std::vector<uint8_t> WriteFrames(const FrameIndex& index) {
  std::vector<uint8_t> out(
      LANCET_IMAGE_FRAMES_HEADER_SIZE + index.frames.size() * LANCET_IMAGE_FRAME_RECORD_SIZE + index.header.size(), 0);
  PutU32(&out[0], LANCET_IMAGE_FRAMES_MAGIC);
  PutU16(&out[4], 1);
  PutU16(&out[6], LANCET_IMAGE_FRAMES_HEADER_SIZE);
  PutU32(&out[8], static_cast<uint32_t>(index.frames.size()));
  PutU64(&out[16], index.header.size());
  uint8_t* at = &out[LANCET_IMAGE_FRAMES_HEADER_SIZE];
  for (const Frame& f : index.frames) {
    PutU64(at, f.offset);
    PutU64(at + 8, f.size);
    PutU32(at + 16, f.data_start);
    PutU32(at + 20, f.restart);
    PutU64(at + 24, f.data_size);
    PutU32(at + 32, f.x);
    PutU32(at + 36, f.y);
    PutU32(at + 40, f.w);
    PutU32(at + 44, f.h);
    PutU32(at + 48, f.duration_ms);
    at[52] = f.disposal;
    at[53] = f.blend;
    at[54] = f.flags;
    at += LANCET_IMAGE_FRAME_RECORD_SIZE;
  }
  if (!index.header.empty()) std::memcpy(at, index.header.data(), index.header.size());
  return out;
}

FrameIndex ReadFrames(const uint8_t* d, uint64_t size, const StreamInfo& si) {
  if (d == nullptr || size < LANCET_IMAGE_FRAMES_HEADER_SIZE || U32(d) != LANCET_IMAGE_FRAMES_MAGIC) {
    Fail(LANCET_MEDIA_ECORRUPT, "entries of " + std::to_string(size) + " bytes are not a frame index (magic LIFX)");
  }
  if (U16(d + 4) != 1) Fail(LANCET_MEDIA_ECORRUPT, "frame index version " + std::to_string(U16(d + 4)) + ", not 1");
  const uint64_t header = U16(d + 6);
  const uint64_t count = U32(d + 8);
  if (header < LANCET_IMAGE_FRAMES_HEADER_SIZE || header > size) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "frame index header size " + std::to_string(header) + " does not fit " + std::to_string(size) + " bytes");
  }
  const uint64_t header_bytes = U64(d + 16);
  if (count != si.page_count || header_bytes > kMaxHeaderBytes ||
      count * LANCET_IMAGE_FRAME_RECORD_SIZE + header_bytes != size - header) {
    Fail(LANCET_MEDIA_ECORRUPT, "frame index of " + std::to_string(size) + " bytes cannot hold " +
                                    std::to_string(count) + " frames (stream_info: " + std::to_string(si.page_count) +
                                    ") and " + std::to_string(header_bytes) + " header bytes");
  }
  if ((si.format == LANCET_IMAGE_FORMAT_GIF) != (header_bytes > 0)) {
    Fail(LANCET_MEDIA_ECORRUPT, "frame index has " + std::to_string(header_bytes) + " header bytes for format " +
                                    std::to_string(si.format) + " (GIF needs them, WebP has none)");
  }
  if (si.canvas_width == 0 || si.canvas_height == 0 ||
      uint64_t{si.canvas_width} * si.canvas_height > kMaxCanvasPixels) {
    Fail(LANCET_MEDIA_ECORRUPT, "image stream_info canvas " + std::to_string(si.canvas_width) + "x" +
                                    std::to_string(si.canvas_height) + " is empty or over " +
                                    std::to_string(kMaxCanvasPixels) + " pixels");
  }
  FrameIndex index;
  index.frames.resize(count);
  const uint8_t* at = d + header;
  for (uint32_t i = 0; i < count; ++i, at += LANCET_IMAGE_FRAME_RECORD_SIZE) {
    Frame& f = index.frames[i];
    f.offset = U64(at);
    f.size = U64(at + 8);
    f.data_start = U32(at + 16);
    f.restart = U32(at + 20);
    f.data_size = U64(at + 24);
    f.x = U32(at + 32);
    f.y = U32(at + 36);
    f.w = U32(at + 40);
    f.h = U32(at + 44);
    f.duration_ms = U32(at + 48);
    f.disposal = at[52];
    f.blend = at[53];
    f.flags = at[54];
    const std::string where = "frame index frame " + std::to_string(i);
    if (f.offset > (uint64_t{1} << 62) || f.size > (uint64_t{1} << 32) || f.data_start > f.size ||
        f.data_size > f.size - f.data_start) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " has bytes [" + std::to_string(f.offset) + ", +" + std::to_string(f.size) +
                                      ") with data at +" + std::to_string(f.data_start) + " of " +
                                      std::to_string(f.data_size) + " bytes");
    }
    if (f.restart > i) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " restarts at the later frame " + std::to_string(f.restart));
    }
    if (f.w == 0 || f.h == 0 || f.x > kMaxDimension || f.y > kMaxDimension || uint64_t{f.w} * f.h > kMaxCanvasPixels) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " is " + std::to_string(f.w) + "x" + std::to_string(f.h) + " at " +
                                      std::to_string(f.x) + "," + std::to_string(f.y));
    }
    if (f.disposal > LANCET_IMAGE_DISPOSE_PREVIOUS || f.blend > LANCET_IMAGE_BLEND_OVER ||
        (f.flags & ~LANCET_IMAGE_FRAME_ALPHA) != 0) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " has disposal " + std::to_string(f.disposal) + ", blend " +
                                      std::to_string(f.blend) + ", flags " + std::to_string(f.flags));
    }
  }
  index.header.assign(at, at + header_bytes);
  return index;
}

// A frame can start compositing on a transparent canvas when it paints every pixel itself
// (covers the canvas, opaque or replacing) or when what lies under it is known to be empty:
// the first frame, or a predecessor that cleared itself from a canvas that was otherwise
// empty (the rule libwebp's WebPAnimDecoder uses for its key frames, plus GIF's
// restore-to-previous).
void SetRestarts(FrameIndex& index, uint32_t cw, uint32_t ch) {
  std::vector<bool> empty_before(index.frames.size()), key(index.frames.size());
  for (size_t i = 0; i < index.frames.size(); ++i) {
    Frame& f = index.frames[i];
    if (i == 0) {
      empty_before[i] = true;
    } else {
      const Frame& p = index.frames[i - 1];
      empty_before[i] = (p.disposal == LANCET_IMAGE_DISPOSE_BACKGROUND && (Covers(p, cw, ch) || key[i - 1])) ||
                        (p.disposal == LANCET_IMAGE_DISPOSE_PREVIOUS && empty_before[i - 1]);
    }
    key[i] = empty_before[i] || (Covers(f, cw, ch) && (!f.alpha() || f.blend == LANCET_IMAGE_BLEND_REPLACE));
    f.restart = key[i] ? static_cast<uint32_t>(i) : index.frames[i - 1].restart;
  }
}

std::vector<LancetMediaRange> PlanFrames(const FrameIndex& index, const Request& r, uint64_t blob_size) {
  std::vector<LancetMediaRange> out;
  auto add = [&](uint64_t offset, uint64_t size, const std::string& what) {
    if (size == 0) return;
    if (offset > blob_size || size > blob_size - offset) {
      Fail(LANCET_MEDIA_ECORRUPT, what + " [" + std::to_string(offset) + ", +" + std::to_string(size) +
                                      ") lies past the " + std::to_string(blob_size) + "-byte blob");
    }
    if (!out.empty() && out.back().offset + out.back().length == offset) {
      out.back().length += size;
    } else {
      out.push_back({offset, size});
    }
  };
  const Frame& target = index.frames[r.page];
  uint64_t pixels = 0;
  for (uint32_t k = target.restart; k <= r.page; ++k) {
    const Frame& f = index.frames[k];
    pixels += uint64_t{f.w} * f.h;
    add(f.offset, f.size, "frame index frame " + std::to_string(k));
  }
  if (pixels > kMaxCompositePixels) {
    Fail(LANCET_MEDIA_EINVAL, "frame " + std::to_string(r.page) + " composites " + std::to_string(pixels) +
                                  " frame pixels from frame " + std::to_string(target.restart) + ", over " +
                                  std::to_string(kMaxCompositePixels));
  }
  return out;
}

}  // namespace lancet_image
