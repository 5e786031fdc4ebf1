// Lance 2.0 page decoders (see v20_decode.h). Every size read from a page is checked
// against the bytes that back it before anything is allocated.
#include "format/v20_decode.h"

#include <cstring>
#include <span>

#include "encoding/bitpacking.h"
#include "encoding/decoders.h"

namespace lancet::format::internal {

namespace {

using encoding::DataBlock;
using Kind = DataBlock::Kind;

// Encodings whose value count is not backed by page bytes (all-null, constant) could
// otherwise make a corrupt row count allocate without bound. Real 2.0 pages hold at
// most a few million values.
constexpr uint64_t kMaxUnbackedValues = uint64_t{1} << 28;

bool GetBit(const uint8_t* bits, uint64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

Result<uint64_t> Mul(uint64_t a, uint64_t b, const char* what) {
  uint64_t out;
  if (__builtin_mul_overflow(a, b, &out)) {
    return Status::Corruption(std::string(what) + ": " + std::to_string(a) + " x " + std::to_string(b) +
                              " overflows");
  }
  return out;
}

Status CheckUnbacked(uint64_t n, const char* what) {
  if (n > kMaxUnbackedValues) {
    return Status::Corruption(std::string(what) + " claims " + std::to_string(n) + " values");
  }
  return Status::OK();
}

Result<BufferPtr> Resolve(const pb20::Buffer& desc, const V20Buffers& bufs, const char* what) {
  const std::vector<BufferPtr>* pool = nullptr;
  switch (desc.buffer_type()) {
    case pb20::Buffer::page:
      pool = &bufs.page;
      break;
    case pb20::Buffer::column:
      pool = &bufs.column;
      break;
    default:
      return Status::NotSupported(std::string(what) + ": buffers of type " + std::to_string(desc.buffer_type()) +
                                  " (file-level buffers)");
  }
  if (desc.buffer_index() >= pool->size() || !(*pool)[desc.buffer_index()]) {
    return Status::Corruption(std::string(what) + " points at buffer " + std::to_string(desc.buffer_index()) +
                              " of " + std::to_string(pool->size()));
  }
  return (*pool)[desc.buffer_index()];
}

BufferPtr PackBits(const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> out((bytes.size() + 7) / 8, 0);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i]) out[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  return Buffer::FromVector(std::move(out));
}

// The values of a kFixed block of 8/16/32/64-bit unsigned integers, widened.
Result<std::vector<uint64_t>> ToU64(const DataBlock& b, const char* what) {
  if (b.kind != Kind::kFixed) return Status::Corruption(std::string(what) + " are not fixed-width integers");
  const uint32_t bits = b.bits_per_value;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return Status::Corruption(std::string(what) + " are " + std::to_string(bits) + "-bit");
  }
  const uint64_t need = b.num_values * (bits / 8);
  if (!b.data || b.data->size() < need) return Status::Corruption(std::string(what) + ": buffer too short");
  std::vector<uint64_t> out(b.num_values);
  const uint8_t* p = b.data->data();
  for (uint64_t i = 0; i < b.num_values; ++i) {
    switch (bits) {
      case 8:
        out[i] = p[i];
        break;
      case 16: {
        uint16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        out[i] = v;
        break;
      }
      case 32: {
        uint32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        out[i] = v;
        break;
      }
      default:
        std::memcpy(&out[i], p + 8 * i, 8);
    }
  }
  return out;
}

Result<V20Array> DecodeFlat(const pb20::Flat& flat, const V20Buffers& bufs, uint64_t n) {
  if (flat.has_compression() && !flat.compression().scheme().empty() && flat.compression().scheme() != "none") {
    return Status::NotSupported("2.0 Flat buffer compressed with '" + flat.compression().scheme() + "'");
  }
  const uint64_t bits = flat.bits_per_value();
  if (bits == 0 || bits > 8 * 1024 * 1024) return Status::Corruption("Flat: bits_per_value " + std::to_string(bits));
  if (bits != 1 && bits % 8 != 0) {
    return Status::NotSupported("2.0 Flat with " + std::to_string(bits) + " bits per value (not a byte multiple)");
  }
  ASSIGN_OR_RETURN(BufferPtr buf, Resolve(flat.buffer(), bufs, "Flat"));
  uint64_t need;
  if (bits == 1) {
    need = n / 8 + (n % 8 != 0);
  } else {
    ASSIGN_OR_RETURN(need, Mul(n, bits / 8, "Flat size"));
  }
  if (buf->size() < need) {
    return Status::Corruption("Flat: " + std::to_string(n) + " values of " + std::to_string(bits) + " bits need " +
                              std::to_string(need) + " bytes, the buffer has " + std::to_string(buf->size()));
  }
  V20Array out;
  out.values = DataBlock::Fixed(static_cast<uint32_t>(bits), n, Buffer::Slice(buf, 0, need));
  return out;
}

Result<V20Array> DecodeNullable(const pb20::Nullable& nb, const V20Buffers& bufs, uint64_t n) {
  switch (nb.nullability_case()) {
    case pb20::Nullable::kNoNulls:
      if (!nb.no_nulls().has_values()) return Status::Corruption("Nullable(no nulls) without values");
      return DecodeV20Array(nb.no_nulls().values(), bufs, n);
    case pb20::Nullable::kAllNulls: {
      RETURN_IF_ERROR(CheckUnbacked(n, "an all-null page"));
      V20Array out;
      out.values.kind = Kind::kEmpty;
      out.values.num_values = n;
      out.valid.assign(n, 0);
      return out;
    }
    case pb20::Nullable::kSomeNulls: {
      const auto& sn = nb.some_nulls();
      if (!sn.has_validity() || !sn.has_values()) return Status::Corruption("Nullable(some nulls) lacks a part");
      ASSIGN_OR_RETURN(V20Array validity, DecodeV20Array(sn.validity(), bufs, n));
      if (validity.values.kind != Kind::kFixed || validity.values.bits_per_value != 1 || !validity.valid.empty()) {
        return Status::Corruption("Nullable: the validity is not a plain bitmap");
      }
      ASSIGN_OR_RETURN(V20Array out, DecodeV20Array(sn.values(), bufs, n));
      std::vector<uint8_t> valid(n);
      const uint8_t* bits = validity.values.data->data();
      for (uint64_t i = 0; i < n; ++i) valid[i] = GetBit(bits, i) && (out.valid.empty() || out.valid[i]);
      out.valid = std::move(valid);
      return out;
    }
    default:
      return Status::Corruption("Nullable without a nullability case");
  }
}

Result<V20Array> DecodeFixedSizeList(const pb20::FixedSizeList& fsl, const V20Buffers& bufs, uint64_t n) {
  if (fsl.dimension() == 0) return Status::Corruption("FixedSizeList: dimension 0");
  if (!fsl.has_items()) return Status::Corruption("FixedSizeList without items");
  ASSIGN_OR_RETURN(uint64_t num_items, Mul(n, fsl.dimension(), "FixedSizeList items"));
  ASSIGN_OR_RETURN(V20Array items, DecodeV20Array(fsl.items(), bufs, num_items));
  V20Array out;
  out.values.kind = Kind::kFixedSizeList;
  out.values.num_values = n;
  out.values.dimension = fsl.dimension();
  if (!items.valid.empty()) out.values.item_validity = PackBits(items.valid);
  out.values.children.push_back(std::move(items.values));
  return out;
}

// Binary pages store each value's end offset, plus null_adjustment if it is null.
Result<V20Array> DecodeBinary(const pb20::Binary& bin, const V20Buffers& bufs, uint64_t n) {
  if (!bin.has_indices() || !bin.has_bytes()) return Status::Corruption("Binary lacks indices or bytes");
  ASSIGN_OR_RETURN(V20Array idx, DecodeV20Array(bin.indices(), bufs, n));
  ASSIGN_OR_RETURN(std::vector<uint64_t> ends, ToU64(idx.values, "Binary indices"));
  const uint64_t adj = bin.null_adjustment();
  std::vector<uint64_t> offsets(n + 1, 0);
  V20Array out;
  out.valid.resize(n);
  bool any_null = false;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = ends[i];
    const bool valid = v < adj;
    if (!valid) v -= adj;
    if (v < offsets[i]) {
      return Status::Corruption("Binary: value " + std::to_string(i) + " ends at " + std::to_string(v) +
                                " before it starts at " + std::to_string(offsets[i]));
    }
    offsets[i + 1] = v;
    out.valid[i] = valid;
    any_null |= !valid;
  }
  if (!any_null) out.valid.clear();
  const uint64_t total = offsets[n];
  ASSIGN_OR_RETURN(V20Array bytes, DecodeV20Array(bin.bytes(), bufs, total));
  if (bytes.values.kind != Kind::kFixed || bytes.values.bits_per_value != 8) {
    return Status::Corruption("Binary: the bytes are not 8-bit values");
  }
  std::vector<uint8_t> off_bytes((n + 1) * 8);
  std::memcpy(off_bytes.data(), offsets.data(), off_bytes.size());
  out.values = DataBlock::Variable(64, n, Buffer::FromVector(std::move(off_bytes)), bytes.values.data);
  return out;
}

