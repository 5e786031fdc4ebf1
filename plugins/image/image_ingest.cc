// Ingest: spool the pushed source to an unlinked temporary file (memory stays bounded for
// any size), then at finish tell the format by its first bytes. TIFF: walk its directories
// with libtiff, index every page's tiles or strips, check each lies inside the file and
// that the first and last chunk of every page decode, and only then copy the file to the
// sink unchanged (a 20000x20000 page costs two tile decodes). GIF, WebP: index and decode
// every frame, then store the file unchanged. PDF: render the pages to a TIFF and store
// that.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "image_anim.h"
#include "image_pdf.h"
#include "image_tiff.h"

namespace lancet_image {
namespace {

struct Session {
  TempFile spool;
  uint64_t size = 0;
  bool finished = false;
  uint32_t pdf_dpi = 0;
};

void WriteAll(int fd, const uint8_t* data, uint64_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail(LANCET_MEDIA_EINTERNAL, std::string("cannot spool the source: ") + strerror(errno));
    data += n;
    size -= static_cast<uint64_t>(n);
  }
}

void ReadAt(int fd, uint64_t offset, uint8_t* out, uint64_t size) {
  while (size > 0) {
    ssize_t n = pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Fail(LANCET_MEDIA_EINTERNAL, std::string("cannot read the spooled source: ") + strerror(errno));
    out += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<uint64_t>(n);
  }
}

std::string TiffError(TiffHandle& h) { return h.errors().any ? " (libtiff: " + h.errors().first + ")" : ""; }

// The page libtiff's current directory describes, its chunks appended to index.chunks.
Page ReadPage(TiffHandle& h, uint32_t number, uint64_t file_size, Index& index) {
  TIFF* tif = h.get();
  const std::string where = "TIFF page " + std::to_string(number);
  Page p;
  uint32_t w = 0, ht = 0;
  uint16_t v16 = 0;
  if (TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) != 1 || TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &ht) != 1) {
    Fail(LANCET_MEDIA_ECORRUPT, where + " has no image width or length");
  }
  p.width = w;
  p.height = ht;
  if (w == 0 || ht == 0 || w > kMaxDimension || ht > kMaxDimension) {
    Fail(LANCET_MEDIA_ENOTSUP, where + " is " + std::to_string(w) + "x" + std::to_string(ht) + "; sides of 1 to " +
                                   std::to_string(kMaxDimension) + " are supported");
  }
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &v16);
  p.bits = v16;
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &v16);
  p.samples = v16;
  if (TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &v16) != 1) Fail(LANCET_MEDIA_ECORRUPT, where + " has no photometric tag");
  p.photometric = v16;
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &v16);
  p.compression = v16;
  // Only LZW and Deflate apply a predictor; for the other codecs libtiff ignores the tag.
  uint16_t predictor = 1;
  const bool predicts = p.compression == COMPRESSION_LZW || p.compression == COMPRESSION_ADOBE_DEFLATE ||
                        p.compression == COMPRESSION_DEFLATE;
  if (!predicts || TIFFGetField(tif, TIFFTAG_PREDICTOR, &predictor) != 1) predictor = 1;
  p.predictor = predictor;
  uint16_t planar = PLANARCONFIG_CONTIG;
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  if (planar != PLANARCONFIG_CONTIG && p.samples > 1) {
    Fail(LANCET_MEDIA_ENOTSUP, where +
                                   " stores its samples in separate planes; only contiguous (chunky) samples "
                                   "are supported");
  }
  CheckSupported(p, where);
  if (TIFFIsTiled(tif)) {
    p.flags = LANCET_IMAGE_PAGE_TILED;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &p.chunk_width);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &p.chunk_height);
    if (p.chunk_width == 0 || p.chunk_height == 0 || p.chunk_width > kMaxDimension || p.chunk_height > kMaxDimension) {
      Fail(LANCET_MEDIA_ECORRUPT,
           where + " has tiles of " + std::to_string(p.chunk_width) + "x" + std::to_string(p.chunk_height));
    }
  } else {
    uint32_t rows = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
    p.chunk_width = p.width;
    p.chunk_height = rows == 0 || rows > p.height ? p.height : rows;
  }
  if (uint64_t{p.chunk_width} * p.chunk_height * p.samples > kMaxChunkPixelsBytes) {
    Fail(LANCET_MEDIA_ENOTSUP, where + " has chunks of " + std::to_string(p.chunk_width) + "x" +
                                   std::to_string(p.chunk_height) + " pixels; at most " +
                                   std::to_string(kMaxChunkPixelsBytes) + " bytes decoded per tile or strip");
  }
  const uint64_t grid = uint64_t{p.Across()} * p.Down();
  const uint64_t striles = TIFFIsTiled(tif) ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
  if (striles != grid) {
    Fail(LANCET_MEDIA_ECORRUPT, where + " has " + std::to_string(striles) + " tiles/strips, its geometry needs " +
                                    std::to_string(grid) + TiffError(h));
  }
  if (grid > kMaxChunks - index.chunks.size()) {
    Fail(LANCET_MEDIA_ENOTSUP, where + " brings the image past " + std::to_string(kMaxChunks) + " tiles/strips");
  }
  p.chunk_count = static_cast<uint32_t>(grid);
  p.first_chunk = index.chunks.size();
  for (uint32_t i = 0; i < grid; ++i) {
    int err = 0;
    const uint64_t off = TIFFGetStrileOffsetWithErr(tif, i, &err);
    const uint64_t size = err == 0 ? TIFFGetStrileByteCountWithErr(tif, i, &err) : 0;
    if (err != 0)
      Fail(LANCET_MEDIA_ECORRUPT, where + ": cannot read the offset of chunk " + std::to_string(i) + TiffError(h));
    if (size > kMaxChunkBytes) {
      Fail(LANCET_MEDIA_ENOTSUP, where + " chunk " + std::to_string(i) + " has " + std::to_string(size) +
                                     " compressed bytes; at most " + std::to_string(kMaxChunkBytes));
    }
    if (size != 0 && (off > file_size || size > file_size - off)) {
      Fail(LANCET_MEDIA_ECORRUPT, where + " chunk " + std::to_string(i) + " [" + std::to_string(off) + ", +" +
                                      std::to_string(size) + ") lies past the end of the " + std::to_string(file_size) +
                                      "-byte file (truncated?)");
    }
    index.chunks.push_back({size == 0 ? 0 : off, size});
  }
  if (p.compression == COMPRESSION_JPEG) {
    uint32_t count = 0;
    void* tables = nullptr;
    if (TIFFGetField(tif, TIFFTAG_JPEGTABLES, &count, &tables) == 1 && count > 0 && tables != nullptr) {
      if (count > kMaxJpegTables)
        Fail(LANCET_MEDIA_ENOTSUP, where + " has " + std::to_string(count) + " bytes of JPEG tables");
      const auto* t = static_cast<const uint8_t*>(tables);
      p.jpeg_tables.assign(t, t + count);
    }
  }
  return p;
}

