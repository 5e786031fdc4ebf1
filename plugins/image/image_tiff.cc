// libtiff handles with per-handle error collection: the library's default handlers print
// to stderr and keep no state a caller could turn into a clear error.
#include "image_tiff.h"

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "image_internal.h"

namespace lancet_image {

struct TiffHandle::Source {
  int fd = -1;
  const std::vector<uint8_t>* bytes = nullptr;
  uint64_t size = 0;
  uint64_t position = 0;
};

namespace {

int OnError(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto* e = static_cast<TiffErrors*>(user);
  if (!e->any) {
    char text[400];
    std::vsnprintf(text, sizeof text, fmt, ap);
    e->first = (module != nullptr && module[0] != 0 ? std::string(module) + ": " : std::string()) + text;
  }
  e->any = true;
  return 1;
}

int OnWarning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

tmsize_t ReadProc(thandle_t h, void* buf, tmsize_t n) {
  auto* s = static_cast<TiffHandle::Source*>(static_cast<void*>(h));
  if (n <= 0 || s->position >= s->size) return 0;
  uint64_t want = static_cast<uint64_t>(n);
  if (want > s->size - s->position) want = s->size - s->position;
  if (s->bytes != nullptr) {
    std::memcpy(buf, s->bytes->data() + s->position, want);
    s->position += want;
    return static_cast<tmsize_t>(want);
  }
  uint64_t done = 0;
  while (done < want) {
    ssize_t got = pread(s->fd, static_cast<uint8_t*>(buf) + done, want - done, static_cast<off_t>(s->position + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<uint64_t>(got);
  }
  s->position += done;
  return static_cast<tmsize_t>(done);
}

tmsize_t WriteProc(thandle_t, void*, tmsize_t) { return -1; }

toff_t SeekProc(thandle_t h, toff_t off, int whence) {
  auto* s = static_cast<TiffHandle::Source*>(static_cast<void*>(h));
  uint64_t base = whence == SEEK_CUR ? s->position : whence == SEEK_END ? s->size : 0;
  // libtiff passes negative offsets as huge unsigned values; wrap-around is intended.
  s->position = base + off;
  return s->position;
}

int CloseProc(thandle_t) { return 0; }
toff_t SizeProc(thandle_t h) { return static_cast<TiffHandle::Source*>(static_cast<void*>(h))->size; }
int MapProc(thandle_t, void**, toff_t*) { return 0; }
void UnmapProc(thandle_t, void*, toff_t) {}

}  // namespace

TiffHandle TiffHandle::OverFd(int fd, uint64_t size) {
  TiffHandle h;
  h.source_ = new Source{fd, nullptr, size, 0};
  h.Open();
  return h;
}

TiffHandle TiffHandle::OverMemory(const std::vector<uint8_t>* bytes) {
  TiffHandle h;
  h.source_ = new Source{-1, bytes, bytes->size(), 0};
  h.Open();
  return h;
}

void TiffHandle::Open() {
  errors_ = new TiffErrors;
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  if (opts == nullptr) Fail(LANCET_MEDIA_ENOMEM, "out of memory for libtiff options");
  TIFFOpenOptionsSetErrorHandlerExtR(opts, OnError, errors_);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, OnWarning, nullptr);
  // No single allocation libtiff makes for a hostile file exceeds what a chunk may need.
  TIFFOpenOptionsSetMaxSingleMemAlloc(opts, static_cast<tmsize_t>(kMaxChunkPixelsBytes));
  // "m": no memory mapping, so reads stay bounded preads; "h": only the header at open
  // would skip the first directory, which ingest wants read.
  tif_ = TIFFClientOpenExt("lancet-image", "rm", static_cast<thandle_t>(static_cast<void*>(source_)), ReadProc,
                           WriteProc, SeekProc, CloseProc, SizeProc, MapProc, UnmapProc, opts);
  TIFFOpenOptionsFree(opts);
}

TiffHandle::TiffHandle(TiffHandle&& o) noexcept : tif_(o.tif_), source_(o.source_), errors_(o.errors_) {
  o.tif_ = nullptr;
  o.source_ = nullptr;
  o.errors_ = nullptr;
}

TiffHandle::~TiffHandle() {
  if (tif_ != nullptr) TIFFClose(tif_);
  delete source_;
  delete errors_;
}

TempFile::TempFile() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && dir[0] != 0 ? dir : "/tmp") + "/lancet-image-XXXXXX";
  fd_ = mkstemp(path.data());
  if (fd_ < 0) Fail(LANCET_MEDIA_EINTERNAL, "cannot create a temporary file in " + path + ": " + strerror(errno));
  unlink(path.c_str());
}

TempFile::~TempFile() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace lancet_image
