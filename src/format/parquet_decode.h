// Decoders for Parquet page values and levels (Encodings.md of apache/parquet-format):
// PLAIN, the RLE/bit-packed hybrid (levels, booleans, dictionary indices), the deprecated
// BIT_PACKED levels, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT. Bytes in, values out: no I/O. Every read is bounds-checked against the
// input, and outputs grow only as far as the caller's limits allow.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "format/parquet_metadata.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// \brief The values of one leaf column as stored: fixed-width little-endian values
/// (`width` bytes each; booleans one byte each) or, with width 0, byte arrays.
struct ValueBuffer {
  int32_t width = 0;
  std::vector<uint8_t> data;
  std::vector<uint64_t> offsets{0};  // byte arrays: value i is data[offsets[i], offsets[i+1])

  uint64_t size() const { return width > 0 ? data.size() / width : offsets.size() - 1; }
  /// Appends value i of `other` (same width).
  void AppendFrom(const ValueBuffer& other, uint64_t i);
};

/// Bytes per value of a physical type in a ValueBuffer (0 for BYTE_ARRAY).
int32_t PhysicalWidth(PhysicalType type, int32_t type_length);

/// \brief Reads the RLE/bit-packed hybrid encoding of `bit_width`-bit values (no length
/// prefix). A final bit-packed run may stop short of its declared groups.
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder(std::span<const uint8_t> data, int bit_width) : data_(data), bit_width_(bit_width) {}
  /// The next n values. Corruption when the data ends first or bit_width is over 32.
  Status Get(uint32_t* out, uint64_t n);

 private:
  Status NextRun();

  std::span<const uint8_t> data_;
  int bit_width_;
  size_t pos_ = 0;
  uint64_t run_left_ = 0;
  bool rle_ = false;
  uint32_t value_ = 0;
  size_t packed_begin_ = 0, packed_end_ = 0;
  uint64_t packed_index_ = 0;
};

/// Levels of the deprecated BIT_PACKED encoding (most significant bit first).
Status DecodeBitPackedLevels(std::span<const uint8_t> data, int bit_width, uint64_t n, uint32_t* out);

/// Bits needed for levels up to max_level.
int LevelBitWidth(int max_level);

/// Decodes DELTA_BINARY_PACKED integers into `out` (values wrap like the column's width);
/// the header's count must not exceed `max_values`. Returns the bytes consumed.
Result<size_t> DecodeDeltaBinaryPacked(std::span<const uint8_t> data, uint64_t max_values, std::vector<int64_t>* out);

/// \brief Decodes `n` non-null values of a data or dictionary page in `encoding` and
/// appends them to `out` (whose width matches the column). Dictionary encodings index
/// `dictionary` (Corruption when absent or out of range). `max_bytes` bounds how far
/// `out` may grow (DELTA_BYTE_ARRAY prefixes can multiply the input).
Status DecodeValues(Encoding encoding, PhysicalType type, std::span<const uint8_t> data, uint64_t n,
                    const ValueBuffer* dictionary, uint64_t max_bytes, ValueBuffer* out);

}  // namespace lancet::format::parquet
