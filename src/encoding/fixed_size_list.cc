// FixedSizeList (docs/format §8): the list is flattened into its items. Each layer with
// has_validity adds an item-validity bitmap (LSB first, 1 = valid) over that layer's items.
//   mini-block: one bitmap buffer per such layer (outer first), then the item buffer.
//   full-zip / block: per value, each such layer's ceil(items/8) bitmap bytes, then the items.
#include <vector>

#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

namespace {

struct Layer {
  uint64_t dimension;
  bool has_validity;
  uint64_t cum_dim;  // items of this layer per top-level value
};

struct Shape {
  std::vector<Layer> layers;  // outermost first
  const pb::Flat* items = nullptr;
  uint64_t cum_dim = 1;
};

Result<Shape> ParseShape(const pb::FixedSizeList& top) {
  Shape shape;
  const pb::FixedSizeList* fsl = &top;
  // Nesting is bounded by the protobuf parser's recursion limit; the product is checked.
  while (true) {
    if (fsl->items_per_value() == 0) return Corrupt("FixedSizeList: items_per_value is 0");
    ASSIGN_OR_RETURN(shape.cum_dim, CheckedMul(shape.cum_dim, fsl->items_per_value(), "FixedSizeList dimension"));
    shape.layers.push_back({fsl->items_per_value(), fsl->has_validity(), shape.cum_dim});
    if (!fsl->has_values()) return Corrupt("FixedSizeList: missing values encoding");
    const pb::CompressiveEncoding& inner = fsl->values();
    if (inner.has_fixed_size_list()) {
      fsl = &inner.fixed_size_list();
      continue;
    }
    if (inner.has_flat()) {
      shape.items = &inner.flat();
      return shape;
    }
    return Unsupported(inner, "inside a FixedSizeList");
  }
}

/// Wraps `items` in one FSL block per layer, innermost first; validity[k] belongs to layer k.
DataBlock Assemble(const Shape& shape, DataBlock items, std::vector<BufferPtr> validity, uint64_t num_values) {
  DataBlock block = std::move(items);
  for (size_t k = shape.layers.size(); k-- > 0;) {
    DataBlock list;
    list.kind = DataBlock::Kind::kFixedSizeList;
    list.dimension = shape.layers[k].dimension;
    list.num_values = num_values * (shape.layers[k].cum_dim / shape.layers[k].dimension);
    list.item_validity = std::move(validity[k]);
    list.children.push_back(std::move(block));
    block = std::move(list);
  }
  return block;
}

void CopyBits(const uint8_t* src, uint64_t src_bit, uint8_t* dst, uint64_t dst_bit, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t s = src_bit + i, d = dst_bit + i;
    if ((src[s >> 3] >> (s & 7)) & 1) dst[d >> 3] |= static_cast<uint8_t>(1u << (d & 7));
  }
}

}  // namespace

Result<DataBlock> DecodeFixedSizeListChunk(const pb::FixedSizeList& fsl, std::span<const BufferPtr> buffers,
                                           uint64_t num_values) {
  ASSIGN_OR_RETURN(Shape shape, ParseShape(fsl));
  size_t num_validity = 0;
  for (const Layer& l : shape.layers) num_validity += l.has_validity ? 1 : 0;
  if (buffers.size() < num_validity + 1) {
    return Corrupt("FixedSizeList chunk needs ", num_validity + 1, " buffers, got ", buffers.size());
  }
  ASSIGN_OR_RETURN(uint64_t num_items, CheckedMul(num_values, shape.cum_dim, "FixedSizeList items"));
  pb::Flat flat = *shape.items;
  ASSIGN_OR_RETURN(DataBlock items, DecodeFlat(flat, buffers[num_validity], num_items));
  std::vector<BufferPtr> validity(shape.layers.size());
  size_t next = 0;
  for (size_t k = 0; k < shape.layers.size(); ++k) {
    if (!shape.layers[k].has_validity) continue;
    ASSIGN_OR_RETURN(uint64_t bits, CheckedMul(num_values, shape.layers[k].cum_dim, "FixedSizeList validity"));
    ASSIGN_OR_RETURN(uint64_t bytes, PackedBytes(bits, 1, "FixedSizeList validity"));
    ASSIGN_OR_RETURN(validity[k], SliceChecked(buffers[next], 0, bytes, "FixedSizeList item validity"));
    ++next;
  }
  return Assemble(shape, std::move(items), std::move(validity), num_values);
}

