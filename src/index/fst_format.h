// Layout facts of the `fst` crate's (0.4) byte format shared by the map's reader and
// builder. Internal to the index layer.
//
// A file is: version u64 LE, type u64 LE, the nodes (each written after its children, so
// every transition points to a lower address), key count u64 LE, root address u64 LE and,
// from version 3, a masked CRC-32C u32 LE of everything before it. A node's address is its
// LAST byte (its state byte); the node's other fields sit below it.
#pragma once

#include <cstdint>
#include <span>

namespace lancet::index::fst {

inline constexpr uint64_t kVersion = 3;
inline constexpr uint64_t kHeaderSize = 16;
// A final node with no transitions and no output is never written; transitions to it
// (and a root that is it) use this address, which the header occupies.
inline constexpr uint64_t kEmptyAddress = 0;
// "Any" nodes with more transitions than this also carry a 256-byte input → index table.
inline constexpr uint32_t kTransIndexThreshold = 32;

// State byte: top two bits select the node kind.
inline constexpr uint8_t kOneTransNext = 0b11;  // one transition to the node written just before
inline constexpr uint8_t kOneTrans = 0b10;      // one transition with its own address/output
// 0b00 / 0b01: "any" node; bit 6 is the final flag.

/// The 6-bit code of `input` when it is one of the 63 bytes a state byte can hold
/// directly, else 0 (the input then takes its own byte below the state byte).
uint8_t CommonInputCode(uint8_t input);
/// The input byte of a nonzero code from CommonInputCode.
uint8_t CommonInputByte(uint8_t code);

/// Bytes needed for `v` as a little-endian unsigned (1..8; 0 needs 1).
inline uint8_t PackSize(uint64_t v) {
  uint8_t n = 1;
  while (n < 8 && (v >> (8 * n)) != 0) ++n;
  return n;
}

inline uint64_t UnpackUint(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

/// The footer checksum: CRC-32C, rotated and offset as Snappy's framing "masks" it.
uint32_t MaskedChecksum(std::span<const uint8_t> data);

}  // namespace lancet::index::fst
