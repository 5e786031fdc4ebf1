// WebP: libwebp's demuxer validates the container and lists the frames; each frame's
// stored range is its whole ANMF chunk (so frames stored back to back merge into one read)
// and its data the ALPH/VP8/VP8L chunks inside, which WebPDecode takes on their own.
#include <webp/decode.h>
#include <webp/demux.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "image_anim.h"

namespace lancet_image {
namespace {

uint32_t U32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24); }

struct DemuxDeleter {
  void operator()(WebPDemuxer* d) const { WebPDemuxDelete(d); }
};

// The top-level ANMF chunks, as [start, end) with the padding byte; the demuxer has
// already checked the RIFF structure, this only finds the chunk boundaries.
std::vector<std::pair<uint64_t, uint64_t>> AnmfChunks(const uint8_t* file, uint64_t size) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (uint64_t at = 12; at + 8 <= size;) {
    const uint64_t payload = U32(file + at + 4);
    const uint64_t end = std::min(size, at + 8 + payload + (payload & 1));
    if (std::memcmp(file + at, "ANMF", 4) == 0) out.push_back({at, end});
    at = end;
    if (end == size) break;
  }
  return out;
}

}  // namespace

Animation IndexWebp(const uint8_t* file, uint64_t size) {
  WebPData data{file, static_cast<size_t>(size)};
  WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
  std::unique_ptr<WebPDemuxer, DemuxDeleter> demux(WebPDemuxPartial(&data, &state));
  if (demux == nullptr || state != WEBP_DEMUX_DONE) {
    Fail(LANCET_MEDIA_ECORRUPT,
         std::string("libwebp's demuxer rejects the WebP file (") +
             (state == WEBP_DEMUX_PARSED_HEADER || state == WEBP_DEMUX_PARSING_HEADER ? "truncated?"
                                                                                      : "damaged container") +
             ")");
  }
  Animation a;
  a.si.format = LANCET_IMAGE_FORMAT_WEBP;
  a.si.canvas_width = WebPDemuxGetI(demux.get(), WEBP_FF_CANVAS_WIDTH);
  a.si.canvas_height = WebPDemuxGetI(demux.get(), WEBP_FF_CANVAS_HEIGHT);
  if (uint64_t{a.si.canvas_width} * a.si.canvas_height > kMaxCanvasPixels) {
    Fail(LANCET_MEDIA_ENOTSUP, "the WebP canvas is " + std::to_string(a.si.canvas_width) + "x" +
                                   std::to_string(a.si.canvas_height) + "; at most " +
                                   std::to_string(kMaxCanvasPixels) + " pixels are supported");
  }
  const bool animated = (WebPDemuxGetI(demux.get(), WEBP_FF_FORMAT_FLAGS) & ANIMATION_FLAG) != 0;
  a.si.loop_count = animated ? WebPDemuxGetI(demux.get(), WEBP_FF_LOOP_COUNT) : 1;
  if (animated) {
    // Stored as B, G, R, A bytes.
    const uint32_t bgra = WebPDemuxGetI(demux.get(), WEBP_FF_BACKGROUND_COLOR);
    a.si.background[0] = static_cast<uint8_t>(bgra >> 16);
    a.si.background[1] = static_cast<uint8_t>(bgra >> 8);
    a.si.background[2] = static_cast<uint8_t>(bgra);
    a.si.background[3] = static_cast<uint8_t>(bgra >> 24);
  }
  const uint32_t count = WebPDemuxGetI(demux.get(), WEBP_FF_FRAME_COUNT);
  if (count == 0) Fail(LANCET_MEDIA_ECORRUPT, "the WebP file has no frame");
  if (count > kMaxPages) Fail(LANCET_MEDIA_ENOTSUP, "the WebP has more than " + std::to_string(kMaxPages) + " frames");
  const auto chunks = animated ? AnmfChunks(file, size) : std::vector<std::pair<uint64_t, uint64_t>>{};
  if (animated && chunks.size() != count) {
    Fail(LANCET_MEDIA_ECORRUPT, "the WebP has " + std::to_string(count) + " frames but " +
                                    std::to_string(chunks.size()) + " top-level ANMF chunks");
  }
  for (uint32_t n = 0; n < count; ++n) {
    WebPIterator it;
    if (!WebPDemuxGetFrame(demux.get(), static_cast<int>(n) + 1, &it)) {
      Fail(LANCET_MEDIA_ECORRUPT, "WebP frame " + std::to_string(n) + " cannot be read by the demuxer");
    }
    Frame f;
    const uint64_t data_at = static_cast<uint64_t>(it.fragment.bytes - file);
    f.data_size = it.fragment.size;
    f.x = static_cast<uint32_t>(it.x_offset);
    f.y = static_cast<uint32_t>(it.y_offset);
    f.w = static_cast<uint32_t>(it.width);
    f.h = static_cast<uint32_t>(it.height);
    f.duration_ms = static_cast<uint32_t>(it.duration);
    f.disposal =
        it.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND ? LANCET_IMAGE_DISPOSE_BACKGROUND : LANCET_IMAGE_DISPOSE_NONE;
    f.blend = it.blend_method == WEBP_MUX_BLEND ? LANCET_IMAGE_BLEND_OVER : LANCET_IMAGE_BLEND_REPLACE;
    f.flags = it.has_alpha ? LANCET_IMAGE_FRAME_ALPHA : 0;
    const bool complete = it.complete != 0;
    WebPDemuxReleaseIterator(&it);
    if (!complete) Fail(LANCET_MEDIA_ECORRUPT, "WebP frame " + std::to_string(n) + " is incomplete (truncated?)");
    if (animated) {
      const auto [start, end] = chunks[n];
      if (data_at < start || f.data_size > end - data_at) {
        Fail(LANCET_MEDIA_ECORRUPT, "WebP frame " + std::to_string(n) + " lies outside its ANMF chunk");
      }
      f.offset = start;
      f.size = end - start;
      f.data_start = static_cast<uint32_t>(data_at - start);
    } else {
      f.offset = data_at;
      f.size = f.data_size;
    }
    a.index.frames.push_back(f);
  }
  a.si.page_count = count;
  a.si.source_bytes = size;
  SetRestarts(a.index, a.si.canvas_width, a.si.canvas_height);
  return a;
}

std::vector<uint8_t> DecodeWebpFrame(const uint8_t* data, uint64_t size, const Frame& frame, uint32_t number) {
  const std::string where = "WebP frame " + std::to_string(number);
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) Fail(LANCET_MEDIA_EINTERNAL, "libwebp's decoder version does not match");
  // Checked before any pixel is allocated: the frame must be the size the index says.
  if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK ||
      static_cast<uint32_t>(config.input.width) != frame.w || static_cast<uint32_t>(config.input.height) != frame.h) {
    Fail(LANCET_MEDIA_ECORRUPT, where + ": its " + std::to_string(size) + " bytes are not a " +
                                    std::to_string(frame.w) + "x" + std::to_string(frame.h) + " WebP image");
  }
  std::vector<uint8_t> rgba(uint64_t{frame.w} * frame.h * 4);
  config.output.colorspace = MODE_RGBA;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = rgba.data();
  config.output.u.RGBA.stride = static_cast<int>(frame.w * 4);
  config.output.u.RGBA.size = rgba.size();
  const VP8StatusCode status = WebPDecode(data, size, &config);
  WebPFreeDecBuffer(&config.output);
  if (status != VP8_STATUS_OK) {
    Fail(LANCET_MEDIA_ECORRUPT, where + " does not decode (libwebp status " + std::to_string(status) + ")");
  }
  return rgba;
}

}  // namespace lancet_image
