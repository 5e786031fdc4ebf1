// The image plugin's plan and decode on hostile stream_info, entries and requests: the
// fixture ingests a small real TIFF (written with libtiff at start-up: a tiled RGB LZW page
// and a stripped gray Deflate page), and each input replaces or patches those bytes.
// Whatever they are, plan returns ranges inside the blob or an error, and decode of what
// plan returned never crashes.
#include <unistd.h>
#ifdef LANCET_IMAGE_PLUGIN
#include <tiffio.h>
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
#endif

struct Fixture {
  std::shared_ptr<MediaPlugin> plugin;
  std::vector<uint8_t> stored, stream_info, entries;
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
    auto session = plugin->StartIngest();
    if (!session.ok()) __builtin_trap();
    auto sink = [&](std::span<const uint8_t> b) {
      stored.insert(stored.end(), b.begin(), b.end());
      return lancet::Status::OK();
    };
    if (!(*session)->Push(source, sink).ok()) __builtin_trap();
    auto result = (*session)->Finish(sink);
    if (!result.ok()) __builtin_trap();
    stream_info.assign(result->stream_info->data(), result->stream_info->data() + result->stream_info->size());
    entries.assign(result->entries->data(), result->entries->data() + result->entries->size());
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
  // bit 4 decodes too, bit 5 patches the stored bytes); byte 1 sizes the hostile pieces;
  // the rest is the request.
  const uint8_t mode = data[0];
  const size_t split = data[1];
  data += 2;
  size -= 2;
  std::vector<uint8_t> si = fx.stream_info, en = fx.entries;
  if (mode & 1) si = Take(data, size, split);
  if (mode & 2) en = Take(data, size, split * 4);
  if (mode & 4) Patch(si, Take(data, size, 3 * (split % 8 + 1)));
  if (mode & 8) Patch(en, Take(data, size, 3 * (split % 8 + 1)));
  std::vector<uint8_t> stored = fx.stored;
  if (mode & 32) Patch(stored, Take(data, size, 3 * (split % 8 + 1)));
  std::vector<uint8_t> request(data, data + size);
  auto plan = fx.plugin->Plan(si, en, request, stored.size());
  if (!plan.ok() || !(mode & 16)) return 0;
  // Hostile entries can describe pages of 2^20 x 2^20 that decode (as zeros) for seconds;
  // decode only pages of modest size so each run stays fast. The plugin bounds them anyway.
  const uint32_t page = U32(request, 8);
  const size_t rec = 24 + size_t{page} * 48;
  if (U32(en, rec) > 4096 || U32(en, rec + 4) > 4096 || U32(en, rec + 8) > 4096 || U32(en, rec + 12) > 4096) {
    return 0;
  }
  std::vector<lancet::BufferPtr> bytes;
  for (const auto& r : *plan) {
    if (r.offset > stored.size() || r.length > stored.size() - r.offset) __builtin_trap();  // the host's promise
    bytes.push_back(lancet::Buffer::Copy(std::span<const uint8_t>(stored.data() + r.offset, r.length)));
  }
  (void)fx.plugin->Decode(request, si, en, *plan, bytes);
  return 0;
}
