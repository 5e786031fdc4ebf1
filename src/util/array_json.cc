#include "util/array_json.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "util/array_builder.h"

namespace lancet {

namespace {

using Json = nlohmann::json;
using Rows = std::vector<const Json*>;

// Deep literals are a test-authoring mistake, not something to recurse into forever.
constexpr int kMaxDepth = 64;

bool IsNullRow(const Json* j) { return j == nullptr || j->is_null(); }

Status RowError(size_t row, const DataType& type, const std::string& what) {
  return Status::InvalidArgument("row " + std::to_string(row) + " of " + type.ToString() + ": " + what);
}

std::vector<bool> ValidityOf(const Rows& rows) {
  std::vector<bool> v;
  v.reserve(rows.size());
  for (const Json* j : rows) v.push_back(!IsNullRow(j));
  return v;
}

// Integers arrive as JSON numbers or, past double precision, as strings.
Result<int64_t> ParseSigned(const Json& j, int64_t lo, int64_t hi) {
  int64_t v = 0;
  if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return Status::InvalidArgument("out of range");
    v = static_cast<int64_t>(u);
  } else if (j.is_number_integer()) {
    v = j.get<int64_t>();
  } else if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return Status::InvalidArgument("not an integer: " + s);
  } else {
    return Status::InvalidArgument("expected an integer, got " + j.dump());
  }
  if (v < lo || v > hi) return Status::InvalidArgument(std::to_string(v) + " out of range");
  return v;
}

Result<uint64_t> ParseUnsigned(const Json& j, uint64_t hi) {
  uint64_t v = 0;
  if (j.is_number_unsigned()) {
    v = j.get<uint64_t>();
  } else if (j.is_number_integer()) {
    return Status::InvalidArgument("negative value for an unsigned type");
  } else if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return Status::InvalidArgument("not an integer: " + s);
  } else {
    return Status::InvalidArgument("expected an integer, got " + j.dump());
  }
  if (v > hi) return Status::InvalidArgument(std::to_string(v) + " out of range");
  return v;
}

Result<double> ParseDouble(const Json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Inf") return std::numeric_limits<double>::infinity();
    if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  }
  return Status::InvalidArgument("expected a number, got " + j.dump());
}

// IEEE binary32 → binary16, rounding to nearest even.
uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff);
  uint32_t mant = x & 0x7fffff;
  if (exp == 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  uint32_t half, rem, mid;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const int shift = 14 - e;
    half = mant >> shift;
    rem = mant & ((1u << shift) - 1);
    mid = 1u << (shift - 1);
  } else {
    half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    rem = mant & 0x1fff;
    mid = 0x1000;
  }
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  if (rem > mid || (rem == mid && (half & 1))) ++half;
  return static_cast<uint16_t>(sign | half);
}

