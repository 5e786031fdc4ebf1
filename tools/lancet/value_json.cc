#include "lancet/value_json.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "util/sha256.h"

namespace lancet::cli {
namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// The value buffer (slot 1) of a fixed-width array, checked to hold element `index`.
Result<const uint8_t*> FixedWidthElement(const Array& a, int64_t index, size_t width) {
  if (a.buffers.size() < 2 || !a.buffers[1]) return Status::Corruption("array of " + a.type.ToString() + " has no value buffer");
  const uint64_t end = static_cast<uint64_t>(a.offset + index + 1) * width;
  if (end > a.buffers[1]->size()) {
    return Status::Corruption("array of " + a.type.ToString() + " is shorter than its length");
  }
  return a.buffers[1]->data() + static_cast<uint64_t>(a.offset + index) * width;
}

void WriteBytes(JsonWriter& w, std::string_view bytes, bool as_text, const ValueOptions& options) {
  if (bytes.size() > options.digest_threshold) {
    w.BeginObject();
    w.Key("len");
    w.UInt(bytes.size());
    w.Key("sha256");
    w.String(Sha256Hex(bytes));
    w.EndObject();
  } else if (as_text) {
    w.String(bytes);
  } else {
    w.String(ToHex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())));
  }
}

std::string ChildPath(std::string_view parent, std::string_view child) {
  std::string p(parent);
  if (!p.empty()) p.push_back('.');
  p.append(child);
  return p;
}

// The logical child matching array child `k` of a struct, preferring the same
// position and falling back to the name (schemas may differ in order).
const Field* LogicalChild(const Field* logical, const Field& child, size_t k) {
  if (logical == nullptr || logical->type.id != TypeId::kStruct) return nullptr;
  const auto& kids = logical->type.children;
  if (k < kids.size() && kids[k].name == child.name) return &kids[k];
  for (const Field& f : kids) {
    if (f.name == child.name) return &f;
  }
  return nullptr;
}

Result<int64_t> DictionaryIndex(const Array& a, int64_t index) {
  if (!a.type.index_type) return Status::Corruption("dictionary array without an index type");
  const TypeId id = a.type.index_type->id;
  switch (id) {
    case TypeId::kInt8: case TypeId::kUInt8: {
      ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, 1));
      return id == TypeId::kInt8 ? int64_t{Load<int8_t>(p)} : int64_t{Load<uint8_t>(p)};
    }
    case TypeId::kInt16: case TypeId::kUInt16: {
      ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, 2));
      return id == TypeId::kInt16 ? int64_t{Load<int16_t>(p)} : int64_t{Load<uint16_t>(p)};
    }
    case TypeId::kInt32: case TypeId::kUInt32: {
      ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, 4));
      return id == TypeId::kInt32 ? int64_t{Load<int32_t>(p)} : int64_t{Load<uint32_t>(p)};
    }
    case TypeId::kInt64: case TypeId::kUInt64: {
      ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, 8));
      return Load<int64_t>(p);
    }
    default:
      return Status::NotSupported("dictionary index type " + a.type.index_type->ToString());
  }
}

void WriteMetadata(JsonWriter& w, const Metadata& metadata) {
  // Metadata is a std::map, so keys come out sorted as the contract asks.
  w.BeginObject();
  for (const auto& [k, v] : metadata) {
    w.Key(k);
    w.String(v);
  }
  w.EndObject();
}

// "type" plus the type's extra keys; children are written by the caller.
void WriteTypeKeys(JsonWriter& w, const DataType& t) {
  w.Key("type");
  w.String(ContractTypeName(t));
  switch (t.id) {
    case TypeId::kFixedSizeBinary:
      w.Key("byte_width");
      w.Int(t.byte_width);
      break;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      w.Key("precision");
      w.Int(t.precision);
      w.Key("scale");
      w.Int(t.scale);
      break;
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      w.Key("unit");
      w.String(TimeUnitName(t.unit));
      break;
    case TypeId::kTimestamp:
      w.Key("unit");
      w.String(TimeUnitName(t.unit));
      w.Key("timezone");
      if (t.timezone) {
        w.String(*t.timezone);
      } else {
        w.Null();
      }
      break;
    case TypeId::kFixedSizeList:
      w.Key("list_size");
      w.Int(t.list_size);
      break;
    case TypeId::kMap:
      w.Key("keys_sorted");
      w.Bool(t.keys_sorted);
      break;
    case TypeId::kDictionary:
      w.Key("index_type");
      w.String(t.index_type ? ContractTypeName(*t.index_type) : "null");
      // Lancet's DataType has no ordered flag; Lance never writes ordered dictionaries.
      w.Key("ordered");
      w.Bool(false);
      w.Key("value_type");
      w.BeginObject();
      if (t.value_type) {
        WriteTypeKeys(w, *t.value_type);
        if (!t.value_type->children.empty()) {
          w.Key("children");
          w.BeginArray();
          for (const Field& c : t.value_type->children) WriteFieldJson(w, c);
          w.EndArray();
        }
      }
      w.EndObject();
      break;
    default:
      break;
  }
}

