// Arrow types restored from the schema an Arrow writer (pyarrow, Lancet's own writer)
// stores in a Parquet footer under "ARROW:schema" (base64 of an Arrow IPC schema
// message): large strings and lists, fixed_size_list, duration and timestamp time zones
// that Parquet's own types cannot say. Only conversions that keep every value are made;
// any other difference leaves the type Parquet gives.
#pragma once

#include <optional>
#include <string>

#include "lancet/array.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// Footer key holding the writer's Arrow schema.
inline constexpr const char* kArrowSchemaKey = "ARROW:schema";

/// The Arrow schema stored under kArrowSchemaKey, or nullopt when it is absent or does
/// not decode (a reader can always fall back to Parquet's types).
std::optional<Schema> StoredArrowSchema(const std::string& base64);

/// Whether an array read as `read` can become `arrow` without losing values.
bool CanRestore(const DataType& read, const DataType& arrow);

/// `array` (of a type CanRestore accepted) as type `to`. Corruption when the values do
/// not fit (a fixed_size_list row of another length).
Result<Array> RestoreArray(const Array& array, const DataType& to);

}  // namespace lancet::format::parquet
