// PDF: a page has no stored raster, so ingest renders every page with poppler at the
// column's DPI and writes the rasters as a tiled, Deflate-compressed RGB TIFF, which is
// then indexed and stored like any TIFF: a region reads only its tiles.
#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-page-renderer.h>
#include <poppler/cpp/poppler-page.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "image_anim.h"
#include "image_pdf.h"
#include "image_tiff.h"

namespace lancet_image {
namespace {

constexpr uint32_t kTile = 256;

// Poppler reports damage through one process-wide callback; the messages are not needed
// (load and render results say whether it worked) and must not reach stderr.
void Quiet(const std::string&, void*) {}

void WritePage(TIFF* tif, const poppler::image& img, uint32_t dpi, uint32_t number) {
  const auto w = static_cast<uint32_t>(img.width()), h = static_cast<uint32_t>(img.height());
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(tif, TIFFTAG_PREDICTOR, 2);
  TIFFSetField(tif, TIFFTAG_TILEWIDTH, kTile);
  TIFFSetField(tif, TIFFTAG_TILELENGTH, kTile);
  TIFFSetField(tif, TIFFTAG_XRESOLUTION, static_cast<float>(dpi));
  TIFFSetField(tif, TIFFTAG_YRESOLUTION, static_cast<float>(dpi));
  TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
  std::vector<uint8_t> tile(kTile * kTile * 3);
  const auto* data = reinterpret_cast<const uint8_t*>(img.const_data());
  for (uint32_t ty = 0; ty < h; ty += kTile) {
    for (uint32_t tx = 0; tx < w; tx += kTile) {
      std::fill(tile.begin(), tile.end(), 0);
      for (uint32_t y = ty; y < std::min(h, ty + kTile); ++y) {
        // argb32 is a native-endian 0xAARRGGBB word: bytes B, G, R, A here.
        const uint8_t* src = data + uint64_t{y} * static_cast<uint64_t>(img.bytes_per_row()) + uint64_t{tx} * 4;
        uint8_t* dst = &tile[(uint64_t{y - ty} * kTile) * 3];
        for (uint32_t x = tx; x < std::min(w, tx + kTile); ++x, src += 4, dst += 3) {
          dst[0] = src[2];
          dst[1] = src[1];
          dst[2] = src[0];
        }
      }
      if (TIFFWriteTile(tif, tile.data(), tx, ty, 0, 0) < 0) {
        Fail(LANCET_MEDIA_EINTERNAL, "cannot write the raster of PDF page " + std::to_string(number));
      }
    }
  }
  if (TIFFWriteDirectory(tif) != 1) {
    Fail(LANCET_MEDIA_EINTERNAL, "cannot write the raster of PDF page " + std::to_string(number));
  }
}

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};

}  // namespace

uint64_t RenderPdf(const uint8_t* file, uint64_t size, uint32_t dpi, int out_fd) {
  if (size > kMaxPdfBytes) {
    Fail(LANCET_MEDIA_ENOTSUP,
         "the PDF has " + std::to_string(size) + " bytes; at most " + std::to_string(kMaxPdfBytes));
  }
  poppler::set_debug_error_function(Quiet, nullptr);
  std::unique_ptr<poppler::document> doc(
      poppler::document::load_from_raw_data(reinterpret_cast<const char*>(file), static_cast<int>(size)));
  if (doc == nullptr) Fail(LANCET_MEDIA_ECORRUPT, "poppler cannot load the PDF (damaged or not a PDF)");
  if (doc->is_locked()) Fail(LANCET_MEDIA_ENOTSUP, "the PDF is encrypted with a password");
  const int pages = doc->pages();
  if (pages <= 0) Fail(LANCET_MEDIA_ECORRUPT, "the PDF has no page");
  if (static_cast<uint64_t>(pages) > kMaxPages) {
    Fail(LANCET_MEDIA_ENOTSUP, "the PDF has more than " + std::to_string(kMaxPages) + " pages");
  }
  poppler::page_renderer renderer;
  renderer.set_image_format(poppler::image::format_argb32);
  renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
  renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
  // The TIFF library writes through its own handle on a duplicate, closed with it.
  std::unique_ptr<TIFF, TiffCloser> tif(TIFFFdOpen(dup(out_fd), "rendered.tif", "w"));
  if (tif == nullptr) Fail(LANCET_MEDIA_EINTERNAL, "cannot start the rendered TIFF");
  for (int i = 0; i < pages; ++i) {
    const auto number = static_cast<uint32_t>(i);
    std::unique_ptr<poppler::page> page(doc->create_page(i));
    if (page == nullptr) Fail(LANCET_MEDIA_ECORRUPT, "poppler cannot read PDF page " + std::to_string(i));
    // Checked before rendering: the raster of a hostile page size would not fit memory.
    const poppler::rectf box = page->page_rect();
    const double w = std::ceil(box.width() * dpi / 72.0), h = std::ceil(box.height() * dpi / 72.0);
    if (!(w >= 1 && h >= 1 && w * h <= static_cast<double>(kMaxCanvasPixels))) {
      Fail(LANCET_MEDIA_ENOTSUP, "PDF page " + std::to_string(i) + " of " + std::to_string(box.width()) + "x" +
                                     std::to_string(box.height()) + " points at " + std::to_string(dpi) +
                                     " dpi is not 1 to " + std::to_string(kMaxCanvasPixels) + " pixels");
    }
    const poppler::image img = renderer.render_page(page.get(), dpi, dpi);
    if (!img.is_valid() || img.format() != poppler::image::format_argb32 || img.width() <= 0 || img.height() <= 0) {
      Fail(LANCET_MEDIA_ECORRUPT, "poppler cannot render PDF page " + std::to_string(i));
    }
    WritePage(tif.get(), img, dpi, number);
  }
  tif.reset();
  const off_t end = lseek(out_fd, 0, SEEK_END);
  if (end <= 0) Fail(LANCET_MEDIA_EINTERNAL, "the rendered TIFF is empty");
  return static_cast<uint64_t>(end);
}

}  // namespace lancet_image
