// Dremel-style shredding of Arrow-layout arrays into Parquet leaf columns: per leaf,
// the definition and repetition level of every slot plus the indices of the values
// that are present (spec: apache/parquet-format, "Nested Encoding"; nesting as
// parquet_schema_write.h lays it out).
#pragma once

#include <cstdint>
#include <vector>

#include "lancet/array.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// \brief One leaf column's share of a batch.
struct LeafLevels {
  std::vector<uint32_t> def;  // one per slot (also for null and empty slots)
  std::vector<uint32_t> rep;  // likewise, but empty for leaves outside any list
  /// Indices into `values_array` (logical, before its offset) of the slots whose
  /// definition level is the leaf's maximum, in slot order.
  std::vector<int64_t> values;
  Array values_array;  // the leaf array (a dictionary column's dictionary)
};

/// Shreds top-level column `array` of `field` into its leaves, appended to `out` in
/// schema order. Honors array offsets at every level. InvalidArgument naming the field
/// when a non-nullable field holds a null where its parent is present, or when the
/// array's shape does not match the field's type.
Status ShredColumn(const Field& field, const Array& array, std::vector<LeafLevels>* out);

}  // namespace lancet::format::parquet
