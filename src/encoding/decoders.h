// Entry points of the compressive-encoding decoders (the format notes (lance-format-notes.md) §8).
// Bytes in, DataBlocks out; no I/O. Every function validates sizes against its
// input and returns Corruption (never crashes or over-allocates) on bad bytes, and
// NotSupported naming the encoding for encodings Lancet does not know.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "encoding/data_block.h"
#include "lance_proto/encodings_v2_1.pb.h"
#include "lancet/result.h"

namespace lancet::encoding {

namespace pb = ::lance::encodings21;

/// Decodes one mini-block chunk: `buffers` are the chunk's value buffers (MiniBlockLayout
/// num_buffers of them, already sliced out of the chunk), holding `num_values` values.
/// Handles Flat, Variable (chunk-relative offsets), InlineBitpacking, Fsst, Rle, General,
/// FixedSizeList, PackedStruct, ByteStreamSplit and Constant value encodings.
/// `wanted` (strictly ascending value indexes below num_values; empty = all): the result
/// holds just those values, in that order, so a take that needs a few values of a chunk
/// skips the per-value work of the others (bit-unpacking, FSST) where the encoding allows.
Result<DataBlock> DecodeMiniBlockChunk(const pb::CompressiveEncoding& encoding, std::span<const BufferPtr> buffers,
                                       uint64_t num_values, std::span<const uint32_t> wanted = {});

/// Decodes a whole buffer written by a block compressor (rep/def levels, dictionary
/// items, constant-layout levels): Flat, OutOfLineBitpacking, Rle (block form), General,
/// Variable (block form), Fsst.
/// `wanted` as for DecodeMiniBlockChunk.
Result<DataBlock> DecodeBlock(const pb::CompressiveEncoding& encoding, BufferPtr bytes, uint64_t num_values,
                              std::span<const uint32_t> wanted = {});

/// Decodes full-zip fixed-width values: `bytes` holds `num_values` values of
/// bits_per_value/8 bytes each, back to back (control words already removed).
/// Handles Flat, FixedSizeList (with item validity), PackedStruct, General per value.
Result<DataBlock> DecodeFullZipFixed(const pb::CompressiveEncoding& encoding, BufferPtr bytes, uint64_t num_values);

/// Decodes full-zip variable-width values: `values[i]` is the stored bytes of value i
/// (length prefix removed; empty for null slots). Handles Variable, Fsst, General
/// (per-value decompression, then the inner encoding) and VariablePackedStruct.
Result<DataBlock> DecodeFullZipVariable(const pb::CompressiveEncoding& encoding,
                                        const std::vector<std::span<const uint8_t>>& values, BufferPtr backing);

/// Values idx[0], idx[1], ... of `block` (any kind; indexes may repeat), or Corruption
/// for an index past its values.
Result<DataBlock> GatherValues(const DataBlock& block, std::span<const uint64_t> idx);
/// GatherValues for ascending value indexes.
Result<DataBlock> SelectValues(const DataBlock& block, std::span<const uint32_t> wanted);

/// Maps dictionary `indices` (a kFixed block of integers) through `items`.
Result<DataBlock> ApplyDictionary(const DataBlock& indices, const DataBlock& items);

/// DecodeBlock then ToLevels, for rep/def level buffers: the n levels, or the `wanted`
/// ones (as for DecodeMiniBlockChunk).
Result<std::vector<uint16_t>> DecodeLevelBlock(const pb::CompressiveEncoding& encoding, BufferPtr bytes, uint64_t n,
                                               std::span<const uint32_t> wanted = {});

/// DecodeLevelBlock of all n levels into `out`, reusing its capacity: for callers that
/// decode many chunks' levels into one scratch vector.
Status DecodeLevelBlockInto(const pb::CompressiveEncoding& encoding, BufferPtr bytes, uint64_t n,
                            std::vector<uint16_t>* out);

/// Widens a kFixed block of 8/16/32/64-bit unsigned integers to uint16 levels (rep/def).
Result<std::vector<uint16_t>> ToLevels(const DataBlock& block, uint64_t expected);

/// A readable name of an encoding tree, e.g. "InlineBitpacking(32)" or
/// "General(zstd, Variable(Flat(32)))", for `lancet info`.
std::string DescribeEncoding(const pb::CompressiveEncoding& encoding);

}  // namespace lancet::encoding
