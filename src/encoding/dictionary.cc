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
      case 1:
        out[i] = p[i];
        break;
      case 2:
        out[i] = LoadLE<uint16_t>(p + i * 2);
        break;
      case 4:
        out[i] = LoadLE<uint32_t>(p + i * 4);
        break;
      default:
        out[i] = LoadLE<uint64_t>(p + i * 8);
        break;
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
  if (items.kind != DataBlock::Kind::kFixed && items.kind != DataBlock::Kind::kVariable) {
    return Status::NotSupported("dictionary items must be fixed-width or variable-width blocks");
  }
  auto out = GatherValues(items, idx);
  if (!out.ok()) return out.status().WithContext("dictionary");
  return out;
}

}  // namespace lancet::encoding
