// Iceberg's type model (spec: apache/iceberg format/spec.md, "Schemas and Data Types") and
// its two serializations: the table-metadata JSON form (spec Appendix C) and the Avro
// schema form with field-id/element-id/key-id/value-id (spec Appendix A), named the way
// Java names records (r<id>, k<key>_v<value>) so that manifests look like Java's.
// Internal to the catalog layer.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lancet::catalog::iceberg {

using OrderedJson = nlohmann::ordered_json;

struct NestedField;

/// \brief An Iceberg type: a primitive (by its spec name, e.g. "long", "decimal(9, 2)",
/// "fixed[16]"), a struct, a list or a map.
struct Type {
  enum class Kind : uint8_t { kPrimitive, kStruct, kList, kMap };
  Kind kind = Kind::kPrimitive;
  std::string primitive;
  std::vector<NestedField> fields;  // struct members
  std::vector<Type> children;       // list: {element}; map: {key, value}
  int32_t element_id = 0;           // list
  bool element_required = false;
  int32_t key_id = 0, value_id = 0;  // map
  bool value_required = false;

  static Type Primitive(std::string name);
  static Type Struct(std::vector<NestedField> fields);
  static Type List(int32_t element_id, bool element_required, Type element);
  static Type Map(int32_t key_id, Type key, int32_t value_id, bool value_required, Type value);
};

struct NestedField {
  int32_t id = 0;
  std::string name;
  bool required = false;
  Type type;
};

/// The JSON of a type in table metadata (a primitive is a bare string).
OrderedJson ToIcebergJson(const Type& type);
/// A schema object: {"type":"struct","schema-id":..,"fields":[..]}. REQUIRES: a struct.
OrderedJson SchemaJson(const Type& schema, int32_t schema_id);
/// The Avro schema of a struct as a record named `record_name`: optional fields become
/// ["null", T] with default null, maps with non-string keys arrays of k<id>_v<id> records
/// with logicalType "map". REQUIRES: a struct whose primitives are boolean, int, long,
/// float, double, string or binary (what manifests hold).
OrderedJson ToAvroSchema(const Type& schema, const std::string& record_name);
/// The largest field, element, key or value id in `type`.
int32_t MaxFieldId(const Type& type);

}  // namespace lancet::catalog::iceberg
