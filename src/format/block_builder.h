// Concatenating DataBlocks and turning them into Arrow arrays (format layer, private).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "encoding/data_block.h"
#include "lancet/array.h"

namespace lancet::format::internal {

/// \brief Appends value ranges of DataBlocks of one shape into one block.
///
/// Null placeholders (values the layout does not store, e.g. an all-null page) are
/// zero-filled once the shape is known. Byte-wide fixed and variable values are only
/// referenced as they are appended and copied once, into buffers of the exact size, by
/// Finish(); a block built from a single range is a view of it (so its offsets need
/// not start at 0). Not thread-safe.
class BlockBuilder {
 public:
  /// Appends values [begin, end) of `src`. A kEmpty `src` appends end-begin placeholders.
  /// Corruption if the shape differs from earlier blocks or the range is out of bounds.
  Status Append(const encoding::DataBlock& src, uint64_t begin, uint64_t end);
  void AppendPlaceholders(uint64_t n);
  uint64_t size() const { return num_values_; }
  /// kEmpty with num_values = size() if only placeholders were appended.
  Result<encoding::DataBlock> Finish();

 private:
  /// A range of appended values: fixed width, bytes [begin, end) of `data`; variable
  /// width, values [begin, end) of the block (`data`, `offsets`, `offset_bits`). A
  /// placeholder range has no data (zero bytes / empty values).
  struct Segment {
    BufferPtr data;
    BufferPtr offsets;
    uint32_t offset_bits = 0;
    uint64_t begin = 0, end = 0;
  };

  void InitShape(const encoding::DataBlock& proto);
  void MaterializePending();
  Result<BufferPtr> FinishFixed();
  Result<encoding::DataBlock> FinishVariable();

  bool shaped_ = false;
  encoding::DataBlock::Kind kind_ = encoding::DataBlock::Kind::kEmpty;
  uint32_t bits_ = 0;
  uint64_t dimension_ = 0;
  uint64_t num_values_ = 0;
  uint64_t pending_ = 0;  // placeholders appended before the shape was known
  std::vector<uint8_t> data_;  // 1-bit values, packed as appended
  uint64_t data_bits_ = 0;
  std::vector<Segment> segments_;  // byte-wide fixed and variable values
  std::vector<uint8_t> item_validity_;  // FSL item bitmap, LSB first
  bool has_item_validity_ = false;
  std::vector<BlockBuilder> children_;
};

/// Builds the Arrow array of a leaf field of type `type` (anything IsLeafField accepts)
/// from `values` (one value per slot) and the slot validity `valid` (one byte per slot,
/// empty = all valid). Corruption names `context` if the block does not fit the type.
Result<Array> BlockToArray(const DataType& type, const encoding::DataBlock& values,
                           const std::vector<uint8_t>& valid, const std::string& context);

/// An array of `length` nulls of any type, with zeroed buffers of the right size.
Result<Array> NullArrayOf(const DataType& type, int64_t length);

/// Packs one byte per slot (0/1) into an LSB-first validity bitmap; nullptr if all valid.
/// Sets *null_count.
BufferPtr PackValidity(const std::vector<uint8_t>& valid, int64_t* null_count);

}  // namespace lancet::format::internal
