// The `_impacts` column of the reference's inverted index: per posting block, and per
// run of kImpactGroupBlocks blocks, the (frequency, doc length) pairs no other doc of
// the range dominates, so a query can bound a range's best score without decoding it.
// Internal to the index layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lancet/status.h"

namespace lancet::index::fts {

/// Blocks a level-1 impact entry covers.
inline constexpr uint32_t kImpactGroupBlocks = 32;

/// A doc length as a one-byte code (Lucene SmallFloat style): 0..7 as themselves, larger
/// lengths by their top four significant bits and a shift. Monotone, so it keeps which
/// of two lengths is shorter (or makes them equal).
uint32_t QuantizeDocLength(uint32_t length);
/// The shortest length of a code's bucket (saturating at 2^32 - 1 for codes no length
/// produces).
uint32_t DequantizeDocLength(uint32_t code);

/// One entry per posting block, then one per kImpactGroupBlocks blocks (the last group
/// may be shorter). Entry: varint last doc id of the range, varint pair count, then per
/// (frequency, length code) pair in ascending frequency (and so ascending code) a
/// varint64 ((frequency step - 1) << 1 | code step != 1), followed by the code step as
/// one byte when it is not 1. Steps are from (0, 0).
std::vector<std::string> EncodeImpacts(std::span<const uint32_t> doc_ids, std::span<const uint32_t> freqs,
                                       std::span<const uint32_t> doc_lengths);

/// One impact entry: the last doc id of its range and its (frequency, shortest length of
/// the code's bucket) pairs, replacing `pairs`. Corruption naming `what` unless the
/// bytes are exactly such an entry with ascending frequencies and codes.
Status DecodeImpactEntry(std::string_view entry, uint32_t* doc_up_to, std::vector<std::pair<uint32_t, uint32_t>>* pairs,
                         std::string_view what);

}  // namespace lancet::index::fts
