// Bit helpers for Arrow-layout bitmaps (LSB-first: bit i is byte i/8, bit i%8).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "lancet/buffer.h"

namespace lancet::bit_util {

/// Bytes needed to hold `bits` bits. REQUIRES: bits >= 0.
constexpr int64_t BytesForBits(int64_t bits) { return (bits >> 3) + ((bits & 7) != 0); }

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }
inline void ClearBit(uint8_t* bits, int64_t i) { bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7))); }
inline void SetBitTo(uint8_t* bits, int64_t i, bool v) {
  if (v) {
    SetBit(bits, i);
  } else {
    ClearBit(bits, i);
  }
}

/// Number of set bits in [offset, offset+length) of `bits`.
/// REQUIRES: the bitmap holds at least offset+length bits.
inline int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  // Walk single bits up to a byte boundary, then whole 64-bit words, then the tail.
  for (; i < end && (i & 7) != 0; ++i) count += GetBit(bits, i);
  for (; i + 64 <= end; i += 64) {
    uint64_t word;
    std::memcpy(&word, bits + (i >> 3), sizeof(word));
    count += std::popcount(word);
  }
  for (; i + 8 <= end; i += 8) count += std::popcount(static_cast<unsigned>(bits[i >> 3]));
  for (; i < end; ++i) count += GetBit(bits, i);
  return count;
}

/// Copies `length` bits from src[src_offset...] to dst[dst_offset...].
inline void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst, int64_t dst_offset) {
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    const int64_t whole = length >> 3;
    std::memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), static_cast<size_t>(whole));
    for (int64_t k = whole * 8; k < length; ++k) SetBitTo(dst, dst_offset + k, GetBit(src, src_offset + k));
    return;
  }
  for (int64_t k = 0; k < length; ++k) SetBitTo(dst, dst_offset + k, GetBit(src, src_offset + k));
}

/// \brief Appends bits one at a time (or in runs) and hands back a Buffer.
///
/// Not thread-safe. Tracks how many zero bits were appended, which is the null
/// count when the bitmap is a validity bitmap.
class BitmapBuilder {
 public:
  void Reserve(int64_t bits) { bytes_.reserve(static_cast<size_t>(BytesForBits(bits))); }
  void Append(bool v) {
    if ((length_ & 7) == 0) bytes_.push_back(0);
    if (v) {
      bytes_.back() |= static_cast<uint8_t>(1u << (length_ & 7));
    } else {
      ++false_count_;
    }
    ++length_;
  }
  void AppendN(bool v, int64_t n) {
    for (; n > 0 && (length_ & 7) != 0; --n) Append(v);
    // Whole bytes at once: all-valid children of large takes and scans append millions.
    const int64_t whole = n >> 3;
    if (whole > 0) {
      bytes_.insert(bytes_.end(), static_cast<size_t>(whole), v ? uint8_t{0xFF} : uint8_t{0});
      length_ += whole * 8;
      if (!v) false_count_ += whole * 8;
      n -= whole * 8;
    }
    for (; n > 0; --n) Append(v);
  }
  /// Appends bits [offset, offset+length) of `bits`; a null `bits` means all set.
  void AppendBits(const uint8_t* bits, int64_t offset, int64_t length) {
    if (bits == nullptr) {
      AppendN(true, length);
      return;
    }
    for (; length > 0 && (length_ & 7) != 0; --length) Append(GetBit(bits, offset++));
    // The builder is at a byte boundary: build whole output bytes from two source bytes
    // (one when the source is aligned too).
    const int64_t whole = length >> 3;
    if (whole > 0) {
      const size_t at = bytes_.size();
      bytes_.resize(at + static_cast<size_t>(whole));
      uint8_t* out = bytes_.data() + at;
      const uint8_t* src = bits + (offset >> 3);
      const int shift = static_cast<int>(offset & 7);
      if (shift == 0) {
        std::memcpy(out, src, static_cast<size_t>(whole));
      } else {
        // With shift > 0 output byte k needs source bits up to offset+8k+7, which sit in
        // src[k + 1]: inside the bitmap, as those bits are appended.
        for (int64_t k = 0; k < whole; ++k) {
          out[k] = static_cast<uint8_t>((src[k] >> shift) | (static_cast<unsigned>(src[k + 1]) << (8 - shift)));
        }
      }
      int64_t set = 0;
      for (int64_t k = 0; k < whole; ++k) set += std::popcount(static_cast<unsigned>(out[k]));
      false_count_ += whole * 8 - set;
      length_ += whole * 8;
      offset += whole * 8;
      length -= whole * 8;
    }
    for (; length > 0; --length) Append(GetBit(bits, offset++));
  }
  int64_t length() const { return length_; }
  int64_t false_count() const { return false_count_; }
  std::shared_ptr<Buffer> Finish() {
    auto buffer = Buffer::FromVector(std::move(bytes_));
    bytes_.clear();
    length_ = 0;
    false_count_ = 0;
    return buffer;
  }

 private:
  std::vector<uint8_t> bytes_;
  int64_t length_ = 0;
  int64_t false_count_ = 0;
};

}  // namespace lancet::bit_util
