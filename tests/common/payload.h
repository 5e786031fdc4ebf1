// Deterministic, position-dependent test bytes: a shifted, swapped or truncated range
// shows up as a mismatch. Shared by every test directory (header-only).
#pragma once

#include <cstdint>
#include <string>

namespace lancet::testing {

/// `size` bytes from a xorshift stream seeded by `seed`.
inline std::string Payload(uint64_t seed, uint64_t size) {
  std::string s(size, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (uint64_t i = 0; i < size; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s[i] = static_cast<char>(x);
  }
  return s;
}

}  // namespace lancet::testing
