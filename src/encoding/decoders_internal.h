// Per-encoding decoders behind the dispatchers of decoders.h. Private to src/encoding.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "encoding/data_block.h"
#include "encoding/decoders.h"
#include "lancet/result.h"

namespace lancet::encoding::internal {

static_assert(std::endian::native == std::endian::little,
              "Lance stores little-endian values; the decoders copy them without swapping");

/// Concatenates the streamable arguments into one string (error messages).
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

template <typename... Args>
Status Corrupt(const Args&... args) {
  return Status::Corruption(StrCat(args...));
}

/// Reads a little-endian T from possibly unaligned memory. REQUIRES: sizeof(T) readable bytes.
template <typename T>
T LoadLE(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/// a*b, or Corruption naming `what` when it does not fit in 64 bits.
Result<uint64_t> CheckedMul(uint64_t a, uint64_t b, const char* what);
/// a+b, or Corruption naming `what` when it does not fit in 64 bits.
Result<uint64_t> CheckedAdd(uint64_t a, uint64_t b, const char* what);

/// Bytes holding `num_values` values of `bits` bits each, rounded up to whole bytes.
Result<uint64_t> PackedBytes(uint64_t num_values, uint64_t bits, const char* what);

/// A never-null view of `b` (a null BufferPtr reads as empty).
inline BufferPtr OrEmpty(const BufferPtr& b) { return b ? b : Buffer::Empty(); }

/// [offset, offset+length) of `parent`, or Corruption naming `what` if out of bounds.
Result<BufferPtr> SliceChecked(const BufferPtr& parent, uint64_t offset, uint64_t length, const char* what);

/// An owned copy of `bytes` in a fresh, 64-byte-aligned buffer.
Result<BufferPtr> CopyToBuffer(std::span<const uint8_t> bytes);

/// Which oneof case an encoding holds, as a readable name ("Flat", "Range(14)", ...).
std::string EncodingName(const pb::CompressiveEncoding& encoding);

/// NotSupported naming the encoding and the context it appeared in.
Status Unsupported(const pb::CompressiveEncoding& encoding, const char* context);

/// Bit width of a Flat encoding nested in `encoding` (e.g. Variable offsets), or Corruption.
Result<uint64_t> FlatBits(const pb::CompressiveEncoding& encoding, const char* what);

// ---- Flat (flat.cc)
Result<DataBlock> DecodeFlat(const pb::Flat& flat, const BufferPtr& data, uint64_t num_values);

// ---- Variable (variable.cc)
/// A mini-block chunk: n+1 chunk-relative offsets then the bytes.
/// With `wanted` (ascending; empty = all) only those values' offsets are checked: the
/// block still holds every value, but a caller may read just the wanted ones.
Result<DataBlock> DecodeVariableChunk(const pb::Variable& variable, const BufferPtr& chunk, uint64_t num_values,
                                      std::span<const uint32_t> wanted = {});
/// The block form: header (bits_per_offset, bytes_start), offsets, bytes.
Result<DataBlock> DecodeVariableBlock(const pb::Variable& variable, const BufferPtr& bytes, uint64_t num_values);
/// Checks a kVariable block: offset width, monotone offsets within `data`.
Status ValidateVariable(const DataBlock& block);
/// ValidateVariable for the values `wanted` names only (all when empty).
Status ValidateVariable(const DataBlock& block, std::span<const uint32_t> wanted);
/// Checks the offsets of values idx[0], idx[1], ... only (none when idx is empty).
Status ValidateVariableValues(const DataBlock& block, std::span<const uint64_t> idx);
/// Builds a 32/64-bit-offset kVariable block from separate values (full-zip).
Result<DataBlock> VariableFromValues(const std::vector<std::span<const uint8_t>>& values, uint32_t offset_bits);

// ---- Bitpacking (bitpacking.cc)
/// `wanted` (strictly ascending; empty = all): only those values, in order, each read
/// straight from its packed words.
Result<DataBlock> DecodeInlineBitpackingChunk(const pb::InlineBitpacking& bp, const BufferPtr& chunk,
                                              uint64_t num_values, std::span<const uint32_t> wanted = {});
/// Block form of InlineBitpacking: ceil(n/1024) chunks back to back.
Result<DataBlock> DecodeInlineBitpackingBlock(const pb::InlineBitpacking& bp, const BufferPtr& bytes,
                                              uint64_t num_values, std::span<const uint32_t> wanted = {});
Result<DataBlock> DecodeOutOfLineBitpacking(const pb::OutOfLineBitpacking& bp, const BufferPtr& bytes,
                                            uint64_t num_values, std::span<const uint32_t> wanted = {});
/// 16-bit OutOfLineBitpacking (rep/def levels) unpacked straight into out[0..num_values).
Status DecodeOutOfLineLevels(const pb::OutOfLineBitpacking& bp, const BufferPtr& bytes, uint64_t num_values,
                             uint16_t* out);

// ---- FSST (fsst.cc)
/// FSST-decompresses every value of a kVariable block with the page's symbol table.
/// `wanted` (strictly ascending indexes; empty = all): only those values, in order.
Result<DataBlock> FsstDecompress(std::span<const uint8_t> symbol_table, const DataBlock& compressed,
                                 std::span<const uint32_t> wanted = {});

// ---- RLE (rle.cc)
Result<DataBlock> DecodeRleChunk(const pb::Rle& rle, const BufferPtr& values, const BufferPtr& run_lengths,
                                 uint64_t num_values);
Result<DataBlock> DecodeRleBlock(const pb::Rle& rle, const BufferPtr& bytes, uint64_t num_values);

// ---- General (general.cc)
/// Undoes LZ4 (u32 size prefix + raw block) or zstd (u64 size prefix + frame, or a bare frame).
Result<BufferPtr> GeneralDecompress(const pb::BufferCompression& compression, std::span<const uint8_t> input);
/// Undoes a compression flag found on a Flat/Variable/InlineBitpacking node (absent = identity).
Result<BufferPtr> MaybeDecompress(bool has_compression, const pb::BufferCompression& compression,
                                  const BufferPtr& input);

// ---- FixedSizeList (fixed_size_list.cc)
Result<DataBlock> DecodeFixedSizeListChunk(const pb::FixedSizeList& fsl, std::span<const BufferPtr> buffers,
                                           uint64_t num_values);
/// Full-zip and block form: per value, each layer's item-validity bytes then the items.
Result<DataBlock> DecodeFixedSizeListRows(const pb::FixedSizeList& fsl, const BufferPtr& bytes, uint64_t num_values);

// ---- PackedStruct / VariablePackedStruct (packed_struct.cc)
Result<DataBlock> DecodePackedStruct(const pb::PackedStruct& ps, const BufferPtr& bytes, uint64_t num_values);
Result<DataBlock> DecodeVariablePackedStruct(const pb::VariablePackedStruct& vps,
                                             const std::vector<std::span<const uint8_t>>& values);

// ---- ByteStreamSplit (byte_stream_split.cc)
Result<DataBlock> DecodeByteStreamSplit(const pb::ByteStreamSplit& bss, const BufferPtr& bytes, uint64_t num_values);

// ---- Constant (constant.cc)
/// `num_values` copies of the constant's value (a kFixed block), or kEmpty if it has no value.
Result<DataBlock> DecodeConstant(const pb::Constant& constant, uint64_t num_values);

}  // namespace lancet::encoding::internal
