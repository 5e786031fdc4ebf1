// General compression on the write side (docs/format §8, "General"): LZ4 or zstd
// around a buffer, with the size prefix the reference reader expects.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lance_proto/encodings_v2_1.pb.h"
#include "lancet/result.h"

namespace lancet::encoding {

/// Compresses `input` as one General buffer: LZ4 gives a u32 LE size plus a raw LZ4
/// block, zstd a u64 LE size plus a zstd frame. `level` is used by zstd only.
/// InvalidArgument for an unknown scheme, Internal if the library fails.
Result<std::vector<uint8_t>> CompressGeneral(::lance::encodings21::CompressionScheme scheme, int32_t level,
                                             std::span<const uint8_t> input);

}  // namespace lancet::encoding
