// Human-readable encoding trees for `lancet info`.
#include "encoding/decoders_internal.h"

namespace lancet::encoding {

namespace {

std::string Scheme(const pb::BufferCompression& c) {
  std::string s;
  switch (c.scheme()) {
    case pb::COMPRESSION_ALGORITHM_LZ4: s = "lz4"; break;
    case pb::COMPRESSION_ALGORITHM_ZSTD: s = "zstd"; break;
    default: s = internal::StrCat("scheme ", static_cast<int>(c.scheme())); break;
  }
  if (c.has_level()) s += internal::StrCat(" level ", c.level());
  return s;
}

std::string Child(bool has, const pb::CompressiveEncoding& e) { return has ? DescribeEncoding(e) : "?"; }

}  // namespace

std::string DescribeEncoding(const pb::CompressiveEncoding& e) {
  using C = pb::CompressiveEncoding;
  using internal::StrCat;
  switch (e.compression_case()) {
    case C::kFlat:
      return e.flat().has_data() ? StrCat("Flat(", e.flat().bits_per_value(), ", ", Scheme(e.flat().data()), ")")
                                 : StrCat("Flat(", e.flat().bits_per_value(), ")");
    case C::kVariable: {
      std::string inner = Child(e.variable().has_offsets(), e.variable().offsets());
      if (e.variable().has_values()) inner += ", " + Scheme(e.variable().values());
      return "Variable(" + inner + ")";
    }
    case C::kConstant:
      return e.constant().has_value() ? StrCat("Constant(", e.constant().value().size(), " bytes)") : "Constant(null)";
    case C::kOutOfLineBitpacking:
      return StrCat("OutOfLineBitpacking(", e.out_of_line_bitpacking().uncompressed_bits_per_value(), ", ",
                    Child(e.out_of_line_bitpacking().has_values(), e.out_of_line_bitpacking().values()), ")");
    case C::kInlineBitpacking:
      return e.inline_bitpacking().has_values()
                 ? StrCat("InlineBitpacking(", e.inline_bitpacking().uncompressed_bits_per_value(), ", ",
                          Scheme(e.inline_bitpacking().values()), ")")
                 : StrCat("InlineBitpacking(", e.inline_bitpacking().uncompressed_bits_per_value(), ")");
    case C::kFsst:
      return "Fsst(" + Child(e.fsst().has_values(), e.fsst().values()) + ")";
    case C::kDictionary:
      return StrCat("Dictionary(", e.dictionary().num_dictionary_items(), " items, indices ",
                    Child(e.dictionary().has_indices(), e.dictionary().indices()), ", items ",
                    Child(e.dictionary().has_items(), e.dictionary().items()), ")");
    case C::kRle:
      return "Rle(" + Child(e.rle().has_values(), e.rle().values()) + ", " +
             Child(e.rle().has_run_lengths(), e.rle().run_lengths()) + ")";
    case C::kByteStreamSplit:
      return "ByteStreamSplit(" + Child(e.byte_stream_split().has_values(), e.byte_stream_split().values()) + ")";
    case C::kGeneral:
      return "General(" + Scheme(e.general().compression()) + ", " +
             Child(e.general().has_values(), e.general().values()) + ")";
    case C::kFixedSizeList:
      return StrCat("FixedSizeList(", e.fixed_size_list().items_per_value(),
                    e.fixed_size_list().has_validity() ? ", nullable, " : ", ",
                    Child(e.fixed_size_list().has_values(), e.fixed_size_list().values()), ")");
    case C::kPackedStruct: {
      std::string widths;
      for (uint64_t b : e.packed_struct().bits_per_value()) widths += (widths.empty() ? "" : ",") + std::to_string(b);
      return "PackedStruct([" + widths + "], " + Child(e.packed_struct().has_values(), e.packed_struct().values()) + ")";
    }
    case C::kVariablePackedStruct: {
      std::string fields;
      for (const auto& f : e.variable_packed_struct().fields()) {
        if (!fields.empty()) fields += ", ";
        fields += Child(f.has_value(), f.value());
        if (f.layout_case() == pb::VariablePackedStruct::FieldEncoding::kBitsPerLength) {
          fields += StrCat(" len", f.bits_per_length());
        }
      }
      return "VariablePackedStruct(" + fields + ")";
    }
    case C::COMPRESSION_NOT_SET:
      break;
  }
  return internal::EncodingName(e);
}

}  // namespace lancet::encoding