// Index 0 means null; index k > 0 is dictionary item k-1.
Result<V20Array> DecodeDictionary(const pb20::Dictionary& dict, const V20Buffers& bufs, uint64_t n) {
  if (!dict.has_indices() || !dict.has_items()) return Status::Corruption("Dictionary lacks indices or items");
  ASSIGN_OR_RETURN(V20Array idx_arr, DecodeV20Array(dict.indices(), bufs, n));
  ASSIGN_OR_RETURN(std::vector<uint64_t> idx, ToU64(idx_arr.values, "Dictionary indices"));
  const uint64_t num_items = dict.num_dictionary_items();
  ASSIGN_OR_RETURN(V20Array items, DecodeV20Array(dict.items(), bufs, num_items));
  V20Array out;
  out.valid.assign(n, 1);
  for (uint64_t i = 0; i < n; ++i) {
    if (!idx_arr.valid.empty() && !idx_arr.valid[i]) idx[i] = 0;
    if (idx[i] > num_items) {
      return Status::Corruption("Dictionary: index " + std::to_string(idx[i]) + " past " +
                                std::to_string(num_items) + " items");
    }
    if (idx[i] == 0 || (!items.valid.empty() && !items.valid[idx[i] - 1])) out.valid[i] = 0;
  }
  const DataBlock& iv = items.values;
  if (iv.kind == Kind::kVariable) {
    std::vector<uint64_t> offsets(n + 1, 0);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t len = 0;
      if (out.valid[i]) len = iv.OffsetAt(idx[i]) - iv.OffsetAt(idx[i] - 1);
      offsets[i + 1] = offsets[i] + len;
    }
    std::vector<uint8_t> data(offsets[n]);
    for (uint64_t i = 0; i < n; ++i) {
      if (offsets[i + 1] > offsets[i]) {
        std::memcpy(data.data() + offsets[i], iv.data->data() + iv.OffsetAt(idx[i] - 1), offsets[i + 1] - offsets[i]);
      }
    }
    std::vector<uint8_t> off_bytes((n + 1) * 8);
    std::memcpy(off_bytes.data(), offsets.data(), off_bytes.size());
    out.values = DataBlock::Variable(64, n, Buffer::FromVector(std::move(off_bytes)), Buffer::FromVector(std::move(data)));
  } else if (iv.kind == Kind::kFixed && iv.bits_per_value % 8 == 0 && iv.bits_per_value > 0) {
    const uint64_t w = iv.bits_per_value / 8;
    ASSIGN_OR_RETURN(uint64_t size, Mul(n, w, "Dictionary values"));
    std::vector<uint8_t> data(size, 0);
    for (uint64_t i = 0; i < n; ++i) {
      if (idx[i] > 0) std::memcpy(data.data() + i * w, iv.data->data() + (idx[i] - 1) * w, w);
    }
    out.values = DataBlock::Fixed(iv.bits_per_value, n, Buffer::FromVector(std::move(data)));
  } else if (iv.kind == Kind::kEmpty && num_items == 0) {
    out.values.kind = Kind::kEmpty;
    out.values.num_values = n;
  } else {
    return Status::NotSupported("2.0 Dictionary items of this shape (only byte-aligned or variable-width items)");
  }
  for (uint8_t v : out.valid) {
    if (!v) return out;
  }
  out.valid.clear();
  return out;
}