// Decodes chunk `c` of page `p` from the spool: a corrupt compressed stream fails here,
// at write time, rather than at every later read.
void CheckChunk(int fd, const Page& p, uint32_t number, const Index& index, uint64_t c) {
  const Chunk& ch = index.chunks[p.first_chunk + c];
  if (ch.size == 0) return;
  std::vector<uint8_t> bytes(ch.size);
  ReadAt(fd, ch.offset, bytes.data(), ch.size);
  const uint32_t row = p.tiled() ? 0 : static_cast<uint32_t>(c) * p.chunk_height;
  const uint32_t rows = p.tiled() ? p.chunk_height : std::min(p.chunk_height, p.height - row);
  try {
    (void)DecodeChunk(p, bytes.data(), bytes.size(), rows, p.first_chunk + c);
  } catch (const Error& e) {
    Fail(LANCET_MEDIA_ECORRUPT, "TIFF page " + std::to_string(number) + ": " + e.message);
  }
}

// The file at `fd` (the spooled source, unchanged, or a PDF's rendering) to the sink; then
// the layouts to the host.
void Store(int fd, uint64_t size, LancetMediaSink sink, std::vector<uint8_t> info_bytes,
           std::vector<uint8_t> entry_bytes, LancetMediaBuffer* stream_info, LancetMediaBuffer* entries) {
  std::vector<uint8_t> buffer(std::min<uint64_t>(size, 1u << 20));
  for (uint64_t at = 0; at < size;) {
    const uint64_t n = std::min<uint64_t>(buffer.size(), size - at);
    ReadAt(fd, at, buffer.data(), n);
    if (sink.write(sink.context, buffer.data(), n) != 0) Fail(LANCET_MEDIA_ESINK, "the host refused the stored bytes");
    at += n;
  }
  LancetMediaBuffer info{}, ent{};
  GiveBuffer(&info, std::move(info_bytes));
  try {
    GiveBuffer(&ent, std::move(entry_bytes));
  } catch (...) {
    info.release(&info);
    throw;
  }
  *stream_info = info;
  *entries = ent;
}

