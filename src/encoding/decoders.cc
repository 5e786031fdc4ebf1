// Dispatch over the CompressiveEncoding oneof for each context a value can be stored in
// (mini-block chunk, whole block, full-zip fixed, full-zip variable), plus shared helpers.
#include "encoding/decoders.h"

#include <google/protobuf/unknown_field_set.h>

#include "encoding/decoders_internal.h"

namespace lancet::encoding {

namespace internal {

Result<uint64_t> CheckedMul(uint64_t a, uint64_t b, const char* what) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return Corrupt(what, ": size ", a, " x ", b, " overflows");
  return r;
}

Result<uint64_t> CheckedAdd(uint64_t a, uint64_t b, const char* what) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return Corrupt(what, ": size ", a, " + ", b, " overflows");
  return r;
}

Result<uint64_t> PackedBytes(uint64_t num_values, uint64_t bits, const char* what) {
  if (bits == 0) return uint64_t{0};
  // Divide first so that absurd counts fail cleanly instead of wrapping around.
  if (num_values > UINT64_MAX / bits) return Corrupt(what, ": ", num_values, " values of ", bits, " bits overflow");
  uint64_t total_bits = num_values * bits;
  return total_bits / 8 + (total_bits % 8 != 0 ? 1 : 0);
}

Result<BufferPtr> SliceChecked(const BufferPtr& parent, uint64_t offset, uint64_t length, const char* what) {
  BufferPtr p = OrEmpty(parent);
  if (offset > p->size() || length > p->size() - offset) {
    return Corrupt(what, ": range [", offset, ", +", length, ") is outside a buffer of ", p->size(), " bytes");
  }
  return BufferPtr(Buffer::Slice(p, offset, length));
}

Result<BufferPtr> CopyToBuffer(std::span<const uint8_t> bytes) {
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(bytes.size()));
  if (!bytes.empty()) std::memcpy(out->mutable_data(), bytes.data(), bytes.size());
  return BufferPtr(std::move(out));
}

std::string EncodingName(const pb::CompressiveEncoding& encoding) {
  using C = pb::CompressiveEncoding;
  switch (encoding.compression_case()) {
    case C::kFlat:
      return "Flat";
    case C::kVariable:
      return "Variable";
    case C::kConstant:
      return "Constant";
    case C::kOutOfLineBitpacking:
      return "OutOfLineBitpacking";
    case C::kInlineBitpacking:
      return "InlineBitpacking";
    case C::kFsst:
      return "Fsst";
    case C::kDictionary:
      return "Dictionary";
    case C::kRle:
      return "Rle";
    case C::kByteStreamSplit:
      return "ByteStreamSplit";
    case C::kGeneral:
      return "General";
    case C::kFixedSizeList:
      return "FixedSizeList";
    case C::kPackedStruct:
      return "PackedStruct";
    case C::kVariablePackedStruct:
      return "VariablePackedStruct";
    case C::COMPRESSION_NOT_SET:
      break;
  }
  // Newer writers add oneof members (Range = 14, Delta = 15) that land in the unknown
  // fields; naming them makes the NotSupported message actionable.
  const auto& unknown = encoding.GetReflection()->GetUnknownFields(encoding);
  for (int i = 0; i < unknown.field_count(); ++i) {
    int number = unknown.field(i).number();
    if (number == 14) return "Range(14)";
    if (number == 15) return "Delta(15)";
    return StrCat("unknown encoding (field ", number, ")");
  }
  return "no encoding (empty CompressiveEncoding)";
}

Status Unsupported(const pb::CompressiveEncoding& encoding, const char* context) {
  return Status::NotSupported(StrCat("encoding ", EncodingName(encoding), " is not supported ", context));
}

Result<uint64_t> FlatBits(const pb::CompressiveEncoding& encoding, const char* what) {
  if (!encoding.has_flat()) return Corrupt(what, " must be Flat, got ", EncodingName(encoding));
  return encoding.flat().bits_per_value();
}

}  // namespace internal

using namespace internal;  // NOLINT: this file is the internal dispatcher

namespace {

/// Decodes a full-zip variable value set that has been decompressed per value.
Result<DataBlock> DecodeOwnedValues(const pb::CompressiveEncoding& inner, const std::vector<BufferPtr>& owned) {
  std::vector<std::span<const uint8_t>> spans;
  spans.reserve(owned.size());
  for (const auto& b : owned) spans.push_back(b->span());
  return DecodeFullZipVariable(inner, spans, nullptr);
}

}  // namespace

namespace {

/// The values `wanted` names of a block decoded in full (all when empty).
Result<DataBlock> Pick(Result<DataBlock> all, std::span<const uint32_t> wanted) {
  if (wanted.empty() || !all.ok()) return all;
  return SelectValues(*all, wanted);
}

}  // namespace

