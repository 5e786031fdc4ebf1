// Gathering values of a DataBlock by index: dictionary lookups and takes that decoded
// a whole chunk but keep only a few of its values.
#include "encoding/decoders_internal.h"

namespace lancet::encoding {

using internal::Corrupt;

namespace {

Result<DataBlock> GatherFixed(const DataBlock& block, std::span<const uint64_t> idx) {
  const uint32_t bits = block.bits_per_value;
  const uint64_t n = idx.size();
  BufferPtr src = internal::OrEmpty(block.data);
  ASSIGN_OR_RETURN(uint64_t have, internal::PackedBytes(block.num_values, bits, "gathered values"));
  if (src->size() < have) return Corrupt(block.num_values, " values of ", bits, " bits need ", have, " bytes");
  ASSIGN_OR_RETURN(uint64_t out_size, internal::PackedBytes(n, bits, "gathered values"));
  if (out_size > kMaxAllocation) return Corrupt("gathering ", out_size, " bytes of values is too large");
  // Sub-byte widths OR bits in, so only they need a zeroed buffer.
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out,
                   bits % 8 == 0 ? Buffer::AllocateUninitialized(out_size) : Buffer::Allocate(out_size));
  uint8_t* dst = out->mutable_data();
  const uint8_t* s = src->data();
  if (bits == 0) {
    // Zero-width values carry no bytes; the output is just the count.
  } else if (bits % 8 == 0) {
    const uint64_t w = bits / 8;
    switch (w) {
      case 4:
        for (uint64_t i = 0; i < n; ++i) std::memcpy(dst + i * 4, s + idx[i] * 4, 4);
        break;
      case 8:
        for (uint64_t i = 0; i < n; ++i) std::memcpy(dst + i * 8, s + idx[i] * 8, 8);
        break;
      default:
        for (uint64_t i = 0; i < n; ++i) std::memcpy(dst + i * w, s + idx[i] * w, w);
    }
  } else {
    for (uint64_t i = 0; i < n; ++i) {
      for (uint32_t b = 0; b < bits; ++b) {
        uint64_t from = idx[i] * bits + b, to = i * bits + b;
        if ((s[from >> 3] >> (from & 7)) & 1) dst[to >> 3] |= static_cast<uint8_t>(1u << (to & 7));
      }
    }
  }
  return DataBlock::Fixed(bits, n, std::move(out));
}

Result<DataBlock> GatherVariable(const DataBlock& block, std::span<const uint64_t> idx) {
  // Only the gathered values are read, so only their offsets need checking.
  RETURN_IF_ERROR(internal::ValidateVariableValues(block, idx));
  const uint64_t n = idx.size();
  uint64_t total = 0;
  for (uint64_t i : idx) {
    total += block.OffsetAt(i + 1) - block.OffsetAt(i);
    if (total > kMaxAllocation) return Corrupt("gathered values exceed ", kMaxAllocation, " bytes");
  }
  const uint32_t obits = block.offset_bits == 32 && total > UINT32_MAX ? 64 : block.offset_bits;
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> offsets, Buffer::AllocateUninitialized((n + 1) * (obits / 8)));
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> data, Buffer::AllocateUninitialized(total));
  uint64_t pos = 0;
  for (uint64_t i = 0; i <= n; ++i) {
    if (obits == 64) {
      std::memcpy(offsets->mutable_data() + i * 8, &pos, 8);
    } else {
      const uint32_t p32 = static_cast<uint32_t>(pos);
      std::memcpy(offsets->mutable_data() + i * 4, &p32, 4);
    }
    if (i == n) break;
    const uint64_t b = block.OffsetAt(idx[i]);
    const uint64_t len = block.OffsetAt(idx[i] + 1) - b;
    if (len > 0) std::memcpy(data->mutable_data() + pos, block.data->data() + b, len);
    pos += len;
  }
  return DataBlock::Variable(obits, n, std::move(offsets), std::move(data));
}

Result<DataBlock> GatherFixedSizeList(const DataBlock& block, std::span<const uint64_t> idx) {
  if (block.children.size() != 1) return Corrupt("fixed-size-list block without its item block");
  const uint64_t dim = block.dimension;
  ASSIGN_OR_RETURN(uint64_t items, internal::CheckedMul(idx.size(), dim, "gathered list items"));
  if (items > kMaxAllocation) return Corrupt("gathering ", items, " list items is too large");
  std::vector<uint64_t> item_idx;
  item_idx.reserve(items);
  for (uint64_t i : idx) {
    for (uint64_t t = 0; t < dim; ++t) item_idx.push_back(i * dim + t);
  }
  DataBlock out;
  out.kind = DataBlock::Kind::kFixedSizeList;
  out.num_values = idx.size();
  out.dimension = dim;
  ASSIGN_OR_RETURN(DataBlock child, GatherValues(block.children[0], item_idx));
  out.children.push_back(std::move(child));
  if (block.item_validity) {
    DataBlock validity = DataBlock::Fixed(1, block.num_values * dim, block.item_validity);
    ASSIGN_OR_RETURN(DataBlock gathered, GatherFixed(validity, item_idx));
    out.item_validity = gathered.data;
  }
  return out;
}

}  // namespace

Result<DataBlock> GatherValues(const DataBlock& block, std::span<const uint64_t> idx) {
  if (block.kind != DataBlock::Kind::kEmpty) {
    for (uint64_t i : idx) {
      if (i >= block.num_values) return Corrupt("value index ", i, " is past the ", block.num_values, " values");
    }
  }
  switch (block.kind) {
    case DataBlock::Kind::kFixed:
      return GatherFixed(block, idx);
    case DataBlock::Kind::kVariable:
      return GatherVariable(block, idx);
    case DataBlock::Kind::kFixedSizeList:
      return GatherFixedSizeList(block, idx);
    case DataBlock::Kind::kStruct: {
      DataBlock out;
      out.kind = DataBlock::Kind::kStruct;
      out.num_values = idx.size();
      for (const auto& child : block.children) {
        ASSIGN_OR_RETURN(DataBlock c, GatherValues(child, idx));
        out.children.push_back(std::move(c));
      }
      return out;
    }
    case DataBlock::Kind::kEmpty: {
      DataBlock out;
      out.num_values = idx.size();
      return out;
    }
  }
  return Status::Internal("unknown DataBlock kind");
}

Result<DataBlock> SelectValues(const DataBlock& block, std::span<const uint32_t> wanted) {
  std::vector<uint64_t> idx(wanted.begin(), wanted.end());
  return GatherValues(block, idx);
}

}  // namespace lancet::encoding
