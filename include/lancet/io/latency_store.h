// A store wrapper that adds a fixed latency to every request, so benchmarks can show how
// a layout behaves on an object store (S3, GCS: milliseconds per request) from local disk.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lancet/io/object_store.h"

namespace lancet::io {

/// \brief Delegates to `inner` after sleeping `per_request` for each request an object
/// store would serve over the network, plus the transfer time of its bytes when a
/// bandwidth is set (`bytes_per_second` 0: unlimited). Thread-safe.
///
/// Charged: every RandomAccessFile::ReadAt (a ranged GET; ReadMany calls it once per
/// merged request, in parallel, since these files never report cheap_reads()); a file's
/// first Size() (a HEAD; later calls reuse it); store Size and Exists (a HEAD); List (a
/// LIST). Free: OpenRead (object store handles are lazy) and writes, which pass through.
/// stats() counts reads, logical ranges and writes like any store; metadata_requests()
/// counts the charged HEADs and LISTs. The inner store keeps counting on its own.
class LatencyStore final : public ObjectStore {
 public:
  LatencyStore(std::shared_ptr<ObjectStore> inner, std::chrono::microseconds per_request,
               uint64_t bytes_per_second = 0);

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) const override;
  Result<uint64_t> Size(const std::string& path) const override;
  Result<bool> Exists(const std::string& path) const override;
  Result<std::vector<ObjectInfo>> List(const std::string& dir) const override;
  Status Put(const std::string& path, std::span<const uint8_t> bytes) override;
  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> bytes) override;
  Result<std::unique_ptr<ObjectWriter>> OpenWrite(const std::string& path) override;
  Status Delete(const std::string& path) override;

  std::chrono::microseconds per_request() const { return per_request_; }
  uint64_t bytes_per_second() const { return bytes_per_second_; }
  /// HEAD and LIST requests charged so far (reads are in stats()).
  uint64_t metadata_requests() const { return metadata_requests_->load(std::memory_order_relaxed); }

 private:
  std::shared_ptr<ObjectStore> inner_;
  std::chrono::microseconds per_request_;
  uint64_t bytes_per_second_ = 0;
  std::shared_ptr<std::atomic<uint64_t>> metadata_requests_ = std::make_shared<std::atomic<uint64_t>>(0);
};

/// `inner` behind a LatencyStore of `per_request` per request (and `bytes_per_second`
/// per ranged GET, 0 = unlimited).
std::shared_ptr<LatencyStore> WithLatency(std::shared_ptr<ObjectStore> inner, std::chrono::microseconds per_request,
                                          uint64_t bytes_per_second = 0);

}  // namespace lancet::io
