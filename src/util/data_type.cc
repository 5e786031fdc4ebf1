#include "lancet/data_type.h"

#include <sstream>

namespace lancet {

bool DataType::operator==(const DataType& o) const {
  if (id != o.id) return false;
  switch (id) {
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      return unit == o.unit;
    case TypeId::kTimestamp:
      return unit == o.unit && timezone == o.timezone;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return precision == o.precision && scale == o.scale;
    case TypeId::kFixedSizeBinary:
      return byte_width == o.byte_width;
    case TypeId::kFixedSizeList:
      return list_size == o.list_size && children == o.children;
    case TypeId::kMap:
      return keys_sorted == o.keys_sorted && children == o.children;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kStruct:
      return children == o.children;
    case TypeId::kDictionary:
      return index_type && o.index_type && value_type && o.value_type && *index_type == *o.index_type &&
             *value_type == *o.value_type;
    default:
      return true;
  }
}

int DataType::BitWidth() const {
  switch (id) {
    case TypeId::kBool: return 1;
    case TypeId::kInt8: case TypeId::kUInt8: return 8;
    case TypeId::kInt16: case TypeId::kUInt16: case TypeId::kFloat16: return 16;
    case TypeId::kInt32: case TypeId::kUInt32: case TypeId::kFloat32: case TypeId::kDate32:
    case TypeId::kTime32: return 32;
    case TypeId::kInt64: case TypeId::kUInt64: case TypeId::kFloat64: case TypeId::kDate64:
    case TypeId::kTime64: case TypeId::kTimestamp: case TypeId::kDuration: return 64;
    case TypeId::kDecimal128: return 128;
    case TypeId::kDecimal256: return 256;
    case TypeId::kFixedSizeBinary: return byte_width > 0 && byte_width < (1 << 27) ? byte_width * 8 : 0;
    default: return 0;
  }
}

bool DataType::IsBinaryLike() const { return id == TypeId::kUtf8 || id == TypeId::kBinary; }
bool DataType::IsLargeBinaryLike() const { return id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary; }
bool DataType::IsNested() const {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kFixedSizeList ||
         id == TypeId::kStruct || id == TypeId::kMap;
}

const char* TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

std::optional<TimeUnit> ParseTimeUnit(std::string_view s) {
  if (s == "s") return TimeUnit::kSecond;
  if (s == "ms") return TimeUnit::kMilli;
  if (s == "us") return TimeUnit::kMicro;
  if (s == "ns") return TimeUnit::kNano;
  return std::nullopt;
}

const char* TypeIdName(TypeId id) {
  switch (id) {
    case TypeId::kNull: return "null";
    case TypeId::kBool: return "bool";
    case TypeId::kInt8: return "int8";
    case TypeId::kInt16: return "int16";
    case TypeId::kInt32: return "int32";
    case TypeId::kInt64: return "int64";
    case TypeId::kUInt8: return "uint8";
    case TypeId::kUInt16: return "uint16";
    case TypeId::kUInt32: return "uint32";
    case TypeId::kUInt64: return "uint64";
    case TypeId::kFloat16: return "float16";
    case TypeId::kFloat32: return "float32";
    case TypeId::kFloat64: return "float64";
    case TypeId::kUtf8: return "utf8";
    case TypeId::kLargeUtf8: return "large_utf8";
    case TypeId::kBinary: return "binary";
    case TypeId::kLargeBinary: return "large_binary";
    case TypeId::kFixedSizeBinary: return "fixed_size_binary";
    case TypeId::kDate32: return "date32";
    case TypeId::kDate64: return "date64";
    case TypeId::kTime32: return "time32";
    case TypeId::kTime64: return "time64";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kDuration: return "duration";
    case TypeId::kDecimal128: return "decimal128";
    case TypeId::kDecimal256: return "decimal256";
    case TypeId::kList: return "list";
    case TypeId::kLargeList: return "large_list";
    case TypeId::kFixedSizeList: return "fixed_size_list";
    case TypeId::kStruct: return "struct";
    case TypeId::kMap: return "map";
    case TypeId::kDictionary: return "dictionary";
  }
  return "unknown";
}

std::string DataType::ToString() const {
  std::ostringstream os;
  switch (id) {
    case TypeId::kFixedSizeBinary: os << "fixed_size_binary[" << byte_width << "]"; break;
    case TypeId::kTime32: os << "time32[" << TimeUnitName(unit) << "]"; break;
    case TypeId::kTime64: os << "time64[" << TimeUnitName(unit) << "]"; break;
    case TypeId::kTimestamp:
      os << "timestamp[" << TimeUnitName(unit);
      if (timezone) os << ", " << *timezone;
      os << "]";
      break;
    case TypeId::kDuration: os << "duration[" << TimeUnitName(unit) << "]"; break;
    case TypeId::kDecimal128: os << "decimal128(" << precision << ", " << scale << ")"; break;
    case TypeId::kDecimal256: os << "decimal256(" << precision << ", " << scale << ")"; break;
    case TypeId::kList: os << "list<" << (children.empty() ? "?" : children[0].type.ToString()) << ">"; break;
    case TypeId::kLargeList:
      os << "large_list<" << (children.empty() ? "?" : children[0].type.ToString()) << ">";
      break;
    case TypeId::kFixedSizeList:
      os << "fixed_size_list<" << (children.empty() ? "?" : children[0].type.ToString()) << ", " << list_size
         << ">";
      break;
    case TypeId::kStruct: {
      os << "struct<";
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) os << ", ";
        os << children[i].name << ": " << children[i].type.ToString();
      }
      os << ">";
      break;
    }
    case TypeId::kMap: {
      os << "map<";
      if (!children.empty() && children[0].type.children.size() == 2) {
        os << children[0].type.children[0].type.ToString() << ", " << children[0].type.children[1].type.ToString();
      }
      os << ">";
      break;
    }
    case TypeId::kDictionary:
      os << "dictionary<" << (value_type ? value_type->ToString() : "?") << ", "
         << (index_type ? index_type->ToString() : "?") << ">";
      break;
    default:
      return TypeIdName(id);
  }
  return os.str();
}

