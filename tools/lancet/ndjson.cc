#include "lancet/ndjson.h"

#include <charconv>
#include <limits>

#include "util/array_json.h"

namespace lancet::cli {
namespace {

using Json = nlohmann::json;

constexpr int kMaxValueDepth = 64;

Status BadValue(const std::string& path, const std::string& what) {
  return Status::InvalidArgument("column '" + path + "': " + what);
}

std::string Preview(const Json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

bool IsDigest(const Json& v) { return v.is_object() && v.contains("len") && v.contains("sha256"); }

// Integers: JSON numbers, or decimal strings for values past 2^53.
Status CheckInteger(const Json& v, const DataType& type, const std::string& path) {
  const bool is_unsigned = type.id >= TypeId::kUInt8 && type.id <= TypeId::kUInt64;
  const int bits = type.BitWidth();
  if (v.is_number_unsigned() || v.is_number_integer() || v.is_string()) {
    // Range-check through the widest type of the right signedness.
    if (is_unsigned) {
      uint64_t u = 0;
      if (v.is_number_unsigned()) {
        u = v.get<uint64_t>();
      } else if (v.is_number_integer()) {
        return BadValue(path, Preview(v) + " is negative, the column is " + type.ToString());
      } else {
        const std::string& s = v.get_ref<const std::string&>();
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), u);
        if (ec != std::errc() || p != s.data() + s.size())
          return BadValue(path, Preview(v) + " is not an integer (" + type.ToString() + ")");
      }
      if (bits < 64 && u > (uint64_t{1} << bits) - 1) return BadValue(path, Preview(v) + " does not fit " + type.ToString());
      return Status::OK();
    }
    int64_t s64 = 0;
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return BadValue(path, Preview(v) + " does not fit " + type.ToString());
      }
      s64 = static_cast<int64_t>(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      s64 = v.get<int64_t>();
    } else {
      const std::string& s = v.get_ref<const std::string&>();
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), s64);
      if (ec != std::errc() || p != s.data() + s.size())
        return BadValue(path, Preview(v) + " is not an integer (" + type.ToString() + ")");
    }
    if (bits < 64) {
      const int64_t hi = (int64_t{1} << (bits - 1)) - 1;
      if (s64 > hi || s64 < -hi - 1) return BadValue(path, Preview(v) + " does not fit " + type.ToString());
    }
    return Status::OK();
  }
  return BadValue(path, "expected an integer (" + type.ToString() + "), got " + Preview(v));
}

Result<Json> NormalizeFloat(const Json& v, const std::string& path) {
  if (v.is_number()) return v;
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "NaN") return Json("NaN");
    if (s == "Infinity" || s == "Inf") return Json("Inf");
    if (s == "-Infinity" || s == "-Inf") return Json("-Inf");
    if (s == "-0") return Json(-0.0);
  }
  return BadValue(path,
             "expected a number (or \"NaN\", \"Infinity\", "
             "\"-Infinity\", \"-0\"), got " +
                 Preview(v));
}

// The contract writes decimals as the unscaled integer; ArrayFromJson wants the
// scaled text, so "-12345" at scale 4 becomes "-1.2345".
Result<Json> NormalizeDecimal(const Json& v, const DataType& type, const std::string& path) {
  std::string s;
  if (v.is_string()) {
    s = v.get<std::string>();
  } else if (v.is_number_integer() || v.is_number_unsigned()) {
    s = v.dump();
  } else {
    return BadValue(path, "expected a decimal string, got " + Preview(v));
  }
  if (s.find('.') != std::string::npos) return Json(s);
  std::string sign;
  std::string digits = s;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    if (digits[0] == '-') sign = "-";
    digits.erase(0, 1);
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    return BadValue(path, Preview(v) + " is not a decimal");
  }
  if (type.scale == 0) return Json(sign + digits);
  const size_t scale = static_cast<size_t>(type.scale);
  if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
  return Json(sign + digits.substr(0, digits.size() - scale) + "." + digits.substr(digits.size() - scale));
}

