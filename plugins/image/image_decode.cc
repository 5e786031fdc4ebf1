// Decode: each needed tile or strip is wrapped in a one-strip TIFF built in memory from the
// page record (so libtiff's codecs, predictor and JPEG tables apply exactly as they would to
// the source) and decoded on its own; its pixels go straight into the output (page,
// region) or into box-filter sums (thumbnail). Memory: the output plus one chunk.
#include <algorithm>
#include <cstring>

#include "image_internal.h"
#include "image_tiff.h"

namespace lancet_image {
namespace {

constexpr uint32_t kMaxThumbnail = 4096;
// 8 GiB of decoded samples: a 50000x50000 RGB page.
constexpr uint64_t kMaxThumbnailSource = 8ull << 30;

struct IfdEntry {
  uint16_t tag, type;
  uint32_t count;
  std::vector<uint8_t> value;  // little-endian, count x the type's size
};

IfdEntry Short(uint16_t tag, uint16_t v) {
  IfdEntry e{tag, 3, 1, std::vector<uint8_t>(2)};
  PutU16(e.value.data(), v);
  return e;
}

IfdEntry Long(uint16_t tag, uint32_t v) {
  IfdEntry e{tag, 4, 1, std::vector<uint8_t>(4)};
  PutU32(e.value.data(), v);
  return e;
}

// A classic little-endian TIFF of one strip: chunk width x `rows` pixels, the page's
// sample layout and compression, `data` as its only strip.
std::vector<uint8_t> MiniTiff(const Page& p, const uint8_t* data, uint64_t size, uint32_t rows) {
  std::vector<IfdEntry> tags;
  tags.push_back(Long(256, p.chunk_width));
  tags.push_back(Long(257, rows));
  IfdEntry bits{258, 3, p.samples, std::vector<uint8_t>(2u * p.samples)};
  for (uint16_t s = 0; s < p.samples; ++s) PutU16(&bits.value[2u * s], p.bits);
  tags.push_back(bits);
  tags.push_back(Short(259, p.compression));
  tags.push_back(Short(262, p.photometric));
  tags.push_back(Long(273, 0));  // strip offset, patched below
  tags.push_back(Short(277, p.samples));
  tags.push_back(Long(278, rows));
  tags.push_back(Long(279, static_cast<uint32_t>(size)));
  tags.push_back(Short(284, 1));
  if (p.predictor != 1) tags.push_back(Short(317, p.predictor));
  if (!p.jpeg_tables.empty()) {
    tags.push_back({347, 7, static_cast<uint32_t>(p.jpeg_tables.size()), p.jpeg_tables});
  }
  const uint64_t ifd_size = 2 + 12 * tags.size() + 4;
  uint64_t extra = 0;
  for (const IfdEntry& e : tags) extra += e.value.size() > 4 ? (e.value.size() + 1) & ~uint64_t{1} : 0;
  const uint64_t data_at = 8 + ifd_size + extra;
  std::vector<uint8_t> out(data_at + size, 0);
  out[0] = 'I';
  out[1] = 'I';
  PutU16(&out[2], 42);
  PutU32(&out[4], 8);
  PutU16(&out[8], static_cast<uint16_t>(tags.size()));
  uint64_t at = 10, extra_at = 8 + ifd_size;
  for (IfdEntry& e : tags) {
    if (e.tag == 273) PutU32(e.value.data(), static_cast<uint32_t>(data_at));
    PutU16(&out[at], e.tag);
    PutU16(&out[at + 2], e.type);
    PutU32(&out[at + 4], e.count);
    if (e.value.size() <= 4) {
      std::memcpy(&out[at + 8], e.value.data(), e.value.size());
    } else {
      PutU32(&out[at + 8], static_cast<uint32_t>(extra_at));
      std::memcpy(&out[extra_at], e.value.data(), e.value.size());
      extra_at += (e.value.size() + 1) & ~uint64_t{1};
    }
    at += 12;
  }
  if (size > 0) std::memcpy(&out[data_at], data, size);
  return out;
}

// The stored bytes of chunk `c`, located in whichever given range holds them.
struct Located {
  std::vector<std::pair<LancetMediaRange, const uint8_t*>> ranges;  // by offset
  const uint8_t* Find(const Chunk& c, uint64_t index) const {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), c.offset,
                               [](uint64_t off, const auto& r) { return off < r.first.offset; });
    if (it != ranges.begin()) {
      --it;
      const LancetMediaRange& r = it->first;
      if (c.offset - r.offset <= r.length && c.size <= r.length - (c.offset - r.offset)) {
        return it->second + (c.offset - r.offset);
      }
    }
    Fail(LANCET_MEDIA_EINVAL, "decode did not get the bytes of chunk " + std::to_string(index) + " [" +
                                  std::to_string(c.offset) + ", +" + std::to_string(c.size) +
                                  ") in its ranges; pass the ranges plan returned");
  }
};

