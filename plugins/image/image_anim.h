// GIF and WebP: frames composited on a canvas. Ingest indexes every frame's bytes and its
// restart frame (the analogue of a video GOP start); plan reads the header bytes and the
// frames from the restart to the one asked for; decode composites them.
#pragma once

#include <cstdint>
#include <vector>

#include "image_internal.h"

namespace lancet_image {

// 64 Mi pixels: a 256 MiB RGBA canvas; frames are bounded alike (GIF frames may overhang).
constexpr uint64_t kMaxCanvasPixels = 1ull << 26;
// Frame pixels decoded for one request (restart to target), so a hostile index cannot ask
// for hours of compositing.
constexpr uint64_t kMaxCompositePixels = 1ull << 32;

struct Frame {
  uint64_t offset = 0, size = 0;  // the range plan reads
  uint32_t data_start = 0;        // the decodable bytes, from offset
  uint64_t data_size = 0;
  uint32_t restart = 0;
  uint32_t x = 0, y = 0, w = 0, h = 0;
  uint32_t duration_ms = 0;
  uint8_t disposal = LANCET_IMAGE_DISPOSE_NONE;
  uint8_t blend = LANCET_IMAGE_BLEND_OVER;
  uint8_t flags = 0;
  bool alpha() const { return (flags & LANCET_IMAGE_FRAME_ALPHA) != 0; }
};

// GIF's header, screen descriptor and global colour table: at most 13 + 768 bytes.
constexpr uint64_t kMaxHeaderBytes = 781;

struct FrameIndex {
  // A copy of the stored stream's first bytes every frame's decode needs (GIF; empty for
  // WebP), kept in the index so a frame reads only its own range of the blob.
  std::vector<uint8_t> header;
  std::vector<Frame> frames;
};

// What ingest learns from a GIF or WebP file.
struct Animation {
  StreamInfo si;
  FrameIndex index;
};

// image_anim_layout.cc
std::vector<uint8_t> WriteFrames(const FrameIndex& index);
FrameIndex ReadFrames(const uint8_t* data, uint64_t size, const StreamInfo& si);
// Fills every frame's restart from the geometry, disposal, blend and alpha of the frames.
void SetRestarts(FrameIndex& index, uint32_t canvas_width, uint32_t canvas_height);
std::vector<LancetMediaRange> PlanFrames(const FrameIndex& index, const Request& request, uint64_t blob_size);

// image_gif.cc (giflib). Frame decoders return w x h RGBA; GIF's transparent pixels are 0.
Animation IndexGif(const uint8_t* file, uint64_t size);
std::vector<uint8_t> DecodeGifFrame(const std::vector<uint8_t>& header, const uint8_t* data, uint64_t size,
                                    const Frame& frame, uint32_t number);

// image_webp.cc (libwebp, libwebpdemux)
Animation IndexWebp(const uint8_t* file, uint64_t size);
std::vector<uint8_t> DecodeWebpFrame(const uint8_t* data, uint64_t size, const Frame& frame, uint32_t number);

// image_anim_decode.cc
Decoded DecodeFrames(const Request& request, const StreamInfo& si, const FrameIndex& index,
                     const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t range_count);

}  // namespace lancet_image
