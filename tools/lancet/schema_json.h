// Schemas as JSON: the field shape `lancet dump` writes (WriteSchemaJson), read
// back.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "lancet/buffer.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::cli {

/// \brief The schema in `doc`: {"fields": [Field...], "metadata": {...}}, a
/// bare array of fields, or a whole lance-peer-dump/1 document (its last
/// snapshot's schema), so that `lancet dump` output can serve as an import
/// schema.
///
/// Field: {"name", "type", "nullable" (default true), "metadata" (default {}),
/// "children"} plus the type's keys (byte_width, precision/scale, unit,
/// timezone, list_size, keys_sorted, index_type/value_type). InvalidArgument
/// naming the field path for anything malformed or unknown.
Result<Schema> SchemaFromJson(const nlohmann::json& doc);

/// Reads and parses a schema file; errors name `path`.
Result<Schema> ReadSchemaFile(const std::string& path);

/// The whole content of a local file (the CLI's IPC inputs are read in one
/// piece).
Result<BufferPtr> ReadWholeFile(const std::string& path);

}  // namespace lancet::cli
