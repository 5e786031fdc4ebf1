#include "encoding/general_encoder.h"

#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <string>

namespace lancet::encoding {

namespace pb = ::lance::encodings21;

Result<std::vector<uint8_t>> CompressGeneral(pb::CompressionScheme scheme, int32_t level,
                                             std::span<const uint8_t> input) {
  std::vector<uint8_t> out;
  switch (scheme) {
    case pb::COMPRESSION_ALGORITHM_LZ4: {
      if (input.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
        return Status::InvalidArgument("LZ4: buffer of " + std::to_string(input.size()) + " bytes is too large");
      }
      const int bound = LZ4_compressBound(static_cast<int>(input.size()));
      out.resize(4 + static_cast<size_t>(bound));
      const uint32_t size = static_cast<uint32_t>(input.size());
      std::memcpy(out.data(), &size, 4);
      const int n = LZ4_compress_default(reinterpret_cast<const char*>(input.data()),
                                         reinterpret_cast<char*>(out.data() + 4), static_cast<int>(input.size()),
                                         bound);
      if (n <= 0 && !input.empty()) return Status::Internal("LZ4 compression failed");
      out.resize(4 + static_cast<size_t>(n));
      return out;
    }
    case pb::COMPRESSION_ALGORITHM_ZSTD: {
      const size_t bound = ZSTD_compressBound(input.size());
      out.resize(8 + bound);
      const uint64_t size = input.size();
      std::memcpy(out.data(), &size, 8);
      const size_t n = ZSTD_compress(out.data() + 8, bound, input.data(), input.size(), level);
      if (ZSTD_isError(n)) return Status::Internal(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
      out.resize(8 + n);
      return out;
    }
    default:
      return Status::InvalidArgument("General: unknown compression scheme " + std::to_string(static_cast<int>(scheme)));
  }
}

}  // namespace lancet::encoding
