// 128-value bit packing in the layout of the `bitpacking` crate's BitPacker4x, which the
// reference's inverted index uses for posting blocks and position groups. Internal to
// the index layer.
//
// Layout: value i goes to lane i % 4 as that lane's (i / 4)-th value; each lane is a
// little-endian bit stream of `bits`-wide values cut into u32 words, and word w of lane
// l is stored at u32 index 4 * w + l. A packed group is therefore 16 * bits bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lancet::index::bitpack {

inline constexpr size_t kGroup = 128;

/// Bytes of a group packed `bits` (0..32) wide.
constexpr size_t PackedBytes(uint32_t bits) { return size_t{16} * bits; }

/// Bits needed for the largest of `values` (0 when all are 0).
uint32_t MaxBits(const uint32_t* values);

/// Bits needed for the largest difference `values[i] - values[i - 1]` (values[-1] being
/// values[0]); the values must ascend.
uint32_t MaxBitsSorted(const uint32_t* values);

/// Packs 128 `values` `bits` wide into PackedBytes(bits) bytes at `out`. Values must fit.
void Pack(const uint32_t* values, uint32_t bits, uint8_t* out);

/// Packs the successive differences of 128 ascending `values`, the first taken from
/// values[0] (so it is 0), as the crate's compress_sorted does.
void PackSorted(const uint32_t* values, uint32_t bits, uint8_t* out);

/// Unpacks PackedBytes(bits) bytes at `in` (any alignment) into 128 `values`. `bits`
/// must be at most 32.
void Unpack(const uint8_t* in, uint32_t bits, uint32_t* values);

/// Unpacks differences and adds them up from `initial` (wrapping, as the crate does).
void UnpackSorted(const uint8_t* in, uint32_t bits, uint32_t initial, uint32_t* values);

}  // namespace lancet::index::bitpack
