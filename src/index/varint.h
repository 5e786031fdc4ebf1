// LEB128 varints of u32 (7 bits a byte, low first, high bit = more), as the reference's
// inverted index writes them in posting tails, impacts and position tails. Internal to
// the index layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lancet::index {

inline void PutVarint32(std::string* out, uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

/// Reads a varint at `*pos` of [data, data + size) and advances `*pos`; false when it
/// runs past the end or does not fit u32 (the writer never emits either).
inline bool GetVarint32(const uint8_t* data, size_t size, size_t* pos, uint32_t* v) {
  uint32_t result = 0;
  for (uint32_t shift = 0; shift < 35; shift += 7) {
    if (*pos >= size) return false;
    const uint32_t byte = data[(*pos)++];
    if (shift == 28 && byte > 0x0f) return false;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

}  // namespace lancet::index
