#include "format/parquet_compress.h"

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <climits>

namespace lancet::format::parquet {

namespace {

// zlib's windowBits: 15 bits of window, +16 for a gzip header and trailer.
constexpr int kGzipWindowBits = 15 + 16;
// zstd level 1 and zlib's default: the balance pyarrow and parquet-mr pick by default.
constexpr int kDefaultZstdLevel = 1;

Status Gzip(int level, std::span<const uint8_t> data, std::string* out) {
  z_stream zs{};
  if (deflateInit2(&zs, level == 0 ? Z_DEFAULT_COMPRESSION : level, Z_DEFLATED, kGzipWindowBits, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("gzip: deflateInit2 failed");
  }
  out->resize(deflateBound(&zs, data.size()) + 32);
  zs.next_in = const_cast<Bytef*>(data.data());
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data());
  zs.avail_out = static_cast<uInt>(out->size());
  const int rc = deflate(&zs, Z_FINISH);
  const uint64_t produced = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Internal("gzip: deflate did not finish");
  out->resize(produced);
  return Status::OK();
}

}  // namespace

Status CompressPage(Codec codec, int level, std::span<const uint8_t> data, std::string* out) {
  if (data.size() > INT_MAX) return Status::InvalidArgument("page larger than 2 GiB");
  const char* src = reinterpret_cast<const char*>(data.data());
  switch (codec) {
    case Codec::kUncompressed:
      out->assign(src, data.size());
      return Status::OK();
    case Codec::kSnappy: {
      size_t n = snappy_max_compressed_length(data.size());
      out->resize(n);
      if (snappy_compress(src, data.size(), out->data(), &n) != SNAPPY_OK) {
        return Status::Internal("snappy compression failed");
      }
      out->resize(n);
      return Status::OK();
    }
    case Codec::kGzip:
      return Gzip(level, data, out);
    case Codec::kZstd: {
      out->resize(ZSTD_compressBound(data.size()));
      const size_t n =
          ZSTD_compress(out->data(), out->size(), src, data.size(), level == 0 ? kDefaultZstdLevel : level);
      if (ZSTD_isError(n)) return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(n));
      out->resize(n);
      return Status::OK();
    }
    case Codec::kLz4Raw: {
      out->resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(data.size()))));
      const int n =
          LZ4_compress_default(src, out->data(), static_cast<int>(data.size()), static_cast<int>(out->size()));
      if (n <= 0 && !data.empty()) return Status::Internal("lz4 compression failed");
      out->resize(static_cast<size_t>(n));
      return Status::OK();
    }
    default:
      return Status::NotSupported("Parquet codec " + std::to_string(static_cast<int>(codec)));
  }
}

}  // namespace lancet::format::parquet
