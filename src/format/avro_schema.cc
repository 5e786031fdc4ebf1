// Avro schema JSON → Schema::Node graph. Unknown attributes (field-id, logicalType,
// doc, default, ...) are ignored here: the writer keeps the JSON text itself.
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "format/avro_internal.h"

namespace lancet::format::avro {
namespace {

using Kind = Schema::Node::Kind;
using Json = nlohmann::json;

struct SchemaArena {
  std::vector<std::unique_ptr<Schema::Node>> nodes;
  std::map<std::string, const Schema::Node*> named;  // full and short names
};

constexpr int kMaxSchemaDepth = 128;

const std::map<std::string, Kind>& PrimitiveKinds() {
  static const std::map<std::string, Kind> kinds = {
      {"null", Kind::kNull},   {"boolean", Kind::kBoolean}, {"int", Kind::kInt},     {"long", Kind::kLong},
      {"float", Kind::kFloat}, {"double", Kind::kDouble},   {"bytes", Kind::kBytes}, {"string", Kind::kString}};
  return kinds;
}

class SchemaParser {
 public:
  explicit SchemaParser(SchemaArena* arena) : arena_(arena) {}

  Result<const Schema::Node*> ParseNode(const Json& j, const std::string& ns, int depth) {
    if (depth > kMaxSchemaDepth) return Status::InvalidArgument("Avro schema: nested too deeply");
    if (j.is_string()) return ByName(j.get<std::string>(), ns);
    if (j.is_array()) {
      Schema::Node* node = NewNode(Kind::kUnion);
      for (const Json& branch : j) {
        ASSIGN_OR_RETURN(const Schema::Node* child, ParseNode(branch, ns, depth + 1));
        if (child->kind == Kind::kUnion) return Status::InvalidArgument("Avro schema: a union directly inside a union");
        node->children.push_back(child);
      }
      if (node->children.empty()) return Status::InvalidArgument("Avro schema: an empty union");
      return node;
    }
    if (!j.is_object() || !j.contains("type"))
      return Status::InvalidArgument("Avro schema: expected a type, got " + j.dump());
    const Json& type = j["type"];
    if (!type.is_string()) return ParseNode(type, ns, depth + 1);
    const std::string t = type.get<std::string>();
    if (t == "record" || t == "error") return ParseRecord(j, ns, depth);
    if (t == "array" || t == "map") {
      const char* key = t == "array" ? "items" : "values";
      if (!j.contains(key)) return Status::InvalidArgument(std::string("Avro schema: ") + t + " without " + key);
      Schema::Node* node = NewNode(t == "array" ? Kind::kArray : Kind::kMap);
      ASSIGN_OR_RETURN(const Schema::Node* child, ParseNode(j[key], ns, depth + 1));
      node->children.push_back(child);
      return node;
    }
    if (t == "fixed") {
      if (!j.contains("size") || !j["size"].is_number_integer() || j["size"].get<int64_t>() < 0) {
        return Status::InvalidArgument("Avro schema: fixed without a valid size");
      }
      Schema::Node* node = NewNode(Kind::kFixed);
      node->fixed_size = j["size"].get<int64_t>();
      RETURN_IF_ERROR(Name(j, ns, node));
      return node;
    }
    if (t == "enum") return Status::NotSupported("Avro schema: enum types are not supported");
    return ByName(t, ns);
  }

 private:
  Schema::Node* NewNode(Kind kind) {
    arena_->nodes.push_back(std::make_unique<Schema::Node>());
    arena_->nodes.back()->kind = kind;
    return arena_->nodes.back().get();
  }

  Result<const Schema::Node*> ByName(const std::string& name, const std::string& ns) {
    auto prim = PrimitiveKinds().find(name);
    if (prim != PrimitiveKinds().end()) return static_cast<const Schema::Node*>(NewNode(prim->second));
    auto it = arena_->named.find(name);
    if (it == arena_->named.end() && !ns.empty()) it = arena_->named.find(ns + "." + name);
    if (it == arena_->named.end()) return Status::InvalidArgument("Avro schema: unknown type '" + name + "'");
    return it->second;
  }

  // Registers the node under its full name (namespace-qualified) and its short name.
  Status Name(const Json& j, const std::string& ns, Schema::Node* node) {
    if (!j.contains("name") || !j["name"].is_string())
      return Status::InvalidArgument("Avro schema: a named type without a name");
    std::string name = j["name"].get<std::string>();
    std::string space = ns;
    if (j.contains("namespace") && j["namespace"].is_string()) space = j["namespace"].get<std::string>();
    std::string full = name.find('.') != std::string::npos || space.empty() ? name : space + "." + name;
    node->name = full;
    arena_->named[full] = node;
    arena_->named.emplace(name.substr(name.rfind('.') + 1), node);
    return Status::OK();
  }

  Result<const Schema::Node*> ParseRecord(const Json& j, const std::string& ns, int depth) {
    Schema::Node* node = NewNode(Kind::kRecord);
    RETURN_IF_ERROR(Name(j, ns, node));
    const std::string inner_ns =
        node->name.find('.') == std::string::npos ? "" : node->name.substr(0, node->name.rfind('.'));
    if (!j.contains("fields") || !j["fields"].is_array()) {
      return Status::InvalidArgument("Avro schema: record " + node->name + " without fields");
    }
    for (const Json& f : j["fields"]) {
      if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
        return Status::InvalidArgument("Avro schema: record " + node->name + " has a field without name or type");
      }
      ASSIGN_OR_RETURN(const Schema::Node* child, ParseNode(f["type"], inner_ns, depth + 1));
      node->field_names.push_back(f["name"].get<std::string>());
      node->children.push_back(child);
    }
    return node;
  }

  SchemaArena* arena_;
};

}  // namespace

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBoolean:
      return "boolean";
    case Kind::kInt:
      return "int";
    case Kind::kLong:
      return "long";
    case Kind::kFloat:
      return "float";
    case Kind::kDouble:
      return "double";
    case Kind::kBytes:
      return "bytes";
    case Kind::kString:
      return "string";
    case Kind::kFixed:
      return "fixed";
    case Kind::kRecord:
      return "record";
    case Kind::kArray:
      return "array";
    case Kind::kMap:
      return "map";
    case Kind::kUnion:
      return "union";
  }
  return "?";
}

Result<Schema> Schema::Parse(std::string_view json) {
  Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("Avro schema: not valid JSON");
  auto arena = std::make_shared<SchemaArena>();
  SchemaParser parser(arena.get());
  ASSIGN_OR_RETURN(const Node* root, parser.ParseNode(j, "", 0));
  Schema schema;
  schema.root_ = root;
  schema.nodes_ = std::move(arena);
  return schema;
}

}  // namespace lancet::format::avro
