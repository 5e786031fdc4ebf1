// The local file system: pread for thread-safe range reads, link() for create-if-absent.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "io/mapped_pages.h"
#include "lancet/io/object_store.h"

namespace lancet::io {
namespace {

namespace fs = std::filesystem;

std::string ErrnoText(int err) { return std::strerror(err); }

// Reads at least this long report their pages when their buffer goes (mapped_pages.h):
// smaller ones are mostly metadata read again soon.
constexpr uint64_t kReleaseAtLeast = 64 * 1024;

// One large read of a mapping, handing its pages to the resident budget when released.
struct MappedRange {
  std::shared_ptr<Mapping> mapping;
  const uint8_t* data = nullptr;
  uint64_t size = 0;
  ~MappedRange() { ReleaseMappedRange(mapping, data, size); }
};

class LocalFile final : public RandomAccessFile {
 public:
  LocalFile(std::string path, int fd, uint64_t size, std::shared_ptr<IoStats> stats, bool map)
      : path_(std::move(path)), fd_(fd), size_(size), stats_(std::move(stats)) {
    // Lance data files are immutable once written, so reads can view the page cache
    // through a mapping instead of copying into fresh buffers; pread remains the
    // fallback when mapping fails.
    if (map && size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_, 0);
      if (p != MAP_FAILED) {
        mapping_ = std::make_shared<Mapping>();
        mapping_->base = p;
        mapping_->size = size_;
      }
    }
  }
  ~LocalFile() override { ::close(fd_); }

  const std::string& path() const override { return path_; }
  Result<uint64_t> Size() const override { return size_; }
  IoStats* stats() const override { return stats_.get(); }
  bool cheap_reads() const override { return mapping_ != nullptr; }

  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) const override {
    if (offset > size_ || length > size_ - offset) {
      return Status::IOError(path_ + ": read of [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                             ") is past the end of the file (" + std::to_string(size_) + " bytes)");
    }
    if (mapping_) {
      stats_->RecordRead(length);
      const auto* data = static_cast<const uint8_t*>(mapping_->base) + offset;
      if (length < kReleaseAtLeast) return BufferPtr(Buffer::Wrap(data, length, mapping_));
      auto range = std::make_shared<MappedRange>(MappedRange{mapping_, data, length});
      return BufferPtr(Buffer::Wrap(data, length, std::move(range)));
    }
    ASSIGN_OR_RETURN(auto buf, Buffer::Allocate(length));
    uint64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd_, buf->mutable_data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(path_ + ": read failed: " + ErrnoText(errno));
      }
      if (n == 0) return Status::IOError(path_ + ": file shrank while reading");
      done += static_cast<uint64_t>(n);
    }
    stats_->RecordRead(length);
    return BufferPtr(std::move(buf));
  }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
  std::shared_ptr<IoStats> stats_;
  std::shared_ptr<Mapping> mapping_;
};

Status WriteAll(int fd, std::span<const uint8_t> bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(path + ": write failed: " + ErrnoText(errno));
    }
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

std::string TempNameFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng(std::random_device{}());
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(rng() & 0xffffff);
}

// Streams into a temporary file renamed over the target at Close, like Put.
class LocalObjectWriter final : public ObjectWriter {
 public:
  LocalObjectWriter(int fd, std::string tmp, std::string path, std::shared_ptr<IoStats> stats)
      : fd_(fd), tmp_(std::move(tmp)), path_(std::move(path)), stats_(std::move(stats)) {}
  ~LocalObjectWriter() override {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(tmp_.c_str());
    }
  }
  Status Append(std::span<const uint8_t> bytes) override {
    if (fd_ < 0) return Status::IOError(path_ + ": write after close");
    RETURN_IF_ERROR(WriteAll(fd_, bytes, tmp_));
    written_ += bytes.size();
    return Status::OK();
  }
  Status Close() override {
    if (fd_ < 0) return Status::IOError(path_ + ": closed twice");
    Status st;
    if (::fsync(fd_) != 0) st = Status::IOError(tmp_ + ": fsync failed: " + ErrnoText(errno));
    ::close(fd_);
    fd_ = -1;
    if (st.ok() && ::rename(tmp_.c_str(), path_.c_str()) != 0) {
      st = Status::IOError(path_ + ": rename failed: " + ErrnoText(errno));
    }
    if (!st.ok()) {
      ::unlink(tmp_.c_str());
      return st;
    }
    stats_->RecordWrite(written_);
    return Status::OK();
  }

 private:
  int fd_;
  std::string tmp_;
  std::string path_;
  std::shared_ptr<IoStats> stats_;
  uint64_t written_ = 0;
};