Result<V20Array> DecodeFsst(const pb20::Fsst& fsst, const V20Buffers& bufs, uint64_t n) {
  if (!fsst.has_binary()) return Status::Corruption("Fsst without its binary values");
  ASSIGN_OR_RETURN(V20Array compressed, DecodeV20Array(fsst.binary(), bufs, n));
  if (compressed.values.kind != Kind::kVariable) return Status::Corruption("Fsst: the inner values are not binary");
  const DataBlock& cv = compressed.values;
  std::vector<std::span<const uint8_t>> spans(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t b = cv.OffsetAt(i), e = cv.OffsetAt(i + 1);
    spans[i] = cv.data->span().subspan(b, e - b);
  }
  // The 2.0 symbol table has the same layout as 2.1's, so the 2.1 decompressor applies.
  ::lance::encodings21::CompressiveEncoding enc;
  enc.mutable_fsst()->set_symbol_table(fsst.symbol_table());
  auto* offsets = enc.mutable_fsst()->mutable_values()->mutable_variable()->mutable_offsets();
  offsets->mutable_flat()->set_bits_per_value(64);
  ASSIGN_OR_RETURN(compressed.values, encoding::DecodeFullZipVariable(enc, spans, cv.data));
  return compressed;
}

Result<V20Array> DecodeFixedSizeBinary(const pb20::FixedSizeBinary& fsb, const V20Buffers& bufs, uint64_t n) {
  const uint64_t w = fsb.byte_width();
  if (w == 0 || !fsb.has_bytes()) return Status::Corruption("FixedSizeBinary: byte width 0 or no bytes");
  ASSIGN_OR_RETURN(uint64_t total, Mul(n, w, "FixedSizeBinary bytes"));
  const bool per_value = fsb.bytes().has_flat() && fsb.bytes().flat().bits_per_value() == w * 8;
  ASSIGN_OR_RETURN(V20Array bytes, DecodeV20Array(fsb.bytes(), bufs, per_value ? n : total));
  if (bytes.values.kind != Kind::kFixed || !bytes.values.data || bytes.values.data->size() < total) {
    return Status::Corruption("FixedSizeBinary: the bytes do not hold " + std::to_string(n) + " values");
  }
  std::vector<uint64_t> offsets(n + 1);
  for (uint64_t i = 0; i <= n; ++i) offsets[i] = i * w;
  std::vector<uint8_t> off_bytes((n + 1) * 8);
  std::memcpy(off_bytes.data(), offsets.data(), off_bytes.size());
  V20Array out;
  out.values = DataBlock::Variable(64, n, Buffer::FromVector(std::move(off_bytes)), bytes.values.data);
  return out;
}

