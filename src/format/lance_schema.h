// Conversion between Lance's flat protobuf schema (lance.file.Field, docs/format §3)
// and lancet::Schema.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance_proto/file.pb.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::format {

/// Parses a non-nested Lance logical type string ("int32", "timestamp:us:-",
/// "fixed_size_list:float:128", "dict:string:int32:false", ...). Nested types
/// ("struct", "list", "map", ...) need their child fields and are rejected here.
/// Unknown strings → NotSupported naming them.
Result<DataType> ParseLogicalType(std::string_view logical_type);

/// The Lance logical type string of `type`, as the reference writes it.
/// NotSupported for types Lance cannot store (e.g. a map with sorted keys).
Result<std::string> LogicalTypeString(const DataType& type);

/// \brief Rebuilds the tree of a flat pre-order Lance field list.
///
/// Parents are found through parent_id (-1 = top level); Field::id keeps the Lance
/// id. Fields with id -1 directly after a packed struct (the Blob V2 descriptor
/// children in a data file's schema) are taken as that struct's children.
/// `context` (a path) prefixes error messages. Corruption for dangling parents or
/// malformed nesting, NotSupported for unknown logical types.
Result<Schema> SchemaFromLance(const google::protobuf::RepeatedPtrField<::lance::file::Field>& fields,
                               const google::protobuf::Map<std::string, std::string>& metadata,
                               std::string_view context);

/// Same, for a file-level schema message.
Result<Schema> SchemaFromLance(const ::lance::file::Schema& schema, std::string_view context);

/// \brief Flattens `schema` into pre-order Lance fields (logical type, nullable,
/// metadata and the deprecated encoding enum as the reference writes them).
///
/// Fields with id >= 0 keep it; the others get ids counting up from
/// max(existing ids)+1, in pre-order. The primitive child of a fixed_size_list gets
/// no entry. Returns InvalidArgument for duplicate ids.
Result<std::vector<::lance::file::Field>> SchemaToLance(const Schema& schema);

/// Fills in Field::id for fields that lack one (pre-order, from max+1), as
/// SchemaToLance would. Lets the writer know the ids before it writes.
Status AssignFieldIds(Schema* schema);

}  // namespace lancet::format
