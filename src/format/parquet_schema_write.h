// Lancet (Arrow) schema → Parquet schema for the writer: the SchemaElement list, one
// plan per leaf column, and the ARROW:schema footer value that restores exact types.
// Mapping: see include/lancet/format/parquet.h; nesting follows LogicalTypes.md
// (3-level LIST and MAP).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/parquet_metadata.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// How min/max statistics compare a leaf's PLAIN values (parquet.thrift, ColumnOrder).
enum class SortOrder : uint8_t { kNone, kBool, kSigned, kUnsigned, kFloat, kFloat16, kBytes, kDecimal };

/// \brief One leaf column of the Parquet schema.
struct LeafPlan {
  std::vector<std::string> path;  // path_in_schema
  PhysicalType physical = PhysicalType::kInt32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width
  DataType type;            // Arrow type of the values (a dictionary's value type)
  uint32_t max_def = 0, max_rep = 0;
  SortOrder order = SortOrder::kNone;
};

struct SchemaPlan {
  std::vector<SchemaElement> elements;  // depth-first, the root ("schema") first
  std::vector<LeafPlan> leaves;
  /// leaf_begin[i]: index in `leaves` of top-level field i's first leaf (plus an end).
  std::vector<size_t> leaf_begin;
};

/// InvalidArgument naming the field for types Parquet cannot hold (empty structs,
/// decimals wider than the spec's FIXED_LEN_BYTE_ARRAY bounds, ...).
Result<SchemaPlan> PlanParquetSchema(const Schema& schema);

/// Bytes of a FIXED_LEN_BYTE_ARRAY decimal of `precision` digits: the fewest whose
/// two's complement holds 10^precision - 1 (what pyarrow writes).
int32_t DecimalByteWidth(int32_t precision);

/// The ARROW:schema footer value: base64 of the schema as an encapsulated Arrow IPC
/// message, as pyarrow writes it.
Result<std::string> ArrowSchemaFooterValue(const Schema& schema);

}  // namespace lancet::format::parquet