// Rows of fixed-width children stored back to back in one buffer.
Result<V20Array> DecodePackedStruct(const pb20::PackedStruct& ps, const V20Buffers& bufs, uint64_t n) {
  std::vector<uint64_t> widths;
  uint64_t row = 0;
  for (const auto& inner : ps.inner()) {
    if (!inner.has_flat() || inner.flat().bits_per_value() % 8 != 0 || inner.flat().bits_per_value() == 0) {
      return Status::NotSupported("2.0 PackedStruct child " + DescribeV20Encoding(inner) +
                                  " (only byte-aligned Flat children)");
    }
    widths.push_back(inner.flat().bits_per_value() / 8);
    row += widths.back();
    if (row > (1u << 20)) return Status::Corruption("PackedStruct: row width too large");
  }
  ASSIGN_OR_RETURN(BufferPtr buf, Resolve(ps.buffer(), bufs, "PackedStruct"));
  ASSIGN_OR_RETURN(uint64_t need, Mul(n, row, "PackedStruct size"));
  if (buf->size() < need) return Status::Corruption("PackedStruct: buffer too short for " + std::to_string(n) + " rows");
  V20Array out;
  out.values.kind = Kind::kStruct;
  out.values.num_values = n;
  uint64_t at = 0;
  for (uint64_t w : widths) {
    std::vector<uint8_t> col(n * w);
    for (uint64_t i = 0; i < n; ++i) std::memcpy(col.data() + i * w, buf->data() + i * row + at, w);
    out.values.children.push_back(DataBlock::Fixed(static_cast<uint32_t>(w * 8), n, Buffer::FromVector(std::move(col))));
    at += w;
  }
  return out;
}

