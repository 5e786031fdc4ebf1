// The `_impacts` column of the reference's inverted index: per posting block, and per
// run of kImpactGroupBlocks blocks, the (frequency, doc length) pairs no other doc of
// the range dominates, so a query can bound a range's best score without decoding it.
// Internal to the index layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace lancet::index::fts {

/// Blocks a level-1 impact entry covers.
inline constexpr uint32_t kImpactGroupBlocks = 32;

/// One entry per posting block, then one per kImpactGroupBlocks blocks (the last group
/// may be shorter). Entry: varint last doc id of the range, varint pair count, then per
/// pair in ascending frequency the varint frequency increase and the varint doc length.
std::vector<std::string> EncodeImpacts(std::span<const uint32_t> doc_ids, std::span<const uint32_t> freqs,
                                       std::span<const uint32_t> doc_lengths);

}  // namespace lancet::index::fts
