// Dictionary lookup for mini-block pages with a dictionary buffer (docs/format §8): the
// chunk values are indices into the page's dictionary items. Null slots are indexed too
// (they point at a placeholder item); callers apply the definition levels afterwards.
#include "encoding/decoders_internal.h"

namespace lancet::encoding {

using internal::Corrupt;
using internal::LoadLE;

namespace {

Result<std::vector<uint64_t>> ReadIndices(const DataBlock& indices) {
  if (indices.kind != DataBlock::Kind::kFixed) return Corrupt("dictionary indices must be a fixed-width block");
  uint32_t bits = indices.bits_per_value;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return Corrupt("dictionary indices must be 8, 16, 32 or 64 bits, got ", bits);
  }
  uint64_t width = bits / 8;
  BufferPtr data = internal::OrEmpty(indices.data);
  if (indices.num_values > data->size() / width) {
    return Corrupt("dictionary indices: ", indices.num_values, " values need more than ", data->size(), " bytes");
  }
  std::vector<uint64_t> out(indices.num_values);
  const uint8_t* p = data->data();
  for (uint64_t i = 0; i < indices.num_values; ++i) {
    switch (width) {
      case 1: out[i] = p[i]; break;
      case 2: out[i] = LoadLE<uint16_t>(p + i * 2); break;
      case 4: out[i] = LoadLE<uint32_t>(p + i * 4); break;
      default: out[i] = LoadLE<uint64_t>(p + i * 8); break;
    }
  }
  return out;
}

}  // namespace

Result<DataBlock> ApplyDictionary(const DataBlock& indices, const DataBlock& items) {
  ASSIGN_OR_RETURN(std::vector<uint64_t> idx, ReadIndices(indices));
  uint64_t n = idx.size();
  for (uint64_t i = 0; i < n; ++i) {
    if (idx[i] >= items.num_values) {
      return Corrupt("dictionary index ", idx[i], " at position ", i, " is past the ", items.num_values, " items");
    }
  }
  if (items.kind == DataBlock::Kind::kFixed) {
    uint32_t bits = items.bits_per_value;
    BufferPtr src = internal::OrEmpty(items.data);
    ASSIGN_OR_RETURN(uint64_t have, internal::PackedBytes(items.num_values, bits, "dictionary items"));
    if (src->size() < have) return Corrupt("dictionary items: ", items.num_values, " items need ", have, " bytes");
    ASSIGN_OR_RETURN(uint64_t out_size, internal::PackedBytes(n, bits, "dictionary output"));
    if (out_size > kMaxAllocation) return Corrupt("dictionary output of ", out_size, " bytes is too large");
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(out_size));
    uint8_t* dst = out->mutable_data();
    if (bits == 0) {
      // Zero-width items carry no bytes; the output is just the count.
    } else if (bits % 8 == 0) {
      uint64_t w = bits / 8;
      for (uint64_t i = 0; i < n; ++i) std::memcpy(dst + i * w, src->data() + idx[i] * w, w);
    } else {
      for (uint64_t i = 0; i < n; ++i) {
        for (uint32_t b = 0; b < bits; ++b) {
          uint64_t s = idx[i] * bits + b, d = i * bits + b;
          if ((src->data()[s >> 3] >> (s & 7)) & 1) dst[d >> 3] |= static_cast<uint8_t>(1u << (d & 7));
        }
      }
    }
    return DataBlock::Fixed(bits, n, std::move(out));
  }
  if (items.kind == DataBlock::Kind::kVariable) {
    RETURN_IF_ERROR(internal::ValidateVariable(items));
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; ++i) {
      total += items.OffsetAt(idx[i] + 1) - items.OffsetAt(idx[i]);
      if (total > kMaxAllocation) return Corrupt("dictionary output exceeds ", kMaxAllocation, " bytes");
    }
    uint32_t obits = items.offset_bits == 32 && total > UINT32_MAX ? 64 : items.offset_bits;
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> offsets, Buffer::Allocate((n + 1) * (obits / 8)));
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> data, Buffer::Allocate(total));
    uint64_t pos = 0;
    for (uint64_t i = 0; i <= n; ++i) {
      if (obits == 64) {
        std::memcpy(offsets->mutable_data() + i * 8, &pos, 8);
      } else {
        uint32_t p32 = static_cast<uint32_t>(pos);
        std::memcpy(offsets->mutable_data() + i * 4, &p32, 4);
      }
      if (i == n) break;
      uint64_t b = items.OffsetAt(idx[i]);
      uint64_t len = items.OffsetAt(idx[i] + 1) - b;
      if (len > 0) std::memcpy(data->mutable_data() + pos, items.data->data() + b, len);
      pos += len;
    }
    return DataBlock::Variable(obits, n, std::move(offsets), std::move(data));
  }
  return Status::NotSupported("dictionary items must be fixed-width or variable-width blocks");
}

}  // namespace lancet::encoding
