// Repetition/definition levels are u16 before compression (docs/format §7.2); block
// compressors may hand them back at the width they were packed at.
#include "encoding/decoders_internal.h"

namespace lancet::encoding {

using internal::Corrupt;
using internal::LoadLE;

namespace {

// The usual level encoding unpacks into the result itself: no block, no copy.
bool UnpacksDirectly(const pb::CompressiveEncoding& encoding) {
  return encoding.has_out_of_line_bitpacking() && encoding.out_of_line_bitpacking().uncompressed_bits_per_value() == 16;
}

Status UnpackInto(const pb::CompressiveEncoding& encoding, const BufferPtr& bytes, uint64_t n,
                  std::vector<uint16_t>* out) {
  if (n > kMaxAllocation / 2) return Corrupt(n, " levels are too many");
  out->resize(n);
  return internal::DecodeOutOfLineLevels(encoding.out_of_line_bitpacking(), bytes, n, out->data());
}

}  // namespace

Result<std::vector<uint16_t>> DecodeLevelBlock(const pb::CompressiveEncoding& encoding, BufferPtr bytes, uint64_t n,
                                               std::span<const uint32_t> wanted) {
  if (wanted.empty() && UnpacksDirectly(encoding)) {
    std::vector<uint16_t> out;
    RETURN_IF_ERROR(UnpackInto(encoding, bytes, n, &out));
    return out;
  }
  ASSIGN_OR_RETURN(DataBlock block, DecodeBlock(encoding, std::move(bytes), n, wanted));
  return ToLevels(block, wanted.empty() ? n : wanted.size());
}

Status DecodeLevelBlockInto(const pb::CompressiveEncoding& encoding, BufferPtr bytes, uint64_t n,
                            std::vector<uint16_t>* out) {
  if (UnpacksDirectly(encoding)) return UnpackInto(encoding, bytes, n, out);
  ASSIGN_OR_RETURN(*out, DecodeLevelBlock(encoding, std::move(bytes), n));
  return Status::OK();
}

Result<std::vector<uint16_t>> ToLevels(const DataBlock& block, uint64_t expected) {
  if (block.kind != DataBlock::Kind::kFixed) return Corrupt("levels must be a fixed-width block");
  if (block.num_values != expected) return Corrupt("expected ", expected, " levels, decoded ", block.num_values);
  uint32_t bits = block.bits_per_value;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return Corrupt("levels must be 8, 16, 32 or 64 bits wide, got ", bits);
  }
  uint64_t width = bits / 8;
  BufferPtr data = internal::OrEmpty(block.data);
  if (expected > data->size() / width) {
    return Corrupt(expected, " levels of ", width, " bytes need more than the ", data->size(), " bytes present");
  }
  const uint8_t* p = data->data();
  // The common widths need no range check: copy them straight (little-endian host).
  if (width == 2) {
    std::vector<uint16_t> out(expected);
    if (expected > 0) std::memcpy(out.data(), p, expected * 2);
    return out;
  }
  if (width == 1) return std::vector<uint16_t>(p, p + expected);
  std::vector<uint16_t> out(expected);
  for (uint64_t i = 0; i < expected; ++i) {
    uint64_t v;
    switch (width) {
      case 1:
        v = p[i];
        break;
      case 2:
        v = LoadLE<uint16_t>(p + i * 2);
        break;
      case 4:
        v = LoadLE<uint32_t>(p + i * 4);
        break;
      default:
        v = LoadLE<uint64_t>(p + i * 8);
        break;
    }
    if (v > UINT16_MAX) return Corrupt("level ", i, " is ", v, ", beyond the 16-bit level range");
    out[i] = static_cast<uint16_t>(v);
  }
  return out;
}

}  // namespace lancet::encoding
