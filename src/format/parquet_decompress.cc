#include "format/parquet_decompress.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

namespace lancet::format::parquet {
namespace {

Status DecompressFailed(const char* codec, const std::string& why) {
  return Status::Corruption(std::string("parquet ") + codec + " page: " + why);
}

Status SnappyInflate(std::span<const uint8_t> in, Buffer* out) {
  size_t n = 0;
  const auto* src = reinterpret_cast<const char*>(in.data());
  if (!snappy::GetUncompressedLength(src, in.size(), &n) || n != out->size()) {
    return DecompressFailed("snappy", "bad uncompressed length");
  }
  if (!snappy::RawUncompress(src, in.size(), reinterpret_cast<char*>(out->mutable_data()))) {
    return DecompressFailed("snappy", "malformed input");
  }
  return Status::OK();
}

// GZIP pages may hold several concatenated members; inflate until the output is full.
Status GzipInflate(std::span<const uint8_t> in, Buffer* out) {
  z_stream z{};
  // 32 + 15: a zlib or gzip header, detected.
  if (inflateInit2(&z, 32 + 15) != Z_OK) return Status::Internal("inflateInit2 failed");
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  // zlib refuses a null output pointer even for no output (an empty page's values).
  uint8_t none = 0;
  z.next_out = out->size() ? out->mutable_data() : &none;
  z.avail_out = static_cast<uInt>(out->size());
  Status st;
  while (true) {
    int rc = inflate(&z, Z_FINISH);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 || z.avail_out == 0) break;
      if (inflateReset(&z) != Z_OK) {
        st = DecompressFailed("gzip", "reset failed");
        break;
      }
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      st = DecompressFailed("gzip", z.msg ? z.msg : "inflate error");
      break;
    }
    if (rc == Z_BUF_ERROR || z.avail_in == 0) {
      st = DecompressFailed("gzip", "truncated or too long");
      break;
    }
  }
  if (st.ok() && z.avail_out != 0) st = DecompressFailed("gzip", "output shorter than the page header says");
  inflateEnd(&z);
  return st;
}

Status ZstdInflate(std::span<const uint8_t> in, Buffer* out) {
  size_t n = ZSTD_decompress(out->mutable_data(), out->size(), in.data(), in.size());
  if (ZSTD_isError(n)) return DecompressFailed("zstd", ZSTD_getErrorName(n));
  if (n != out->size()) return DecompressFailed("zstd", "output shorter than the page header says");
  return Status::OK();
}

Status Lz4BlockInflate(std::span<const uint8_t> in, uint8_t* out, size_t out_size) {
  if (in.size() > INT32_MAX || out_size > INT32_MAX) return DecompressFailed("lz4", "block too large");
  int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out),
                              static_cast<int>(in.size()), static_cast<int>(out_size));
  if (n < 0 || static_cast<size_t>(n) != out_size) return DecompressFailed("lz4", "malformed block");
  return Status::OK();
}

uint32_t BigEndian32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

// The deprecated LZ4 codec is, as written by parquet-mr, Hadoop's framing: blocks of
// big-endian (uncompressed length, compressed length, LZ4 block). Some writers wrote a bare
// LZ4 block instead, so that is tried when the framing does not fit.
Status HadoopLz4Inflate(std::span<const uint8_t> in, Buffer* out) {
  size_t ip = 0, op = 0;
  bool framed = true;
  while (ip < in.size()) {
    if (in.size() - ip < 8) {
      framed = false;
      break;
    }
    uint32_t raw = BigEndian32(in.data() + ip), packed = BigEndian32(in.data() + ip + 4);
    ip += 8;
    if (packed > in.size() - ip || raw > out->size() - op ||
        !Lz4BlockInflate(in.subspan(ip, packed), out->mutable_data() + op, raw).ok()) {
      framed = false;
      break;
    }
    ip += packed;
    op += raw;
  }
  if (framed && op == out->size()) return Status::OK();
  return Lz4BlockInflate(in, out->mutable_data(), out->size());
}

}  // namespace

Result<BufferPtr> DecompressPage(Codec codec, std::span<const uint8_t> input, uint64_t uncompressed_size) {
  if (codec == Codec::kUncompressed) {
    if (input.size() != uncompressed_size) return DecompressFailed("uncompressed", "size differs from the page header");
    return BufferPtr(Buffer::Copy(input));
  }
  if (codec != Codec::kSnappy && codec != Codec::kGzip && codec != Codec::kZstd && codec != Codec::kLz4Raw &&
      codec != Codec::kLz4) {
    return Status::NotSupported("parquet codec " + std::to_string(static_cast<int>(codec)));
  }
  if (uncompressed_size > UINT32_MAX) return DecompressFailed("compressed", "page too large");
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(uncompressed_size));
  if (uncompressed_size == 0 && input.empty()) return BufferPtr(out);
  switch (codec) {
    case Codec::kSnappy:
      RETURN_IF_ERROR(SnappyInflate(input, out.get()));
      break;
    case Codec::kGzip:
      RETURN_IF_ERROR(GzipInflate(input, out.get()));
      break;
    case Codec::kZstd:
      RETURN_IF_ERROR(ZstdInflate(input, out.get()));
      break;
    case Codec::kLz4Raw:
      RETURN_IF_ERROR(Lz4BlockInflate(input, out->mutable_data(), out->size()));
      break;
    case Codec::kLz4:
      RETURN_IF_ERROR(HadoopLz4Inflate(input, out.get()));
      break;
    default:
      break;
  }
  return BufferPtr(out);
}

}  // namespace lancet::format::parquet
