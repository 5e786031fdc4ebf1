// Data storage versions Lancet reads and writes.
#pragma once

#include <cstdint>

namespace lancet::table {

/// 2.2 is what lance 12 writes. 2.3 is Lancet's extension of 2.2: Blob V2 descriptors
/// carry blob_info, and readers that do not know it refuse the dataset (reader
/// feature flag kBlobInfoFeatureFlag).
enum class StorageVersion : uint8_t { k2_2, k2_3 };

/// The reader/writer feature flag of format-2.3 datasets: a bit far above the
/// reference's flags, which lance 12 refuses as unknown.
inline constexpr uint64_t kBlobInfoFeatureFlag = uint64_t{1} << 32;

}  // namespace lancet::table