class LocalFileSystemImpl final : public ObjectStore {
 public:
  explicit LocalFileSystemImpl(bool map_reads) : map_reads_(map_reads) {}

  Result<std::unique_ptr<ObjectWriter>> OpenWrite(const std::string& path) override {
    RETURN_IF_ERROR(MakeParents(path));
    std::string tmp = TempNameFor(path);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IOError(tmp + ": cannot create: " + ErrnoText(errno));
    return std::unique_ptr<ObjectWriter>(std::make_unique<LocalObjectWriter>(fd, std::move(tmp), path, stats_));
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) const override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      if (err == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(path + ": cannot open: " + ErrnoText(err));
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return Status::IOError(path + ": cannot stat: " + ErrnoText(err));
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::IOError(path + ": is a directory");
    }
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<LocalFile>(path, fd, static_cast<uint64_t>(st.st_size), stats_, map_reads_));
  }

  Result<uint64_t> Size(const std::string& path) const override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(path + ": cannot stat: " + ErrnoText(errno));
    }
    return static_cast<uint64_t>(st.st_size);
  }

  Result<bool> Exists(const std::string& path) const override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return Status::IOError(path + ": cannot stat: " + ErrnoText(errno));
  }

  Result<std::vector<ObjectInfo>> List(const std::string& dir) const override {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory) return Status::NotFound(dir + ": no such directory");
      return Status::IOError(dir + ": cannot list: " + ec.message());
    }
    std::vector<ObjectInfo> out;
    for (const auto& entry : it) {
      ObjectInfo info;
      info.path = entry.path().filename().string();
      info.is_dir = entry.is_directory(ec);
      if (!info.is_dir) info.size = entry.file_size(ec);
      struct stat st;
      if (::stat(entry.path().c_str(), &st) == 0) {
        info.modified_ms = int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1000000;
      }
      out.push_back(std::move(info));
    }
    return out;
  }

  Status Put(const std::string& path, std::span<const uint8_t> bytes) override {
    RETURN_IF_ERROR(MakeParents(path));
    std::string tmp = TempNameFor(path);
    RETURN_IF_ERROR(WriteTemp(tmp, bytes));
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return Status::IOError(path + ": rename failed: " + ErrnoText(err));
    }
    stats_->RecordWrite(bytes.size());
    return Status::OK();
  }

  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> bytes) override {
    RETURN_IF_ERROR(MakeParents(path));
    std::string tmp = TempNameFor(path);
    RETURN_IF_ERROR(WriteTemp(tmp, bytes));
    // link() fails with EEXIST instead of replacing, so exactly one writer wins and
    // readers never see a partially written object.
    int rc = ::link(tmp.c_str(), path.c_str());
    int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) {
      if (err == EEXIST) return Status::AlreadyExists(path + ": already exists");
      return Status::IOError(path + ": link failed: " + ErrnoText(err));
    }
    stats_->RecordWrite(bytes.size());
    return Status::OK();
  }

  Status Delete(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) {
      if (errno == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(path + ": delete failed: " + ErrnoText(errno));
    }
    return Status::OK();
  }

 private:
  static Status MakeParents(const std::string& path) {
    std::error_code ec;
    fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (ec) return Status::IOError(parent.string() + ": cannot create directory: " + ec.message());
    return Status::OK();
  }

  static Status WriteTemp(const std::string& tmp, std::span<const uint8_t> bytes) {
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IOError(tmp + ": cannot create: " + ErrnoText(errno));
    Status st = WriteAll(fd, bytes, tmp);
    if (st.ok() && ::fsync(fd) != 0) st = Status::IOError(tmp + ": fsync failed: " + ErrnoText(errno));
    ::close(fd);
    if (!st.ok()) ::unlink(tmp.c_str());
    return st;
  }

 private:
  const bool map_reads_;
};

}  // namespace

std::shared_ptr<ObjectStore> LocalFileSystem(bool map_reads) {
  return std::make_shared<LocalFileSystemImpl>(map_reads);
}

}  // namespace lancet::io
