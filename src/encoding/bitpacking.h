// FastLanes bit-packing of 1024-value blocks (docs/format §8), the layout used by
// InlineBitpacking and OutOfLineBitpacking. Encoders live here for tests and the writer.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lancet/buffer.h"

namespace lancet::encoding {

/// Values per FastLanes block.
inline constexpr uint64_t kFastLanesBlock = 1024;

/// Words of T that one block packed at `width` bits occupies: 1024*width/bits(T).
template <typename T>
constexpr uint64_t FastLanesWords(uint32_t width) {
  return kFastLanesBlock * width / (sizeof(T) * 8);
}

/// Packs exactly 1024 values at `width` bits (0..bits(T)) into FastLanesWords<T>(width)
/// words in FastLanes transposed order. Bits above `width` are dropped.
/// REQUIRES: in.size() == 1024, out.size() == FastLanesWords<T>(width).
template <typename T>
void FastLanesPack(std::span<const T> in, uint32_t width, std::span<T> out);

/// The inverse of FastLanesPack. REQUIRES: same sizes as FastLanesPack.
template <typename T>
void FastLanesUnpack(std::span<const T> in, uint32_t width, std::span<T> out);

/// Value `index` (< 1024) of a block FastLanesPack packed at `width` bits, read straight
/// from its FastLanesWords<T>(width) words at `packed` (any alignment): a take of one
/// value costs one or two word loads instead of unpacking the block.
template <typename T>
T FastLanesGet(const uint8_t* packed, uint32_t width, uint32_t index);

/// Smallest width that holds every value (0 for all zeros).
template <typename T>
uint32_t RequiredBitWidth(std::span<const T> values);

/// Encodes values as InlineBitpacking mini-block chunks: one chunk per 1024 values (the
/// last zero-padded), each a T header holding the width and then the packed words.
/// Returns the chunks in order; `width` < 0 means the smallest width per chunk.
template <typename T>
std::vector<std::vector<uint8_t>> InlineBitpackChunks(std::span<const T> values, int width = -1);

/// Encodes values as an OutOfLineBitpacking block at `width` bits, with the reference's
/// rule for the tail (packed as a padded block when that is smaller, else raw words).
template <typename T>
std::vector<uint8_t> OutOfLineBitpack(std::span<const T> values, uint32_t width);

}  // namespace lancet::encoding
