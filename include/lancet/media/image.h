// Image pages, regions and thumbnails out of blob columns ingested by the image plugin
// (liblancet_image.so), through Extract: only the tiles or strips a request touches are
// read (TIFF), or the frames from the requested one's restart frame (GIF, WebP; a page is
// a frame as composited on the canvas). Codec-free: the requests and results are the wire formats of
// lancet/media_image.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/media/extract.h"
#include "lancet/media/plugin_host.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::media {

/// Pixel layouts of decoded images (values are LANCET_IMAGE_PIX_*): TIFF pages are gray8
/// or rgb24, GIF and WebP frames rgba32 (not premultiplied).
enum class ImagePixels : uint8_t { kRgb24 = 0, kGray8 = 1, kRgba32 = 3 };

/// "rgb24", "gray8", "rgba32".
const char* ImagePixelsName(ImagePixels pixels);
/// Bytes per pixel: 3, 1 or 4.
uint32_t ImageChannels(ImagePixels pixels);

/// \brief What to decode from one page (pages count from 0). Build one with Page, Region
/// or Thumbnail.
struct ImageRequest {
  enum class Kind : uint8_t { kPage = 1, kRegion = 2, kThumbnail = 3 };
  Kind kind = Kind::kPage;
  uint32_t page = 0;
  uint32_t x = 0, y = 0, width = 0, height = 0;  // kRegion: inside the page, non-empty
  uint32_t thumbnail = 0;                        // kThumbnail: the output's longer side (never enlarges)

  static ImageRequest Page(uint32_t page);
  static ImageRequest Region(uint32_t page, uint32_t x, uint32_t y, uint32_t width, uint32_t height);
  static ImageRequest Thumbnail(uint32_t page, uint32_t size);
};

/// One decoded image. `pixels` views the plugin's output (rows tightly packed).
struct Image {
  uint32_t page = 0;
  uint32_t width = 0, height = 0;
  ImagePixels format = ImagePixels::kRgb24;
  uint32_t page_width = 0, page_height = 0;
  uint32_t x = 0, y = 0;  // the output's top left on the page (regions; else 0, 0)
  BufferPtr pixels;
};

struct ExtractImageStats {
  ExtractStats extract;
  uint64_t images = 0;
  uint64_t pixel_bytes = 0;
};

/// \brief `request` applied to each row of image column `column`, with one Extract for all
/// rows. Output: one entry per row, nullopt for a null blob.
///
/// Errors: InvalidArgument for an empty region or a zero thumbnail size; the plugin's
/// errors (a page past the last names the page count; a region outside the page names
/// its size; a page too large to decode whole asks for a region or thumbnail); Corruption
/// (naming the row and plugin) when the plugin's result does not fit its output;
/// everything Extract reports.
Result<std::vector<std::optional<Image>>> ExtractImages(const table::Dataset& dataset, const std::string& column,
                                                        std::span<const uint64_t> rows, const ImageRequest& request,
                                                        const MediaPlugin& plugin, const ExtractOptions& options = {},
                                                        ExtractImageStats* stats = nullptr);

/// ExtractImages for one row; NotFound for a null blob.
Result<Image> ExtractImage(const table::Dataset& dataset, const std::string& column, uint64_t row,
                           const ImageRequest& request, const MediaPlugin& plugin, const ExtractOptions& options = {},
                           ExtractImageStats* stats = nullptr);

}  // namespace lancet::media