// A read-only mapping of the spool: what the GIF walker, libwebp's demuxer and poppler read.
class Mapping {
 public:
  explicit Mapping(const Session& s) : size_(s.size) {
    at_ = mmap(nullptr, s.size, PROT_READ, MAP_PRIVATE, s.spool.fd(), 0);
    if (at_ == MAP_FAILED) {
      Fail(LANCET_MEDIA_EINTERNAL, std::string("cannot map the spooled source: ") + strerror(errno));
    }
  }
  ~Mapping() { munmap(at_, size_); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  const uint8_t* bytes() const { return static_cast<const uint8_t*>(at_); }

 private:
  void* at_;
  uint64_t size_;
};

// GIF and WebP: indexed from the mapping, then every frame decoded once (one at a time),
// so a damaged frame fails the write rather than a later read.
void FinishAnimated(Session& s, bool gif, LancetMediaSink sink, LancetMediaBuffer* stream_info,
                    LancetMediaBuffer* entries) {
  const Mapping m(s);
  const uint8_t* file = m.bytes();
  const Animation a = gif ? IndexGif(file, s.size) : IndexWebp(file, s.size);
  for (uint32_t k = 0; k < a.index.frames.size(); ++k) {
    const Frame& f = a.index.frames[k];
    const uint8_t* data = file + f.offset + f.data_start;
    if (gif) {
      (void)DecodeGifFrame(a.index.header, data, f.data_size, f, k);
    } else {
      (void)DecodeWebpFrame(data, f.data_size, f, k);
    }
  }
  Store(s.spool.fd(), s.size, sink, WriteStreamInfo(a.si), WriteFrames(a.index), stream_info, entries);
}

// The TIFF at `fd` (size bytes) indexed, checked and stored; `format` says whether it is
// the source (TIFF) or a PDF's rendering.
void FinishTiff(int fd, uint64_t size, uint8_t format, LancetMediaSink sink, LancetMediaBuffer* stream_info,
                LancetMediaBuffer* entries) {
  uint8_t magic[4];
  ReadAt(fd, 0, magic, 4);
  const bool classic = (magic[0] == 'I' && magic[1] == 'I' && magic[2] == 42 && magic[3] == 0) ||
                       (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && magic[3] == 42);
  const bool big = (magic[0] == 'I' && magic[1] == 'I' && magic[2] == 43 && magic[3] == 0) ||
                   (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && magic[3] == 43);
  if (!classic && !big) {
    Fail(LANCET_MEDIA_ENOTSUP,
         "the source is not a TIFF, GIF, WebP or PDF file (no II*/MM*, GIF87a/GIF89a, RIFF-WEBP or %PDF- header); "
         "the image plugin reads TIFF, BigTIFF, GIF, WebP and PDF only");
  }
  TiffHandle h = TiffHandle::OverFd(fd, size);
  if (h.get() == nullptr) Fail(LANCET_MEDIA_ECORRUPT, "libtiff cannot open the source" + TiffError(h));
  Index index;
  uint32_t number = 0;
  do {
    if (number >= kMaxPages)
      Fail(LANCET_MEDIA_ENOTSUP, "the TIFF has more than " + std::to_string(kMaxPages) + " pages");
    if (h.errors().any)
      Fail(LANCET_MEDIA_ECORRUPT, "TIFF page " + std::to_string(number) + " is damaged" + TiffError(h));
    index.pages.push_back(ReadPage(h, number, size, index));
    ++number;
  } while (TIFFReadDirectory(h.get()) == 1);
  // TIFFReadDirectory returns 0 both at the end of the chain and on a damaged directory
  // (e.g. a next-directory offset past the end of a truncated file); errors tell them apart.
  if (h.errors().any) {
    Fail(LANCET_MEDIA_ECORRUPT, "the TIFF directory after page " + std::to_string(number - 1) +
                                    " is damaged or missing (truncated file?)" + TiffError(h));
  }
  for (uint32_t i = 0; i < index.pages.size(); ++i) {
    const Page& p = index.pages[i];
    CheckChunk(fd, p, i, index, 0);
    if (p.chunk_count > 1) CheckChunk(fd, p, i, index, p.chunk_count - 1);
  }
  StreamInfo si;
  si.format = format;
  si.page_count = static_cast<uint32_t>(index.pages.size());
  si.source_bytes = size;
  Store(fd, size, sink, WriteStreamInfo(si), WriteEntries(index), stream_info, entries);
}

void Finish(Session& s, LancetMediaSink sink, LancetMediaBuffer* stream_info, LancetMediaBuffer* entries) {
  if (s.finished) Fail(LANCET_MEDIA_EINVAL, "finish called twice");
  s.finished = true;
  if (s.size < 12) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "the source has " + std::to_string(s.size) + " bytes, not a TIFF, GIF, WebP or PDF file");
  }
  uint8_t magic[12];
  ReadAt(s.spool.fd(), 0, magic, 12);
  const bool gif = std::memcmp(magic, "GIF87a", 6) == 0 || std::memcmp(magic, "GIF89a", 6) == 0;
  const bool webp = std::memcmp(magic, "RIFF", 4) == 0 && std::memcmp(magic + 8, "WEBP", 4) == 0;
  if (gif || webp) return FinishAnimated(s, gif, sink, stream_info, entries);
  if (std::memcmp(magic, "%PDF-", 5) == 0) {
    TempFile rendered;
    uint64_t rendered_size = 0;
    {
      const Mapping m(s);
      rendered_size = RenderPdf(m.bytes(), s.size, s.pdf_dpi, rendered.fd());
    }
    return FinishTiff(rendered.fd(), rendered_size, LANCET_IMAGE_FORMAT_PDF, sink, stream_info, entries);
  }
  FinishTiff(s.spool.fd(), s.size, LANCET_IMAGE_FORMAT_TIFF, sink, stream_info, entries);
}

