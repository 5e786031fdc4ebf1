// The wire formats of media_image.h: writers for ingest, bounds-checked readers for plan
// and decode (whatever the host passes may be hostile).
#include <cstring>

#include "image_internal.h"

namespace lancet_image {
namespace {

uint16_t U16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t U32(const uint8_t* p) { return U16(p) | (static_cast<uint32_t>(U16(p + 2)) << 16); }
uint64_t U64(const uint8_t* p) { return U32(p) | (static_cast<uint64_t>(U32(p + 4)) << 32); }

std::string PageName(uint32_t i) { return "entries page " + std::to_string(i); }

}  // namespace

void PutU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void PutU32(uint8_t* p, uint32_t v) {
  PutU16(p, static_cast<uint16_t>(v));
  PutU16(p + 2, static_cast<uint16_t>(v >> 16));
}
void PutU64(uint8_t* p, uint64_t v) {
  PutU32(p, static_cast<uint32_t>(v));
  PutU32(p + 4, static_cast<uint32_t>(v >> 32));
}

// TIFF (and PDF, stored as TIFF) keep version 1; the canvas fields of version 2 mean
// nothing for them.
std::vector<uint8_t> WriteStreamInfo(const StreamInfo& si) {
  const uint16_t size = si.animated() ? LANCET_IMAGE_STREAM_INFO_V2_SIZE : LANCET_IMAGE_STREAM_INFO_SIZE;
  std::vector<uint8_t> out(size, 0);
  PutU32(&out[0], LANCET_IMAGE_STREAM_INFO_MAGIC);
  PutU16(&out[4], si.animated() ? 2 : 1);
  PutU16(&out[6], size);
  out[8] = si.format;
  PutU32(&out[12], si.page_count);
  PutU64(&out[16], si.source_bytes);
  if (si.animated()) {
    PutU32(&out[24], si.canvas_width);
    PutU32(&out[28], si.canvas_height);
    PutU32(&out[32], si.loop_count);
    std::memcpy(&out[36], si.background, 4);
  }
  return out;
}

StreamInfo ReadStreamInfo(const uint8_t* d, uint64_t size) {
  if (d == nullptr || size < LANCET_IMAGE_STREAM_INFO_SIZE || U32(d) != LANCET_IMAGE_STREAM_INFO_MAGIC) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info of " + std::to_string(size) +
                                    " bytes is not image stream_info (magic LISI); was this blob "
                                    "ingested by the image plugin?");
  }
  const uint16_t version = U16(d + 4);
  if (version != 1 && version != 2)
    Fail(LANCET_MEDIA_ECORRUPT, "image stream_info version " + std::to_string(version) + ", not 1 or 2");
  const uint16_t need = version == 1 ? LANCET_IMAGE_STREAM_INFO_SIZE : LANCET_IMAGE_STREAM_INFO_V2_SIZE;
  if (U16(d + 6) < need || U16(d + 6) > size) {
    Fail(LANCET_MEDIA_ECORRUPT, "image stream_info header size " + std::to_string(U16(d + 6)) + " does not fit " +
                                    std::to_string(size) + " bytes");
  }
  StreamInfo si;
  si.format = d[8];
  si.page_count = U32(d + 12);
  si.source_bytes = U64(d + 16);
  if (si.format < LANCET_IMAGE_FORMAT_TIFF || si.format > LANCET_IMAGE_FORMAT_PDF) {
    Fail(LANCET_MEDIA_ENOTSUP, "image stream_info names format " + std::to_string(si.format) +
                                   "; known: TIFF (1), GIF (2), WebP (3), PDF (4)");
  }
  if ((version == 2) != si.animated()) {
    Fail(LANCET_MEDIA_ECORRUPT, "image stream_info version " + std::to_string(version) + " with format " +
                                    std::to_string(si.format) +
                                    " (TIFF and PDF are version 1, GIF and WebP version 2)");
  }
  if (version == 2) {
    si.canvas_width = U32(d + 24);
    si.canvas_height = U32(d + 28);
    si.loop_count = U32(d + 32);
    std::memcpy(si.background, d + 36, 4);
  }
  if (si.page_count == 0 || si.page_count > kMaxPages) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "image stream_info has " + std::to_string(si.page_count) + " pages (1 to " + std::to_string(kMaxPages) + ")");
  }
  return si;
}

