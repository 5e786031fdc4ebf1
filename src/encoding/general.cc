// General: LZ4 or zstd around the child's bytes (docs/format §8).
//   LZ4:  u32 LE uncompressed size, then one raw LZ4 block.
//   zstd: u64 LE uncompressed size, then a zstd frame; a bare frame is also accepted.
#include <lz4.h>
#include <zstd.h>

#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

namespace {

constexpr uint32_t kZstdMagic = 0xFD2FB528;
// Frame header descriptor bit that a valid zstd frame leaves clear; a size prefix that
// happens to start with the magic is told apart by it (the reference does the same).
constexpr uint8_t kZstdReservedBit = 0x10;

Result<BufferPtr> Lz4Decompress(std::span<const uint8_t> in) {
  if (in.size() < 4) return Corrupt("LZ4: ", in.size(), " bytes cannot hold the 4-byte size prefix");
  uint64_t size = LoadLE<uint32_t>(in.data());
  uint64_t payload = in.size() - 4;
  // LZ4 expands at most ~255x; a larger claim cannot come from this input.
  if (size > payload * 255 + 16) {
    return Corrupt("LZ4: claimed size ", size, " is impossible for ", payload, " compressed bytes");
  }
  if (payload > INT32_MAX || size > INT32_MAX) return Corrupt("LZ4: block too large (", size, " bytes)");
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(size));
  int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + 4), reinterpret_cast<char*>(out->mutable_data()),
                                static_cast<int>(payload), static_cast<int>(size));
  if (got < 0) return Corrupt("LZ4: malformed block");
  if (static_cast<uint64_t>(got) != size) {
    return Corrupt("LZ4: block decompressed to ", got, " bytes, the prefix says ", size);
  }
  return BufferPtr(std::move(out));
}

bool IsBareZstdFrame(std::span<const uint8_t> in) {
  if (in.size() < 8) return true;
  if (LoadLE<uint32_t>(in.data()) != kZstdMagic) return false;
  return (in[4] & kZstdReservedBit) == 0;
}

Result<BufferPtr> ZstdDecompressBare(std::span<const uint8_t> in) {
  // Stream so that no size claim from the input is trusted for allocation up front.
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  if (ctx == nullptr) return Status::Internal("zstd: cannot create a decompression context");
  std::vector<uint8_t> out;
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t last = 0;
  std::vector<uint8_t> chunk(ZSTD_DStreamOutSize());
  while (true) {
    ZSTD_outBuffer output{chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(ctx, &output, &input);
    if (ZSTD_isError(last)) {
      std::string err = ZSTD_getErrorName(last);
      ZSTD_freeDCtx(ctx);
      return Corrupt("zstd: ", err);
    }
    if (out.size() + output.pos > kMaxAllocation) {
      ZSTD_freeDCtx(ctx);
      return Corrupt("zstd: frame expands past ", kMaxAllocation, " bytes");
    }
    out.insert(out.end(), chunk.data(), chunk.data() + output.pos);
    if (input.pos == input.size && output.pos < output.size) break;
  }
  ZSTD_freeDCtx(ctx);
  if (last != 0) return Corrupt("zstd: truncated frame");
  return BufferPtr(Buffer::FromVector(std::move(out)));
}

Result<BufferPtr> ZstdDecompress(std::span<const uint8_t> in) {
  if (in.empty()) return BufferPtr(Buffer::Empty());
  if (IsBareZstdFrame(in)) return ZstdDecompressBare(in);
  uint64_t size = LoadLE<uint64_t>(in.data());
  std::span<const uint8_t> frame = in.subspan(8);
  // The frame's own content size, when present, must agree; it also bounds allocation
  // by what the frame can justify (zstd cannot expand more than its block limits allow).
  unsigned long long content = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (content == ZSTD_CONTENTSIZE_ERROR) return Corrupt("zstd: malformed frame after the size prefix");
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != size) {
    return Corrupt("zstd: size prefix ", size, " disagrees with the frame's content size ", content);
  }
  // A zstd block of at most 128 KiB output needs at least a 3-byte header, so the
  // output is bounded by the input length.
  if (size > (frame.size() + 1) * (128 * 1024)) {
    return Corrupt("zstd: claimed size ", size, " is impossible for ", frame.size(), " compressed bytes");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(size));
  size_t got = ZSTD_decompress(out->mutable_data(), size, frame.data(), frame.size());
  if (ZSTD_isError(got)) return Corrupt("zstd: ", ZSTD_getErrorName(got));
  if (got != size) return Corrupt("zstd: frame decompressed to ", got, " bytes, the prefix says ", size);
  return BufferPtr(std::move(out));
}

}  // namespace

Result<BufferPtr> GeneralDecompress(const pb::BufferCompression& compression, std::span<const uint8_t> input) {
  switch (compression.scheme()) {
    case pb::COMPRESSION_ALGORITHM_LZ4:
      return Lz4Decompress(input);
    case pb::COMPRESSION_ALGORITHM_ZSTD:
      return ZstdDecompress(input);
    default:
      return Status::NotSupported(StrCat("General: compression scheme ", static_cast<int>(compression.scheme()),
                                         " is not supported"));
  }
}

Result<BufferPtr> MaybeDecompress(bool has_compression, const pb::BufferCompression& compression,
                                  const BufferPtr& input) {
  if (!has_compression || compression.scheme() == pb::COMPRESSION_ALGORITHM_UNSPECIFIED) return input;
  return GeneralDecompress(compression, OrEmpty(input)->span());
}

}  // namespace lancet::encoding::internal
