#include "lancet/io/latency_store.h"

#include <mutex>
#include <optional>
#include <thread>

namespace lancet::io {
namespace {

using Counter = std::shared_ptr<std::atomic<uint64_t>>;

void Wait(std::chrono::microseconds latency) {
  if (latency.count() > 0) std::this_thread::sleep_for(latency);
}

// A ranged GET: the request's latency, then its bytes at the link's bandwidth.
std::chrono::microseconds ReadTime(std::chrono::microseconds latency, uint64_t bytes_per_second, uint64_t length) {
  if (bytes_per_second == 0) return latency;
  const double transfer_us = static_cast<double>(length) * 1e6 / static_cast<double>(bytes_per_second);
  return latency + std::chrono::microseconds(static_cast<int64_t>(transfer_us));
}

class LatencyFile final : public RandomAccessFile {
 public:
  LatencyFile(std::unique_ptr<RandomAccessFile> inner, std::chrono::microseconds latency, uint64_t bytes_per_second,
              std::shared_ptr<IoStats> stats, Counter metadata)
      : inner_(std::move(inner)),
        latency_(latency),
        bytes_per_second_(bytes_per_second),
        stats_(std::move(stats)),
        metadata_(std::move(metadata)) {}

  const std::string& path() const override { return inner_->path(); }
  IoStats* stats() const override { return stats_.get(); }
  // A remote read waits on the network, so ReadMany must overlap its requests.
  bool cheap_reads() const override { return false; }

  Result<uint64_t> Size() const override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!size_) {
      Wait(latency_);
      metadata_->fetch_add(1, std::memory_order_relaxed);
      ASSIGN_OR_RETURN(uint64_t size, inner_->Size());
      size_ = size;
    }
    return *size_;
  }

  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) const override {
    Wait(ReadTime(latency_, bytes_per_second_, length));
    ASSIGN_OR_RETURN(BufferPtr bytes, inner_->ReadAt(offset, length));
    stats_->RecordRead(length);
    return bytes;
  }

 private:
  std::unique_ptr<RandomAccessFile> inner_;
  std::chrono::microseconds latency_;
  uint64_t bytes_per_second_;
  std::shared_ptr<IoStats> stats_;
  Counter metadata_;
  mutable std::mutex mu_;
  mutable std::optional<uint64_t> size_;
};

// Counts the object's bytes in the wrapper's stats once the inner writer made it visible.
class CountingWriter final : public ObjectWriter {
 public:
  CountingWriter(std::unique_ptr<ObjectWriter> inner, std::shared_ptr<IoStats> stats)
      : inner_(std::move(inner)), stats_(std::move(stats)) {}
  Status Append(std::span<const uint8_t> bytes) override {
    RETURN_IF_ERROR(inner_->Append(bytes));
    written_ += bytes.size();
    return Status::OK();
  }
  Status Close() override {
    RETURN_IF_ERROR(inner_->Close());
    stats_->RecordWrite(written_);
    return Status::OK();
  }

 private:
  std::unique_ptr<ObjectWriter> inner_;
  std::shared_ptr<IoStats> stats_;
  uint64_t written_ = 0;
};

}  // namespace

LatencyStore::LatencyStore(std::shared_ptr<ObjectStore> inner, std::chrono::microseconds per_request,
                           uint64_t bytes_per_second)
    : inner_(std::move(inner)), per_request_(per_request), bytes_per_second_(bytes_per_second) {}

Result<std::unique_ptr<RandomAccessFile>> LatencyStore::OpenRead(const std::string& path) const {
  ASSIGN_OR_RETURN(auto file, inner_->OpenRead(path));
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<LatencyFile>(std::move(file), per_request_, bytes_per_second_, stats_, metadata_requests_));
}

Result<uint64_t> LatencyStore::Size(const std::string& path) const {
  Wait(per_request_);
  metadata_requests_->fetch_add(1, std::memory_order_relaxed);
  return inner_->Size(path);
}

Result<bool> LatencyStore::Exists(const std::string& path) const {
  Wait(per_request_);
  metadata_requests_->fetch_add(1, std::memory_order_relaxed);
  return inner_->Exists(path);
}

Result<std::vector<ObjectInfo>> LatencyStore::List(const std::string& dir) const {
  Wait(per_request_);
  metadata_requests_->fetch_add(1, std::memory_order_relaxed);
  return inner_->List(dir);
}

Status LatencyStore::Put(const std::string& path, std::span<const uint8_t> bytes) {
  RETURN_IF_ERROR(inner_->Put(path, bytes));
  stats_->RecordWrite(bytes.size());
  return Status::OK();
}

Status LatencyStore::PutIfAbsent(const std::string& path, std::span<const uint8_t> bytes) {
  RETURN_IF_ERROR(inner_->PutIfAbsent(path, bytes));
  stats_->RecordWrite(bytes.size());
  return Status::OK();
}

Result<std::unique_ptr<ObjectWriter>> LatencyStore::OpenWrite(const std::string& path) {
  ASSIGN_OR_RETURN(auto writer, inner_->OpenWrite(path));
  return std::unique_ptr<ObjectWriter>(std::make_unique<CountingWriter>(std::move(writer), stats_));
}

Status LatencyStore::Delete(const std::string& path) { return inner_->Delete(path); }

std::shared_ptr<LatencyStore> WithLatency(std::shared_ptr<ObjectStore> inner, std::chrono::microseconds per_request,
                                          uint64_t bytes_per_second) {
  return std::make_shared<LatencyStore>(std::move(inner), per_request, bytes_per_second);
}

}  // namespace lancet::io