// A plain LSB-first bit stream of `compressed` bits per value.
Result<V20Array> DecodeBitpacked(const pb20::Bitpacked& bp, const V20Buffers& bufs, uint64_t n) {
  const uint64_t cbits = bp.compressed_bits_per_value(), ubits = bp.uncompressed_bits_per_value();
  if ((ubits != 8 && ubits != 16 && ubits != 32 && ubits != 64) || cbits > ubits) {
    return Status::Corruption("Bitpacked: " + std::to_string(cbits) + " of " + std::to_string(ubits) + " bits");
  }
  ASSIGN_OR_RETURN(BufferPtr buf, Resolve(bp.buffer(), bufs, "Bitpacked"));
  ASSIGN_OR_RETURN(uint64_t total_bits, Mul(n, cbits, "Bitpacked size"));
  if (buf->size() < total_bits / 8 + (total_bits % 8 != 0)) return Status::Corruption("Bitpacked: buffer too short");
  const uint64_t w = ubits / 8;
  std::vector<uint8_t> data(n * w, 0);
  const uint8_t* src = buf->data();
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    const uint64_t start = i * cbits;
    for (uint64_t b = 0; b < cbits; ++b) v |= static_cast<uint64_t>(GetBit(src, start + b)) << b;
    if (bp.signed_() && cbits > 0 && cbits < 64 && ((v >> (cbits - 1)) & 1)) v |= ~uint64_t{0} << cbits;
    std::memcpy(data.data() + i * w, &v, w);
  }
  V20Array out;
  out.values = DataBlock::Fixed(static_cast<uint32_t>(ubits), n, Buffer::FromVector(std::move(data)));
  return out;
}

template <typename T>
Result<BufferPtr> UnpackFastLanes(const uint8_t* src, uint64_t n, uint32_t width) {
  const uint64_t words = encoding::FastLanesWords<T>(width);
  const uint64_t chunks = (n + encoding::kFastLanesBlock - 1) / encoding::kFastLanesBlock;
  std::vector<uint8_t> out(chunks * encoding::kFastLanesBlock * sizeof(T));
  std::vector<T> packed(words);
  for (uint64_t c = 0; c < chunks; ++c) {
    if (words > 0) std::memcpy(packed.data(), src + c * words * sizeof(T), words * sizeof(T));
    T* dst = reinterpret_cast<T*>(out.data()) + c * encoding::kFastLanesBlock;
    encoding::FastLanesUnpack<T>(packed, width, std::span<T>(dst, encoding::kFastLanesBlock));
  }
  out.resize(n * sizeof(T));
  return BufferPtr(Buffer::FromVector(std::move(out)));
}

