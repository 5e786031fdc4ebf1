// Parquet value and level encodings used by the writer (spec: apache/parquet-format,
// Encodings.md): the RLE/bit-packed hybrid for definition/repetition levels, booleans
// and dictionary indices. Bytes in, bytes out; no I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace lancet::format::parquet {

/// Bits needed for values in [0, max_value]: 0 for 0, else floor(log2(max_value)) + 1.
int BitWidthFor(uint64_t max_value);

/// \brief Appends `values` in the RLE/bit-packed hybrid at `bit_width` (no length prefix).
///
/// Runs of 8 or more equal values become RLE runs; the rest are bit-packed in groups of
/// eight, the last group padded with zeros (readers stop at the count they know).
/// REQUIRES: every value fits in bit_width bits, bit_width <= 32.
void AppendRleBitPacked(std::span<const uint32_t> values, int bit_width, std::string* out);

/// Levels of a data page v1: a 4-byte little-endian length, then the hybrid encoding.
void AppendLevelsV1(std::span<const uint32_t> levels, int bit_width, std::string* out);

/// PLAIN booleans: one bit per value, LSB first.
void AppendPlainBools(std::span<const uint8_t> values, std::string* out);

}  // namespace lancet::format::parquet