Status CheckHex(const Json& v, int64_t width, const std::string& path) {
  if (!v.is_string()) return BadValue(path, "expected a hex string, got " + Preview(v));
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() % 2 != 0 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    return BadValue(path, Preview(v) + " is not a hex string");
  }
  if (width >= 0 && static_cast<int64_t>(s.size() / 2) != width) {
    return BadValue(path, "expected " + std::to_string(width) + " bytes, got " + std::to_string(s.size() / 2));
  }
  return Status::OK();
}

Status Normalize(const Json& v, const Field& field, const std::string& path, int depth, Json* out);

Status NormalizeStruct(const Json& v, const std::vector<Field>& children, const std::string& path, int depth,
                       Json* out) {
  if (!v.is_object()) return BadValue(path, "expected a JSON object, got " + Preview(v));
  for (const auto& item : v.items()) {
    bool known = false;
    for (const Field& c : children) known = known || c.name == item.key();
    if (!known) return BadValue(path, "no member named '" + item.key() + "'");
  }
  *out = Json::object();
  for (const Field& c : children) {
    auto it = v.find(c.name);
    const std::string child_path = path + "." + c.name;
    RETURN_IF_ERROR(Normalize(it == v.end() ? Json() : *it, c, child_path, depth + 1, &(*out)[c.name]));
  }
  return Status::OK();
}

Status Normalize(const Json& v, const Field& field, const std::string& path, int depth, Json* out) {
  if (depth > kMaxValueDepth) return BadValue(path, "nested too deep");
  if (v.is_null()) {
    if (!field.nullable) return BadValue(path, "null in a non-nullable field");
    *out = nullptr;
    return Status::OK();
  }
  if (IsDigest(v))
    return BadValue(path,
               "a digest ({\"len\", \"sha256\"}) cannot be imported; the "
               "value itself is needed");
  const DataType& t = field.type;
  switch (t.id) {
    case TypeId::kNull:
      return BadValue(path, "only null fits a null column, got " + Preview(v));
    case TypeId::kBool:
      if (!v.is_boolean()) return BadValue(path, "expected true or false, got " + Preview(v));
      *out = v;
      return Status::OK();
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: {
      // Temporal values are their stored integers, signed.
      DataType as = t;
      if (t.id >= TypeId::kDate32) as = MakeType(t.BitWidth() == 32 ? TypeId::kInt32 : TypeId::kInt64);
      RETURN_IF_ERROR(CheckInteger(v, as, path));
      *out = v;
      return Status::OK();
    }
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      ASSIGN_OR_RETURN(*out, NormalizeFloat(v, path));
      return Status::OK();
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      ASSIGN_OR_RETURN(*out, NormalizeDecimal(v, t, path));
      return Status::OK();
    }
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      if (!v.is_string()) return BadValue(path, "expected a string, got " + Preview(v));
      *out = v;
      return Status::OK();
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      RETURN_IF_ERROR(CheckHex(v, -1, path));
      *out = v;
      return Status::OK();
    case TypeId::kFixedSizeBinary:
      RETURN_IF_ERROR(CheckHex(v, t.byte_width, path));
      *out = v;
      return Status::OK();
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: {
      if (!v.is_array()) return BadValue(path, "expected a JSON array, got " + Preview(v));
      if (t.id == TypeId::kFixedSizeList && static_cast<int64_t>(v.size()) != t.list_size) {
        return BadValue(path, "expected " + std::to_string(t.list_size) + " items, got " + std::to_string(v.size()));
      }
      *out = Json::array();
      for (size_t i = 0; i < v.size(); ++i) {
        Json item;
        RETURN_IF_ERROR(Normalize(v[i], t.children[0], path + "[" + std::to_string(i) + "]", depth + 1, &item));
        out->push_back(std::move(item));
      }
      return Status::OK();
    }
    case TypeId::kMap: {
      if (!v.is_array()) return BadValue(path, "expected an array of {\"key\", \"value\"} entries, got " + Preview(v));
      const Field& entries = t.children[0];
      *out = Json::array();
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string entry_path = path + "[" + std::to_string(i) + "]";
        Json entry = v[i];
        if (entry.is_array() && entry.size() == 2) {
          entry = Json{{entries.type.children[0].name, v[i][0]}, {entries.type.children[1].name, v[i][1]}};
        }
        if (entry.is_null()) return BadValue(entry_path, "a map entry cannot be null");
        Json normalized;
        RETURN_IF_ERROR(NormalizeStruct(entry, entries.type.children, entry_path, depth + 1, &normalized));
        out->push_back(std::move(normalized));
      }
      return Status::OK();
    }
    case TypeId::kStruct:
      return NormalizeStruct(v, t.children, path, depth, out);
    case TypeId::kDictionary: {
      Field value_field = MakeField(field.name, *t.value_type, true);
      return Normalize(v, value_field, path, depth + 1, out);
    }
  }
  return BadValue(path, "type " + t.ToString() + " cannot be imported from JSON");
}

}  // namespace

