// The parsed form of an Avro schema, shared by the encoder and the decoder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/format/avro.h"

namespace lancet::format::avro {

struct Schema::Node {
  enum class Kind : uint8_t {
    kNull,
    kBoolean,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kBytes,
    kString,
    kFixed,
    kRecord,
    kArray,
    kMap,
    kUnion
  };
  Kind kind = Kind::kNull;
  std::string name;  // record and fixed: the full name
  int64_t fixed_size = 0;
  // array: {items}; map: {values}; union: branches; record: the field types in order.
  std::vector<const Node*> children;
  std::vector<std::string> field_names;  // record only, parallel to children
};

/// "null", "int", "record", ... for error messages.
const char* KindName(Schema::Node::Kind kind);

}  // namespace lancet::format::avro
