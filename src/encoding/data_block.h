// DataBlock: decoded values in Lance's physical form, before they become Arrow arrays.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "lancet/buffer.h"

namespace lancet::encoding {

/// \brief Physical values produced by a decoder (and consumed by encoders).
///
/// kFixed:    `num_values` values of `bits_per_value` bits packed in `data`
///            (1 bit = LSB-first bitmap, else little-endian, byte aligned).
/// kVariable: `offsets` holds num_values+1 offsets of `offset_bits` (32/64) into `data`;
///            offsets[0] may be non-zero.
/// kFixedSizeList: `children[0]` holds num_values*dimension items; `item_validity`
///            (optional) is an LSB-first bitmap over those items, 1 = valid.
/// kStruct:   one child block per struct field, each with num_values values
///            (packed structs, e.g. the Blob V2 descriptor).
/// kEmpty:    no values (e.g. a page whose rows are all null lists).
struct DataBlock {
  enum class Kind { kFixed, kVariable, kFixedSizeList, kStruct, kEmpty };
  Kind kind = Kind::kEmpty;
  uint64_t num_values = 0;
  uint32_t bits_per_value = 0;
  uint32_t offset_bits = 32;
  uint64_t dimension = 0;
  BufferPtr data;
  BufferPtr offsets;
  BufferPtr item_validity;
  std::vector<DataBlock> children;

  static DataBlock Fixed(uint32_t bits, uint64_t n, BufferPtr data) {
    DataBlock b;
    b.kind = Kind::kFixed;
    b.bits_per_value = bits;
    b.num_values = n;
    b.data = std::move(data);
    return b;
  }
  static DataBlock Variable(uint32_t offset_bits, uint64_t n, BufferPtr offsets, BufferPtr data) {
    DataBlock b;
    b.kind = Kind::kVariable;
    b.offset_bits = offset_bits;
    b.num_values = n;
    b.offsets = std::move(offsets);
    b.data = std::move(data);
    return b;
  }
  /// Offset i of a kVariable block. REQUIRES: i <= num_values.
  uint64_t OffsetAt(uint64_t i) const {
    // Offsets may be sliced out of a chunk at any byte position, so load unaligned.
    if (offset_bits == 64) {
      uint64_t v;
      std::memcpy(&v, offsets->data() + i * 8, 8);
      return v;
    }
    uint32_t v;
    std::memcpy(&v, offsets->data() + i * 4, 4);
    return v;
  }
};

}  // namespace lancet::encoding