bool HasChildrenKey(const DataType& t) {
  return t.id == TypeId::kList || t.id == TypeId::kLargeList || t.id == TypeId::kFixedSizeList ||
         t.id == TypeId::kStruct || t.id == TypeId::kMap;
}

}  // namespace

double HalfToDouble(uint16_t bits) {
  const int sign = (bits >> 15) ? -1 : 1;
  const int exponent = (bits >> 10) & 0x1F;
  const int fraction = bits & 0x3FF;
  if (exponent == 0) return sign * std::ldexp(static_cast<double>(fraction), -24);
  if (exponent == 31) return fraction != 0 ? std::nan("") : sign * HUGE_VAL;
  return sign * std::ldexp(static_cast<double>(fraction | 0x400), exponent - 25);
}

std::string SignedLittleEndianToDecimal(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return "0";
  // Magnitude as 32-bit limbs, least significant first.
  const bool negative = (bytes.back() & 0x80) != 0;
  std::vector<uint32_t> limbs((bytes.size() + 3) / 4, 0);
  for (size_t i = 0; i < bytes.size(); ++i) limbs[i / 4] |= uint32_t{bytes[i]} << (8 * (i % 4));
  if (bytes.size() % 4 != 0 && negative) {
    // Sign-extend a width that is not a whole number of limbs.
    for (size_t i = bytes.size(); i < limbs.size() * 4; ++i) limbs[i / 4] |= uint32_t{0xFF} << (8 * (i % 4));
  }
  if (negative) {
    // Two's complement negation: invert and add one.
    uint64_t carry = 1;
    for (uint32_t& l : limbs) {
      uint64_t v = uint64_t{static_cast<uint32_t>(~l)} + carry;
      l = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
  }
  // Repeated division by 10^9 yields nine decimal digits per step, lowest first.
  constexpr uint32_t kChunk = 1000000000;
  std::vector<uint32_t> chunks;
  size_t top = limbs.size();
  while (top > 0 && limbs[top - 1] == 0) --top;
  while (top > 0) {
    uint64_t rem = 0;
    for (size_t i = top; i-- > 0;) {
      uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / kChunk);
      rem = cur % kChunk;
    }
    chunks.push_back(static_cast<uint32_t>(rem));
    while (top > 0 && limbs[top - 1] == 0) --top;
  }
  if (chunks.empty()) return "0";
  std::string out = negative ? "-" : "";
  out += std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    std::string part = std::to_string(chunks[i]);
    out.append(9 - part.size(), '0');
    out += part;
  }
  return out;
}

std::string_view ContractTypeName(const DataType& type) { return TypeIdName(type.id); }

void WriteFieldJson(JsonWriter& w, const Field& field) {
  w.BeginObject();
  w.Key("name");
  w.String(field.name);
  WriteTypeKeys(w, field.type);
  w.Key("nullable");
  w.Bool(field.nullable);
  w.Key("metadata");
  WriteMetadata(w, field.metadata);
  if (HasChildrenKey(field.type)) {
    w.Key("children");
    w.BeginArray();
    for (const Field& c : field.type.children) WriteFieldJson(w, c);
    w.EndArray();
  }
  w.EndObject();
}

void WriteSchemaJson(JsonWriter& w, const Schema& schema) {
  w.BeginObject();
  w.Key("fields");
  w.BeginArray();
  for (const Field& f : schema.fields) WriteFieldJson(w, f);
  w.EndArray();
  w.Key("metadata");
  WriteMetadata(w, schema.metadata);
  w.EndObject();
}

std::vector<std::string> BlobFieldPaths(const Schema& schema) {
  std::vector<std::string> out;
  std::function<void(const std::vector<Field>&, const std::string&)> walk =
      [&](const std::vector<Field>& fields, const std::string& prefix) {
        for (const Field& f : fields) {
          std::string p = ChildPath(prefix, f.name);
          if (IsBlobV2Field(f)) {
            out.push_back(p);
          } else if (f.type.id == TypeId::kStruct) {
            walk(f.type.children, p);
          }
        }
      };
  walk(schema.fields, "");
  return out;
}