std::vector<uint8_t> WriteEntries(const Index& index) {
  uint64_t tables = 0;
  for (const Page& p : index.pages) tables += p.jpeg_tables.size();
  std::vector<uint8_t> out(LANCET_IMAGE_ENTRIES_HEADER_SIZE + index.pages.size() * LANCET_IMAGE_PAGE_RECORD_SIZE +
                               index.chunks.size() * LANCET_IMAGE_CHUNK_RECORD_SIZE + tables,
                           0);
  PutU32(&out[0], LANCET_IMAGE_ENTRIES_MAGIC);
  PutU16(&out[4], 1);
  PutU16(&out[6], LANCET_IMAGE_ENTRIES_HEADER_SIZE);
  PutU32(&out[8], static_cast<uint32_t>(index.pages.size()));
  PutU64(&out[16], index.chunks.size());
  uint8_t* at = &out[LANCET_IMAGE_ENTRIES_HEADER_SIZE];
  for (const Page& p : index.pages) {
    PutU32(at + 0, p.width);
    PutU32(at + 4, p.height);
    PutU32(at + 8, p.chunk_width);
    PutU32(at + 12, p.chunk_height);
    PutU16(at + 16, p.samples);
    PutU16(at + 18, p.bits);
    PutU16(at + 20, p.photometric);
    PutU16(at + 22, p.compression);
    PutU16(at + 24, p.predictor);
    at[26] = p.flags;
    PutU32(at + 28, p.chunk_count);
    PutU64(at + 32, p.first_chunk);
    PutU32(at + 40, static_cast<uint32_t>(p.jpeg_tables.size()));
    at += LANCET_IMAGE_PAGE_RECORD_SIZE;
  }
  for (const Chunk& c : index.chunks) {
    PutU64(at, c.offset);
    PutU64(at + 8, c.size);
    at += LANCET_IMAGE_CHUNK_RECORD_SIZE;
  }
  for (const Page& p : index.pages) {
    if (!p.jpeg_tables.empty()) std::memcpy(at, p.jpeg_tables.data(), p.jpeg_tables.size());
    at += p.jpeg_tables.size();
  }
  return out;
}

void CheckSupported(const Page& p, const std::string& where) {
  if (p.bits != 8) {
    Fail(LANCET_MEDIA_ENOTSUP, where + " has " + std::to_string(p.bits) + " bits per sample; only 8 is supported");
  }
  const bool gray = p.samples == 1 && (p.photometric == 0 || p.photometric == 1);
  const bool rgb = p.samples == 3 && p.photometric == 2;
  if (!gray && !rgb) {
    Fail(LANCET_MEDIA_ENOTSUP, where + " has photometric " + std::to_string(p.photometric) + " with " +
                                   std::to_string(p.samples) +
                                   " samples per pixel; supported: gray (min-is-black or min-is-white, 1 sample) "
                                   "and RGB (3 samples)");
  }
  switch (p.compression) {
    case 1:      // none
    case 5:      // LZW
    case 7:      // JPEG
    case 8:      // Adobe Deflate
    case 32773:  // PackBits
    case 32946:  // Deflate
      break;
    default:
      Fail(LANCET_MEDIA_ENOTSUP, where + " uses TIFF compression " + std::to_string(p.compression) +
                                     "; supported: none (1), LZW (5), JPEG (7), Deflate (8, 32946), PackBits (32773)");
  }
  if (p.predictor != 1 && p.predictor != 2) {
    Fail(LANCET_MEDIA_ENOTSUP,
         where + " uses predictor " + std::to_string(p.predictor) + "; supported: none (1) and horizontal (2)");
  }
}