Result<DataBlock> DecodeMiniBlockChunk(const pb::CompressiveEncoding& encoding, std::span<const BufferPtr> buffers,
                                       uint64_t num_values, std::span<const uint32_t> wanted) {
  using C = pb::CompressiveEncoding;
  auto need = [&](size_t n) -> Status {
    if (buffers.size() < n) {
      return Corrupt(EncodingName(encoding), " mini-block chunk needs ", n, " buffers, got ", buffers.size());
    }
    return Status::OK();
  };
  switch (encoding.compression_case()) {
    case C::kFlat:
      RETURN_IF_ERROR(need(1));
      return Pick(DecodeFlat(encoding.flat(), buffers[0], num_values), wanted);
    case C::kVariable:
      RETURN_IF_ERROR(need(1));
      return Pick(DecodeVariableChunk(encoding.variable(), buffers[0], num_values, wanted), wanted);
    case C::kInlineBitpacking:
      RETURN_IF_ERROR(need(1));
      return DecodeInlineBitpackingChunk(encoding.inline_bitpacking(), buffers[0], num_values, wanted);
    case C::kFsst: {
      // The page's strings were FSST-compressed as a whole and then chunked, so the
      // chunk decodes to compressed strings first, all of them (FSST indexes them by
      // position) but with only the wanted ones checked when they are plain Variable.
      const auto& inner = encoding.fsst().values();
      DataBlock compressed;
      if (inner.has_variable() && !wanted.empty()) {
        RETURN_IF_ERROR(need(1));
        ASSIGN_OR_RETURN(compressed, DecodeVariableChunk(inner.variable(), buffers[0], num_values, wanted));
      } else {
        ASSIGN_OR_RETURN(compressed, DecodeMiniBlockChunk(inner, buffers, num_values));
      }
      const std::string& table = encoding.fsst().symbol_table();
      return FsstDecompress({reinterpret_cast<const uint8_t*>(table.data()), table.size()}, compressed, wanted);
    }
    case C::kRle:
      RETURN_IF_ERROR(need(2));
      return Pick(DecodeRleChunk(encoding.rle(), buffers[0], buffers[1], num_values), wanted);
    case C::kGeneral: {
      // Only the chunk's first buffer is compressed; the others pass through.
      RETURN_IF_ERROR(need(1));
      if (!encoding.general().has_values()) return Corrupt("General: missing inner encoding");
      ASSIGN_OR_RETURN(BufferPtr first,
                       GeneralDecompress(encoding.general().compression(), OrEmpty(buffers[0])->span()));
      std::vector<BufferPtr> inner(buffers.begin(), buffers.end());
      inner[0] = std::move(first);
      return DecodeMiniBlockChunk(encoding.general().values(), inner, num_values, wanted);
    }
    case C::kFixedSizeList:
      return Pick(DecodeFixedSizeListChunk(encoding.fixed_size_list(), buffers, num_values), wanted);
    case C::kPackedStruct:
      RETURN_IF_ERROR(need(1));
      return Pick(DecodePackedStruct(encoding.packed_struct(), buffers[0], num_values), wanted);
    case C::kByteStreamSplit:
      RETURN_IF_ERROR(need(1));
      return Pick(DecodeByteStreamSplit(encoding.byte_stream_split(), buffers[0], num_values), wanted);
    case C::kConstant:
      return Pick(DecodeConstant(encoding.constant(), num_values), wanted);
    default:
      return Unsupported(encoding, "in a mini-block chunk");
  }
}