Status NormalizeValue(const Json& value, const Field& field, const std::string& path, Json* out) {
  return Normalize(value, field, path, 0, out);
}

Result<std::unique_ptr<NdjsonReader>> NdjsonReader::Open(const std::string& path, Schema schema, int64_t batch_rows) {
  if (batch_rows < 1) return Status::InvalidArgument("NDJSON batches need at least one row");
  std::unique_ptr<NdjsonReader> r(new NdjsonReader(path, std::move(schema), batch_rows));
  r->in_.open(path, std::ios::binary);
  if (!r->in_) return Status::IOError(path + ": cannot open for reading");
  return r;
}

Status NdjsonReader::NormalizeRow(const Json& row, Json* out) const {
  if (!row.is_object()) return Status::InvalidArgument("expected a JSON object per line, got " + Preview(row));
  for (const auto& item : row.items()) {
    if (item.key() == "_rowaddr" || item.key() == "_rowid") continue;
    if (schema_.FieldIndex(item.key()) < 0) {
      return Status::InvalidArgument("no column named '" + item.key() + "' in the schema");
    }
  }
  *out = Json::object();
  for (const Field& f : schema_.fields) {
    auto it = row.find(f.name);
    RETURN_IF_ERROR(NormalizeValue(it == row.end() ? Json() : *it, f, f.name, &(*out)[f.name]));
  }
  return Status::OK();
}

Result<std::optional<RecordBatch>> NdjsonReader::Next() {
  Json rows = Json::array();
  std::string line;
  while (static_cast<int64_t>(rows.size()) < batch_rows_ && std::getline(in_, line)) {
    ++line_;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path_ + ":" + std::to_string(line_);
    Json row;
    // The throwing parser is the one that says what is wrong (e.g. ill-formed UTF-8).
    try {
      row = Json::parse(line);
    } catch (const Json::exception& e) {
      return Status::InvalidArgument(where + ": invalid JSON: " + e.what());
    }
    Json normalized;
    Status st = NormalizeRow(row, &normalized);
    if (!st.ok()) return st.WithContext(where);
    rows.push_back(std::move(normalized));
  }
  if (in_.bad()) return Status::IOError(path_ + ": read failed after line " + std::to_string(line_));
  if (rows.empty()) return std::optional<RecordBatch>();
  const int64_t n = static_cast<int64_t>(rows.size());
  auto built = ArrayFromJson(StructOf(schema_.fields), rows.dump());
  if (!built.ok()) {
    return built.status().WithContext(path_ + ": lines up to " + std::to_string(line_));
  }
  RecordBatch batch{schema_, n, std::move(built->children)};
  rows_read_ += static_cast<uint64_t>(n);
  return std::optional<RecordBatch>(std::move(batch));
}

}  // namespace lancet::cli
