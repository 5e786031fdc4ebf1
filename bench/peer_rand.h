// The peer's deterministic choices (tests/peer/lib/build.mjs): mulberry32 seeded with
// fnv1a32("<seed>:<label>"), so our benchmarks pick the rows and offsets bench.mjs picks.
#pragma once

#include <cstdint>
#include <string>

namespace lancet::bench {

inline uint32_t Fnv1a32(const std::string& s) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : s) h = (h ^ c) * 0x01000193u;
  return h;
}

struct Rand {
  uint32_t a;
  Rand(uint64_t seed, const std::string& label) : a(Fnv1a32(std::to_string(seed) + ":" + label)) {}
  uint32_t U32() {
    a += 0x6D2B79F5u;
    uint32_t t = a;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return t ^ (t >> 14);
  }
  double Float() { return U32() / 4294967296.0; }
};

}  // namespace lancet::bench
