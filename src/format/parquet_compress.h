// Page compression for Parquet (spec: apache/parquet-format, Compression.md): SNAPPY
// (raw snappy blocks), GZIP (a gzip member, RFC 1952), ZSTD (a zstd frame) and LZ4_RAW
// (one LZ4 block without framing).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "format/parquet_metadata.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// Compresses `data` with `codec` into `out` (replacing its contents). `level` 0 picks
/// the codec's default; SNAPPY and LZ4_RAW ignore it. NotSupported for LZO, BROTLI and
/// the legacy LZ4 (framed Hadoop blocks), which the writer never produces.
Status CompressPage(Codec codec, int level, std::span<const uint8_t> data, std::string* out);

}  // namespace lancet::format::parquet