Result<std::string> ParseHex(const Json& j) {
  if (!j.is_string()) return Status::InvalidArgument("expected a hex string, got " + j.dump());
  const std::string& s = j.get_ref<const std::string&>();
  if (s.size() % 2 != 0) return Status::InvalidArgument("odd-length hex string");
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = nibble(s[i]), lo = nibble(s[i + 1]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument("bad hex string " + s);
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

// "-12.34" with scale 3 → the two's complement of -12340 in `bytes` little-endian bytes.
Status ParseDecimal(const Json& j, const DataType& type, uint8_t* out) {
  const int bytes = type.id == TypeId::kDecimal128 ? 16 : 32;
  std::string s;
  if (j.is_string()) {
    s = j.get_ref<const std::string&>();
  } else if (j.is_number()) {
    s = j.dump();
  } else {
    return Status::InvalidArgument("expected a decimal, got " + j.dump());
  }
  size_t pos = 0;
  bool negative = false;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) negative = s[pos++] == '-';
  std::string digits;
  int fraction_digits = -1;
  for (; pos < s.size(); ++pos) {
    if (s[pos] == '.' && fraction_digits < 0) {
      fraction_digits = 0;
    } else if (s[pos] >= '0' && s[pos] <= '9') {
      digits.push_back(s[pos]);
      if (fraction_digits >= 0) ++fraction_digits;
    } else {
      return Status::InvalidArgument("not a decimal: " + s);
    }
  }
  if (digits.empty()) return Status::InvalidArgument("not a decimal: " + s);
  fraction_digits = std::max(fraction_digits, 0);
  if (fraction_digits > type.scale) return Status::InvalidArgument(s + " has more than " + std::to_string(type.scale) + " fractional digits");
  digits.append(static_cast<size_t>(type.scale - fraction_digits), '0');
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (static_cast<int>(digits.size()) > type.precision) {
    return Status::InvalidArgument(s + " exceeds precision " + std::to_string(type.precision));
  }
  // Base-2^32 limbs; precision <= 76 digits keeps the magnitude inside 256 bits.
  std::vector<uint32_t> limbs(static_cast<size_t>(bytes / 4), 0);
  for (char c : digits) {
    uint64_t carry = static_cast<uint64_t>(c - '0');
    for (uint32_t& limb : limbs) {
      uint64_t v = static_cast<uint64_t>(limb) * 10 + carry;
      limb = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    if (carry != 0 || (limbs.back() >> 31) != 0) return Status::InvalidArgument(s + " does not fit " + type.ToString());
  }
  if (negative) {
    uint64_t carry = 1;
    for (uint32_t& limb : limbs) {
      uint64_t v = static_cast<uint64_t>(~limb) + carry;
      limb = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
  }
  for (size_t i = 0; i < limbs.size(); ++i) {
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<uint8_t>(limbs[i] >> (8 * b));
  }
  return Status::OK();
}

Result<Array> Build(const DataType& type, const Rows& rows, int depth);

// Fixed-width values: each valid row is encoded into `width` bytes by `encode`.
template <typename Encode>
Result<Array> BuildFixed(const DataType& type, const Rows& rows, int64_t width, Encode&& encode) {
  std::vector<uint8_t> bytes(rows.size() * static_cast<size_t>(width), 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (IsNullRow(rows[i])) continue;
    Status st = encode(*rows[i], bytes.data() + i * width);
    if (!st.ok()) return RowError(i, type, st.message());
  }
  return MakeFixedWidthArray(type, bytes, static_cast<int64_t>(rows.size()), ValidityOf(rows));
}

template <typename T>
Result<Array> BuildSigned(const DataType& type, const Rows& rows) {
  return BuildFixed(type, rows, sizeof(T), [](const Json& j, uint8_t* out) -> Status {
    ASSIGN_OR_RETURN(int64_t v, ParseSigned(j, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    T t = static_cast<T>(v);
    std::memcpy(out, &t, sizeof(T));
    return Status::OK();
  });
}

template <typename T>
Result<Array> BuildUnsigned(const DataType& type, const Rows& rows) {
  return BuildFixed(type, rows, sizeof(T), [](const Json& j, uint8_t* out) -> Status {
    ASSIGN_OR_RETURN(uint64_t v, ParseUnsigned(j, std::numeric_limits<T>::max()));
    T t = static_cast<T>(v);
    std::memcpy(out, &t, sizeof(T));
    return Status::OK();
  });
}

Result<Array> BuildList(const DataType& type, const Rows& rows, int depth) {
  if (type.children.size() != 1) return Status::InvalidArgument("malformed type " + type.ToString());
  std::vector<int64_t> offsets = {0};
  Rows child_rows;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!IsNullRow(rows[i])) {
      if (!rows[i]->is_array()) return RowError(i, type, "expected a JSON array");
      for (const Json& e : *rows[i]) child_rows.push_back(&e);
    }
    offsets.push_back(static_cast<int64_t>(child_rows.size()));
  }
  ASSIGN_OR_RETURN(Array child, Build(type.children[0].type, child_rows, depth + 1));
  return MakeListArray(type, offsets, std::move(child), ValidityOf(rows));
}

Result<Array> BuildFixedSizeList(const DataType& type, const Rows& rows, int depth) {
  if (type.children.size() != 1 || type.list_size < 0) return Status::InvalidArgument("malformed type " + type.ToString());
  Rows child_rows;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (IsNullRow(rows[i])) {
      child_rows.insert(child_rows.end(), static_cast<size_t>(type.list_size), nullptr);
      continue;
    }
    if (!rows[i]->is_array() || static_cast<int64_t>(rows[i]->size()) != type.list_size) {
      return RowError(i, type, "expected a JSON array of " + std::to_string(type.list_size) + " values");
    }
    for (const Json& e : *rows[i]) child_rows.push_back(&e);
  }
  ASSIGN_OR_RETURN(Array child, Build(type.children[0].type, child_rows, depth + 1));
  return MakeFixedSizeListArray(type, static_cast<int64_t>(rows.size()), std::move(child), ValidityOf(rows));
}

Result<Array> BuildStruct(const DataType& type, const Rows& rows, int depth) {
  std::vector<Rows> child_rows(type.children.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Json* row = rows[i];
    for (size_t k = 0; k < type.children.size(); ++k) {
      const Json* value = nullptr;
      if (IsNullRow(row)) {
        value = nullptr;
      } else if (row->is_object()) {
        auto it = row->find(type.children[k].name);
        if (it != row->end()) value = &*it;
      } else if (row->is_array()) {
        if (row->size() != type.children.size()) return RowError(i, type, "wrong number of struct fields");
        value = &(*row)[k];
      } else {
        return RowError(i, type, "expected a JSON object or array");
      }
      child_rows[k].push_back(value);
    }
    if (!IsNullRow(row) && row->is_object()) {
      for (const auto& item : row->items()) {
        bool known = false;
        for (const Field& f : type.children) known = known || f.name == item.key();
        if (!known) return RowError(i, type, "unknown field " + item.key());
      }
    }
  }
  std::vector<Array> children;
  for (size_t k = 0; k < type.children.size(); ++k) {
    Result<Array> child = Build(type.children[k].type, child_rows[k], depth + 1);
    if (!child.ok()) return child.status().WithContext("field " + type.children[k].name);
    children.push_back(child.MoveValue());
  }
  return MakeStructArray(type, static_cast<int64_t>(rows.size()), std::move(children), ValidityOf(rows));
}

Result<Array> BuildDictionary(const DataType& type, const Rows& rows, int depth) {
  if (!type.index_type || !type.value_type) return Status::InvalidArgument("malformed type " + type.ToString());
  // Each distinct value (by its JSON text) enters the dictionary once, in first-seen order.
  std::map<std::string, int64_t> seen;
  Rows distinct;
  std::vector<int64_t> indices;
  for (const Json* row : rows) {
    if (IsNullRow(row)) {
      indices.push_back(0);
      continue;
    }
    auto [it, inserted] = seen.emplace(row->dump(), static_cast<int64_t>(distinct.size()));
    if (inserted) distinct.push_back(row);
    indices.push_back(it->second);
  }
  ASSIGN_OR_RETURN(Array dictionary, Build(*type.value_type, distinct, depth + 1));
  Json index_json = Json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (IsNullRow(rows[i])) {
      index_json.push_back(nullptr);
    } else {
      index_json.push_back(indices[i]);
    }
  }
  Rows index_rows;
  for (const Json& j : index_json) index_rows.push_back(&j);
  Result<Array> index_array = Build(*type.index_type, index_rows, depth + 1);
  if (!index_array.ok()) return index_array.status().WithContext("dictionary too large for its index type");
  return MakeDictionaryArray(index_array.MoveValue(), std::move(dictionary));
}

Result<Array> Build(const DataType& type, const Rows& rows, int depth) {
  if (depth > kMaxDepth) return Status::InvalidArgument("type nesting too deep");
  switch (type.id) {
    case TypeId::kNull: {
      for (size_t i = 0; i < rows.size(); ++i) {
        if (!IsNullRow(rows[i])) return RowError(i, type, "only null is allowed");
      }
      Array out;
      out.type = type;
      out.length = out.null_count = static_cast<int64_t>(rows.size());
      return out;
    }
    case TypeId::kBool: {
      std::vector<bool> values;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (IsNullRow(rows[i])) {
          values.push_back(false);
        } else if (rows[i]->is_boolean()) {
          values.push_back(rows[i]->get<bool>());
        } else {
          return RowError(i, type, "expected true or false");
        }
      }
      return MakeBoolArray(values, ValidityOf(rows));
    }
    case TypeId::kInt8: return BuildSigned<int8_t>(type, rows);
    case TypeId::kInt16: return BuildSigned<int16_t>(type, rows);
    case TypeId::kInt32: case TypeId::kDate32: case TypeId::kTime32: return BuildSigned<int32_t>(type, rows);
    case TypeId::kInt64: case TypeId::kDate64: case TypeId::kTime64: case TypeId::kTimestamp:
    case TypeId::kDuration:
      return BuildSigned<int64_t>(type, rows);
    case TypeId::kUInt8: return BuildUnsigned<uint8_t>(type, rows);
    case TypeId::kUInt16: return BuildUnsigned<uint16_t>(type, rows);
    case TypeId::kUInt32: return BuildUnsigned<uint32_t>(type, rows);
    case TypeId::kUInt64: return BuildUnsigned<uint64_t>(type, rows);
    case TypeId::kFloat16:
      return BuildFixed(type, rows, 2, [](const Json& j, uint8_t* out) -> Status {
        ASSIGN_OR_RETURN(double d, ParseDouble(j));
        uint16_t h = FloatToHalf(static_cast<float>(d));
        std::memcpy(out, &h, 2);
        return Status::OK();
      });
    case TypeId::kFloat32:
      return BuildFixed(type, rows, 4, [](const Json& j, uint8_t* out) -> Status {
        ASSIGN_OR_RETURN(double d, ParseDouble(j));
        float f = static_cast<float>(d);
        std::memcpy(out, &f, 4);
        return Status::OK();
      });
    case TypeId::kFloat64:
      return BuildFixed(type, rows, 8, [](const Json& j, uint8_t* out) -> Status {
        ASSIGN_OR_RETURN(double d, ParseDouble(j));
        std::memcpy(out, &d, 8);
        return Status::OK();
      });
    case TypeId::kDecimal128: case TypeId::kDecimal256:
      return BuildFixed(type, rows, type.id == TypeId::kDecimal128 ? 16 : 32,
                        [&type](const Json& j, uint8_t* out) { return ParseDecimal(j, type, out); });
    case TypeId::kFixedSizeBinary: {
      if (type.byte_width < 0 || type.byte_width > (1 << 20)) return Status::InvalidArgument("unreasonable byte width");
      return BuildFixed(type, rows, type.byte_width, [&type](const Json& j, uint8_t* out) -> Status {
        ASSIGN_OR_RETURN(std::string bytes, ParseHex(j));
        if (static_cast<int64_t>(bytes.size()) != type.byte_width) {
          return Status::InvalidArgument("expected " + std::to_string(type.byte_width) + " bytes");
        }
        std::memcpy(out, bytes.data(), bytes.size());
        return Status::OK();
      });
    }
    case TypeId::kUtf8: case TypeId::kLargeUtf8: case TypeId::kBinary: case TypeId::kLargeBinary: {
      const bool hex = type.id == TypeId::kBinary || type.id == TypeId::kLargeBinary;
      std::vector<std::optional<std::string>> values;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (IsNullRow(rows[i])) {
          values.emplace_back(std::nullopt);
        } else if (hex) {
          Result<std::string> bytes = ParseHex(*rows[i]);
          if (!bytes.ok()) return RowError(i, type, bytes.status().message());
          values.emplace_back(bytes.MoveValue());
        } else if (rows[i]->is_string()) {
          values.emplace_back(rows[i]->get<std::string>());
        } else {
          return RowError(i, type, "expected a string");
        }
      }
      return MakeBinaryArray(type, values);
    }
    case TypeId::kList: case TypeId::kLargeList: case TypeId::kMap:
      return BuildList(type, rows, depth);
    case TypeId::kFixedSizeList:
      return BuildFixedSizeList(type, rows, depth);
    case TypeId::kStruct:
      return BuildStruct(type, rows, depth);
    case TypeId::kDictionary:
      return BuildDictionary(type, rows, depth);
  }
  return Status::NotSupported("ArrayFromJson for " + type.ToString());
}

}  // namespace

Result<Array> ArrayFromJson(const DataType& type, std::string_view json) {
  Json parsed = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Status::InvalidArgument("malformed JSON: " + std::string(json.substr(0, 80)));
  if (!parsed.is_array()) return Status::InvalidArgument("ArrayFromJson expects a JSON array");
  Rows rows;
  rows.reserve(parsed.size());
  for (const Json& j : parsed) rows.push_back(&j);
  return Build(type, rows, 0);
}

}  // namespace lancet
