// Decompression of Parquet page bodies (the CompressionCodec enum of parquet.thrift,
// Compression.md): every codec's output length is known from the page header, so each
// decompresses into exactly that many bytes or fails.
#pragma once

#include <cstdint>
#include <span>

#include "format/parquet_metadata.h"
#include "lancet/buffer.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// Decompresses `input` into exactly `uncompressed_size` bytes. Corruption when the codec
/// rejects the input or its output length differs; NotSupported for LZO and BROTLI.
/// The caller bounds `uncompressed_size` before calling. Thread-safe.
Result<BufferPtr> DecompressPage(Codec codec, std::span<const uint8_t> input, uint64_t uncompressed_size);

}  // namespace lancet::format::parquet
