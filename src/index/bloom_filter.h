// BloomFilter: a split-block Bloom filter and a has-null flag per zone of rows, in
// bloomfilter.lance (the reference's layout, docs/index-format-notes §2.5). The
// factories are in scalar_index.h.
#pragma once

#include <cstdint>
#include <span>

#include "lancet/array.h"

namespace lancet::index {

inline constexpr const char* kBloomFilterFile = "bloomfilter.lance";
/// Schema metadata keys (the reference's), and the build params they record.
inline constexpr const char* kBloomItemsKey = "bloomfilter_item";
inline constexpr const char* kBloomProbabilityKey = "bloomfilter_probability";
inline constexpr const char* kBloomItemsParam = "number_of_items";
inline constexpr const char* kBloomProbabilityParam = "probability";
/// Rows a zone holds at most, and the distinct values its filter is sized for.
inline constexpr uint64_t kBloomDefaultItems = 8192;
inline constexpr double kBloomDefaultProbability = 0.00057;

/// Whether the reference can build and query a bloom filter over `type`: integers,
/// float32/64, dates, times, timestamps, utf8 and binary (large too). Not bool or float16.
bool BloomFilterSupports(const DataType& type);

/// The bytes valid value i of `a` is hashed as: a fixed-width value's little-endian
/// bytes, a string's or binary's own bytes. REQUIRES: BloomFilterSupports(a.type).
std::span<const uint8_t> BloomValueBytes(const Array& a, int64_t i);

}  // namespace lancet::index
