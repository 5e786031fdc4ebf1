// ScanProjection: the columns a scan outputs, with nested paths pruned to the struct
// members they name. Internal to the table layer.
#pragma once

#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"
#include "table/row_meta.h"

namespace lancet::table {

struct ScanProjection {
  /// Output data fields in output order: read_schema fields, or structs pruned to the
  /// members a nested path names (same field ids).
  std::vector<Field> fields;
  /// Per output field: its index in read_schema, and whether it is that field whole.
  std::vector<int> top_index;
  std::vector<bool> whole;
  /// Meta columns (computed, not read), each once.
  std::vector<RowMeta> meta;
  /// Per output column: its index in `fields` (>= 0), or -1 - its index in `meta`.
  /// Listed meta columns keep their place, as the reference's projection does; the
  /// with_row_id/with_row_addr flags add theirs at the end.
  std::vector<int> order;
  Schema schema;
};

/// Resolves ScanOptions::columns against `read_schema`: empty = every field; an exact
/// top-level name wins over a dotted path. NotFound (prefixed with `where`) for an
/// unknown column or struct member; InvalidArgument for a path through a non-struct.
Result<ScanProjection> PlanProjection(const Schema& read_schema, const std::vector<std::string>& columns, bool row_id,
                                      bool row_addr, const std::string& where);

}  // namespace lancet::table
