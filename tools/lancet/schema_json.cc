#include "lancet/schema_json.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace lancet::cli {
namespace {

using Json = nlohmann::json;

// Deeper schemas are a mistake in the file, not something to recurse into
// forever.
constexpr int kMaxSchemaDepth = 64;
// Values (or bytes) one row of a field occupies regardless of its JSON: a null
// fixed_size_list still fills list_size child slots, so nested sizes multiply.
// Past this a single row would need gigabytes.
constexpr uint64_t kMaxFixedSlotsPerRow = uint64_t{1} << 24;

Status BadField(const std::string& path, const std::string& what) {
  return Status::InvalidArgument("field '" + path + "': " + what);
}

Result<int32_t> IntKey(const Json& j, const char* key, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return BadField(path, std::string("needs an integer \"") + key + "\"");
  const int64_t v = it->get<int64_t>();
  if (v < 0 || v > (int64_t{1} << 30)) return BadField(path, std::string("\"") + key + "\" out of range");
  return static_cast<int32_t>(v);
}

Result<TimeUnit> UnitKey(const Json& j, const std::string& path) {
  auto it = j.find("unit");
  if (it == j.end() || !it->is_string()) return BadField(path, "needs a \"unit\" (s, ms, us or ns)");
  auto unit = ParseTimeUnit(it->get<std::string>());
  if (!unit) return BadField(path, "unknown unit \"" + it->get<std::string>() + "\" (s, ms, us or ns)");
  return *unit;
}

Result<TypeId> ParseTypeName(const std::string& name, const std::string& path) {
  static const TypeId kAll[] = {TypeId::kNull,       TypeId::kBool,          TypeId::kInt8,
                                TypeId::kInt16,      TypeId::kInt32,         TypeId::kInt64,
                                TypeId::kUInt8,      TypeId::kUInt16,        TypeId::kUInt32,
                                TypeId::kUInt64,     TypeId::kFloat16,       TypeId::kFloat32,
                                TypeId::kFloat64,    TypeId::kUtf8,          TypeId::kLargeUtf8,
                                TypeId::kBinary,     TypeId::kLargeBinary,   TypeId::kFixedSizeBinary,
                                TypeId::kDate32,     TypeId::kDate64,        TypeId::kTime32,
                                TypeId::kTime64,     TypeId::kTimestamp,     TypeId::kDuration,
                                TypeId::kDecimal128, TypeId::kDecimal256,    TypeId::kList,
                                TypeId::kLargeList,  TypeId::kFixedSizeList, TypeId::kStruct,
                                TypeId::kMap,        TypeId::kDictionary};
  for (TypeId id : kAll) {
    if (name == TypeIdName(id)) return id;
  }
  return BadField(path, "unknown type \"" + name + "\"");
}

Result<Field> ParseField(const Json& j, const std::string& parent, int depth);

// Slots a row of `t` fills whatever its value, capped just past the limit.
uint64_t FixedSlots(const DataType& t) {
  uint64_t slots = 1;
  if (t.id == TypeId::kFixedSizeBinary) slots = static_cast<uint64_t>(t.byte_width);
  for (const Field& c : t.children) slots = std::max(slots, FixedSlots(c.type));
  if (t.id == TypeId::kFixedSizeList) slots *= static_cast<uint64_t>(t.list_size);
  return std::min(slots, kMaxFixedSlotsPerRow + 1);
}

// The type keys of `j` (a field object or a dictionary's value_type object).
Result<DataType> ParseType(const Json& j, const std::string& path, int depth) {
  if (depth > kMaxSchemaDepth) return BadField(path, "nesting too deep");
  auto type_it = j.find("type");
  if (type_it == j.end() || !type_it->is_string()) return BadField(path, "needs a string \"type\"");
  ASSIGN_OR_RETURN(TypeId id, ParseTypeName(type_it->get<std::string>(), path));
  DataType t = MakeType(id);
  switch (id) {
    case TypeId::kFixedSizeBinary: {
      ASSIGN_OR_RETURN(t.byte_width, IntKey(j, "byte_width", path));
      if (t.byte_width == 0) return BadField(path, "byte_width must be positive");
      break;
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      ASSIGN_OR_RETURN(t.precision, IntKey(j, "precision", path));
      ASSIGN_OR_RETURN(t.scale, IntKey(j, "scale", path));
      const int32_t max_precision = id == TypeId::kDecimal128 ? 38 : 76;
      if (t.precision < 1 || t.precision > max_precision || t.scale > t.precision) {
        return BadField(path, "precision must be in [1, " + std::to_string(max_precision) + "] and scale <= precision");
      }
      break;
    }
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration: {
      ASSIGN_OR_RETURN(t.unit, UnitKey(j, path));
      break;
    }
    case TypeId::kTimestamp: {
      ASSIGN_OR_RETURN(t.unit, UnitKey(j, path));
      auto tz = j.find("timezone");
      if (tz != j.end() && tz->is_string()) {
        t.timezone = tz->get<std::string>();
      } else if (tz != j.end() && !tz->is_null()) {
        return BadField(path, "\"timezone\" must be a string or null");
      }
      break;
    }
    case TypeId::kFixedSizeList: {
      ASSIGN_OR_RETURN(t.list_size, IntKey(j, "list_size", path));
      break;
    }
    case TypeId::kMap: {
      auto ks = j.find("keys_sorted");
      if (ks != j.end() && !ks->is_boolean()) return BadField(path, "\"keys_sorted\" must be true or false");
      t.keys_sorted = ks != j.end() && ks->get<bool>();
      break;
    }
    case TypeId::kDictionary: {
      auto index = j.find("index_type");
      if (index == j.end() || !index->is_string()) return BadField(path, "needs a string \"index_type\"");
      ASSIGN_OR_RETURN(TypeId index_id, ParseTypeName(index->get<std::string>(), path));
      const DataType index_type = MakeType(index_id);
      if (index_type.id < TypeId::kInt8 || index_type.id > TypeId::kUInt64) {
        return BadField(path, "index_type must be an integer type");
      }
      auto value = j.find("value_type");
      if (value == j.end() || !value->is_object()) return BadField(path, "needs an object \"value_type\"");
      ASSIGN_OR_RETURN(DataType value_type, ParseType(*value, path + "<value>", depth + 1));
      t.index_type = std::make_shared<DataType>(index_type);
      t.value_type = std::make_shared<DataType>(std::move(value_type));
      break;
    }
    default:
      break;
  }
  if (t.IsNested()) {
    auto children = j.find("children");
    if (children == j.end() || !children->is_array()) return BadField(path, "needs a \"children\" array");
    for (const Json& c : *children) {
      ASSIGN_OR_RETURN(Field child, ParseField(c, path, depth + 1));
      t.children.push_back(std::move(child));
    }
    const bool one_child =
        id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kFixedSizeList || id == TypeId::kMap;
    if (one_child && t.children.size() != 1) return BadField(path, "a " + std::string(TypeIdName(id)) + " has one child");
    if (id == TypeId::kMap && (t.children[0].type.id != TypeId::kStruct || t.children[0].type.children.size() != 2)) {
      return BadField(path, "a map's child is a struct of key and value");
    }
  } else if (j.contains("children")) {
    return BadField(path, "a " + std::string(TypeIdName(id)) + " has no children");
  }
  return t;
}

Result<Metadata> ParseMetadata(const Json& j, const std::string& what) {
  Metadata out;
  if (j.is_null()) return out;
  if (!j.is_object()) return Status::InvalidArgument(what + ": \"metadata\" must be an object of strings");
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) return Status::InvalidArgument(what + ": metadata value of '" + k + "' is not a string");
    out[k] = v.get<std::string>();
  }
  return out;
}