Status WriteValue(JsonWriter& w, const Array& a, int64_t index, const Field* logical, std::string_view path,
                  const ValueOptions& options) {
  if (index < 0 || index >= a.length) {
    return Status::Internal("value " + std::to_string(index) + " of an array of length " + std::to_string(a.length));
  }
  if (logical != nullptr && options.blob_writer && IsBlobV2Field(*logical)) {
    options.blob_writer(w, path, a, index);
    return Status::OK();
  }
  if (a.IsNull(index)) {
    w.Null();
    return Status::OK();
  }
  const DataType& t = a.type;
  switch (t.id) {
    case TypeId::kNull:
      w.Null();
      return Status::OK();
    case TypeId::kBool: {
      if (a.buffers.size() < 2 || !a.buffers[1] || static_cast<uint64_t>((a.offset + index) / 8) >= a.buffers[1]->size()) {
        return Status::Corruption("bool array is shorter than its length");
      }
      w.Bool(a.GetBool(index));
      return Status::OK();
    }
#define LANCET_INT_CASE(id, ctype, method)                                      \
  case TypeId::id: {                                                            \
    ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, sizeof(ctype))); \
    w.method(Load<ctype>(p));                                                   \
    return Status::OK();                                                        \
  }
      LANCET_INT_CASE(kInt8, int8_t, Int)
      LANCET_INT_CASE(kInt16, int16_t, Int)
      LANCET_INT_CASE(kInt32, int32_t, Int)
      LANCET_INT_CASE(kUInt8, uint8_t, UInt)
      LANCET_INT_CASE(kUInt16, uint16_t, UInt)
      LANCET_INT_CASE(kUInt32, uint32_t, UInt)
      LANCET_INT_CASE(kDate32, int32_t, Int)
      LANCET_INT_CASE(kTime32, int32_t, Int)
      LANCET_INT_CASE(kInt64, int64_t, IntString)
      LANCET_INT_CASE(kUInt64, uint64_t, UIntString)
      LANCET_INT_CASE(kDate64, int64_t, IntString)
      LANCET_INT_CASE(kTime64, int64_t, IntString)
      LANCET_INT_CASE(kTimestamp, int64_t, IntString)
      LANCET_INT_CASE(kDuration, int64_t, IntString)
      LANCET_INT_CASE(kFloat64, double, Double)
#undef LANCET_INT_CASE
    case TypeId::kFloat32: {
      ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, 4));
      const float v = Load<float>(p);
      if (options.float32_shortest) {
        w.Float(v);
      } else {
        w.Double(v);
      }
      return Status::OK();
    }
    case TypeId::kFloat16: {
      ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, 2));
      w.Double(HalfToDouble(Load<uint16_t>(p)));
      return Status::OK();
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      const size_t width = t.id == TypeId::kDecimal128 ? 16 : 32;
      ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, width));
      w.String(SignedLittleEndianToDecimal(std::span<const uint8_t>(p, width)));
      return Status::OK();
    }
    case TypeId::kFixedSizeBinary: {
      if (t.byte_width < 0) return Status::Corruption("fixed_size_binary with negative width");
      ASSIGN_OR_RETURN(const uint8_t* p, FixedWidthElement(a, index, static_cast<size_t>(t.byte_width)));
      WriteBytes(w, std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(t.byte_width)), false,
                 options);
      return Status::OK();
    }
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      WriteBytes(w, a.GetView(index), t.id == TypeId::kUtf8 || t.id == TypeId::kLargeUtf8, options);
      return Status::OK();
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      if (a.children.size() != 1) return Status::Corruption(t.ToString() + " array without its child");
      const auto [begin, end] = a.ListRange(index);
      if (begin < 0 || end < begin || end > a.children[0].length) {
        return Status::Corruption(t.ToString() + " offsets out of bounds");
      }
      // Blob fields are only recognised at struct depth (contract), so list items
      // are encoded without their logical field.
      w.BeginArray();
      for (int64_t j = begin; j < end; ++j) RETURN_IF_ERROR(WriteValue(w, a.children[0], j, nullptr, {}, options));
      w.EndArray();
      return Status::OK();
    }
    case TypeId::kFixedSizeList: {
      if (a.children.size() != 1) return Status::Corruption(t.ToString() + " array without its child");
      const int64_t n = t.list_size;
      const int64_t begin = (a.offset + index) * n;
      if (n < 0 || begin + n > a.children[0].length) return Status::Corruption(t.ToString() + " child is too short");
      // Blob fields are only recognised at struct depth (contract), so list items
      // are encoded without their logical field.
      w.BeginArray();
      for (int64_t j = begin; j < begin + n; ++j) RETURN_IF_ERROR(WriteValue(w, a.children[0], j, nullptr, {}, options));
      w.EndArray();
      return Status::OK();
    }
    case TypeId::kStruct: {
      if (a.children.size() != t.children.size()) return Status::Corruption(t.ToString() + " array lacks children");
      w.BeginObject();
      for (size_t k = 0; k < t.children.size(); ++k) {
        const Field& child = t.children[k];
        const int64_t j = a.offset + index;
        if (j >= a.children[k].length) return Status::Corruption(t.ToString() + " child '" + child.name + "' is too short");
        w.Key(child.name);
        const Field* logical_child = LogicalChild(logical, child, k);
        // Paths only matter for finding blob fields; skip building them otherwise.
        const std::string child_path =
            logical_child != nullptr && options.blob_writer ? ChildPath(path, child.name) : std::string();
        RETURN_IF_ERROR(WriteValue(w, a.children[k], j, logical_child, child_path, options));
      }
      w.EndObject();
      return Status::OK();
    }
    case TypeId::kDictionary: {
      if (!a.dictionary) return Status::Corruption("dictionary array without its dictionary");
      ASSIGN_OR_RETURN(int64_t k, DictionaryIndex(a, index));
      if (k < 0 || k >= a.dictionary->length) {
        return Status::Corruption("dictionary index " + std::to_string(k) + " out of range");
      }
      return WriteValue(w, *a.dictionary, k, nullptr, path, options);
    }
  }
  return Status::NotSupported("cannot encode values of type " + t.ToString());
}

}  // namespace lancet::cli
