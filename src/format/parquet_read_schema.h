// Parquet's schema (a depth-first list of SchemaElements) as a tree Lancet reads with:
// each node knows the definition/repetition levels at which it exists and holds a value,
// LIST and MAP groups (and their backward-compatible forms, LogicalTypes.md "Nested
// Types") are collapsed into list and map nodes, and every node carries its Lancet field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/parquet_metadata.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// \brief One Lancet field of a Parquet schema.
struct ReadNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  Field field;
  /// A slot of this node starts at each level position with rep <= rep_level and
  /// def >= slot_def; it holds a value (is not null) when def >= def_level.
  int16_t slot_def = 0, def_level = 0, rep_level = 0;
  /// Leaf columns under this node: [leaf_begin, leaf_end) in file order.
  int leaf_begin = 0, leaf_end = 0;
  /// Struct: members; list: the element; map: the entries struct (key, value).
  std::vector<ReadNode> children;
};

/// \brief A leaf column: where its values live and how they read.
struct ReadLeaf {
  std::string path;  // dotted, for error messages
  PhysicalType physical = PhysicalType::kInt32;
  int32_t type_length = 0;
  int16_t max_def = 0, max_rep = 0;
  DataType type;  // the Lancet type its values become
};

struct ReadSchema {
  std::vector<ReadNode> fields;  // top-level, in file order
  std::vector<ReadLeaf> leaves;
  Schema schema;
};

/// Builds the tree from a footer. Corruption for malformed element lists (child counts
/// past the end, LIST/MAP groups of the wrong shape, bad decimal precision), NotSupported
/// for types Lancet does not model.
Result<ReadSchema> BuildReadSchema(const FileMetaData& meta);

}  // namespace lancet::format::parquet