// FastLanes blocks of 1024 values, the last one zero-padded.
Result<V20Array> DecodeBitpackedForNonNeg(const pb20::BitpackedForNonNeg& bp, const V20Buffers& bufs, uint64_t n) {
  const uint64_t cbits = bp.compressed_bits_per_value(), ubits = bp.uncompressed_bits_per_value();
  if ((ubits != 8 && ubits != 16 && ubits != 32 && ubits != 64) || cbits > ubits) {
    return Status::Corruption("BitpackedForNonNeg: " + std::to_string(cbits) + " of " + std::to_string(ubits) +
                              " bits");
  }
  ASSIGN_OR_RETURN(BufferPtr buf, Resolve(bp.buffer(), bufs, "BitpackedForNonNeg"));
  const uint64_t chunks = (n + encoding::kFastLanesBlock - 1) / encoding::kFastLanesBlock;
  const uint64_t chunk_bytes = encoding::kFastLanesBlock * cbits / 8;
  ASSIGN_OR_RETURN(uint64_t need, Mul(chunks, chunk_bytes, "BitpackedForNonNeg size"));
  if (buf->size() < need) {
    return Status::Corruption("BitpackedForNonNeg: " + std::to_string(n) + " values need " + std::to_string(need) +
                              " bytes, the buffer has " + std::to_string(buf->size()));
  }
  if (cbits == 0) RETURN_IF_ERROR(CheckUnbacked(n, "BitpackedForNonNeg of width 0"));
  const uint32_t width = static_cast<uint32_t>(cbits);
  BufferPtr data;
  switch (ubits) {
    case 8: {
      ASSIGN_OR_RETURN(data, UnpackFastLanes<uint8_t>(buf->data(), n, width));
      break;
    }
    case 16: {
      ASSIGN_OR_RETURN(data, UnpackFastLanes<uint16_t>(buf->data(), n, width));
      break;
    }
    case 32: {
      ASSIGN_OR_RETURN(data, UnpackFastLanes<uint32_t>(buf->data(), n, width));
      break;
    }
    default: {
      ASSIGN_OR_RETURN(data, UnpackFastLanes<uint64_t>(buf->data(), n, width));
    }
  }
  V20Array out;
  out.values = DataBlock::Fixed(static_cast<uint32_t>(ubits), n, std::move(data));
  return out;
}

Result<V20Array> DecodeConstant(const pb20::Constant& c, uint64_t n) {
  const std::string& v = c.value();
  if (v.empty() || v.size() > 1024) return Status::Corruption("Constant: value of " + std::to_string(v.size()) + " bytes");
  RETURN_IF_ERROR(CheckUnbacked(n, "a constant page"));
  std::vector<uint8_t> data(n * v.size());
  for (uint64_t i = 0; i < n; ++i) std::memcpy(data.data() + i * v.size(), v.data(), v.size());
  V20Array out;
  out.values = DataBlock::Fixed(static_cast<uint32_t>(v.size() * 8), n, Buffer::FromVector(std::move(data)));
  return out;
}

const char* CaseName(const pb20::ArrayEncoding& e) {
  using E = pb20::ArrayEncoding;
  switch (e.array_encoding_case()) {
    case E::kFlat: return "Flat";
    case E::kNullable: return "Nullable";
    case E::kFixedSizeList: return "FixedSizeList";
    case E::kList: return "List";
    case E::kStruct: return "SimpleStruct";
    case E::kBinary: return "Binary";
    case E::kDictionary: return "Dictionary";
    case E::kFsst: return "Fsst";
    case E::kPackedStruct: return "PackedStruct";
    case E::kBitpacked: return "Bitpacked";
    case E::kFixedSizeBinary: return "FixedSizeBinary";
    case E::kBitpackedForNonNeg: return "BitpackedForNonNeg";
    case E::kConstant: return "Constant";
    case E::kInlineBitpacking: return "InlineBitpacking";
    case E::kOutOfLineBitpacking: return "OutOfLineBitpacking";
    case E::kVariable: return "Variable";
    case E::kPackedStructFixedWidthMiniBlock: return "PackedStructFixedWidthMiniBlock";
    case E::kBlock: return "Block";
    case E::kRle: return "Rle";
    case E::kGeneralMiniBlock: return "GeneralMiniBlock";
    case E::kByteStreamSplit: return "ByteStreamSplit";
    default: return "unset";
  }
}

}  // namespace

