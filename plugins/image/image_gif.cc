// GIF: the block structure is walked here (offsets of every frame, its graphic control
// extension, the loop count); each frame's pixels are decoded by giflib from a one-frame
// GIF assembled in memory (the file's header bytes, the frame's blocks, a trailer), so a
// frame decodes the same at ingest and at every later read.
#include <gif_lib.h>

#include <algorithm>
#include <cstring>

#include "image_anim.h"

namespace lancet_image {
namespace {

struct Cursor {
  const uint8_t* d;
  uint64_t size;
  uint64_t pos;
  void Need(uint64_t n, const std::string& what) const {
    if (n > size - pos) {
      Fail(LANCET_MEDIA_ECORRUPT, "GIF " + what + " at byte " + std::to_string(pos) + " runs past the end of the " +
                                      std::to_string(size) + "-byte data (truncated?)");
    }
  }
  uint8_t Byte(const std::string& what) {
    Need(1, what);
    return d[pos++];
  }
  uint16_t U16(const std::string& what) {
    Need(2, what);
    pos += 2;
    return static_cast<uint16_t>(d[pos - 2] | (d[pos - 1] << 8));
  }
  void SkipSubBlocks(const std::string& what) {
    for (;;) {
      const uint8_t n = Byte(what);
      if (n == 0) return;
      Need(n, what);
      pos += n;
    }
  }
};

uint64_t ColourTableBytes(uint8_t packed) { return (packed & 0x80) != 0 ? 3ull << ((packed & 7) + 1) : 0; }

// The blocks of one frame: extensions, then the image. Fills what the frame record needs
// from the graphic control extension and the image descriptor; returns false at the
// trailer. `loop` gets the NETSCAPE2.0 loop count when the frame's blocks carry one.
bool NextFrame(Cursor& c, uint32_t number, Frame& f, uint32_t* loop) {
  const std::string where = "frame " + std::to_string(number);
  f = Frame{};
  f.blend = LANCET_IMAGE_BLEND_OVER;
  for (;;) {
    const uint64_t at = c.pos;
    const uint8_t type = c.Byte("block before " + where + " (no trailer)");
    if (type == 0x3B) return false;
    if (type == 0x21) {
      const uint8_t label = c.Byte("extension label");
      if (label == 0xF9) {
        c.Need(6, "graphic control extension of " + where);
        if (c.d[c.pos] != 4) {
          Fail(LANCET_MEDIA_ECORRUPT, "GIF graphic control extension of " + where + " at byte " + std::to_string(at) +
                                          " has " + std::to_string(c.d[c.pos]) + " bytes, not 4");
        }
        const uint8_t packed = c.d[c.pos + 1];
        const uint32_t delay = c.d[c.pos + 2] | (c.d[c.pos + 3] << 8);
        const uint8_t disposal = (packed >> 2) & 7;
        f.disposal = disposal == 2   ? LANCET_IMAGE_DISPOSE_BACKGROUND
                     : disposal == 3 ? LANCET_IMAGE_DISPOSE_PREVIOUS
                                     : LANCET_IMAGE_DISPOSE_NONE;
        f.flags = (packed & 1) != 0 ? LANCET_IMAGE_FRAME_ALPHA : 0;
        f.duration_ms = delay * 10;
      } else if (label == 0xFF && loop != nullptr) {
        c.Need(16, "application extension");
        if (c.d[c.pos] == 11 && std::memcmp(c.d + c.pos + 1, "NETSCAPE2.0", 11) == 0 && c.d[c.pos + 12] == 3 &&
            c.d[c.pos + 13] == 1) {
          *loop = c.d[c.pos + 14] | (c.d[c.pos + 15] << 8);
        }
      }
      c.SkipSubBlocks("extension of " + where);
      continue;
    }
    if (type != 0x2C) {
      Fail(LANCET_MEDIA_ECORRUPT, "GIF byte " + std::to_string(at) + " is block type " + std::to_string(type) +
                                      ", not an image (0x2C), extension (0x21) or trailer (0x3B), before " + where);
    }
    f.x = c.U16("image descriptor");
    f.y = c.U16("image descriptor");
    f.w = c.U16("image descriptor");
    f.h = c.U16("image descriptor");
    const uint8_t packed = c.Byte("image descriptor");
    const uint64_t table = ColourTableBytes(packed);
    c.Need(table, "local colour table of " + where);
    c.pos += table;
    c.Byte("LZW code size of " + where);
    c.SkipSubBlocks("image data of " + where);
    if (f.w == 0 || f.h == 0 || uint64_t{f.w} * f.h > kMaxCanvasPixels) {
      Fail(LANCET_MEDIA_ENOTSUP, "GIF " + where + " is " + std::to_string(f.w) + "x" + std::to_string(f.h) +
                                     "; frames of 1 to " + std::to_string(kMaxCanvasPixels) + " pixels are supported");
    }
    return true;
  }
}

struct MemoryGif {
  const std::vector<uint8_t>* bytes;
  size_t pos = 0;
};

int ReadMemory(GifFileType* gif, GifByteType* out, int n) {
  auto* m = static_cast<MemoryGif*>(gif->UserData);
  const size_t left = m->bytes->size() - m->pos;
  const size_t take = n < 0 ? 0 : std::min<size_t>(static_cast<size_t>(n), left);
  std::memcpy(out, m->bytes->data() + m->pos, take);
  m->pos += take;
  return static_cast<int>(take);
}

struct GifCloser {
  GifFileType* gif;
  ~GifCloser() {
    int err = 0;
    if (gif != nullptr) DGifCloseFile(gif, &err);
  }
};

}  // namespace

Animation IndexGif(const uint8_t* file, uint64_t size) {
  Cursor c{file, size, 0};
  c.Need(13, "header and screen descriptor");
  if (std::memcmp(file, "GIF87a", 6) != 0 && std::memcmp(file, "GIF89a", 6) != 0) {
    Fail(LANCET_MEDIA_ECORRUPT, "the source is not a GIF (no GIF87a/GIF89a header)");
  }
  Animation a;
  a.si.format = LANCET_IMAGE_FORMAT_GIF;
  a.si.canvas_width = file[6] | (file[7] << 8);
  a.si.canvas_height = file[8] | (file[9] << 8);
  if (a.si.canvas_width == 0 || a.si.canvas_height == 0 ||
      uint64_t{a.si.canvas_width} * a.si.canvas_height > kMaxCanvasPixels) {
    Fail(LANCET_MEDIA_ENOTSUP, "the GIF's screen is " + std::to_string(a.si.canvas_width) + "x" +
                                   std::to_string(a.si.canvas_height) + "; canvases of 1 to " +
                                   std::to_string(kMaxCanvasPixels) + " pixels are supported");
  }
  const uint64_t table = ColourTableBytes(file[10]);
  c.pos = 13;
  c.Need(table, "global colour table");
  if (table > 0 && uint64_t{file[11]} * 3 + 3 <= table) {
    std::memcpy(a.si.background, file + 13 + uint64_t{file[11]} * 3, 3);
    a.si.background[3] = 255;
  }
  c.pos += table;
  a.index.header.assign(file, file + c.pos);
  // Without a NETSCAPE2.0 extension a GIF plays once.
  a.si.loop_count = 1;
  Frame f;
  for (uint32_t n = 0;; ++n) {
    const uint64_t start = c.pos;
    if (!NextFrame(c, n, f, &a.si.loop_count)) break;
    if (n >= kMaxPages) Fail(LANCET_MEDIA_ENOTSUP, "the GIF has more than " + std::to_string(kMaxPages) + " frames");
    f.offset = start;
    f.size = c.pos - start;
    f.data_start = 0;
    f.data_size = f.size;
    a.index.frames.push_back(f);
  }
  if (a.index.frames.empty()) Fail(LANCET_MEDIA_ECORRUPT, "the GIF has no image");
  a.si.page_count = static_cast<uint32_t>(a.index.frames.size());
  a.si.source_bytes = size;
  SetRestarts(a.index, a.si.canvas_width, a.si.canvas_height);
  return a;
}

std::vector<uint8_t> DecodeGifFrame(const std::vector<uint8_t>& header, const uint8_t* data, uint64_t size,
                                    const Frame& frame, uint32_t number) {
  const std::string where = "GIF frame " + std::to_string(number);
  if (header.size() < 13 ||
      (std::memcmp(header.data(), "GIF87a", 6) != 0 && std::memcmp(header.data(), "GIF89a", 6) != 0)) {
    Fail(LANCET_MEDIA_ECORRUPT, where + ": the index's header bytes are not a GIF header");
  }
  // The blocks must be one frame of the indexed size before giflib allocates anything.
  Cursor c{data, size, 0};
  Frame seen;
  if (!NextFrame(c, number, seen, nullptr) || c.pos != size || seen.x != frame.x || seen.y != frame.y ||
      seen.w != frame.w || seen.h != frame.h) {
    Fail(LANCET_MEDIA_ECORRUPT, where + ": its " + std::to_string(size) + " bytes are not one image of " +
                                    std::to_string(frame.w) + "x" + std::to_string(frame.h) + " at " +
                                    std::to_string(frame.x) + "," + std::to_string(frame.y));
  }
  std::vector<uint8_t> gif(header);
  gif.insert(gif.end(), data, data + size);
  gif.push_back(0x3B);
  MemoryGif m{&gif};
  int err = 0;
  GifCloser closer{DGifOpen(&m, ReadMemory, &err)};
  GifFileType* g = closer.gif;
  if (g == nullptr) Fail(LANCET_MEDIA_ECORRUPT, where + ": giflib cannot open it (" + GifErrorString(err) + ")");
  if (DGifSlurp(g) != GIF_OK || g->ImageCount != 1) {
    Fail(LANCET_MEDIA_ECORRUPT, where + " does not decode (giflib: " + GifErrorString(g->Error) + ")");
  }
  const SavedImage& img = g->SavedImages[0];
  GraphicsControlBlock gcb{};
  gcb.TransparentColor = NO_TRANSPARENT_COLOR;
  DGifSavedExtensionToGCB(g, 0, &gcb);
  const ColorMapObject* map = img.ImageDesc.ColorMap != nullptr ? img.ImageDesc.ColorMap : g->SColorMap;
  const int colours = map != nullptr ? map->ColorCount : 0;
  std::vector<uint8_t> rgba(uint64_t{frame.w} * frame.h * 4, 0);
  for (uint64_t i = 0; i < uint64_t{frame.w} * frame.h; ++i) {
    const int index = img.RasterBits[i];
    if (index == gcb.TransparentColor) continue;
    uint8_t* px = &rgba[i * 4];
    // An index past the colour table (or no table at all) is opaque black.
    if (index < colours) {
      px[0] = map->Colors[index].Red;
      px[1] = map->Colors[index].Green;
      px[2] = map->Colors[index].Blue;
    }
    px[3] = 255;
  }
  return rgba;
}

}  // namespace lancet_image
