// Flat: fixed-width values back to back (docs/format §8). Bools are 1-bit LSB-first bitmaps.
#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

Result<DataBlock> DecodeFlat(const pb::Flat& flat, const BufferPtr& data, uint64_t num_values) {
  ASSIGN_OR_RETURN(BufferPtr bytes, MaybeDecompress(flat.has_data(), flat.data(), OrEmpty(data)));
  uint64_t bits = flat.bits_per_value();
  // DataBlock carries the width as 32 bits; wider "values" would be flattened lists,
  // which Lance encodes as FixedSizeList instead.
  if (bits > UINT32_MAX) return Corrupt("Flat: bits_per_value ", bits, " is too large");
  ASSIGN_OR_RETURN(uint64_t needed, PackedBytes(num_values, bits, "Flat"));
  if (bytes->size() < needed) {
    return Corrupt("Flat: ", num_values, " values of ", bits, " bits need ", needed, " bytes but the buffer has ",
                   bytes->size());
  }
  // Chunk buffers carry alignment padding past the last value; the block excludes it.
  return DataBlock::Fixed(static_cast<uint32_t>(bits), num_values, Buffer::Slice(bytes, 0, needed));
}

}  // namespace lancet::encoding::internal
