// Dictionary encoding on the write side (docs/format §8, mini-block
// dictionaries): variable-width values become u32 indices into a page
// dictionary of distinct items.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace lancet::encoding {

struct VariableDictionary {
  std::vector<uint32_t> indices;       // one a value
  std::vector<uint32_t> item_offsets;  // items + 1, from 0
  std::vector<uint8_t> item_data;
  uint64_t num_items() const { return item_offsets.size() - 1; }
};

/// Dictionary-encodes values i = [0, offsets.size()-1), value i being
/// data[offsets[i], offsets[i+1]). Items are numbered in order of first use.
/// Gives up (nullopt) as soon as there are more than `max_items` distinct
/// values or the items would not fit 32-bit offsets, so a hopeless attempt
/// costs little.
std::optional<VariableDictionary> BuildVariableDictionary(std::span<const uint8_t> data,
                                                          std::span<const uint64_t> offsets, uint64_t max_items);

/// Distinct values among the first `sample` values (at most), to rule out a
/// dictionary cheaply before building one.
uint64_t SampleCardinality(std::span<const uint8_t> data, std::span<const uint64_t> offsets, uint64_t sample);

/// Dictionary-encodes `n` fixed-width values of `width` bytes each; items go to
/// item_data back to back (item_offsets stays {0}). Gives up like BuildVariableDictionary.
std::optional<VariableDictionary> BuildFixedDictionary(const uint8_t* data, uint64_t n, uint64_t width,
                                                       uint64_t max_items);

/// Distinct values among the first `sample` fixed-width values of `width` bytes.
uint64_t SampleFixedCardinality(const uint8_t* data, uint64_t sample, uint64_t width);

/// The block form of Variable (the reference's VariableEncoder): u32 offset
/// width (32), u32 start of the bytes, the u32 offsets, then the bytes.
std::vector<uint8_t> EncodeVariableBlock(std::span<const uint32_t> offsets, std::span<const uint8_t> data);

}  // namespace lancet::encoding
