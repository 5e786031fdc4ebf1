// ByteStreamSplit (docs/format §8): byte plane k holds byte k of every value.
#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

Result<DataBlock> DecodeByteStreamSplit(const pb::ByteStreamSplit& bss, const BufferPtr& bytes_in,
                                        uint64_t num_values) {
  if (!bss.has_values()) return Corrupt("ByteStreamSplit: missing values encoding");
  ASSIGN_OR_RETURN(uint64_t bits, FlatBits(bss.values(), "ByteStreamSplit values"));
  if (bits == 0 || bits % 8 != 0 || bits > 64) return Corrupt("ByteStreamSplit: unsupported value width ", bits);
  uint64_t width = bits / 8;
  BufferPtr bytes = OrEmpty(bytes_in);
  ASSIGN_OR_RETURN(uint64_t total, CheckedMul(num_values, width, "ByteStreamSplit"));
  if (bytes->size() < total) {
    return Corrupt("ByteStreamSplit: ", num_values, " values of ", width, " bytes need ", total, " bytes, found ",
                   bytes->size());
  }
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(total));
  const uint8_t* src = bytes->data();
  uint8_t* dst = out->mutable_data();
  for (uint64_t k = 0; k < width; ++k) {
    for (uint64_t i = 0; i < num_values; ++i) dst[i * width + k] = src[k * num_values + i];
  }
  return DataBlock::Fixed(static_cast<uint32_t>(bits), num_values, std::move(out));
}

}  // namespace lancet::encoding::internal
