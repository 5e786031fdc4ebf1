#include "index/bitpack128.h"

#include <array>
#include <bit>
#include <cstring>
#include <utility>

namespace lancet::index::bitpack {
namespace {

static_assert(std::endian::native == std::endian::little, "packed words are read as little-endian u32");

// Each width gets its own fully unrolled body: with `kBits` a constant every shift
// and word index is a constant too, and the 4-lane inner loops become vector code.
template <uint32_t kBits>
void UnpackFixed(const uint8_t* in, uint32_t* out) {
  if constexpr (kBits == 0) {
    std::memset(out, 0, kGroup * sizeof(uint32_t));
  } else {
    uint32_t words[4 * kBits];
    std::memcpy(words, in, sizeof(words));
    constexpr uint32_t kMask = kBits == 32 ? ~uint32_t{0} : (uint32_t{1} << kBits) - 1;
    [&]<size_t... J>(std::index_sequence<J...>) {
      (
          [&] {
            constexpr uint32_t kBit = J * kBits;
            constexpr uint32_t kWord = kBit / 32, kShift = kBit % 32;
            for (uint32_t l = 0; l < 4; ++l) {
              uint32_t v = words[4 * kWord + l] >> kShift;
              if constexpr (kShift + kBits > 32) v |= words[4 * (kWord + 1) + l] << (32 - kShift);
              out[4 * J + l] = v & kMask;
            }
          }(),
          ...);
    }
    (std::make_index_sequence<32>{});
  }
}

template <uint32_t kBits>
void PackFixed(const uint32_t* values, uint8_t* out) {
  if constexpr (kBits > 0) {
    uint32_t words[4 * kBits] = {};
    for (uint32_t j = 0; j < 32; ++j) {
      const uint32_t bit = j * kBits, word = bit / 32, shift = bit % 32;
      for (uint32_t l = 0; l < 4; ++l) {
        const uint32_t v = values[4 * j + l];
        words[4 * word + l] |= v << shift;
        if (shift + kBits > 32) words[4 * (word + 1) + l] |= v >> (32 - shift);
      }
    }
    std::memcpy(out, words, sizeof(words));
  }
}

using UnpackFn = void (*)(const uint8_t*, uint32_t*);
using PackFn = void (*)(const uint32_t*, uint8_t*);

template <size_t... B>
constexpr std::array<UnpackFn, 33> UnpackTable(std::index_sequence<B...>) {
  return {&UnpackFixed<B>...};
}
template <size_t... B>
constexpr std::array<PackFn, 33> PackTable(std::index_sequence<B...>) {
  return {&PackFixed<B>...};
}
constexpr auto kUnpack = UnpackTable(std::make_index_sequence<33>{});
constexpr auto kPack = PackTable(std::make_index_sequence<33>{});

}  // namespace

uint32_t MaxBits(const uint32_t* values) {
  uint32_t any = 0;
  for (size_t i = 0; i < kGroup; ++i) any |= values[i];
  return static_cast<uint32_t>(std::bit_width(any));
}

uint32_t MaxBitsSorted(const uint32_t* values) {
  uint32_t any = 0;
  for (size_t i = 1; i < kGroup; ++i) any |= values[i] - values[i - 1];
  return static_cast<uint32_t>(std::bit_width(any));
}

void Pack(const uint32_t* values, uint32_t bits, uint8_t* out) { kPack[bits](values, out); }

void PackSorted(const uint32_t* values, uint32_t bits, uint8_t* out) {
  uint32_t deltas[kGroup];
  deltas[0] = 0;
  for (size_t i = 1; i < kGroup; ++i) deltas[i] = values[i] - values[i - 1];
  kPack[bits](deltas, out);
}

void Unpack(const uint8_t* in, uint32_t bits, uint32_t* values) { kUnpack[bits](in, values); }

void UnpackSorted(const uint8_t* in, uint32_t bits, uint32_t initial, uint32_t* values) {
  kUnpack[bits](in, values);
  uint32_t acc = initial;
  for (size_t i = 0; i < kGroup; ++i) values[i] = acc += values[i];
}

}  // namespace lancet::index::bitpack
