// Packed structs (docs/format §8).
//   PackedStruct: fixed-width children concatenated per row (a Flat of the row width).
//   VariablePackedStruct: per row, each child in order as either bits_per_value/8 bytes or
//   a bits_per_length/8-byte length followed by that many bytes (full-zip values).
#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

Result<DataBlock> DecodePackedStruct(const pb::PackedStruct& ps, const BufferPtr& bytes_in, uint64_t num_values) {
  if (!ps.has_values()) return Corrupt("PackedStruct: missing values encoding");
  if (!ps.values().has_flat()) return Unsupported(ps.values(), "inside a PackedStruct");
  if (ps.bits_per_value_size() == 0) return Corrupt("PackedStruct: no children");
  uint64_t row_bits = 0;
  for (uint64_t bits : ps.bits_per_value()) {
    if (bits == 0 || bits % 8 != 0 || bits > UINT32_MAX) {
      return Corrupt("PackedStruct: child width ", bits, " is not a whole number of bytes");
    }
    ASSIGN_OR_RETURN(row_bits, CheckedAdd(row_bits, bits, "PackedStruct row"));
  }
  if (ps.values().flat().bits_per_value() != row_bits) {
    return Corrupt("PackedStruct: children sum to ", row_bits, " bits but the rows are ",
                   ps.values().flat().bits_per_value(), " bits");
  }
  ASSIGN_OR_RETURN(DataBlock rows, DecodeFlat(ps.values().flat(), bytes_in, num_values));
  uint64_t row_bytes = row_bits / 8;
  DataBlock out;
  out.kind = DataBlock::Kind::kStruct;
  out.num_values = num_values;
  uint64_t field_start = 0;
  for (uint64_t bits : ps.bits_per_value()) {
    uint64_t width = bits / 8;
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> child, Buffer::Allocate(num_values * width));
    for (uint64_t r = 0; r < num_values; ++r) {
      std::memcpy(child->mutable_data() + r * width, rows.data->data() + r * row_bytes + field_start, width);
    }
    out.children.push_back(DataBlock::Fixed(static_cast<uint32_t>(bits), num_values, std::move(child)));
    field_start += width;
  }
  return out;
}

Result<DataBlock> DecodeVariablePackedStruct(const pb::VariablePackedStruct& vps,
                                             const std::vector<std::span<const uint8_t>>& values) {
  using FE = pb::VariablePackedStruct::FieldEncoding;
  if (vps.fields_size() == 0) return Corrupt("VariablePackedStruct: no fields");
  size_t num_fields = static_cast<size_t>(vps.fields_size());
  uint64_t n = values.size();
  // Per field: fixed children collect their bytes; variable children collect value spans.
  std::vector<std::vector<uint8_t>> fixed(num_fields);
  std::vector<std::vector<std::span<const uint8_t>>> variable(num_fields);
  std::vector<uint64_t> widths(num_fields, 0);
  for (size_t f = 0; f < num_fields; ++f) {
    const FE& fe = vps.fields(static_cast<int>(f));
    if (!fe.has_value()) return Corrupt("VariablePackedStruct: field ", f, " has no value encoding");
    if (fe.layout_case() == FE::kBitsPerValue) {
      if (fe.bits_per_value() % 8 != 0 || fe.bits_per_value() > UINT32_MAX) {
        return Corrupt("VariablePackedStruct: field ", f, " width ", fe.bits_per_value(), " is not whole bytes");
      }
      widths[f] = fe.bits_per_value() / 8;
    } else if (fe.layout_case() == FE::kBitsPerLength) {
      if (fe.bits_per_length() != 32 && fe.bits_per_length() != 64) {
        return Corrupt("VariablePackedStruct: field ", f, " length prefix of ", fe.bits_per_length(), " bits");
      }
      variable[f].reserve(n);
    } else {
      return Corrupt("VariablePackedStruct: field ", f, " has no layout");
    }
  }
  for (uint64_t r = 0; r < n; ++r) {
    std::span<const uint8_t> row = values[r];
    // A null row carries no bytes; its children read as zeros / empty values.
    bool null_row = row.empty();
    uint64_t cursor = 0;
    for (size_t f = 0; f < num_fields; ++f) {
      const FE& fe = vps.fields(static_cast<int>(f));
      if (fe.layout_case() == FE::kBitsPerValue) {
        uint64_t w = widths[f];
        if (null_row) {
          fixed[f].insert(fixed[f].end(), w, 0);
          continue;
        }
        if (w > row.size() - cursor) return Corrupt("VariablePackedStruct: row ", r, " is truncated in field ", f);
        fixed[f].insert(fixed[f].end(), row.begin() + cursor, row.begin() + cursor + w);
        cursor += w;
      } else {
        if (null_row) {
          variable[f].push_back({});
          continue;
        }
        uint64_t prefix = fe.bits_per_length() / 8;
        if (prefix > row.size() - cursor) return Corrupt("VariablePackedStruct: row ", r, " is truncated in field ", f);
        uint64_t len = prefix == 8 ? LoadLE<uint64_t>(row.data() + cursor) : LoadLE<uint32_t>(row.data() + cursor);
        cursor += prefix;
        if (len > row.size() - cursor) {
          return Corrupt("VariablePackedStruct: row ", r, " field ", f, " claims ", len, " bytes, ", row.size() - cursor,
                         " remain");
        }
        variable[f].push_back(row.subspan(cursor, len));
        cursor += len;
      }
    }
  }
  DataBlock out;
  out.kind = DataBlock::Kind::kStruct;
  out.num_values = n;
  for (size_t f = 0; f < num_fields; ++f) {
    const FE& fe = vps.fields(static_cast<int>(f));
    if (fe.layout_case() == FE::kBitsPerValue) {
      ASSIGN_OR_RETURN(DataBlock child,
                       DecodeFullZipFixed(fe.value(), Buffer::FromVector(std::move(fixed[f])), n));
      out.children.push_back(std::move(child));
    } else {
      ASSIGN_OR_RETURN(DataBlock child, DecodeFullZipVariable(fe.value(), variable[f], nullptr));
      out.children.push_back(std::move(child));
    }
  }
  return out;
}

}  // namespace lancet::encoding::internal
