// Lance (Arrow) schemas as Iceberg v2 schemas, and the batches that go with them.
// Internal to the catalog layer.
#pragma once

#include <string>
#include <vector>

#include "catalog/iceberg_types.h"
#include "lancet/array.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::catalog::iceberg {

/// \brief How one Lance schema is exported.
struct SchemaMapping {
  /// The Iceberg table schema. Ids are assigned Java's way for a new table: a struct's
  /// fields first, in order, then each field's nested ids, depth first; from 1.
  Type schema;
  int32_t last_column_id = 0;
  /// The Arrow schema the Parquet data files are written with: widened types, and every
  /// field's Iceberg id in its "PARQUET:field_id" metadata (list elements, map keys and
  /// values included). No other metadata.
  Schema parquet_schema;
  /// One line per column whose type was widened ("c: uint16 stored as int").
  std::vector<std::string> notes;
};

/// Maps `lance` to Iceberg: bool→boolean; int8/16, uint8/16→int (widened); int32→int;
/// int64, uint32 (widened)→long; float32/64→float/double; utf8/large_utf8→string;
/// binary/large_binary→binary; fixed_size_binary(L)→fixed[L]; decimal128 (and decimal256
/// up to precision 38)→decimal(P, S); date32→date; time64[us]→time; timestamp[s|ms|us]→
/// timestamp (timestamptz with a timezone; s and ms widened to us); list, large_list,
/// fixed_size_list→list; struct→struct; map→map; dictionary→its value type.
/// NotSupported naming the column for the rest (uint64, float16, date64, time32,
/// time64[ns], timestamp[ns] (v3 only), duration, null, decimal256 beyond 38 digits,
/// Lance blob columns).
Result<SchemaMapping> MapLanceSchema(const Schema& lance);

/// `batch` with its columns converted to `mapping.parquet_schema` (the widenings above;
/// other columns are passed through). InvalidArgument when a timestamp overflows
/// microseconds, naming the column.
Result<RecordBatch> ConformBatch(const RecordBatch& batch, const SchemaMapping& mapping);

}  // namespace lancet::catalog::iceberg
