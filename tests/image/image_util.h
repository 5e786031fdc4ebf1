// Helpers for the image tests: TIFF files written with libtiff at test time, libtiff's own
// decode of them as the reference, and datasets ingested with the image plugin.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lancet/media/plugin_host.h"
#include "lancet/result.h"

namespace lancet::media::testing {

/// The image plugin's library path (empty when it was not built).
std::string ImagePluginPath();
std::shared_ptr<MediaPlugin> LoadImagePlugin();

/// One page to write: 8-bit gray (samples 1) or RGB (samples 3), tiled (tile > 0) or in
/// strips of `rows_per_strip`, compressed with a TIFF compression code.
struct PageSpec {
  uint32_t width = 300, height = 200;
  uint16_t samples = 3;
  uint16_t compression = 1;  // COMPRESSION_*
  uint16_t predictor = 1;
  uint16_t photometric = 0;  // 0: min-is-black for gray, RGB for 3 samples; else as given
  uint32_t tile = 0;         // tile width and length (multiples of 16), 0 for strips
  uint32_t rows_per_strip = 16;
  uint32_t seed = 1;  // varies the pixel pattern
};

/// The pattern a page of `spec` holds at (x, y), sample s.
uint8_t PatternAt(const PageSpec& spec, uint32_t x, uint32_t y, uint32_t s);

/// Writes a TIFF (BigTIFF when `big`) with one directory per spec. Pixels are PatternAt.
Status WriteTiff(const std::string& path, const std::vector<PageSpec>& pages, bool big = false);

/// Page `page` of `path` decoded by libtiff (TIFFReadTile / TIFFReadEncodedStrip), as
/// tightly packed rows of 1 (gray, min-is-white inverted) or 3 bytes per pixel.
struct Decoded {
  uint32_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
};
Result<Decoded> DecodeWithLibtiff(const std::string& path, uint32_t page);
/// The x, y, w, h area of `d`.
std::vector<uint8_t> Crop(const Decoded& d, uint32_t x, uint32_t y, uint32_t w, uint32_t h);
/// A box-filter downscale of `d` to `ow` x `oh`, each output pixel the rounded mean of the
/// source pixels with floor(x * ow / w) == ox and floor(y * oh / h) == oy.
std::vector<uint8_t> BoxDownscale(const Decoded& d, uint32_t ow, uint32_t oh);

/// Writes a dataset at `root` with one row per file in blob column "image" (a null row
/// for an empty path) through the image plugin (with `config`, e.g. "pdf_dpi=100");
/// values above `dedicated_bytes` go to their own sidecar. `append` appends to an
/// existing dataset.
Status WriteImageDataset(const std::string& root, const std::vector<std::string>& files, bool append = false,
                         uint64_t dedicated_bytes = 1ULL << 20, const std::string& config = "");

std::string ReadWholeFile(const std::string& path);
void WriteWholeFile(const std::string& path, const std::string& bytes);

}  // namespace lancet::media::testing