Result<Field> ParseField(const Json& j, const std::string& parent, int depth) {
  if (!j.is_object()) return Status::InvalidArgument("a field under '" + parent + "' is not a JSON object");
  auto name = j.find("name");
  if (name == j.end() || !name->is_string()) {
    return Status::InvalidArgument("a field under '" + (parent.empty() ? "<schema>" : parent) + "' has no \"name\"");
  }
  Field f;
  f.name = name->get<std::string>();
  const std::string path = parent.empty() ? f.name : parent + "." + f.name;
  ASSIGN_OR_RETURN(f.type, ParseType(j, path, depth));
  auto nullable = j.find("nullable");
  if (nullable != j.end()) {
    if (!nullable->is_boolean()) return BadField(path, "\"nullable\" must be true or false");
    f.nullable = nullable->get<bool>();
  }
  auto metadata = j.find("metadata");
  if (metadata != j.end()) {
    ASSIGN_OR_RETURN(f.metadata, ParseMetadata(*metadata, "field '" + path + "'"));
  }
  return f;
}

}  // namespace

Result<Schema> SchemaFromJson(const Json& doc) {
  const Json* fields = nullptr;
  const Json* metadata = nullptr;
  if (doc.is_array()) {
    fields = &doc;
  } else if (doc.is_object() && doc.contains("snapshots")) {
    const Json& snaps = doc["snapshots"];
    if (!snaps.is_array() || snaps.empty() || !snaps.back().is_object() || !snaps.back().contains("schema")) {
      return Status::InvalidArgument("the dump document has no snapshot with a schema");
    }
    return SchemaFromJson(snaps.back()["schema"]);
  } else if (doc.is_object() && doc.contains("fields")) {
    fields = &doc["fields"];
    if (doc.contains("metadata")) metadata = &doc["metadata"];
  }
  if (fields == nullptr || !fields->is_array()) {
    return Status::InvalidArgument(
        "expected {\"fields\": [...], \"metadata\": "
        "{...}} or an array of fields");
  }
  Schema schema;
  for (const Json& f : *fields) {
    ASSIGN_OR_RETURN(Field field, ParseField(f, "", 0));
    if (FixedSlots(field.type) > kMaxFixedSlotsPerRow) {
      return Status::InvalidArgument("field '" + field.name + "': fixed sizes too large (over " +
                                     std::to_string(kMaxFixedSlotsPerRow) + " values per row)");
    }
    if (schema.FieldIndex(field.name) >= 0) return Status::InvalidArgument("field '" + field.name + "' appears twice");
    schema.fields.push_back(std::move(field));
  }
  if (schema.fields.empty()) return Status::InvalidArgument("the schema has no fields");
  if (metadata != nullptr) {
    ASSIGN_OR_RETURN(schema.metadata, ParseMetadata(*metadata, "schema"));
  }
  return schema;
}

Result<BufferPtr> ReadWholeFile(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || !std::filesystem::is_regular_file(path, ec)) return Status::IOError(path + ": cannot read (not a file)");
  if (size > kMaxAllocation)
    return Status::InvalidArgument(path + ": larger than the 4 GiB this command reads at once");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  std::ifstream in(path, std::ios::binary);
  if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()))) {
    return Status::IOError(path + ": read failed");
  }
  return BufferPtr(Buffer::FromVector(std::move(bytes)));
}

Result<Schema> ReadSchemaFile(const std::string& path) {
  ASSIGN_OR_RETURN(BufferPtr text, ReadWholeFile(path));
  Json doc = Json::parse(text->view(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::InvalidArgument(path + ": not valid JSON");
  auto schema = SchemaFromJson(doc);
  if (!schema.ok()) return schema.status().WithContext(path);
  return schema;
}

}  // namespace lancet::cli