Located Locate(const LancetMediaRange* ranges, const uint8_t* const* data, uint64_t count) {
  Located l;
  for (uint64_t i = 0; i < count; ++i) {
    if (ranges[i].length > 0 && data[i] == nullptr) Fail(LANCET_MEDIA_EINVAL, "decode got a range without bytes");
    l.ranges.push_back({ranges[i], data[i]});
  }
  std::sort(l.ranges.begin(), l.ranges.end(),
            [](const auto& a, const auto& b) { return a.first.offset < b.first.offset; });
  return l;
}

// Calls fn(chunk pixels, chunk's left x, top y, rows) for each needed chunk of the area.
template <typename F>
void ForEachChunk(const Page& p, const Index& index, const Area& area, const Located& located, F&& fn) {
  for (uint64_t c : ChunksFor(p, area)) {
    const uint64_t local = c - p.first_chunk;
    const uint32_t cx = static_cast<uint32_t>(local % p.Across()) * p.chunk_width;
    const uint32_t cy = static_cast<uint32_t>(local / p.Across()) * p.chunk_height;
    const uint32_t rows = p.tiled() ? p.chunk_height : std::min(p.chunk_height, p.height - cy);
    const Chunk& ch = index.chunks[c];
    std::vector<uint8_t> pixels;
    if (ch.size == 0) {
      pixels.assign(uint64_t{p.chunk_width} * rows * p.samples, 0);
    } else {
      pixels = DecodeChunk(p, located.Find(ch, c), ch.size, rows, c);
    }
    fn(pixels, cx, cy, rows);
  }
}

std::vector<uint8_t> Metadata(const Request& r, const Page& p, uint32_t w, uint32_t h, uint32_t x, uint32_t y) {
  std::vector<uint8_t> m(LANCET_IMAGE_DECODED_SIZE, 0);
  PutU32(&m[0], LANCET_IMAGE_DECODED_MAGIC);
  PutU16(&m[4], 1);
  PutU16(&m[6], LANCET_IMAGE_DECODED_SIZE);
  PutU32(&m[8], r.page);
  PutU32(&m[12], w);
  PutU32(&m[16], h);
  m[20] = p.Channels() == 1 ? LANCET_IMAGE_PIX_GRAY8 : LANCET_IMAGE_PIX_RGB24;
  PutU32(&m[24], p.width);
  PutU32(&m[28], p.height);
  PutU32(&m[32], x);
  PutU32(&m[36], y);
  return m;
}

