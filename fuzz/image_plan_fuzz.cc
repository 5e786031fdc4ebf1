// The image plugin's plan and decode on hostile stream_info, entries and requests: the
// fixtures ingest a small real TIFF (written with libtiff at start-up: a tiled RGB LZW page
// and a stripped gray Deflate page), an animated GIF (giflib; partial, transparent frames
// with every disposal) and an animated WebP (libwebp's encoder), and each input picks one
// and replaces or patches its bytes.
// Whatever they are, plan returns ranges inside the blob or an error, and decode of what
// plan returned never crashes.
#include <unistd.h>
#ifdef LANCET_IMAGE_PLUGIN
#include <gif_lib.h>
#include <tiffio.h>
#include <webp/encode.h>
#include <webp/mux.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "lancet/media/plugin_host.h"

namespace {

using lancet::media::MediaPlugin;

#ifdef LANCET_IMAGE_PLUGIN
bool WritePage(TIFF* tif, uint32_t w, uint32_t h, uint16_t samples, uint16_t compression, uint32_t tile) {
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, samples);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, samples == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
  std::vector<uint8_t> px(size_t{w} * h * samples);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>((i * 7) ^ (i / 97));
  if (tile > 0) {
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, tile);
    TIFFSetField(tif, TIFFTAG_TILELENGTH, tile);
    std::vector<uint8_t> t(size_t{tile} * tile * samples, 0);
    for (uint32_t ty = 0; ty < h; ty += tile) {
      for (uint32_t tx = 0; tx < w; tx += tile) {
        for (uint32_t y = 0; y < tile && ty + y < h; ++y) {
          for (uint32_t x = 0; x < tile && tx + x < w; ++x) {
            std::memcpy(&t[(size_t{y} * tile + x) * samples], &px[(size_t{ty + y} * w + tx + x) * samples], samples);
          }
        }
        if (TIFFWriteTile(tif, t.data(), tx, ty, 0, 0) < 0) return false;
      }
    }
  } else {
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 8);
    for (uint32_t y = 0; y < h; ++y) {
      if (TIFFWriteScanline(tif, &px[size_t{y} * w * samples], y, 0) < 0) return false;
    }
  }
  return TIFFWriteDirectory(tif) == 1;
}

int ToVector(GifFileType* gif, const GifByteType* data, int n) {
  auto* out = static_cast<std::vector<uint8_t>*>(gif->UserData);
  out->insert(out->end(), data, data + n);
  return n;
}

// 40x30, three frames: full and opaque, partial and transparent (dispose to background),
// partial (restore previous).
std::vector<uint8_t> MakeGif() {
  std::vector<uint8_t> out;
  int err = 0;
  GifFileType* gif = EGifOpen(&out, ToVector, &err);
  if (gif == nullptr) __builtin_trap();
  EGifSetGifVersion(gif, true);
  GifColorType colours[16];
  for (int i = 0; i < 16; ++i)
    colours[i] = {static_cast<GifByteType>(i * 16), static_cast<GifByteType>(255 - i * 9), 7};
  ColorMapObject* map = GifMakeMapObject(16, colours);
  bool ok = EGifPutScreenDesc(gif, 40, 30, 4, 0, map) == GIF_OK;
  const int rect[3][5] = {{0, 0, 40, 30, 1}, {5, 4, 20, 12, 2}, {12, 10, 25, 18, 3}};
  for (int f = 0; f < 3 && ok; ++f) {
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = rect[f][4];
    gcb.TransparentColor = f == 0 ? NO_TRANSPARENT_COLOR : 3;
    GifByteType ext[4];
    ok =
        EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(EGifGCBToExtension(&gcb, ext)), ext) == GIF_OK &&
        EGifPutImageDesc(gif, rect[f][0], rect[f][1], rect[f][2], rect[f][3], false, nullptr) == GIF_OK;
    std::vector<GifPixelType> row(static_cast<size_t>(rect[f][2]));
    for (int y = 0; y < rect[f][3] && ok; ++y) {
      for (size_t x = 0; x < row.size(); ++x)
        row[x] = static_cast<GifPixelType>((x * 3 + static_cast<size_t>(y + f)) % 16);
      ok = EGifPutLine(gif, row.data(), rect[f][2]) == GIF_OK;
    }
  }
  ok = EGifCloseFile(gif, &err) == GIF_OK && ok;
  GifFreeMapObject(map);
  if (!ok) __builtin_trap();
  return out;
}

