// Variable: offsets + bytes (docs/format §8). Mini-block chunks carry chunk-relative
// offsets (the first one points just past the offsets); the block form adds a header.
#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

namespace {

Result<uint32_t> OffsetBits(const pb::Variable& variable) {
  if (!variable.has_offsets()) return Corrupt("Variable: missing offsets encoding");
  ASSIGN_OR_RETURN(uint64_t bits, FlatBits(variable.offsets(), "Variable offsets"));
  if (bits != 32 && bits != 64) return Corrupt("Variable: offsets must be 32 or 64 bits, got ", bits);
  return static_cast<uint32_t>(bits);
}

template <typename O>
Status CheckOffsets(const uint8_t* offsets, uint64_t count, uint64_t data_size, uint64_t min_first) {
  O prev = LoadLE<O>(offsets);
  if (prev < min_first) return Corrupt("Variable: first offset ", prev, " points into the offsets (< ", min_first, ")");
  for (uint64_t i = 1; i < count; ++i) {
    O cur = LoadLE<O>(offsets + i * sizeof(O));
    if (cur < prev) return Corrupt("Variable: offset ", i, " (", cur, ") is below offset ", i - 1, " (", prev, ")");
    prev = cur;
  }
  if (prev > data_size) return Corrupt("Variable: last offset ", prev, " is past the ", data_size, " data bytes");
  return Status::OK();
}

Status CheckOffsets(uint32_t offset_bits, const uint8_t* offsets, uint64_t count, uint64_t data_size,
                    uint64_t min_first) {
  return offset_bits == 64 ? CheckOffsets<uint64_t>(offsets, count, data_size, min_first)
                           : CheckOffsets<uint32_t>(offsets, count, data_size, min_first);
}

}  // namespace

namespace {

template <typename I>
Status CheckVariableValues(const DataBlock& block, std::span<const I> idx) {
  if (block.kind != DataBlock::Kind::kVariable) return Corrupt("expected a variable-width block");
  if (block.offset_bits != 32 && block.offset_bits != 64) {
    return Corrupt("Variable: offsets must be 32 or 64 bits, got ", block.offset_bits);
  }
  const uint64_t width = block.offset_bits / 8;
  if (OrEmpty(block.offsets)->size() / width <= block.num_values) {
    return Corrupt("Variable: ", block.num_values, " values need ", block.num_values + 1, " offsets");
  }
  const uint64_t data_size = OrEmpty(block.data)->size();
  for (I w : idx) {
    if (w >= block.num_values) return Corrupt("Variable: value ", w, " is past the ", block.num_values, " values");
    const uint64_t b = block.OffsetAt(w), e = block.OffsetAt(w + 1);
    if (b > e || e > data_size) {
      return Corrupt("Variable: value ", w, " spans bytes [", b, ", ", e, ") of ", data_size);
    }
  }
  return Status::OK();
}

}  // namespace

Status ValidateVariable(const DataBlock& block, std::span<const uint32_t> wanted) {
  if (wanted.empty()) return ValidateVariable(block);
  return CheckVariableValues(block, wanted);
}

Status ValidateVariableValues(const DataBlock& block, std::span<const uint64_t> idx) {
  return CheckVariableValues(block, idx);
}

Status ValidateVariable(const DataBlock& block) {
  if (block.kind != DataBlock::Kind::kVariable) return Corrupt("expected a variable-width block");
  if (block.offset_bits != 32 && block.offset_bits != 64) {
    return Corrupt("Variable: offsets must be 32 or 64 bits, got ", block.offset_bits);
  }
  BufferPtr offsets = OrEmpty(block.offsets);
  uint64_t width = block.offset_bits / 8;
  if (offsets->size() / width == 0 || offsets->size() / width - 1 < block.num_values) {
    return Corrupt("Variable: ", block.num_values, " values need ", block.num_values + 1, " offsets but only ",
                   offsets->size() / width, " are present");
  }
  return CheckOffsets(block.offset_bits, offsets->data(), block.num_values + 1, OrEmpty(block.data)->size(), 0);
}

Result<DataBlock> DecodeVariableChunk(const pb::Variable& variable, const BufferPtr& chunk_in, uint64_t num_values,
                                      std::span<const uint32_t> wanted) {
  ASSIGN_OR_RETURN(uint32_t offset_bits, OffsetBits(variable));
  ASSIGN_OR_RETURN(BufferPtr chunk, MaybeDecompress(variable.has_values(), variable.values(), OrEmpty(chunk_in)));
  uint64_t width = offset_bits / 8;
  if (num_values >= chunk->size() / width) {
    return Corrupt("Variable chunk: ", num_values, " values need ", num_values + 1, " offsets of ", width,
                   " bytes but the chunk has only ", chunk->size(), " bytes");
  }
  uint64_t offsets_size = (num_values + 1) * width;
  // The offsets index the chunk itself, so the chunk is the data buffer: no copy.
  DataBlock block = DataBlock::Variable(offset_bits, num_values, Buffer::Slice(chunk, 0, offsets_size), chunk);
  if (wanted.empty()) {
    RETURN_IF_ERROR(CheckOffsets(offset_bits, chunk->data(), num_values + 1, chunk->size(), offsets_size));
    return block;
  }
  RETURN_IF_ERROR(ValidateVariable(block, wanted));
  for (uint32_t w : wanted) {
    if (block.OffsetAt(w) < offsets_size) {
      return Corrupt("Variable chunk: value ", w, " starts at ", block.OffsetAt(w), ", inside the offsets");
    }
  }
  return block;
}

