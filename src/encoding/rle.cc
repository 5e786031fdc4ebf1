// Run-length encoding (docs/format §8): a buffer of run values (the type's width) and a
// buffer of u8 run lengths. Long runs are split into several runs of at most 255. The
// block form prefixes the values with their byte size as a u64.
#include <algorithm>

#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

namespace {

constexpr uint64_t kMaxRun = 255;

Result<DataBlock> ExpandRuns(uint64_t bits, std::span<const uint8_t> values, std::span<const uint8_t> runs,
                             uint64_t num_values) {
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return Corrupt("Rle: values must be 8, 16, 32 or 64 bits, got ", bits);
  }
  if (num_values == 0) return DataBlock::Fixed(static_cast<uint32_t>(bits), 0, Buffer::Empty());
  uint64_t width = bits / 8;
  uint64_t num_runs = std::min<uint64_t>(values.size() / width, runs.size());
  if (num_values > num_runs * kMaxRun) {
    return Corrupt("Rle: ", num_runs, " runs cannot expand to ", num_values, " values");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(num_values * width));
  uint8_t* dst = out->mutable_data();
  uint64_t produced = 0;
  for (uint64_t r = 0; r < num_runs && produced < num_values; ++r) {
    // The writer's last chunk may carry run lengths past the page end; clip them.
    uint64_t len = std::min<uint64_t>(runs[r], num_values - produced);
    for (uint64_t k = 0; k < len; ++k) std::memcpy(dst + (produced + k) * width, values.data() + r * width, width);
    produced += len;
  }
  if (produced != num_values) return Corrupt("Rle: runs expand to ", produced, " values, expected ", num_values);
  return DataBlock::Fixed(static_cast<uint32_t>(bits), num_values, std::move(out));
}

Result<uint64_t> RleBits(const pb::Rle& rle) {
  if (!rle.has_values()) return Corrupt("Rle: missing values encoding");
  ASSIGN_OR_RETURN(uint64_t bits, FlatBits(rle.values(), "Rle values"));
  if (rle.has_run_lengths()) {
    ASSIGN_OR_RETURN(uint64_t run_bits, FlatBits(rle.run_lengths(), "Rle run lengths"));
    if (run_bits != 8) return Corrupt("Rle: run lengths must be 8 bits, got ", run_bits);
  }
  return bits;
}

}  // namespace

Result<DataBlock> DecodeRleChunk(const pb::Rle& rle, const BufferPtr& values, const BufferPtr& run_lengths,
                                 uint64_t num_values) {
  ASSIGN_OR_RETURN(uint64_t bits, RleBits(rle));
  return ExpandRuns(bits, OrEmpty(values)->span(), OrEmpty(run_lengths)->span(), num_values);
}

Result<DataBlock> DecodeRleBlock(const pb::Rle& rle, const BufferPtr& bytes_in, uint64_t num_values) {
  ASSIGN_OR_RETURN(uint64_t bits, RleBits(rle));
  BufferPtr bytes = OrEmpty(bytes_in);
  if (bytes->size() < 8) {
    if (bytes->empty() && num_values == 0) return ExpandRuns(bits, {}, {}, 0);
    return Corrupt("Rle block: ", bytes->size(), " bytes cannot hold the 8-byte values size");
  }
  uint64_t values_size = LoadLE<uint64_t>(bytes->data());
  if (values_size > bytes->size() - 8) {
    return Corrupt("Rle block: values size ", values_size, " exceeds the ", bytes->size() - 8, " bytes present");
  }
  std::span<const uint8_t> all = bytes->span();
  return ExpandRuns(bits, all.subspan(8, values_size), all.subspan(8 + values_size), num_values);
}

}  // namespace lancet::encoding::internal