// 40x30, three frames with alpha (lossless, lossy, lossless) that the encoder turns into
// sub-rectangles with blending and disposal as it sees fit.
std::vector<uint8_t> MakeWebp() {
  WebPAnimEncoderOptions options;
  WebPConfig config;
  if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&config)) __builtin_trap();
  WebPAnimEncoder* enc = WebPAnimEncoderNew(40, 30, &options);
  if (enc == nullptr) __builtin_trap();
  std::vector<uint8_t> px(40 * 30 * 4);
  bool ok = true;
  for (int f = 0; f < 3 && ok; ++f) {
    for (size_t i = 0; i < px.size(); ++i)
      px[i] = static_cast<uint8_t>(i % 4 == 3 ? (i / 4 + f * 50) % 5 * 60 : i * (f + 3));
    WebPPicture pic;
    if (!WebPPictureInit(&pic)) __builtin_trap();
    pic.width = 40;
    pic.height = 30;
    pic.use_argb = 1;
    config.lossless = f != 1;
    ok = WebPPictureImportRGBA(&pic, px.data(), 40 * 4) && WebPAnimEncoderAdd(enc, &pic, f * 100, &config);
    WebPPictureFree(&pic);
  }
  WebPData data;
  WebPDataInit(&data);
  ok = ok && WebPAnimEncoderAdd(enc, nullptr, 300, nullptr) && WebPAnimEncoderAssemble(enc, &data);
  WebPAnimEncoderDelete(enc);
  if (!ok) __builtin_trap();
  std::vector<uint8_t> out(data.bytes, data.bytes + data.size);
  WebPDataClear(&data);
  return out;
}
#endif

struct Ingested {
  std::vector<uint8_t> stored, stream_info, entries;
};

Ingested Ingest(MediaPlugin& plugin, const std::vector<uint8_t>& source) {
  Ingested in;
  auto session = plugin.StartIngest();
  if (!session.ok()) __builtin_trap();
  auto sink = [&](std::span<const uint8_t> b) {
    in.stored.insert(in.stored.end(), b.begin(), b.end());
    return lancet::Status::OK();
  };
  if (!(*session)->Push(source, sink).ok()) __builtin_trap();
  auto result = (*session)->Finish(sink);
  if (!result.ok()) __builtin_trap();
  in.stream_info.assign(result->stream_info->data(), result->stream_info->data() + result->stream_info->size());
  in.entries.assign(result->entries->data(), result->entries->data() + result->entries->size());
  return in;
}

struct Fixture {
  std::shared_ptr<MediaPlugin> plugin;
  Ingested tiff, gif, webp;
  bool ok = false;

  Fixture() {
#ifdef LANCET_IMAGE_PLUGIN
    auto loaded = MediaPlugin::Load({LANCET_IMAGE_PLUGIN, {}});
    if (!loaded.ok()) __builtin_trap();
    plugin = *loaded;
    TIFFSetErrorHandler(nullptr);
    TIFFSetWarningHandler(nullptr);
    const char* tmp = std::getenv("TMPDIR");
    std::string path =
        std::string(tmp != nullptr ? tmp : "/tmp") + "/lancet-image-fuzz-" + std::to_string(getpid()) + ".tif";
    TIFF* tif = TIFFOpen(path.c_str(), "w");
    if (tif == nullptr) __builtin_trap();
    const bool written =
        WritePage(tif, 70, 50, 3, COMPRESSION_LZW, 32) && WritePage(tif, 40, 30, 1, COMPRESSION_ADOBE_DEFLATE, 0);
    TIFFClose(tif);
    if (!written) __builtin_trap();
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(path.c_str());
    tiff = Ingest(*plugin, source);
    gif = Ingest(*plugin, MakeGif());
    webp = Ingest(*plugin, MakeWebp());
    ok = true;
#endif
  }
};