Result<DataBlock> DecodeVariableBlock(const pb::Variable& variable, const BufferPtr& bytes_in, uint64_t num_values) {
  ASSIGN_OR_RETURN(BufferPtr bytes, MaybeDecompress(variable.has_values(), variable.values(), OrEmpty(bytes_in)));
  const uint8_t* p = bytes->data();
  uint64_t size = bytes->size();
  if (size == 0 && num_values == 0) {
    ASSIGN_OR_RETURN(BufferPtr zero, Buffer::Allocate(4));
    return DataBlock::Variable(32, 0, zero, Buffer::Empty());
  }
  if (size < 8) return Corrupt("Variable block: ", size, " bytes cannot hold the 8-byte header");
  uint32_t offset_bits;
  uint64_t bytes_start;
  uint64_t offsets_start;
  // Older writers put a one-byte width followed by the value count; the current header
  // is a u32 (or u64) width, so non-zero bytes 1..3 mark the old form.
  bool old_scheme = p[1] != 0 || p[2] != 0 || p[3] != 0;
  if (old_scheme) {
    offset_bits = p[0];
    if (offset_bits == 32) {
      if (size < 9) return Corrupt("Variable block: truncated header");
      bytes_start = LoadLE<uint32_t>(p + 5);
      offsets_start = 9;
    } else if (offset_bits == 64) {
      if (size < 17) return Corrupt("Variable block: truncated header");
      bytes_start = LoadLE<uint64_t>(p + 9);
      offsets_start = 17;
    } else {
      return Corrupt("Variable block: offsets must be 32 or 64 bits, header says ", offset_bits);
    }
  } else {
    offset_bits = LoadLE<uint32_t>(p);
    if (offset_bits == 32) {
      bytes_start = LoadLE<uint32_t>(p + 4);
      offsets_start = 8;
    } else if (offset_bits == 64) {
      if (size < 16) return Corrupt("Variable block: truncated header");
      bytes_start = LoadLE<uint64_t>(p + 8);
      offsets_start = 16;
    } else {
      return Corrupt("Variable block: offsets must be 32 or 64 bits, header says ", offset_bits);
    }
  }
  if (bytes_start < offsets_start || bytes_start > size) {
    return Corrupt("Variable block: data start ", bytes_start, " is outside [", offsets_start, ", ", size, "]");
  }
  uint64_t width = offset_bits / 8;
  uint64_t offsets_size = bytes_start - offsets_start;
  if (offsets_size % width != 0 || offsets_size / width == 0 || offsets_size / width - 1 != num_values) {
    return Corrupt("Variable block: ", offsets_size, " bytes of offsets do not hold ", num_values, "+1 offsets of ",
                   width, " bytes");
  }
  BufferPtr offsets = Buffer::Slice(bytes, offsets_start, offsets_size);
  BufferPtr data = Buffer::Slice(bytes, bytes_start, size - bytes_start);
  RETURN_IF_ERROR(CheckOffsets(offset_bits, offsets->data(), num_values + 1, data->size(), 0));
  return DataBlock::Variable(offset_bits, num_values, std::move(offsets), std::move(data));
}

Result<DataBlock> VariableFromValues(const std::vector<std::span<const uint8_t>>& values, uint32_t offset_bits) {
  uint64_t total = 0;
  for (const auto& v : values) {
    ASSIGN_OR_RETURN(total, CheckedAdd(total, v.size(), "variable values"));
  }
  if (offset_bits == 32 && total > UINT32_MAX) {
    return Corrupt("Variable: ", total, " bytes of values overflow 32-bit offsets");
  }
  uint64_t width = offset_bits / 8;
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> offsets, Buffer::Allocate((values.size() + 1) * width));
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> data, Buffer::Allocate(total));
  uint8_t* o = offsets->mutable_data();
  uint8_t* d = data->mutable_data();
  uint64_t pos = 0;
  for (size_t i = 0; i <= values.size(); ++i) {
    if (offset_bits == 64) {
      std::memcpy(o + i * 8, &pos, 8);
    } else {
      uint32_t p32 = static_cast<uint32_t>(pos);
      std::memcpy(o + i * 4, &p32, 4);
    }
    if (i < values.size() && !values[i].empty()) {
      std::memcpy(d + pos, values[i].data(), values[i].size());
      pos += values[i].size();
    }
  }
  return DataBlock::Variable(offset_bits, values.size(), std::move(offsets), std::move(data));
}

}  // namespace lancet::encoding::internal