bool Field::operator==(const Field& o) const {
  return name == o.name && nullable == o.nullable && type == o.type && metadata == o.metadata;
}

std::string Field::ToString() const {
  return name + ": " + type.ToString() + (nullable ? "" : " not null");
}

int Schema::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string Schema::ToString() const {
  std::string s;
  for (const auto& f : fields) s += f.ToString() + "\n";
  return s;
}

DataType MakeType(TypeId id) {
  DataType t;
  t.id = id;
  return t;
}

DataType ListOf(Field item) {
  DataType t = MakeType(TypeId::kList);
  t.children.push_back(std::move(item));
  return t;
}

DataType LargeListOf(Field item) {
  DataType t = MakeType(TypeId::kLargeList);
  t.children.push_back(std::move(item));
  return t;
}

DataType FixedSizeListOf(Field item, int32_t size) {
  DataType t = MakeType(TypeId::kFixedSizeList);
  t.list_size = size;
  t.children.push_back(std::move(item));
  return t;
}

DataType StructOf(std::vector<Field> fields) {
  DataType t = MakeType(TypeId::kStruct);
  t.children = std::move(fields);
  return t;
}

DataType TimestampType(TimeUnit unit, std::optional<std::string> tz) {
  DataType t = MakeType(TypeId::kTimestamp);
  t.unit = unit;
  t.timezone = std::move(tz);
  return t;
}

Field MakeField(std::string name, DataType type, bool nullable) {
  Field f;
  f.name = std::move(name);
  f.type = std::move(type);
  f.nullable = nullable;
  return f;
}

bool IsBlobV2Field(const Field& field) {
  auto it = field.metadata.find(kArrowExtensionName);
  return it != field.metadata.end() && it->second == kBlobV2ExtensionName;
}

}  // namespace lancet
