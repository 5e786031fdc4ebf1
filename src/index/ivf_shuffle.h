// Groups (row, payload) pairs by IVF partition for a build, within a memory budget:
// past the budget the buffered groups go to one temporary spill file, and reading a
// partition back gathers its pieces in the order they were added. Internal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::index {

class PartitionShuffler {
 public:
  /// `payload_bytes` per row (raw vector, PQ or SQ codes); `budget` bytes buffered.
  PartitionShuffler(uint32_t num_partitions, size_t payload_bytes, uint64_t budget);
  ~PartitionShuffler();
  PartitionShuffler(const PartitionShuffler&) = delete;
  PartitionShuffler& operator=(const PartitionShuffler&) = delete;

  Status Add(uint32_t partition, uint64_t row, const uint8_t* payload);
  uint64_t count(uint32_t partition) const { return counts_[partition]; }
  uint32_t num_partitions() const { return static_cast<uint32_t>(counts_.size()); }
  bool spilled() const { return spill_ != nullptr; }
  /// Partition `p`'s rows and payloads (count(p) of each). Call once all rows are added.
  Status Read(uint32_t p, std::vector<uint64_t>* rows, std::vector<uint8_t>* payloads);

 private:
  struct Piece {
    uint64_t offset;  // in the spill file: rows, then payloads
    uint64_t n;
  };
  Status Spill();

  size_t payload_bytes_;
  uint64_t budget_;
  uint64_t buffered_ = 0;
  std::vector<uint64_t> counts_;
  std::vector<std::vector<uint64_t>> rows_;
  std::vector<std::vector<uint8_t>> payloads_;
  std::vector<std::vector<Piece>> pieces_;
  std::FILE* spill_ = nullptr;
  uint64_t spill_size_ = 0;
};

}  // namespace lancet::index