std::vector<uint8_t> Take(const uint8_t*& data, size_t& size, size_t n) {
  n = n < size ? n : size;
  std::vector<uint8_t> out(data, data + n);
  data += n;
  size -= n;
  return out;
}

// Applies (u16 position, u8 xor) triples: deep fields (page geometry, chunk offsets) stay
// reachable, which replacing the whole input rarely gets past the header checks to.
void Patch(std::vector<uint8_t>& bytes, const std::vector<uint8_t>& patches) {
  if (bytes.empty()) return;
  for (size_t i = 0; i + 3 <= patches.size(); i += 3) {
    const size_t at = (patches[i] | (patches[i + 1] << 8)) % bytes.size();
    bytes[at] ^= patches[i + 2];
  }
}

uint32_t U32(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v = 0;
  if (b.size() >= at + 4) std::memcpy(&v, b.data() + at, 4);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fx;
  if (!fx.ok || size < 2) return 0;
  // Byte 0 picks what is hostile (bit 0/1 replace stream_info/entries, bit 2/3 patch them,
  // bit 4 decodes too, bit 5 patches the stored bytes) and bits 6-7 the fixture (0 TIFF,
  // 1 GIF, 2 WebP, 3 TIFF); byte 1 sizes the hostile pieces; the rest is the request.
  const uint8_t mode = data[0];
  const size_t split = data[1];
  data += 2;
  size -= 2;
  const int which = mode >> 6;
  const Ingested& in = which == 1 ? fx.gif : which == 2 ? fx.webp : fx.tiff;
  std::vector<uint8_t> si = in.stream_info, en = in.entries;
  if (mode & 1) si = Take(data, size, split);
  if (mode & 2) en = Take(data, size, split * 4);
  if (mode & 4) Patch(si, Take(data, size, 3 * (split % 8 + 1)));
  if (mode & 8) Patch(en, Take(data, size, 3 * (split % 8 + 1)));
  std::vector<uint8_t> stored = in.stored;
  if (mode & 32) Patch(stored, Take(data, size, 3 * (split % 8 + 1)));
  std::vector<uint8_t> request(data, data + size);
  auto plan = fx.plugin->Plan(si, en, request, stored.size());
  if (!plan.ok() || !(mode & 16)) return 0;
  // Hostile entries can describe pages of 2^20 x 2^20 that decode (as zeros) for seconds,
  // hostile stream_info canvases of 2^26 pixels; decode only modest sizes so each run stays
  // fast. The plugin bounds them anyway.
  const uint32_t page = U32(request, 8);
  const size_t rec = 24 + size_t{page} * 48;
  const bool tiff = si.size() > 8 && si[8] == 1;  // the format byte
  if (tiff && (U32(en, rec) > 4096 || U32(en, rec + 4) > 4096 || U32(en, rec + 8) > 4096 || U32(en, rec + 12) > 4096)) {
    return 0;
  }
  if (!tiff && uint64_t{U32(si, 24)} * U32(si, 28) > (1u << 20)) return 0;
  std::vector<lancet::BufferPtr> bytes;
  for (const auto& r : *plan) {
    if (r.offset > stored.size() || r.length > stored.size() - r.offset) __builtin_trap();  // the host's promise
    bytes.push_back(lancet::Buffer::Copy(std::span<const uint8_t>(stored.data() + r.offset, r.length)));
  }
  (void)fx.plugin->Decode(request, si, en, *plan, bytes);
  return 0;
}
