// A bounded pipe between a thread that is handed bytes (an HTTP transfer's callbacks) and
// one that pulls them (an Arrow IPC reader): the writer waits while `capacity` bytes are
// unread, so memory holds a few MiB however long the stream is.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "lancet/io/input_stream.h"
#include "lancet/status.h"

namespace lancet::catalog::internal {

class BytePipe : public std::enable_shared_from_this<BytePipe> {
 public:
  explicit BytePipe(size_t capacity = size_t{4} << 20) : capacity_(capacity) {}

  /// Queues `bytes`, waiting for room. False once the reader is gone (then nothing more
  /// is wanted).
  bool Write(std::string_view bytes);
  /// Ends the stream: the reader sees the end after the queued bytes, or `error` (an
  /// IOError naming what broke) in their place when it is not OK.
  void Close(Status error = Status::OK());
  /// Waits until something is queued or the stream ended; true when bytes are queued.
  bool WaitForData();
  /// The reading end (one per pipe); destroying it tells the writer to stop.
  std::unique_ptr<io::InputStream> Reader(std::string name);

 private:
  friend class PipeReader;
  size_t capacity_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> chunks_;
  size_t queued_ = 0;
  size_t front_offset_ = 0;
  bool closed_ = false;
  Status error_;
  bool reader_gone_ = false;
};

}  // namespace lancet::catalog::internal