Decoded DecodeArea(const Request& r, const Page& p, const Index& index, const Located& located) {
  const Area a = RequestArea(r, p);
  const uint32_t ch = p.Channels();
  const uint64_t bytes = uint64_t{a.w} * a.h * ch;
  if (bytes > kMaxOutputBytes) {
    Fail(LANCET_MEDIA_EINVAL, "page " + std::to_string(r.page) + " is " + std::to_string(p.width) + "x" +
                                  std::to_string(p.height) + ": " + std::to_string(bytes) +
                                  " bytes decoded, over the " + std::to_string(kMaxOutputBytes) +
                                  "-byte output limit; ask for a region or a thumbnail");
  }
  Decoded d;
  d.data.assign(bytes, 0);
  const bool invert = p.photometric == 0;
  ForEachChunk(p, index, a, located, [&](const std::vector<uint8_t>& px, uint32_t cx, uint32_t cy, uint32_t rows) {
    const uint32_t x0 = std::max(a.x, cx), x1 = std::min(a.x + a.w, std::min(cx + p.chunk_width, p.width));
    const uint32_t y0 = std::max(a.y, cy), y1 = std::min(a.y + a.h, std::min(cy + rows, p.height));
    for (uint32_t y = y0; y < y1; ++y) {
      const uint8_t* src = px.data() + (uint64_t{y - cy} * p.chunk_width + (x0 - cx)) * p.samples;
      uint8_t* dst = d.data.data() + (uint64_t{y - a.y} * a.w + (x0 - a.x)) * ch;
      const uint64_t n = uint64_t{x1 - x0} * ch;
      std::memcpy(dst, src, n);
      if (invert) {
        for (uint64_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(255 - dst[i]);
      }
    }
  });
  d.metadata = Metadata(r, p, a.w, a.h, a.x, a.y);
  return d;
}

// Box filter: every source pixel adds to the output pixel it falls in, so each output
// pixel is the mean of its (whole-pixel) footprint; chunks arrive one at a time.
Decoded DecodeThumbnail(const Request& r, const Page& p, const Index& index, const Located& located) {
  if (r.thumbnail > kMaxThumbnail) {
    Fail(LANCET_MEDIA_EINVAL,
         "thumbnail size " + std::to_string(r.thumbnail) + " is over " + std::to_string(kMaxThumbnail));
  }
  const uint32_t longer = std::max(p.width, p.height);
  if (r.thumbnail >= longer) return DecodeArea(r, p, index, located);
  // A thumbnail decodes the whole page: bounded so hostile geometry cannot mean hours of work.
  const uint64_t work = uint64_t{p.Across()} * p.chunk_width * p.Down() * p.chunk_height * p.samples;
  if (work > kMaxThumbnailSource) {
    Fail(LANCET_MEDIA_EINVAL, "page " + std::to_string(r.page) + " is " + std::to_string(p.width) + "x" +
                                  std::to_string(p.height) + ": a thumbnail would decode " + std::to_string(work) +
                                  " bytes, over " + std::to_string(kMaxThumbnailSource) + "; ask for a region");
  }
  uint32_t ow, oh;
  if (p.width >= p.height) {
    ow = r.thumbnail;
    oh = static_cast<uint32_t>(std::max<uint64_t>(1, (uint64_t{p.height} * r.thumbnail + longer / 2) / longer));
  } else {
    oh = r.thumbnail;
    ow = static_cast<uint32_t>(std::max<uint64_t>(1, (uint64_t{p.width} * r.thumbnail + longer / 2) / longer));
  }
  const uint32_t ch = p.Channels();
  std::vector<uint64_t> sums(uint64_t{ow} * oh * ch, 0);
  // col[x]: the output column of source column x; col_end[ox]: the first x past it. Counts
  // per output pixel are (columns of ox) x (rows of oy), so only sums are accumulated.
  std::vector<uint32_t> col(p.width), col_end(ow, 0), xcount(ow, 0), ycount(oh, 0);
  for (uint32_t x = 0; x < p.width; ++x) {
    col[x] = static_cast<uint32_t>(uint64_t{x} * ow / p.width);
    col_end[col[x]] = x + 1;
    ++xcount[col[x]];
  }
  for (uint32_t y = 0; y < p.height; ++y) ++ycount[uint64_t{y} * oh / p.height];
  const Area all{0, 0, p.width, p.height};
  ForEachChunk(p, index, all, located, [&](const std::vector<uint8_t>& px, uint32_t cx, uint32_t cy, uint32_t rows) {
    const uint32_t x1 = std::min(cx + p.chunk_width, p.width), y1 = std::min(cy + rows, p.height);
    for (uint32_t y = cy; y < y1; ++y) {
      uint64_t* orow = sums.data() + uint64_t{y} * oh / p.height * ow * ch;
      const uint8_t* src = px.data() + uint64_t{y - cy} * p.chunk_width * p.samples;
      for (uint32_t x = cx; x < x1;) {
        const uint32_t ox = col[x], end = std::min(x1, col_end[ox]);
        // Each run of source columns that land in one output column is summed on its own.
        uint64_t acc[3] = {0, 0, 0};
        for (; x < end; ++x) {
          for (uint32_t k = 0; k < ch; ++k) acc[k] += src[uint64_t{x - cx} * p.samples + k];
        }
        for (uint32_t k = 0; k < ch; ++k) orow[uint64_t{ox} * ch + k] += acc[k];
      }
    }
  });
  Decoded d;
  d.data.resize(sums.size());
  const bool invert = p.photometric == 0;
  for (uint32_t oy = 0; oy < oh; ++oy) {
    for (uint32_t ox = 0; ox < ow; ++ox) {
      const uint64_t o = uint64_t{oy} * ow + ox;
      const uint64_t n = std::max<uint64_t>(1, uint64_t{xcount[ox]} * ycount[oy]);
      for (uint32_t k = 0; k < ch; ++k) {
        const auto v = static_cast<uint8_t>((sums[o * ch + k] + n / 2) / n);
        d.data[o * ch + k] = invert ? static_cast<uint8_t>(255 - v) : v;
      }
    }
  }
  d.metadata = Metadata(r, p, ow, oh, 0, 0);
  return d;
}

}  // namespace

