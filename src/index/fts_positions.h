// The shared position stream of the reference's inverted index (positions_layout
// shared_stream_v2, positions_codec packed_delta_v1): per posting block, the block's
// docs' positions as deltas (each doc restarting from 0), cut into groups of 128 packed
// as bitpack128 with a one-byte width, and the last < 128 as varints. Internal to the
// index layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace lancet::index::fts {

/// Appends the position block of `docs` (each doc's positions, ascending) to `out`.
void EncodePositionBlock(std::span<const std::vector<uint32_t>> docs, std::string* out);

}  // namespace lancet::index::fts