Session& SessionOf(LancetMediaIngest* self) { return *static_cast<Session*>(self->private_data); }

int PushAbi(LancetMediaIngest* self, const uint8_t* data, uint64_t size, LancetMediaSink, LancetMediaError* error) {
  return Guard(error, [&] {
    Session& s = SessionOf(self);
    if (s.finished) Fail(LANCET_MEDIA_EINVAL, "push after finish");
    if (size > 0 && data == nullptr) Fail(LANCET_MEDIA_EINVAL, "push of bytes without a pointer");
    WriteAll(s.spool.fd(), data, size);
    s.size += size;
  });
}

int FinishAbi(LancetMediaIngest* self, LancetMediaSink sink, LancetMediaBuffer* stream_info, LancetMediaBuffer* entries,
              LancetMediaError* error) {
  return Guard(error, [&] { Finish(SessionOf(self), sink, stream_info, entries); });
}

void ReleaseAbi(LancetMediaIngest* self) {
  delete static_cast<Session*>(self->private_data);
  self->private_data = nullptr;
  self->release = nullptr;
}

}  // namespace

int StartIngest(uint32_t pdf_dpi, LancetMediaIngest* out, LancetMediaError* error) {
  return Guard(error, [&] {
    auto session = std::make_unique<Session>();
    session->pdf_dpi = pdf_dpi;
    LancetMediaIngest ingest{};
    ingest.push = PushAbi;
    ingest.finish = FinishAbi;
    ingest.release = ReleaseAbi;
    ingest.private_data = session.release();
    *out = ingest;
  });
}

}  // namespace lancet_image
