#include "catalog/iceberg_schema.h"

#include <type_traits>

#include "lancet/format/parquet.h"

namespace lancet::catalog::iceberg {
namespace {

class IdMapper {
 public:
  Result<SchemaMapping> Map(const Schema& lance) {
    SchemaMapping out;
    std::vector<Field> fields;
    for (const Field& f : lance.fields) fields.push_back(f);
    ASSIGN_OR_RETURN(out.schema, MapStruct(fields, "", &out.parquet_schema.fields));
    out.last_column_id = next_id_ - 1;
    out.notes = std::move(notes_);
    return out;
  }

 private:
  // A struct's fields take consecutive ids before any nested id is handed out.
  Result<Type> MapStruct(const std::vector<Field>& fields, const std::string& prefix, std::vector<Field>* parquet) {
    std::vector<int32_t> ids;
    for (size_t i = 0; i < fields.size(); ++i) ids.push_back(next_id_++);
    std::vector<NestedField> members;
    for (size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      const std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
      if (IsBlobV2Field(f))
        return Status::NotSupported("column '" + path + "': Lance blob columns have no Iceberg type");
      Field pf;
      pf.name = f.name;
      pf.nullable = f.nullable;
      pf.metadata[format::kParquetFieldIdKey] = std::to_string(ids[i]);
      ASSIGN_OR_RETURN(Type t, MapType(f.type, path, &pf.type));
      members.push_back({ids[i], f.name, !f.nullable, std::move(t)});
      parquet->push_back(std::move(pf));
    }
    return Type::Struct(std::move(members));
  }

  Result<Type> Widen(const char* iceberg, TypeId stored, const DataType& from, const std::string& path, DataType* out) {
    notes_.push_back(path + ": " + from.ToString() + " stored as " + iceberg);
    *out = MakeType(stored);
    return Type::Primitive(iceberg);
  }

  Status Refuse(const DataType& t, const std::string& path, const std::string& why) {
    return Status::NotSupported("column '" + path + "' of type " + t.ToString() + " has no Iceberg v2 type" +
                                (why.empty() ? "" : " (" + why + ")"));
  }

