// Value casts for AlterColumnType. Internal to the table layer.
#pragma once

#include <string>

#include "lancet/array.h"

namespace lancet::table {

/// True for the casts AlterColumnType supports, a subset of the reference's
/// (schema_evolution.rs `is_upcast_downcast`): integer to integer, float to double and
/// back, utf8 to large_utf8 and back, binary to large_binary and back.
bool CanCast(const DataType& from, const DataType& to);

/// Casts every value of `array` to `to`, keeping nulls. InvalidArgument naming `column`
/// and the row for a value that does not fit (an integer out of range, more than 2 GiB
/// of text for 32-bit offsets). REQUIRES: CanCast(array.type, to).
Result<Array> CastArray(const Array& array, const DataType& to, const std::string& column);

}  // namespace lancet::table
