#include "format/lance_schema.h"

#include <charconv>
#include <set>
#include <unordered_map>

#include "lancet/format/file_reader.h"

namespace lancet::format {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

template <typename T>
bool ParseInt(std::string_view s, T* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

Status Unsupported(std::string_view logical_type) {
  return Status::NotSupported("unsupported Lance logical type '" + std::string(logical_type) + "'");
}

DataType WithUnit(TypeId id, TimeUnit unit) {
  DataType t = MakeType(id);
  t.unit = unit;
  return t;
}

// Types spelled as one fixed token (no parameters).
std::optional<DataType> SimpleType(std::string_view s) {
  static const std::unordered_map<std::string_view, TypeId> kSimple = {
      {"null", TypeId::kNull},         {"bool", TypeId::kBool},
      {"int8", TypeId::kInt8},         {"uint8", TypeId::kUInt8},
      {"int16", TypeId::kInt16},       {"uint16", TypeId::kUInt16},
      {"int32", TypeId::kInt32},       {"uint32", TypeId::kUInt32},
      {"int64", TypeId::kInt64},       {"uint64", TypeId::kUInt64},
      {"halffloat", TypeId::kFloat16}, {"float", TypeId::kFloat32},
      {"double", TypeId::kFloat64},    {"string", TypeId::kUtf8},
      {"binary", TypeId::kBinary},     {"large_string", TypeId::kLargeUtf8},
      {"large_binary", TypeId::kLargeBinary},
      // The reference stores JSON as large binary.
      {"json", TypeId::kLargeBinary},  {"date32:day", TypeId::kDate32},
      {"date64:ms", TypeId::kDate64},
  };
  auto it = kSimple.find(s);
  if (it != kSimple.end()) return MakeType(it->second);
  if (s == "time32:s") return WithUnit(TypeId::kTime32, TimeUnit::kSecond);
  if (s == "time32:ms") return WithUnit(TypeId::kTime32, TimeUnit::kMilli);
  if (s == "time64:us") return WithUnit(TypeId::kTime64, TimeUnit::kMicro);
  if (s == "time64:ns") return WithUnit(TypeId::kTime64, TimeUnit::kNano);
  if (s.starts_with("duration:")) {
    auto unit = ParseTimeUnit(s.substr(9));
    if (unit) return WithUnit(TypeId::kDuration, *unit);
  }
  return std::nullopt;
}

bool IsNestedLogicalType(std::string_view s) {
  return s == "struct" || s == "list" || s == "large_list" || s == "list.struct" || s == "large_list.struct" ||
         s == "map";
}

}  // namespace

Result<DataType> ParseLogicalType(std::string_view lt) {
  if (auto t = SimpleType(lt)) return *t;
  if (IsNestedLogicalType(lt)) {
    return Status::InvalidArgument("logical type '" + std::string(lt) + "' needs child fields");
  }
  auto parts = Split(lt, ':');
  const std::string_view head = parts[0];
  if (head == "fixed_size_list" && parts.size() >= 3) {
    int32_t n = 0;
    if (!ParseInt(parts.back(), &n) || n <= 0) return Unsupported(lt);
    std::string_view inner = lt.substr(head.size() + 1, lt.size() - head.size() - 2 - parts.back().size());
    Field item;
    item.name = "item";
    item.nullable = true;
    if (inner == "lance.bfloat16") {
      // bfloat16 is an extension over 2-byte fixed-size binary.
      item.type = MakeType(TypeId::kFixedSizeBinary);
      item.type.byte_width = 2;
      item.metadata[kArrowExtensionName] = "lance.bfloat16";
      item.metadata["ARROW:extension:metadata"] = "";
    } else {
      auto inner_type = IsNestedLogicalType(inner) ? Result<DataType>(Unsupported(inner)) : ParseLogicalType(inner);
      if (!inner_type.ok()) {
        return Status::NotSupported("unsupported Lance logical type '" + std::string(lt) + "' (item type '" +
                                    std::string(inner) + "')");
      }
      item.type = inner_type.MoveValue();
    }
    return FixedSizeListOf(std::move(item), n);
  }
  if (head == "fixed_size_binary" && parts.size() == 2) {
    int32_t n = 0;
    if (!ParseInt(parts[1], &n) || n <= 0) return Unsupported(lt);
    DataType t = MakeType(TypeId::kFixedSizeBinary);
    t.byte_width = n;
    return t;
  }
  if (head == "dict" && parts.size() == 4) {
    auto value = SimpleType(parts[1]);
    auto index = SimpleType(parts[2]);
    if (!value || !index) return Unsupported(lt);
    DataType t = MakeType(TypeId::kDictionary);
    t.value_type = std::make_shared<DataType>(*value);
    t.index_type = std::make_shared<DataType>(*index);
    return t;
  }
  if (head == "decimal" && parts.size() == 4) {
    int32_t bits = 0, precision = 0, scale = 0;
    if (!ParseInt(parts[1], &bits) || !ParseInt(parts[2], &precision) || !ParseInt(parts[3], &scale)) {
      return Unsupported(lt);
    }
    if (bits != 128 && bits != 256) return Unsupported(lt);
    DataType t = MakeType(bits == 128 ? TypeId::kDecimal128 : TypeId::kDecimal256);
    t.precision = precision;
    t.scale = scale;
    return t;
  }
  if (head == "timestamp" && parts.size() >= 3) {
    auto unit = ParseTimeUnit(parts[1]);
    if (!unit) return Unsupported(lt);
    // Named zones have no ':' but offsets like "+05:30" would; keep everything after
    // the unit so they survive.
    std::string_view tz = lt.substr(head.size() + parts[1].size() + 2);
    if (tz.empty()) return Unsupported(lt);
    return TimestampType(*unit, tz == "-" ? std::nullopt : std::optional<std::string>(std::string(tz)));
  }
  return Unsupported(lt);
}

Result<std::string> LogicalTypeString(const DataType& t) {
  switch (t.id) {
    case TypeId::kNull: return std::string("null");
    case TypeId::kBool: return std::string("bool");
    case TypeId::kInt8: return std::string("int8");
    case TypeId::kInt16: return std::string("int16");
    case TypeId::kInt32: return std::string("int32");
    case TypeId::kInt64: return std::string("int64");
    case TypeId::kUInt8: return std::string("uint8");
    case TypeId::kUInt16: return std::string("uint16");
    case TypeId::kUInt32: return std::string("uint32");
    case TypeId::kUInt64: return std::string("uint64");
    case TypeId::kFloat16: return std::string("halffloat");
    case TypeId::kFloat32: return std::string("float");
    case TypeId::kFloat64: return std::string("double");
    case TypeId::kUtf8: return std::string("string");
    case TypeId::kLargeUtf8: return std::string("large_string");
    case TypeId::kBinary: return std::string("binary");
    case TypeId::kLargeBinary: return std::string("large_binary");
    case TypeId::kFixedSizeBinary: return "fixed_size_binary:" + std::to_string(t.byte_width);
    case TypeId::kDate32: return std::string("date32:day");
    case TypeId::kDate64: return std::string("date64:ms");
    case TypeId::kTime32:
    case TypeId::kTime64:
      if ((t.id == TypeId::kTime32) != (t.unit == TimeUnit::kSecond || t.unit == TimeUnit::kMilli)) {
        return Status::InvalidArgument("invalid time unit for " + t.ToString());
      }
      return std::string(t.id == TypeId::kTime32 ? "time32:" : "time64:") + TimeUnitName(t.unit);
    case TypeId::kTimestamp:
      return std::string("timestamp:") + TimeUnitName(t.unit) + ":" + (t.timezone ? *t.timezone : "-");
    case TypeId::kDuration: return std::string("duration:") + TimeUnitName(t.unit);
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return std::string(t.id == TypeId::kDecimal128 ? "decimal:128:" : "decimal:256:") +
             std::to_string(t.precision) + ":" + std::to_string(t.scale);
    case TypeId::kStruct: return std::string("struct");
    case TypeId::kList:
    case TypeId::kLargeList: {
      std::string s = t.id == TypeId::kList ? "list" : "large_list";
      if (!t.children.empty() && t.children[0].type.id == TypeId::kStruct) s += ".struct";
      return s;
    }
    case TypeId::kMap:
      // lance 12 writes maps as "map"; it has no spelling for sorted keys.
      if (t.keys_sorted) return Status::NotSupported("Lance cannot store a map with sorted keys");
      return std::string("map");
    case TypeId::kFixedSizeList: {
      if (t.children.size() != 1) return Status::InvalidArgument("fixed_size_list needs one child");
      const Field& item = t.children[0];
      auto ext = item.metadata.find(kArrowExtensionName);
      if (ext != item.metadata.end() && ext->second == "lance.bfloat16") {
        return "fixed_size_list:lance.bfloat16:" + std::to_string(t.list_size);
      }
      if (item.type.IsNested() || item.type.id == TypeId::kDictionary) {
        return Status::NotSupported("Lance cannot store " + t.ToString());
      }
      ASSIGN_OR_RETURN(std::string inner, LogicalTypeString(item.type));
      return "fixed_size_list:" + inner + ":" + std::to_string(t.list_size);
    }
    case TypeId::kDictionary: {
      if (!t.value_type || !t.index_type) return Status::InvalidArgument("dictionary without types");
      ASSIGN_OR_RETURN(std::string v, LogicalTypeString(*t.value_type));
      ASSIGN_OR_RETURN(std::string k, LogicalTypeString(*t.index_type));
      return "dict:" + v + ":" + k + ":false";
    }
  }
  return Status::NotSupported("no Lance logical type for " + t.ToString());
}

namespace {

// A node of the tree under construction; children are indices into the node list so
// the vector may grow while we link.
struct Node {
  const ::lance::file::Field* proto = nullptr;
  std::vector<size_t> children;
};

Result<Field> BuildField(const std::vector<Node>& nodes, size_t idx, std::string_view context, int depth) {
  // The tree is acyclic by construction (children always come later in the list), but
  // a hostile file could nest thousands deep; bound the recursion.
  if (depth > 256) return Status::Corruption(std::string(context) + ": schema nested deeper than 256 levels");
  const Node& node = nodes[idx];
  const auto& pf = *node.proto;
  Field f;
  f.name = pf.name();
  f.id = pf.id();
  f.nullable = pf.nullable();
  for (const auto& [k, v] : pf.metadata()) f.metadata[k] = v;
  const std::string& lt = pf.logical_type();
  auto bad = [&](const std::string& what) {
    return Status::Corruption(std::string(context) + ": field '" + pf.name() + "' (id " + std::to_string(pf.id()) +
                              ", type " + lt + ") " + what);
  };
  std::vector<Field> children;
  for (size_t c : node.children) {
    ASSIGN_OR_RETURN(Field child, BuildField(nodes, c, context, depth + 1));
    children.push_back(std::move(child));
  }
  if (lt == "struct") {
    f.type = StructOf(std::move(children));
  } else if (lt == "list" || lt == "list.struct" || lt == "large_list" || lt == "large_list.struct") {
    if (children.size() != 1) return bad("must have exactly one child, has " + std::to_string(children.size()));
    f.type = lt.starts_with("large_") ? LargeListOf(std::move(children[0])) : ListOf(std::move(children[0]));
  } else if (lt == "map") {
    if (children.size() != 1 || children[0].type.id != TypeId::kStruct || children[0].type.children.size() != 2) {
      return bad("must have one struct child with a key and a value");
    }
    f.type = MakeType(TypeId::kMap);
    f.type.children.push_back(std::move(children[0]));
  } else {
    if (!children.empty()) {
      return bad("is a leaf type but has " + std::to_string(children.size()) + " child field(s)");
    }
    auto t = ParseLogicalType(lt);
    if (!t.ok()) return t.status().WithContext(std::string(context) + ": field '" + pf.name() + "'");
    f.type = t.MoveValue();
  }
  return f;
}

}  // namespace

Result<Schema> SchemaFromLance(const google::protobuf::RepeatedPtrField<::lance::file::Field>& fields,
                               const google::protobuf::Map<std::string, std::string>& metadata,
                               std::string_view context) {
  std::vector<Node> nodes(fields.size());
  std::unordered_map<int32_t, size_t> by_id;
  std::vector<size_t> roots;
  // The packed struct (if any) whose id -1 children we are collecting.
  std::optional<size_t> open_packed;
  for (int i = 0; i < fields.size(); ++i) {
    const auto& pf = fields[i];
    nodes[i].proto = &pf;
    if (pf.id() < 0) {
      if (!open_packed) {
        return Status::Corruption(std::string(context) + ": field '" + pf.name() + "' has id " +
                                  std::to_string(pf.id()) + " outside a packed struct");
      }
      nodes[*open_packed].children.push_back(i);
      continue;
    }
    open_packed.reset();
    if (!by_id.emplace(pf.id(), i).second) {
      return Status::Corruption(std::string(context) + ": duplicate field id " + std::to_string(pf.id()));
    }
    if (pf.parent_id() == -1) {
      roots.push_back(i);
    } else {
      auto it = by_id.find(pf.parent_id());
      if (it == by_id.end()) {
        return Status::Corruption(std::string(context) + ": field '" + pf.name() + "' (id " +
                                  std::to_string(pf.id()) + ") names parent " + std::to_string(pf.parent_id()) +
                                  ", which does not precede it");
      }
      nodes[it->second].children.push_back(i);
    }
    auto packed = pf.metadata().find(kPackedStructKey);
    if (pf.logical_type() == "struct" && packed != pf.metadata().end() &&
        (packed->second == "true" || packed->second == "1")) {
      open_packed = i;
    }
  }
  Schema schema;
  for (size_t r : roots) {
    ASSIGN_OR_RETURN(Field f, BuildField(nodes, r, context, 0));
    schema.fields.push_back(std::move(f));
  }
  for (const auto& [k, v] : metadata) schema.metadata[k] = v;
  return schema;
}

Result<Schema> SchemaFromLance(const ::lance::file::Schema& schema, std::string_view context) {
  return SchemaFromLance(schema.fields(), schema.metadata(), context);
}

namespace {

void MaxId(const Field& f, int32_t* max_id) {
  *max_id = std::max(*max_id, f.id);
  if (f.type.id == TypeId::kFixedSizeList) return;
  for (const auto& c : f.type.children) MaxId(c, max_id);
}

void AssignIds(Field* f, int32_t* next) {
  if (f->id < 0) f->id = (*next)++;
  if (f->type.id == TypeId::kFixedSizeList) return;
  for (auto& c : f->type.children) AssignIds(&c, next);
}

::lance::file::Encoding LegacyEncoding(const DataType& t) {
  switch (t.id) {
    case TypeId::kStruct:
    case TypeId::kNull:
      return ::lance::file::NONE;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return ::lance::file::VAR_BINARY;
    case TypeId::kDictionary:
      return ::lance::file::DICTIONARY;
    default:
      return ::lance::file::PLAIN;
  }
}

Status Flatten(const Field& f, int32_t parent, std::set<int32_t>* seen, std::vector<::lance::file::Field>* out) {
  if (!seen->insert(f.id).second) {
    return Status::InvalidArgument("duplicate field id " + std::to_string(f.id) + " at '" + f.name + "'");
  }
  ::lance::file::Field pf;
  pf.set_name(f.name);
  pf.set_id(f.id);
  pf.set_parent_id(parent);
  ASSIGN_OR_RETURN(std::string lt, LogicalTypeString(f.type));
  pf.set_logical_type(lt);
  pf.set_nullable(f.nullable);
  pf.set_encoding(LegacyEncoding(f.type));
  for (const auto& [k, v] : f.metadata) (*pf.mutable_metadata())[k] = v;
  // The reference still fills the deprecated extension name for Blob V2 fields.
  if (IsBlobV2Field(f)) pf.set_extension_name(kBlobV2ExtensionName);
  out->push_back(std::move(pf));
  if (f.type.id == TypeId::kFixedSizeList) return Status::OK();
  for (const auto& c : f.type.children) RETURN_IF_ERROR(Flatten(c, f.id, seen, out));
  return Status::OK();
}

}  // namespace

Status AssignFieldIds(Schema* schema) {
  int32_t max_id = -1;
  for (const auto& f : schema->fields) MaxId(f, &max_id);
  int32_t next = max_id + 1;
  for (auto& f : schema->fields) AssignIds(&f, &next);
  return Status::OK();
}

Result<std::vector<::lance::file::Field>> SchemaToLance(const Schema& schema) {
  Schema with_ids = schema;
  RETURN_IF_ERROR(AssignFieldIds(&with_ids));
  std::vector<::lance::file::Field> out;
  std::set<int32_t> seen;
  for (const auto& f : with_ids.fields) RETURN_IF_ERROR(Flatten(f, -1, &seen, &out));
  return out;
}

}  // namespace lancet::format
