// Run-length encoding on the write side (docs/format §8, "Rle"): run values in
// the type's width and u8 run lengths, a run longer than 255 split into
// several.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace lancet::encoding {

/// Longest run one u8 length can describe.
inline constexpr uint64_t kMaxRleRun = 255;

/// Number of maximal runs of equal values (the reference's RunCount statistic,
/// which ignores the 255 limit).
template <typename T>
uint64_t CountRuns(std::span<const T> values);

/// Appends the RLE form of `values` to `run_values` (sizeof(T) bytes a run) and
/// `run_lengths` (one byte a run).
template <typename T>
void RleEncode(std::span<const T> values, std::vector<uint8_t>* run_values, std::vector<uint8_t>* run_lengths);

}  // namespace lancet::encoding
