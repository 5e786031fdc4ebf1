#include "catalog/iceberg_types.h"

#include <algorithm>

namespace lancet::catalog::iceberg {
namespace {

OrderedJson AvroOptional(OrderedJson type, bool required) {
  if (required) return type;
  return OrderedJson::array({"null", std::move(type)});
}

// Iceberg primitives as Avro types (spec Appendix A, "Avro"). Only the ones manifest and
// manifest-list schemas use are needed here; table columns never go through Avro.
OrderedJson AvroPrimitive(const std::string& p) { return p == "binary" ? "bytes" : p; }

OrderedJson AvroType(const Type& type, const std::string& record_name) {
  switch (type.kind) {
    case Type::Kind::kPrimitive:
      return AvroPrimitive(type.primitive);
    case Type::Kind::kStruct: {
      OrderedJson fields = OrderedJson::array();
      for (const NestedField& f : type.fields) {
        OrderedJson field = {{"name", f.name},
                             {"type", AvroOptional(AvroType(f.type, "r" + std::to_string(f.id)), f.required)}};
        if (!f.required) field["default"] = nullptr;
        field["field-id"] = f.id;
        fields.push_back(std::move(field));
      }
      return {{"type", "record"}, {"name", record_name}, {"fields", std::move(fields)}};
    }
    case Type::Kind::kList:
      return {{"type", "array"},
              {"items",
               AvroOptional(AvroType(type.children[0], "r" + std::to_string(type.element_id)), type.element_required)},
              {"element-id", type.element_id}};
    case Type::Kind::kMap: {
      OrderedJson value =
          AvroOptional(AvroType(type.children[1], "r" + std::to_string(type.value_id)), type.value_required);
      if (type.children[0].kind == Type::Kind::kPrimitive && type.children[0].primitive == "string") {
        return {{"type", "map"}, {"values", std::move(value)}, {"key-id", type.key_id}, {"value-id", type.value_id}};
      }
      const std::string name = "k" + std::to_string(type.key_id) + "_v" + std::to_string(type.value_id);
      OrderedJson entry = {{"type", "record"},
                           {"name", name},
                           {"fields",
                            {{{"name", "key"},
                              {"type", AvroType(type.children[0], "r" + std::to_string(type.key_id))},
                              {"field-id", type.key_id}},
                             {{"name", "value"}, {"type", std::move(value)}, {"field-id", type.value_id}}}}};
      return {{"type", "array"}, {"items", std::move(entry)}, {"logicalType", "map"}};
    }
  }
  return nullptr;
}

}  // namespace

Type Type::Primitive(std::string name) {
  Type t;
  t.primitive = std::move(name);
  return t;
}

Type Type::Struct(std::vector<NestedField> fields) {
  Type t;
  t.kind = Kind::kStruct;
  t.fields = std::move(fields);
  return t;
}

Type Type::List(int32_t element_id, bool element_required, Type element) {
  Type t;
  t.kind = Kind::kList;
  t.element_id = element_id;
  t.element_required = element_required;
  t.children.push_back(std::move(element));
  return t;
}

Type Type::Map(int32_t key_id, Type key, int32_t value_id, bool value_required, Type value) {
  Type t;
  t.kind = Kind::kMap;
  t.key_id = key_id;
  t.value_id = value_id;
  t.value_required = value_required;
  t.children.push_back(std::move(key));
  t.children.push_back(std::move(value));
  return t;
}

OrderedJson ToIcebergJson(const Type& type) {
  switch (type.kind) {
    case Type::Kind::kPrimitive:
      return type.primitive;
    case Type::Kind::kStruct: {
      OrderedJson fields = OrderedJson::array();
      for (const NestedField& f : type.fields) {
        fields.push_back({{"id", f.id}, {"name", f.name}, {"required", f.required}, {"type", ToIcebergJson(f.type)}});
      }
      return {{"type", "struct"}, {"fields", std::move(fields)}};
    }
    case Type::Kind::kList:
      return {{"type", "list"},
              {"element-id", type.element_id},
              {"element", ToIcebergJson(type.children[0])},
              {"element-required", type.element_required}};
    case Type::Kind::kMap:
      return {{"type", "map"},
              {"key-id", type.key_id},
              {"key", ToIcebergJson(type.children[0])},
              {"value-id", type.value_id},
              {"value", ToIcebergJson(type.children[1])},
              {"value-required", type.value_required}};
  }
  return nullptr;
}

OrderedJson SchemaJson(const Type& schema, int32_t schema_id) {
  OrderedJson struct_json = ToIcebergJson(schema);
  return {{"type", "struct"}, {"schema-id", schema_id}, {"fields", struct_json["fields"]}};
}

OrderedJson ToAvroSchema(const Type& schema, const std::string& record_name) { return AvroType(schema, record_name); }

int32_t MaxFieldId(const Type& type) {
  int32_t max_id = std::max({type.element_id, type.key_id, type.value_id});
  for (const NestedField& f : type.fields) max_id = std::max({max_id, f.id, MaxFieldId(f.type)});
  for (const Type& c : type.children) max_id = std::max(max_id, MaxFieldId(c));
  return max_id;
}

}  // namespace lancet::catalog::iceberg
