// libtiff glue shared by ingest and decode: handles over a file descriptor or a memory
// buffer whose errors are collected per handle (never printed), and a temporary file.
#pragma once

#include <tiffio.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lancet_image {

// Errors libtiff reports for one handle; the first one is kept for the message.
struct TiffErrors {
  std::string first;
  bool any = false;
};

// A TIFF opened for reading over `fd` (size bytes; the fd stays owned by the caller) or
// over `bytes` (borrowed for the handle's life). Closes on destruction.
class TiffHandle {
 public:
  static TiffHandle OverFd(int fd, uint64_t size);
  static TiffHandle OverMemory(const std::vector<uint8_t>* bytes);
  TiffHandle(TiffHandle&& other) noexcept;
  TiffHandle& operator=(TiffHandle&&) = delete;
  ~TiffHandle();
  TIFF* get() const { return tif_; }
  TiffErrors& errors() { return *errors_; }
  // What the I/O callbacks read from (defined in image_tiff.cc).
  struct Source;

 private:
  TiffHandle() = default;
  void Open();
  TIFF* tif_ = nullptr;
  Source* source_ = nullptr;
  TiffErrors* errors_ = nullptr;
};

// A temporary file unlinked at once; bounded memory for any source size.
class TempFile {
 public:
  TempFile();
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

}  // namespace lancet_image
