// Sequential inputs: file descriptors (files, pipes, standard input) and buffers.
#include "lancet/io/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace lancet::io {
namespace {

// Reads grow their buffer in steps of this size, so a claimed length costs memory
// only as its bytes arrive.
constexpr uint64_t kGrowStep = 8ULL << 20;

class FdInputStream final : public InputStream {
 public:
  FdInputStream(int fd, std::string name, bool owned) : fd_(fd), name_(std::move(name)), owned_(owned) {
    struct stat st;
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    if (at >= 0 && ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= at) {
      known_left_ = static_cast<uint64_t>(st.st_size - at);
    }
  }
  ~FdInputStream() override {
    if (owned_) ::close(fd_);
  }
  const std::string& name() const override { return name_; }

  Result<BufferPtr> Read(uint64_t n) override {
    if (n > kMaxAllocation) n = kMaxAllocation;  // callers check lengths; this bounds the worst case
    if (n == 0) return BufferPtr(Buffer::Empty());
    if (n <= known_left_) return ReadKnown(n);
    known_left_ = 0;  // the file grew or the length is a claim past its end: read as a pipe
    std::vector<uint8_t> out;
    while (out.size() < n && !eof_) {
      const size_t have = out.size();
      const size_t want = static_cast<size_t>(std::min<uint64_t>(n - have, kGrowStep));
      out.resize(have + want);
      ASSIGN_OR_RETURN(size_t got, ReadUpTo(out.data() + have, want));
      out.resize(have + got);
    }
    return BufferPtr(Buffer::FromVector(std::move(out)));
  }

 private:
  // A regular file's bytes are known to be there: one buffer of the exact size, left
  // unzeroed (the read fills it), instead of a vector grown and copied step by step.
  Result<BufferPtr> ReadKnown(uint64_t n) {
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(n));
    ASSIGN_OR_RETURN(size_t got, ReadUpTo(out->mutable_data(), static_cast<size_t>(n)));
    known_left_ -= n;
    if (got < n) {
      known_left_ = 0;  // truncated under us
      return BufferPtr(Buffer::Slice(std::move(out), 0, got));
    }
    return BufferPtr(std::move(out));
  }

  // Reads until `want` bytes or the end of the input.
  Result<size_t> ReadUpTo(uint8_t* into, size_t want) {
    size_t got = 0;
    while (got < want) {
      ssize_t r = ::read(fd_, into + got, want - got);
      if (r < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(name_ + ": read failed: " + std::strerror(errno));
      }
      if (r == 0) {
        eof_ = true;
        break;
      }
      got += static_cast<size_t>(r);
    }
    return got;
  }

  int fd_;
  std::string name_;
  bool owned_;
  bool eof_ = false;
  uint64_t known_left_ = 0;  // bytes a regular file still holds past the position
};

class BufferInputStream final : public InputStream {
 public:
  BufferInputStream(BufferPtr bytes, std::string name) : bytes_(std::move(bytes)), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  Result<BufferPtr> Read(uint64_t n) override {
    const uint64_t take = std::min<uint64_t>(n, bytes_->size() - pos_);
    BufferPtr out = Buffer::Slice(bytes_, pos_, take);
    pos_ += take;
    return out;
  }

 private:
  BufferPtr bytes_;
  std::string name_;
  uint64_t pos_ = 0;
};

class PrependedStream final : public InputStream {
 public:
  PrependedStream(BufferPtr head, std::unique_ptr<InputStream> rest) : head_(std::move(head)), rest_(std::move(rest)) {}
  const std::string& name() const override { return rest_->name(); }
  Result<BufferPtr> Read(uint64_t n) override {
    if (pos_ >= head_->size()) return rest_->Read(n);
    const uint64_t from_head = std::min<uint64_t>(n, head_->size() - pos_);
    BufferPtr first = Buffer::Slice(head_, pos_, from_head);
    pos_ += from_head;
    if (from_head == n) return first;
    ASSIGN_OR_RETURN(BufferPtr more, rest_->Read(n - from_head));
    if (more->empty()) return first;
    std::vector<uint8_t> joined(first->data(), first->data() + first->size());
    joined.insert(joined.end(), more->data(), more->data() + more->size());
    return BufferPtr(Buffer::FromVector(std::move(joined)));
  }

 private:
  BufferPtr head_;
  uint64_t pos_ = 0;
  std::unique_ptr<InputStream> rest_;
};

}  // namespace

Result<std::unique_ptr<InputStream>> OpenInputStream(const std::string& path) {
  if (path == "-") return std::unique_ptr<InputStream>(std::make_unique<FdInputStream>(0, "standard input", false));
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::IOError(path + ": cannot open: " + std::strerror(err));
  }
  return std::unique_ptr<InputStream>(std::make_unique<FdInputStream>(fd, path, true));
}

std::unique_ptr<InputStream> InputStreamFromBuffer(BufferPtr bytes, std::string name) {
  return std::make_unique<BufferInputStream>(bytes ? std::move(bytes) : Buffer::Empty(), std::move(name));
}

std::unique_ptr<InputStream> PrependToStream(BufferPtr head, std::unique_ptr<InputStream> rest) {
  return std::make_unique<PrependedStream>(std::move(head), std::move(rest));
}

}  // namespace lancet::io