std::vector<uint8_t> DecodeChunk(const Page& p, const uint8_t* data, uint64_t size, uint32_t rows,
                                 uint64_t chunk_index) {
  const std::string where = "chunk " + std::to_string(chunk_index);
  const std::vector<uint8_t> file = MiniTiff(p, data, size, rows);
  TiffHandle h = TiffHandle::OverMemory(&file);
  if (h.get() == nullptr) {
    Fail(LANCET_MEDIA_ECORRUPT,
         where + ": libtiff cannot read it" + (h.errors().any ? " (" + h.errors().first + ")" : std::string()));
  }
  if (p.compression == 7) {
    // Tables and sampling come from the page; libtiff converts nothing on its own.
    TIFFSetField(h.get(), TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RAW);
  }
  const uint64_t want = uint64_t{p.chunk_width} * rows * p.samples;
  std::vector<uint8_t> out(want, 0);
  const tmsize_t got = TIFFReadEncodedStrip(h.get(), 0, out.data(), static_cast<tmsize_t>(want));
  if (got < 0 || static_cast<uint64_t>(got) != want || h.errors().any) {
    Fail(LANCET_MEDIA_ECORRUPT, where + " (" + std::to_string(size) + " compressed bytes) does not decode to " +
                                    std::to_string(p.chunk_width) + "x" + std::to_string(rows) + " pixels" +
                                    (h.errors().any ? " (libtiff: " + h.errors().first + ")" : std::string()));
  }
  return out;
}

Decoded DecodeRequest(const Request& r, const Index& index, const LancetMediaRange* ranges,
                      const uint8_t* const* range_data, uint64_t range_count) {
  const Located located = Locate(ranges, range_data, range_count);
  const Page& p = index.pages[r.page];
  if (r.kind == LANCET_IMAGE_REQ_THUMBNAIL) return DecodeThumbnail(r, p, index, located);
  return DecodeArea(r, p, index, located);
}

}  // namespace lancet_image
