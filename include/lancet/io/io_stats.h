// IoStats: counts of read requests and bytes, for callers and tests.
#pragma once

#include <atomic>
#include <cstdint>

namespace lancet::io {

/// A snapshot of I/O counters.
struct IoCounters {
  uint64_t read_requests = 0;  // physical requests issued to the store (after merging)
  uint64_t read_bytes = 0;     // bytes those requests returned
  uint64_t logical_ranges = 0; // ranges callers asked for (before merging)
  uint64_t write_requests = 0;
  uint64_t write_bytes = 0;
};

/// \brief Thread-safe I/O counters. Every ObjectStore read is recorded here.
class IoStats {
 public:
  void RecordRead(uint64_t bytes) {
    read_requests_.fetch_add(1, std::memory_order_relaxed);
    read_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  void RecordLogical(uint64_t ranges) { logical_ranges_.fetch_add(ranges, std::memory_order_relaxed); }
  void RecordWrite(uint64_t bytes) {
    write_requests_.fetch_add(1, std::memory_order_relaxed);
    write_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  IoCounters Snapshot() const {
    return {read_requests_.load(), read_bytes_.load(), logical_ranges_.load(), write_requests_.load(),
            write_bytes_.load()};
  }
  void Reset() {
    read_requests_ = 0; read_bytes_ = 0; logical_ranges_ = 0; write_requests_ = 0; write_bytes_ = 0;
  }

 private:
  std::atomic<uint64_t> read_requests_{0}, read_bytes_{0}, logical_ranges_{0}, write_requests_{0},
      write_bytes_{0};
};

}  // namespace lancet::io
