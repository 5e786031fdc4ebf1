// Columns of a batch into evaluation values, and values back into Arrow arrays.
#include <algorithm>
#include <cstring>
#include <optional>

#include "expr/bound.h"
#include "util/array_builder.h"

namespace lancet::expr {
namespace {

std::string PathText(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& p : path) s += (s.empty() ? "" : ".") + p;
  return s;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: renormalise
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

Result<int64_t> DictionaryKey(const Array& a, int64_t i) {
  const uint8_t* base = a.buffers[1]->data();
  const int64_t j = i + a.offset;
  switch (a.type.index_type ? a.type.index_type->id : TypeId::kInt32) {
    case TypeId::kInt8:
      return reinterpret_cast<const int8_t*>(base)[j];
    case TypeId::kUInt8:
      return base[j];
    case TypeId::kInt16:
      return reinterpret_cast<const int16_t*>(base)[j];
    case TypeId::kUInt16:
      return reinterpret_cast<const uint16_t*>(base)[j];
    case TypeId::kUInt32:
      return reinterpret_cast<const uint32_t*>(base)[j];
    case TypeId::kInt64:
    case TypeId::kUInt64:
      return reinterpret_cast<const int64_t*>(base)[j];
    default:
      return reinterpret_cast<const int32_t*>(base)[j];
  }
}

// Values [begin, begin + n) of `a` (a logical range: a.offset is applied by the accessors),
// with validity `outer` (rows) ANDed in when given.
Status LoadValues(const Array& a, int64_t begin, int64_t n, Column* out);

Status LoadDictionary(const Array& a, int64_t begin, int64_t n, Column* out) {
  if (!a.dictionary) return Status::Corruption("dictionary column has no dictionary");
  Column dict;
  RETURN_IF_ERROR(LoadValues(*a.dictionary, 0, a.dictionary->length, &dict));
  out->kind = dict.kind;
  out->arena = dict.arena;
  for (int64_t r = 0; r < n; ++r) {
    int64_t key = 0;
    if (a.IsValid(begin + r)) {
      ASSIGN_OR_RETURN(key, DictionaryKey(a, begin + r));
      if (key < 0 || key >= dict.length) {
        return Status::Corruption("dictionary index " + std::to_string(key) + " is out of range");
      }
    }
    const size_t k = static_cast<size_t>(key);
    out->valid.push_back(a.IsValid(begin + r) && dict.valid[k]);
    switch (dict.kind) {
      case Kind::kBool:
      case Kind::kInt:
        out->ints.push_back(dict.ints[k]);
        break;
      case Kind::kUInt:
        out->uints.push_back(dict.uints[k]);
        break;
      case Kind::kFloat:
        out->floats.push_back(dict.floats[k]);
        break;
      case Kind::kString:
        out->strings.push_back(dict.strings[k]);
        break;
      default:
        return Status::NotSupported("dictionary of " + a.dictionary->type.ToString());
    }
  }
  out->length = n;
  return Status::OK();
}

Status LoadValues(const Array& a, int64_t begin, int64_t n, Column* out) {
  if (a.type.id == TypeId::kDictionary) return LoadDictionary(a, begin, n, out);
  std::optional<Kind> kind = KindOf(a.type);
  if (!kind) return Status::NotSupported("values of type " + a.type.ToString() + " in an expression");
  if (a.length < begin + n) return Status::Corruption("column has fewer values than the batch has rows");
  out->kind = *kind;
  out->length = n;
  out->valid.resize(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) out->valid[static_cast<size_t>(r)] = a.IsValid(begin + r);
  if (*kind == Kind::kNull) return Status::OK();
  auto fill = [&]<typename T, typename V>(std::vector<V>* dst, T) {
    const T* v = a.values<T>() + begin;
    dst->assign(v, v + n);
  };
  switch (a.type.id) {
    case TypeId::kBool:
      out->ints.resize(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) out->ints[static_cast<size_t>(r)] = a.GetBool(begin + r);
      break;
    case TypeId::kInt8:
      fill(&out->ints, int8_t{});
      break;
    case TypeId::kInt16:
      fill(&out->ints, int16_t{});
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      fill(&out->ints, int32_t{});
      break;
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      fill(&out->ints, int64_t{});
      break;
    case TypeId::kUInt8:
      fill(&out->ints, uint8_t{});
      break;
    case TypeId::kUInt16:
      fill(&out->ints, uint16_t{});
      break;
    case TypeId::kUInt32:
      fill(&out->ints, uint32_t{});
      break;
    case TypeId::kUInt64:
      fill(&out->uints, uint64_t{});
      break;
    case TypeId::kFloat16: {
      const uint16_t* v = a.values<uint16_t>() + begin;
      out->floats.resize(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) out->floats[static_cast<size_t>(r)] = HalfToFloat(v[r]);
      break;
    }
    case TypeId::kFloat32:
      fill(&out->floats, float{});
      break;
    case TypeId::kFloat64:
      fill(&out->floats, double{});
      break;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      out->strings.resize(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) {
        if (a.IsValid(begin + r)) out->strings[static_cast<size_t>(r)] = a.GetView(begin + r);
      }
      break;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: {
      if (a.children.size() != 1) return Status::Corruption("list column without its item column");
      out->offsets.resize(static_cast<size_t>(n) + 1);
      int64_t first = 0, last = 0;
      for (int64_t r = 0; r <= n; ++r) {
        int64_t at;
        if (a.type.id == TypeId::kFixedSizeList) {
          at = (a.offset + begin + r) * a.type.list_size;
        } else {
          at = r < n ? a.ListRange(begin + r).first : (n > 0 ? a.ListRange(begin + n - 1).second : 0);
        }
        if (r == 0) first = at;
        if (at < last || at < first) return Status::Corruption("list offsets are not monotone");
        last = at;
        out->offsets[static_cast<size_t>(r)] = at - first;
      }
      out->items = std::make_shared<Column>();
      RETURN_IF_ERROR(LoadValues(a.children[0], first, last - first, out->items.get()));
      break;
    }
    default:
      return Status::NotSupported("values of type " + a.type.ToString() + " in an expression");
  }
  return Status::OK();
}

}  // namespace

std::optional<Kind> KindOf(const DataType& type) {
  switch (type.id) {
    case TypeId::kNull:
      return Kind::kNull;
    case TypeId::kBool:
      return Kind::kBool;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      return Kind::kInt;
    case TypeId::kUInt64:
      return Kind::kUInt;
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return Kind::kFloat;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return Kind::kString;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
      if (type.children.size() != 1 || !KindOf(type.children[0].type) ||
          *KindOf(type.children[0].type) == Kind::kList) {
        return std::nullopt;  // lists of lists, structs...: only IS [NOT] NULL
      }
      return Kind::kList;
    case TypeId::kDictionary:
      return type.value_type ? KindOf(*type.value_type) : std::nullopt;
    default:
      return std::nullopt;
  }
}

Result<Column> LoadColumn(const RecordBatch& batch, const std::vector<std::string>& path, bool validity_only) {
  const int64_t n = batch.num_rows;
  int top = batch.schema.FieldIndex(path[0]);
  if (top < 0 || static_cast<size_t>(top) >= batch.columns.size()) {
    return Status::InvalidArgument("column '" + path[0] + "' is not in the batch");
  }
  const Array* leaf = &batch.columns[static_cast<size_t>(top)];
  int64_t begin = 0;  // row r of the batch is logical element r + begin of `leaf`
  std::vector<uint8_t> parents(static_cast<size_t>(n), 1);
  for (size_t i = 1; i < path.size(); ++i) {
    const Array& parent = *leaf;
    const auto& members = parent.type.children;
    auto it = std::find_if(members.begin(), members.end(), [&](const Field& f) { return f.name == path[i]; });
    if (parent.type.id != TypeId::kStruct || it == members.end() ||
        static_cast<size_t>(it - members.begin()) >= parent.children.size()) {
      return Status::InvalidArgument("column '" + PathText(path) + "' is not in the batch");
    }
    if (parent.length < begin + n) return Status::Corruption("column '" + PathText(path) + "' is too short");
    for (int64_t r = 0; r < n; ++r) {
      if (!parent.IsValid(begin + r)) parents[static_cast<size_t>(r)] = 0;
    }
    begin += parent.offset;  // a struct's offset applies to its children
    leaf = &parent.children[static_cast<size_t>(it - members.begin())];
  }
  if (leaf->length < begin + n) {
    return Status::Corruption("column '" + PathText(path) + "' has fewer values than the batch has rows");
  }
  Column col;
  if (validity_only) {
    col.kind = Kind::kBool;  // only `valid` is meaningful
    col.length = n;
    col.valid.resize(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) col.valid[static_cast<size_t>(r)] = leaf->IsValid(begin + r);
  } else {
    Status st = LoadValues(*leaf, begin, n, &col);
    if (!st.ok()) return st.WithContext("column '" + PathText(path) + "'");
  }
  for (int64_t r = 0; r < n; ++r) col.valid[static_cast<size_t>(r)] &= parents[static_cast<size_t>(r)];
  return col;
}

Result<Array> ToArray(const Column& col, const DataType& type) {
  if (col.kind == Kind::kNull || type.id == TypeId::kNull) return MakeNullArray(type, col.length);
  std::vector<bool> validity(col.valid.begin(), col.valid.end());
  auto ints = [&]<typename T>(T) -> Result<Array> {
    std::vector<T> v(col.ints.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(col.ints[i]);
    return ArrayFromVector(type, v, validity);
  };
  switch (type.id) {
    case TypeId::kBool: {
      std::vector<bool> v(col.ints.begin(), col.ints.end());
      return MakeBoolArray(v, validity);
    }
    case TypeId::kInt8:
      return ints(int8_t{});
    case TypeId::kInt16:
      return ints(int16_t{});
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return ints(int32_t{});
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      return ints(int64_t{});
    case TypeId::kUInt8:
      return ints(uint8_t{});
    case TypeId::kUInt16:
      return ints(uint16_t{});
    case TypeId::kUInt32:
      return ints(uint32_t{});
    case TypeId::kUInt64:
      return ArrayFromVector(type, col.uints, validity);
    case TypeId::kFloat32: {
      std::vector<float> v(col.floats.begin(), col.floats.end());
      return ArrayFromVector(type, v, validity);
    }
    case TypeId::kFloat64:
      return ArrayFromVector(type, col.floats, validity);
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      std::vector<std::optional<std::string>> v(col.strings.size());
      for (size_t i = 0; i < v.size(); ++i) {
        if (col.valid[i]) v[i] = std::string(col.strings[i]);
      }
      return MakeBinaryArray(type, v);
    }
    default:
      return Status::NotSupported("an expression result of type " + type.ToString());
  }
}

}  // namespace lancet::expr