Result<V20Array> DecodeV20Array(const pb20::ArrayEncoding& e, const V20Buffers& bufs, uint64_t n) {
  using E = pb20::ArrayEncoding;
  switch (e.array_encoding_case()) {
    case E::kFlat:
      return DecodeFlat(e.flat(), bufs, n);
    case E::kNullable:
      return DecodeNullable(e.nullable(), bufs, n);
    case E::kFixedSizeList:
      return DecodeFixedSizeList(e.fixed_size_list(), bufs, n);
    case E::kBinary:
      return DecodeBinary(e.binary(), bufs, n);
    case E::kDictionary:
      return DecodeDictionary(e.dictionary(), bufs, n);
    case E::kFsst:
      return DecodeFsst(e.fsst(), bufs, n);
    case E::kFixedSizeBinary:
      return DecodeFixedSizeBinary(e.fixed_size_binary(), bufs, n);
    case E::kPackedStruct:
      return DecodePackedStruct(e.packed_struct(), bufs, n);
    case E::kBitpacked:
      return DecodeBitpacked(e.bitpacked(), bufs, n);
    case E::kBitpackedForNonNeg:
      return DecodeBitpackedForNonNeg(e.bitpacked_for_non_neg(), bufs, n);
    case E::kConstant:
      return DecodeConstant(e.constant(), n);
    case E::ARRAY_ENCODING_NOT_SET:
      return Status::Corruption("2.0 array encoding is unset");
    case E::kList:
    case E::kStruct:
      return Status::Corruption(std::string("2.0 ") + CaseName(e) + " encoding inside a value encoding");
    default:
      return Status::NotSupported(std::string("2.0 array encoding ") + CaseName(e));
  }
}

Result<V20ListPage> DecodeV20List(const pb20::List& list, const V20Buffers& bufs, uint64_t num_rows) {
  if (!list.has_offsets()) return Status::Corruption("List without offsets");
  ASSIGN_OR_RETURN(V20Array arr, DecodeV20Array(list.offsets(), bufs, num_rows));
  ASSIGN_OR_RETURN(std::vector<uint64_t> raw, ToU64(arr.values, "List offsets"));
  const uint64_t adj = list.null_offset_adjustment();
  V20ListPage out;
  out.num_items = list.num_items();
  out.offsets.assign(num_rows + 1, 0);
  out.valid.resize(num_rows);
  for (uint64_t i = 0; i < num_rows; ++i) {
    // A list's start is the previous list's end, so only ends are stored.
    const bool valid = adj == 0 || raw[i] < adj;
    const uint64_t end = adj == 0 ? raw[i] : raw[i] % adj;
    if (end < out.offsets[i] || end > out.num_items) {
      return Status::Corruption("List: list " + std::to_string(i) + " spans items [" + std::to_string(out.offsets[i]) +
                                ", " + std::to_string(end) + ") of " + std::to_string(out.num_items));
    }
    out.offsets[i + 1] = end;
    out.valid[i] = valid;
  }
  return out;
}

std::string DescribeV20Encoding(const pb20::ArrayEncoding& e) {
  using E = pb20::ArrayEncoding;
  switch (e.array_encoding_case()) {
    case E::kFlat:
      return "Flat(" + std::to_string(e.flat().bits_per_value()) +
             (e.flat().has_compression() ? ", " + e.flat().compression().scheme() : std::string()) + ")";
    case E::kNullable: {
      const auto& nb = e.nullable();
      if (nb.has_no_nulls()) return "Nullable(none, " + DescribeV20Encoding(nb.no_nulls().values()) + ")";
      if (nb.has_all_nulls()) return "Nullable(all)";
      return "Nullable(some, " + DescribeV20Encoding(nb.some_nulls().values()) + ")";
    }
    case E::kFixedSizeList:
      return "FixedSizeList(" + std::to_string(e.fixed_size_list().dimension()) + ", " +
             DescribeV20Encoding(e.fixed_size_list().items()) + ")";
    case E::kList:
      return "List(" + DescribeV20Encoding(e.list().offsets()) + ")";
    case E::kBinary:
      return "Binary(" + DescribeV20Encoding(e.binary().indices()) + ", " + DescribeV20Encoding(e.binary().bytes()) +
             ")";
    case E::kDictionary:
      return "Dictionary(" + std::to_string(e.dictionary().num_dictionary_items()) + ", " +
             DescribeV20Encoding(e.dictionary().items()) + ")";
    case E::kFsst:
      return "Fsst(" + DescribeV20Encoding(e.fsst().binary()) + ")";
    case E::kBitpacked:
      return "Bitpacked(" + std::to_string(e.bitpacked().compressed_bits_per_value()) + ")";
    case E::kBitpackedForNonNeg:
      return "BitpackedForNonNeg(" + std::to_string(e.bitpacked_for_non_neg().compressed_bits_per_value()) + ")";
    default:
      return CaseName(e);
  }
}

}  // namespace lancet::format::internal
