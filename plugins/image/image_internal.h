// Shared declarations of the TIFF image plugin. Hidden visibility throughout; only
// lancet_media_plugin_init leaves the .so.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "lancet/media_image.h"
#include "lancet/media_plugin.h"

namespace lancet_image {

// Thrown inside the plugin and turned into a return code at each ABI entry point.
struct Error {
  int code;
  std::string message;
};
[[noreturn]] void Fail(int code, std::string message);
int Report(LancetMediaError* error, const Error& e) noexcept;

template <typename F>
int Guard(LancetMediaError* error, F&& body) noexcept {
  try {
    body();
    return LANCET_MEDIA_OK;
  } catch (const Error& e) {
    return Report(error, e);
  } catch (const std::bad_alloc&) {
    return Report(error, {LANCET_MEDIA_ENOMEM, "out of memory"});
  } catch (const std::exception& e) {
    return Report(error, {LANCET_MEDIA_EINTERNAL, e.what()});
  } catch (...) {
    return Report(error, {LANCET_MEDIA_EINTERNAL, "unknown failure"});
  }
}

void GiveBuffer(LancetMediaBuffer* out, std::vector<uint8_t>&& bytes);

// Caps that keep hostile inputs from turning into huge allocations or endless work.
constexpr uint32_t kMaxPages = 65536;
constexpr uint32_t kMaxDimension = 1u << 20;
constexpr uint64_t kMaxChunks = 1u << 22;
// One chunk decoded (tile or strip) and one chunk's compressed bytes.
constexpr uint64_t kMaxChunkPixelsBytes = 256ull << 20;
constexpr uint64_t kMaxChunkBytes = 256ull << 20;
constexpr uint64_t kMaxJpegTables = 1u << 16;
// The host's output limit.
constexpr uint64_t kMaxOutputBytes = 1ull << 30;

struct Page {
  uint32_t width = 0, height = 0, chunk_width = 0, chunk_height = 0;
  uint16_t samples = 0, bits = 0, photometric = 0, compression = 0, predictor = 1;
  uint8_t flags = 0;
  uint32_t chunk_count = 0;
  uint64_t first_chunk = 0;
  std::vector<uint8_t> jpeg_tables;
  bool tiled() const { return (flags & LANCET_IMAGE_PAGE_TILED) != 0; }
  uint32_t Across() const { return (width + chunk_width - 1) / chunk_width; }
  uint32_t Down() const { return (height + chunk_height - 1) / chunk_height; }
  // Output channels: 1 for gray, 3 for RGB.
  uint32_t Channels() const { return samples == 1 ? 1 : 3; }
};

struct Chunk {
  uint64_t offset = 0, size = 0;
};

struct Index {
  std::vector<Page> pages;
  std::vector<Chunk> chunks;
};

struct StreamInfo {
  uint8_t format = LANCET_IMAGE_FORMAT_TIFF;
  uint32_t page_count = 0;
  uint64_t source_bytes = 0;
  // Version 2 (GIF, WebP) only.
  uint32_t canvas_width = 0, canvas_height = 0, loop_count = 0;
  uint8_t background[4] = {0, 0, 0, 0};
  bool animated() const { return format == LANCET_IMAGE_FORMAT_GIF || format == LANCET_IMAGE_FORMAT_WEBP; }
};

struct Request {
  uint8_t kind = 0;
  uint32_t page = 0, x = 0, y = 0, w = 0, h = 0, thumbnail = 0;
};

// image_layout.cc: the wire formats of media_image.h, every read bounds-checked.
std::vector<uint8_t> WriteStreamInfo(const StreamInfo& si);
StreamInfo ReadStreamInfo(const uint8_t* data, uint64_t size);
std::vector<uint8_t> WriteEntries(const Index& index);
// Checks the index against itself and stream_info: geometry, counts, supported layouts.
Index ReadEntries(const uint8_t* data, uint64_t size, const StreamInfo& si);
// The request's fields, checked on their own (magic, version, kind, thumbnail size).
Request ParseRequest(const uint8_t* data, uint64_t size);
// Checks the request against the page count and the page's size (region inside it).
void CheckRequest(const Request& r, uint64_t pages, uint32_t width, uint32_t height);
Request ReadRequest(const uint8_t* data, uint64_t size, const Index& index);
// Throws ENOTSUP (or ECORRUPT) naming what about a page layout the plugin cannot decode.
void CheckSupported(const Page& page, const std::string& where);
void PutU16(uint8_t* p, uint16_t v);
void PutU32(uint8_t* p, uint32_t v);
void PutU64(uint8_t* p, uint64_t v);

// The chunks of `page` a request needs (indices into Index::chunks), row-major.
struct Area {
  uint32_t x = 0, y = 0, w = 0, h = 0;
};
Area RequestArea(const Request& request, const Page& page);
std::vector<uint64_t> ChunksFor(const Page& page, const Area& area);

// image_decode.cc: one chunk's pixels, 8-bit samples as stored (samples per pixel each),
// rows of the chunk's width; `rows` rows (strips at the bottom may be short).
std::vector<uint8_t> DecodeChunk(const Page& page, const uint8_t* data, uint64_t size, uint32_t rows,
                                 uint64_t chunk_index);
struct Decoded {
  std::vector<uint8_t> data, metadata;
};
Decoded DecodeRequest(const Request& request, const Index& index, const LancetMediaRange* ranges,
                      const uint8_t* const* range_data, uint64_t range_count);

// image_ingest.cc; PDF pages render at `pdf_dpi`.
int StartIngest(uint32_t pdf_dpi, LancetMediaIngest* out, LancetMediaError* error);

}  // namespace lancet_image
