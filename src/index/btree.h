// The BTree index's files (docs index-format-notes §2.1): page_data.lance holds every
// (value, row id) sorted by value, nulls first and NaN last, in pages of batch_size
// rows; page_lookup.lance holds each page's first and last value and null count.
// Internal to the index layer.
#pragma once

#include <cstdint>

namespace lancet::index {

inline constexpr const char* kBTreePageData = "page_data.lance";
inline constexpr const char* kBTreePageLookup = "page_lookup.lance";
inline constexpr const char* kBTreeBatchSizeKey = "batch_size";
inline constexpr const char* kBTreeRangePartitionedKey = "range_partitioned";
/// Rows per page the reference writes, and assumes when page_lookup does not say.
inline constexpr uint64_t kBTreeDefaultBatchSize = 4096;

}  // namespace lancet::index
