// Partition shuffling with a spill file for builds larger than the memory budget.
#include "index/ivf_shuffle.h"

#include <cerrno>
#include <cstring>

namespace lancet::index {

PartitionShuffler::PartitionShuffler(uint32_t num_partitions, size_t payload_bytes, uint64_t budget)
    : payload_bytes_(payload_bytes),
      budget_(budget),
      counts_(num_partitions),
      rows_(num_partitions),
      payloads_(num_partitions),
      pieces_(num_partitions) {}

PartitionShuffler::~PartitionShuffler() {
  if (spill_) std::fclose(spill_);  // tmpfile: removed on close
}

Status PartitionShuffler::Add(uint32_t partition, uint64_t row, const uint8_t* payload) {
  rows_[partition].push_back(row);
  payloads_[partition].insert(payloads_[partition].end(), payload, payload + payload_bytes_);
  ++counts_[partition];
  buffered_ += 8 + payload_bytes_;
  if (buffered_ > budget_) return Spill();
  return Status::OK();
}

Status PartitionShuffler::Spill() {
  if (!spill_) {
    spill_ = std::tmpfile();
    if (!spill_)
      return Status::IOError(std::string("vector index build: cannot create a spill file: ") + std::strerror(errno));
  }
  for (size_t p = 0; p < rows_.size(); ++p) {
    const uint64_t n = rows_[p].size();
    if (n == 0) continue;
    if (std::fwrite(rows_[p].data(), 8, n, spill_) != n ||
        std::fwrite(payloads_[p].data(), 1, payloads_[p].size(), spill_) != payloads_[p].size()) {
      return Status::IOError(std::string("vector index build: writing the spill file failed: ") + std::strerror(errno));
    }
    pieces_[p].push_back({spill_size_, n});
    spill_size_ += n * (8 + payload_bytes_);
    std::vector<uint64_t>().swap(rows_[p]);
    std::vector<uint8_t>().swap(payloads_[p]);
  }
  buffered_ = 0;
  return Status::OK();
}

Status PartitionShuffler::Read(uint32_t p, std::vector<uint64_t>* rows, std::vector<uint8_t>* payloads) {
  rows->clear();
  payloads->clear();
  rows->reserve(counts_[p]);
  payloads->reserve(counts_[p] * payload_bytes_);
  if (spill_ && !pieces_[p].empty() && std::fflush(spill_) != 0) {
    return Status::IOError("vector index build: flushing the spill file failed");
  }
  for (const Piece& piece : pieces_[p]) {
    const size_t r0 = rows->size(), b0 = payloads->size();
    rows->resize(r0 + piece.n);
    payloads->resize(b0 + piece.n * payload_bytes_);
    if (fseeko(spill_, static_cast<off_t>(piece.offset), SEEK_SET) != 0 ||
        std::fread(rows->data() + r0, 8, piece.n, spill_) != piece.n ||
        std::fread(payloads->data() + b0, 1, piece.n * payload_bytes_, spill_) != piece.n * payload_bytes_) {
      return Status::IOError("vector index build: reading the spill file back failed");
    }
  }
  rows->insert(rows->end(), rows_[p].begin(), rows_[p].end());
  payloads->insert(payloads->end(), payloads_[p].begin(), payloads_[p].end());
  if (spill_ && fseeko(spill_, 0, SEEK_END) != 0) return Status::IOError("vector index build: spill file seek failed");
  return Status::OK();
}

}  // namespace lancet::index
