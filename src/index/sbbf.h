// The split-block Bloom filter (Parquet's SBBF layout) the reference's BloomFilter
// index stores per zone. Internal to the index layer.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lancet/result.h"

namespace lancet::index {

/// \brief Blocks of 32 bytes, each eight little-endian u32 words; a hash sets one bit in
/// every word of one block. Not thread-safe to Insert into; Check is const.
class Sbbf {
 public:
  static constexpr uint64_t kBlockBytes = 32;
  static constexpr uint64_t kMinBytes = 32;
  static constexpr uint64_t kMaxBytes = 128ULL << 20;

  /// The size the reference picks for `ndv` distinct values at false-positive rate
  /// `fpp`: the smallest power of two whose Putze estimate is <= fpp, clamped to
  /// [kMinBytes, kMaxBytes]. InvalidArgument unless 0 <= fpp < 1.
  static Result<uint64_t> BytesFor(uint64_t ndv, double fpp);

  /// An empty filter of `num_bytes` (a multiple of kBlockBytes in [kMinBytes, kMaxBytes]).
  static Result<Sbbf> Empty(uint64_t num_bytes);
  /// A filter over stored bytes; InvalidArgument when their length is not a multiple
  /// of kBlockBytes in [kMinBytes, kMaxBytes].
  static Result<Sbbf> Load(std::span<const uint8_t> bytes);

  void Insert(uint64_t hash);
  /// False only when `hash` was never inserted.
  bool Check(uint64_t hash) const;

  /// The filter as stored: blocks in order, words little-endian.
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  explicit Sbbf(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  uint8_t* Block(uint64_t hash);
  const uint8_t* Block(uint64_t hash) const;

  std::vector<uint8_t> bytes_;
};

}  // namespace lancet::index