Index ReadEntries(const uint8_t* d, uint64_t size, const StreamInfo& si) {
  if (d == nullptr || size < LANCET_IMAGE_ENTRIES_HEADER_SIZE || U32(d) != LANCET_IMAGE_ENTRIES_MAGIC) {
    Fail(LANCET_MEDIA_ECORRUPT, "entries of " + std::to_string(size) + " bytes are not an image index (magic LIIX)");
  }
  if (U16(d + 4) != 1) Fail(LANCET_MEDIA_ECORRUPT, "image entries version " + std::to_string(U16(d + 4)) + ", not 1");
  const uint64_t header = U16(d + 6);
  const uint64_t pages = U32(d + 8);
  const uint64_t chunks = U64(d + 16);
  if (header < LANCET_IMAGE_ENTRIES_HEADER_SIZE || header > size) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "image entries header size " + std::to_string(header) + " does not fit " + std::to_string(size) + " bytes");
  }
  if (pages != si.page_count) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "entries have " + std::to_string(pages) + " pages, stream_info says " + std::to_string(si.page_count));
  }
  if (chunks > kMaxChunks || chunks > (size - header) / LANCET_IMAGE_CHUNK_RECORD_SIZE ||
      pages * LANCET_IMAGE_PAGE_RECORD_SIZE > size - header - chunks * LANCET_IMAGE_CHUNK_RECORD_SIZE) {
    Fail(LANCET_MEDIA_ECORRUPT, "entries of " + std::to_string(size) + " bytes cannot hold " + std::to_string(pages) +
                                    " pages and " + std::to_string(chunks) + " chunks");
  }
  Index index;
  index.pages.resize(pages);
  index.chunks.resize(chunks);
  const uint8_t* rec = d + header;
  const uint8_t* chunk_at = rec + pages * LANCET_IMAGE_PAGE_RECORD_SIZE;
  const uint8_t* tables_at = chunk_at + chunks * LANCET_IMAGE_CHUNK_RECORD_SIZE;
  uint64_t tables_left = static_cast<uint64_t>(d + size - tables_at);
  uint64_t next_chunk = 0;
  for (uint32_t i = 0; i < pages; ++i, rec += LANCET_IMAGE_PAGE_RECORD_SIZE) {
    Page& p = index.pages[i];
    p.width = U32(rec);
    p.height = U32(rec + 4);
    p.chunk_width = U32(rec + 8);
    p.chunk_height = U32(rec + 12);
    p.samples = U16(rec + 16);
    p.bits = U16(rec + 18);
    p.photometric = U16(rec + 20);
    p.compression = U16(rec + 22);
    p.predictor = U16(rec + 24);
    p.flags = rec[26];
    p.chunk_count = U32(rec + 28);
    p.first_chunk = U64(rec + 32);
    const uint32_t tables = U32(rec + 40);
    const std::string where = PageName(i);
    if (p.width == 0 || p.height == 0 || p.width > kMaxDimension || p.height > kMaxDimension) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " is " + std::to_string(p.width) + "x" + std::to_string(p.height));
    }
    if ((p.flags & ~LANCET_IMAGE_PAGE_TILED) != 0) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " has unknown flags " + std::to_string(p.flags));
    }
    if (!p.tiled()) {
      if (p.chunk_width != p.width || p.chunk_height == 0 || p.chunk_height > p.height) {
        Fail(LANCET_MEDIA_ECORRUPT, where + ": strips of " + std::to_string(p.chunk_width) + "x" +
                                        std::to_string(p.chunk_height) + " do not fit the page");
      }
    } else if (p.chunk_width == 0 || p.chunk_height == 0 || p.chunk_width > kMaxDimension ||
               p.chunk_height > kMaxDimension) {
      Fail(LANCET_MEDIA_ECORRUPT,
           where + " has tiles of " + std::to_string(p.chunk_width) + "x" + std::to_string(p.chunk_height));
    }
    CheckSupported(p, where);
    if (uint64_t{p.chunk_width} * p.chunk_height * p.samples > kMaxChunkPixelsBytes) {
      Fail(LANCET_MEDIA_ENOTSUP, where + " has chunks of " + std::to_string(p.chunk_width) + "x" +
                                     std::to_string(p.chunk_height) + " pixels; at most " +
                                     std::to_string(kMaxChunkPixelsBytes) + " bytes decoded per chunk");
    }
    const uint64_t grid = uint64_t{p.Across()} * p.Down();
    if (p.chunk_count != grid || p.first_chunk != next_chunk || grid > chunks - next_chunk) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " claims chunks [" + std::to_string(p.first_chunk) + ", +" +
                                      std::to_string(p.chunk_count) + ") but its grid has " + std::to_string(grid) +
                                      " from chunk " + std::to_string(next_chunk) + " of " + std::to_string(chunks));
    }
    next_chunk += grid;
    if (tables > kMaxJpegTables || tables > tables_left || (tables != 0 && p.compression != 7)) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " claims " + std::to_string(tables) + " bytes of JPEG tables");
    }
    p.jpeg_tables.assign(tables_at, tables_at + tables);
    tables_at += tables;
    tables_left -= tables;
  }
  if (next_chunk != chunks) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "entries hold " + std::to_string(chunks) + " chunks, the pages use " + std::to_string(next_chunk));
  }
  for (uint64_t c = 0; c < chunks; ++c, chunk_at += LANCET_IMAGE_CHUNK_RECORD_SIZE) {
    Chunk& ch = index.chunks[c];
    ch.offset = U64(chunk_at);
    ch.size = U64(chunk_at + 8);
    if (ch.size > kMaxChunkBytes || ch.offset > (uint64_t{1} << 62)) {
      Fail(LANCET_MEDIA_ECORRUPT, "entries chunk " + std::to_string(c) + " at " + std::to_string(ch.offset) + " has " +
                                      std::to_string(ch.size) + " bytes (at most " + std::to_string(kMaxChunkBytes) +
                                      ")");
    }
  }
  return index;
}

