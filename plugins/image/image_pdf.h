// PDF pages, rendered at ingest (poppler) into a tiled TIFF that is stored instead of the
// PDF, and the plugin config that sets the resolution.
#pragma once

#include <cstdint>
#include <string>

#include "image_internal.h"

namespace lancet_image {

// poppler takes an int length.
constexpr uint64_t kMaxPdfBytes = 1ull << 30;

// The column's config: text lines "key=value"; only pdf_dpi (1 to 1200, default 150).
struct Config {
  uint32_t pdf_dpi = 150;
};
Config ParseConfig(const uint8_t* data, uint64_t size);

// Renders every page of the PDF in [file, +size) at `dpi` and writes them, one TIFF page
// each, to `out_fd` (empty, at offset 0). Returns the TIFF's size.
uint64_t RenderPdf(const uint8_t* file, uint64_t size, uint32_t dpi, int out_fd);

}  // namespace lancet_image
