// RowAddrTreeMap, the reference's serialized set of row addresses: a u32 fragment
// count, then per fragment its u32 id, u32 byte length and a portable 32-bit Roaring
// bitmap of offsets (length 0: every row of the fragment). Bitmap posting lists and
// LabelList's null rows use it. Internal to the index layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <roaring/roaring64map.hh>

#include "lancet/result.h"

namespace lancet::index {

/// Whole-fragment entries one decode, or a search's decodes together, may hold: each
/// costs CRoaring a full 32-bit bitmap (a few MB), so hostile bytes cannot make a
/// search allocate without bound. The reference writes none.
inline constexpr uint32_t kMaxWholeFragments = 16;

/// The bytes of `rows`, fragments ascending, each bitmap in the portable format
/// without run containers (cookie 12346), as the reference writes.
std::vector<uint8_t> EncodeRowAddrMap(const Roaring64Map& rows);

/// Decodes `bytes` (exactly one map). A whole fragment becomes the addresses
/// [frag << 32, (frag + 1) << 32). Corruption naming `where` for anything malformed:
/// lengths past the end, fragment ids not ascending, a bitmap that is not portable
/// Roaring or leaves bytes over, or more whole fragments than `*whole_left` (which is
/// decremented; kMaxWholeFragments when null).
Result<Roaring64Map> DecodeRowAddrMap(std::span<const uint8_t> bytes, const std::string& where,
                                      uint32_t* whole_left = nullptr);

}  // namespace lancet::index