Request ParseRequest(const uint8_t* d, uint64_t size) {
  if (d == nullptr || size != LANCET_IMAGE_REQUEST_SIZE || U32(d) != LANCET_IMAGE_REQUEST_MAGIC) {
    Fail(LANCET_MEDIA_EINVAL, "request of " + std::to_string(size) + " bytes is not an image request (magic LIRQ, " +
                                  std::to_string(LANCET_IMAGE_REQUEST_SIZE) + " bytes)");
  }
  if (U16(d + 4) != 1) Fail(LANCET_MEDIA_EINVAL, "image request version " + std::to_string(U16(d + 4)) + ", not 1");
  Request r;
  r.kind = d[6];
  r.page = U32(d + 8);
  r.x = U32(d + 12);
  r.y = U32(d + 16);
  r.w = U32(d + 20);
  r.h = U32(d + 24);
  r.thumbnail = U32(d + 28);
  if (r.kind < LANCET_IMAGE_REQ_PAGE || r.kind > LANCET_IMAGE_REQ_THUMBNAIL) {
    Fail(LANCET_MEDIA_EINVAL, "unknown image request kind " + std::to_string(r.kind));
  }
  if (r.kind == LANCET_IMAGE_REQ_THUMBNAIL && r.thumbnail == 0) {
    Fail(LANCET_MEDIA_EINVAL, "a thumbnail needs a size of at least 1");
  }
  return r;
}

void CheckRequest(const Request& r, uint64_t pages, uint32_t width, uint32_t height) {
  if (r.page >= pages) {
    Fail(LANCET_MEDIA_EINVAL,
         "page " + std::to_string(r.page) + " does not exist; the image has " + std::to_string(pages) + " page(s)");
  }
  if (r.kind == LANCET_IMAGE_REQ_REGION) {
    if (r.w == 0 || r.h == 0 || r.x >= width || r.y >= height || r.w > width - r.x || r.h > height - r.y) {
      Fail(LANCET_MEDIA_EINVAL, "region " + std::to_string(r.x) + "," + std::to_string(r.y) + "," +
                                    std::to_string(r.w) + "," + std::to_string(r.h) +
                                    " is not a non-empty area inside page " + std::to_string(r.page) + " of " +
                                    std::to_string(width) + "x" + std::to_string(height));
    }
  }
}

Request ReadRequest(const uint8_t* d, uint64_t size, const Index& index) {
  Request r = ParseRequest(d, size);
  const uint32_t w = r.page < index.pages.size() ? index.pages[r.page].width : 0;
  const uint32_t h = r.page < index.pages.size() ? index.pages[r.page].height : 0;
  CheckRequest(r, index.pages.size(), w, h);
  return r;
}

Area RequestArea(const Request& r, const Page& p) {
  if (r.kind == LANCET_IMAGE_REQ_REGION) return {r.x, r.y, r.w, r.h};
  return {0, 0, p.width, p.height};
}

std::vector<uint64_t> ChunksFor(const Page& p, const Area& a) {
  std::vector<uint64_t> out;
  const uint32_t c0 = a.x / p.chunk_width, c1 = (a.x + a.w - 1) / p.chunk_width;
  const uint32_t r0 = a.y / p.chunk_height, r1 = (a.y + a.h - 1) / p.chunk_height;
  const uint32_t across = p.Across();
  for (uint32_t r = r0; r <= r1; ++r) {
    for (uint32_t c = c0; c <= c1; ++c) out.push_back(p.first_chunk + uint64_t{r} * across + c);
  }
  return out;
}

}  // namespace lancet_image