Result<DataBlock> DecodeBlock(const pb::CompressiveEncoding& encoding, BufferPtr bytes, uint64_t num_values,
                              std::span<const uint32_t> wanted) {
  using C = pb::CompressiveEncoding;
  bytes = OrEmpty(bytes);
  switch (encoding.compression_case()) {
    case C::kFlat:
      return Pick(DecodeFlat(encoding.flat(), bytes, num_values), wanted);
    case C::kVariable:
      return Pick(DecodeVariableBlock(encoding.variable(), bytes, num_values), wanted);
    case C::kOutOfLineBitpacking:
      return DecodeOutOfLineBitpacking(encoding.out_of_line_bitpacking(), bytes, num_values, wanted);
    case C::kInlineBitpacking:
      return DecodeInlineBitpackingBlock(encoding.inline_bitpacking(), bytes, num_values, wanted);
    case C::kRle:
      return Pick(DecodeRleBlock(encoding.rle(), bytes, num_values), wanted);
    case C::kGeneral: {
      if (!encoding.general().has_values()) return Corrupt("General: missing inner encoding");
      ASSIGN_OR_RETURN(BufferPtr inner, GeneralDecompress(encoding.general().compression(), bytes->span()));
      return DecodeBlock(encoding.general().values(), std::move(inner), num_values, wanted);
    }
    case C::kFsst: {
      ASSIGN_OR_RETURN(DataBlock compressed, DecodeBlock(encoding.fsst().values(), bytes, num_values));
      const std::string& table = encoding.fsst().symbol_table();
      return FsstDecompress({reinterpret_cast<const uint8_t*>(table.data()), table.size()}, compressed, wanted);
    }
    case C::kConstant:
      return Pick(DecodeConstant(encoding.constant(), num_values), wanted);
    case C::kFixedSizeList:
      return Pick(DecodeFixedSizeListRows(encoding.fixed_size_list(), bytes, num_values), wanted);
    case C::kPackedStruct:
      return Pick(DecodePackedStruct(encoding.packed_struct(), bytes, num_values), wanted);
    case C::kByteStreamSplit:
      return Pick(DecodeByteStreamSplit(encoding.byte_stream_split(), bytes, num_values), wanted);
    default:
      return Unsupported(encoding, "as a block encoding");
  }
}

Result<DataBlock> DecodeFullZipFixed(const pb::CompressiveEncoding& encoding, BufferPtr bytes, uint64_t num_values) {
  using C = pb::CompressiveEncoding;
  bytes = OrEmpty(bytes);
  switch (encoding.compression_case()) {
    case C::kFlat:
      return DecodeFlat(encoding.flat(), bytes, num_values);
    case C::kFixedSizeList:
      return DecodeFixedSizeListRows(encoding.fixed_size_list(), bytes, num_values);
    case C::kPackedStruct:
      return DecodePackedStruct(encoding.packed_struct(), bytes, num_values);
    case C::kConstant:
      return DecodeConstant(encoding.constant(), num_values);
    default:
      // General compression makes values variable-sized, so it only appears in the
      // variable-width full-zip form.
      return Unsupported(encoding, "for full-zip fixed-width values");
  }
}

Result<DataBlock> DecodeFullZipVariable(const pb::CompressiveEncoding& encoding,
                                        const std::vector<std::span<const uint8_t>>& values, BufferPtr backing) {
  using C = pb::CompressiveEncoding;
  switch (encoding.compression_case()) {
    case C::kVariable: {
      uint32_t bits = 32;
      if (encoding.variable().has_offsets()) {
        ASSIGN_OR_RETURN(uint64_t b, FlatBits(encoding.variable().offsets(), "Variable offsets"));
        if (b != 32 && b != 64) return Corrupt("Variable: offsets must be 32 or 64 bits, got ", b);
        bits = static_cast<uint32_t>(b);
      }
      if (encoding.variable().has_values()) {
        std::vector<BufferPtr> owned;
        owned.reserve(values.size());
        for (const auto& v : values) {
          if (v.empty()) {
            owned.push_back(Buffer::Empty());
            continue;
          }
          ASSIGN_OR_RETURN(BufferPtr d, GeneralDecompress(encoding.variable().values(), v));
          owned.push_back(std::move(d));
        }
        std::vector<std::span<const uint8_t>> spans;
        for (const auto& b : owned) spans.push_back(b->span());
        return VariableFromValues(spans, bits);
      }
      return VariableFromValues(values, bits);
    }
    case C::kFsst: {
      ASSIGN_OR_RETURN(DataBlock compressed, DecodeFullZipVariable(encoding.fsst().values(), values, backing));
      const std::string& table = encoding.fsst().symbol_table();
      return FsstDecompress({reinterpret_cast<const uint8_t*>(table.data()), table.size()}, compressed);
    }
    case C::kGeneral: {
      // Each value was compressed on its own. Null slots carry no bytes at all.
      std::vector<BufferPtr> owned;
      owned.reserve(values.size());
      for (const auto& v : values) {
        if (v.empty()) {
          owned.push_back(Buffer::Empty());
          continue;
        }
        ASSIGN_OR_RETURN(BufferPtr d, GeneralDecompress(encoding.general().compression(), v));
        owned.push_back(std::move(d));
      }
      if (!encoding.general().has_values()) {
        std::vector<std::span<const uint8_t>> spans;
        for (const auto& b : owned) spans.push_back(b->span());
        return VariableFromValues(spans, 32);
      }
      return DecodeOwnedValues(encoding.general().values(), owned);
    }
    case C::kVariablePackedStruct:
      return DecodeVariablePackedStruct(encoding.variable_packed_struct(), values);
    default:
      return Unsupported(encoding, "for full-zip variable-width values");
  }
}

}  // namespace lancet::encoding
