// xxHash64 (Yann Collet's non-cryptographic hash), the hash the reference's bloom
// filters key their bits by. Internal to the index layer.
#pragma once

#include <cstdint>
#include <span>

namespace lancet::index {

/// The 64-bit xxHash of `data` with `seed`, as the published XXH64 specification defines it.
uint64_t XxHash64(std::span<const uint8_t> data, uint64_t seed = 0);

}  // namespace lancet::index