Result<DataBlock> DecodeFixedSizeListRows(const pb::FixedSizeList& fsl, const BufferPtr& bytes_in,
                                          uint64_t num_values) {
  ASSIGN_OR_RETURN(Shape shape, ParseShape(fsl));
  BufferPtr bytes = OrEmpty(bytes_in);
  ASSIGN_OR_RETURN(uint64_t num_items, CheckedMul(num_values, shape.cum_dim, "FixedSizeList items"));
  bool any_validity = false;
  for (const Layer& l : shape.layers) any_validity |= l.has_validity;
  if (!any_validity) {
    ASSIGN_OR_RETURN(DataBlock items, DecodeFlat(*shape.items, bytes, num_items));
    return Assemble(shape, std::move(items), std::vector<BufferPtr>(shape.layers.size()), num_values);
  }
  uint64_t item_bits = shape.items->bits_per_value();
  if (item_bits > UINT32_MAX) return Corrupt("FixedSizeList: items of ", item_bits, " bits are too wide");
  if (item_bits % 8 != 0) return Corrupt("FixedSizeList: items of ", item_bits, " bits cannot follow a validity bitmap");
  ASSIGN_OR_RETURN(uint64_t data_per_row, CheckedMul(shape.cum_dim, item_bits / 8, "FixedSizeList row"));
  uint64_t row_size = data_per_row;
  for (const Layer& l : shape.layers) {
    if (!l.has_validity) continue;
    ASSIGN_OR_RETURN(row_size, CheckedAdd(row_size, l.cum_dim / 8 + (l.cum_dim % 8 ? 1 : 0), "FixedSizeList row"));
  }
  ASSIGN_OR_RETURN(uint64_t total, CheckedMul(row_size, num_values, "FixedSizeList rows"));
  if (bytes->size() < total) {
    return Corrupt("FixedSizeList: ", num_values, " rows of ", row_size, " bytes need ", total,
                   " bytes but the buffer has ", bytes->size());
  }
  std::vector<std::shared_ptr<Buffer>> bitmaps(shape.layers.size());
  for (size_t k = 0; k < shape.layers.size(); ++k) {
    if (!shape.layers[k].has_validity) continue;
    ASSIGN_OR_RETURN(uint64_t nbytes, PackedBytes(num_values * shape.layers[k].cum_dim, 1, "validity"));
    ASSIGN_OR_RETURN(bitmaps[k], Buffer::Allocate(nbytes));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> data, Buffer::Allocate(num_values * data_per_row));
  const uint8_t* src = bytes->data();
  for (uint64_t row = 0; row < num_values; ++row) {
    const uint8_t* p = src + row * row_size;
    for (size_t k = 0; k < shape.layers.size(); ++k) {
      if (!shape.layers[k].has_validity) continue;
      uint64_t bits = shape.layers[k].cum_dim;
      CopyBits(p, 0, bitmaps[k]->mutable_data(), row * bits, bits);
      p += bits / 8 + (bits % 8 ? 1 : 0);
    }
    if (data_per_row > 0) std::memcpy(data->mutable_data() + row * data_per_row, p, data_per_row);
  }
  DataBlock items = DataBlock::Fixed(static_cast<uint32_t>(item_bits), num_items, std::move(data));
  std::vector<BufferPtr> validity(bitmaps.begin(), bitmaps.end());
  return Assemble(shape, std::move(items), std::move(validity), num_values);
}

}  // namespace lancet::encoding::internal