  Result<Type> MapType(const DataType& t, const std::string& path, DataType* out) {
    *out = t;
    switch (t.id) {
      case TypeId::kBool:
        return Type::Primitive("boolean");
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kUInt8:
      case TypeId::kUInt16:
        return Widen("int", TypeId::kInt32, t, path, out);
      case TypeId::kInt32:
        return Type::Primitive("int");
      case TypeId::kInt64:
        return Type::Primitive("long");
      case TypeId::kUInt32:
        return Widen("long", TypeId::kInt64, t, path, out);
      case TypeId::kFloat32:
        return Type::Primitive("float");
      case TypeId::kFloat64:
        return Type::Primitive("double");
      case TypeId::kUtf8:
      case TypeId::kLargeUtf8:
        return Type::Primitive("string");
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
        return Type::Primitive("binary");
      case TypeId::kFixedSizeBinary:
        return Type::Primitive("fixed[" + std::to_string(t.byte_width) + "]");
      case TypeId::kDecimal128:
      case TypeId::kDecimal256:
        if (t.precision > 38) return Refuse(t, path, "Iceberg decimals hold at most 38 digits");
        return Type::Primitive("decimal(" + std::to_string(t.precision) + ", " + std::to_string(t.scale) + ")");
      case TypeId::kDate32:
        return Type::Primitive("date");
      case TypeId::kTime64:
        if (t.unit != TimeUnit::kMicro) return Refuse(t, path, "Iceberg time is microseconds");
        return Type::Primitive("time");
      case TypeId::kTimestamp: {
        if (t.unit == TimeUnit::kNano) return Refuse(t, path, "nanosecond timestamps need format version 3");
        const char* name = t.timezone ? "timestamptz" : "timestamp";
        if (t.unit != TimeUnit::kMicro) {
          notes_.push_back(path + ": " + t.ToString() + " stored as microseconds");
          *out = TimestampType(TimeUnit::kMicro, t.timezone);
        }
        return Type::Primitive(name);
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kFixedSizeList: {
        const Field& item = t.children[0];
        const int32_t element_id = next_id_++;
        Field pitem;
        pitem.name = item.name;
        pitem.nullable = item.nullable;
        pitem.metadata[format::kParquetFieldIdKey] = std::to_string(element_id);
        ASSIGN_OR_RETURN(Type element, MapType(item.type, path + ".element", &pitem.type));
        out->children = {std::move(pitem)};
        return Type::List(element_id, !item.nullable, std::move(element));
      }
      case TypeId::kStruct: {
        std::vector<Field> members;
        ASSIGN_OR_RETURN(Type s, MapStruct(t.children, path, &members));
        out->children = std::move(members);
        return s;
      }
      case TypeId::kMap: {
        const Field& entries = t.children[0];
        const Field& key = entries.type.children[0];
        const Field& value = entries.type.children[1];
        const int32_t key_id = next_id_++;
        const int32_t value_id = next_id_++;
        Field pkey = key, pvalue = value;
        pkey.metadata = {{format::kParquetFieldIdKey, std::to_string(key_id)}};
        pvalue.metadata = {{format::kParquetFieldIdKey, std::to_string(value_id)}};
        ASSIGN_OR_RETURN(Type k, MapType(key.type, path + ".key", &pkey.type));
        ASSIGN_OR_RETURN(Type v, MapType(value.type, path + ".value", &pvalue.type));
        Field pentries = entries;
        pentries.metadata.clear();
        pentries.type.children = {std::move(pkey), std::move(pvalue)};
        out->children = {std::move(pentries)};
        return Type::Map(key_id, std::move(k), value_id, !value.nullable, std::move(v));
      }
      case TypeId::kDictionary: {
        // The Parquet writer stores a dictionary column as its values.
        DataType values;
        ASSIGN_OR_RETURN(Type v, MapType(*t.value_type, path, &values));
        if (values != *t.value_type) return Refuse(t, path, "dictionary values would need widening");
        return v;
      }
      case TypeId::kUInt64:
        return Refuse(t, path, "Iceberg long is signed; values above 2^63-1 would not fit");
      case TypeId::kFloat16:
        return Refuse(t, path, "Iceberg has no half-precision float");
      case TypeId::kDate64:
        return Refuse(t, path, "use date32");
      case TypeId::kTime32:
        return Refuse(t, path, "Iceberg time is microseconds");
      case TypeId::kDuration:
        return Refuse(t, path, "");
      case TypeId::kNull:
        return Refuse(t, path, "");
    }
    return Refuse(t, path, "");
  }

  int32_t next_id_ = 1;
  std::vector<std::string> notes_;
};

// `scale` > 1 only for timestamps (int64 to int64), where the product may overflow.
template <typename From, typename To>
Result<Array> WidenValues(const Array& a, const DataType& to, int64_t scale, const std::string& path) {
  const int64_t n = a.offset + a.length;
  ASSIGN_OR_RETURN(auto buf, Buffer::Allocate(static_cast<uint64_t>(n) * sizeof(To)));
  To* dst = reinterpret_cast<To*>(buf->mutable_data());
  const From* src = a.buffers[1]->template data_as<From>();
  for (int64_t i = a.offset; i < n; ++i) {
    if constexpr (std::is_same_v<From, int64_t> && std::is_same_v<To, int64_t>) {
      if (__builtin_mul_overflow(src[i], scale, &dst[i]) && a.IsValid(i - a.offset)) {
        return Status::InvalidArgument("column '" + path + "': timestamp overflows microseconds");
      }
    } else {
      dst[i] = static_cast<To>(src[i]);
    }
  }
  Array out = a;
  out.type = to;
  out.buffers = {a.buffers[0], std::move(buf)};
  return out;
}

Result<Array> Conform(const Array& a, const DataType& to, const std::string& path) {
  if (a.type == to) return a;
  switch (a.type.id) {
    case TypeId::kInt8:
      return WidenValues<int8_t, int32_t>(a, to, 1, path);
    case TypeId::kInt16:
      return WidenValues<int16_t, int32_t>(a, to, 1, path);
    case TypeId::kUInt8:
      return WidenValues<uint8_t, int32_t>(a, to, 1, path);
    case TypeId::kUInt16:
      return WidenValues<uint16_t, int32_t>(a, to, 1, path);
    case TypeId::kUInt32:
      return WidenValues<uint32_t, int64_t>(a, to, 1, path);
    case TypeId::kTimestamp:
      return WidenValues<int64_t, int64_t>(a, to, a.type.unit == TimeUnit::kSecond ? 1000000 : 1000, path);
    default:
      break;
  }
  // Nested: the same layout with converted children.
  if (a.children.size() != to.children.size()) {
    return Status::Internal("column '" + path + "': " + a.type.ToString() + " does not conform to " + to.ToString());
  }
  Array out = a;
  out.type = to;
  for (size_t i = 0; i < a.children.size(); ++i) {
    ASSIGN_OR_RETURN(out.children[i], Conform(a.children[i], to.children[i].type, path + "." + to.children[i].name));
  }
  return out;
}

}  // namespace

Result<SchemaMapping> MapLanceSchema(const Schema& lance) { return IdMapper().Map(lance); }

Result<RecordBatch> ConformBatch(const RecordBatch& batch, const SchemaMapping& mapping) {
  const Schema& target = mapping.parquet_schema;
  if (batch.columns.size() != target.fields.size()) {
    return Status::Internal("Iceberg export: batch has " + std::to_string(batch.columns.size()) + " columns, schema " +
                            std::to_string(target.fields.size()));
  }
  RecordBatch out;
  out.schema = target;
  out.num_rows = batch.num_rows;
  for (size_t i = 0; i < batch.columns.size(); ++i) {
    ASSIGN_OR_RETURN(Array col, Conform(batch.columns[i], target.fields[i].type, target.fields[i].name));
    out.columns.push_back(std::move(col));
  }
  return out;
}

}  // namespace lancet::catalog::iceberg
