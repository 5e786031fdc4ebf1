// Predicate literals against column types. Internal to the table layer.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "lancet/data_type.h"
#include "table/predicate.h"

namespace lancet::table {

/// Builds the InvalidArgument for a literal problem (the caller adds the column).
using LiteralError = std::function<Status(const std::string& what)>;

/// \brief Checks that `lit` can be compared with values of `type` (a dictionary's value
/// type counts) and converts it to the column's representation: date and timestamp
/// strings become integer counts of the type's unit. Errors (via `error`) for an
/// unordered type, a literal of the wrong kind, out of range, malformed, or finer than
/// the timestamp unit. A NULL literal fits every ordered type.
Status CheckLiteral(const DataType& type, PredicateNode::Literal* lit, const LiteralError& error);

/// Days since 1970-01-01 of "YYYY-MM-DD", nullopt if malformed or not a real date.
std::optional<int64_t> ParseIsoDate(std::string_view s);

/// Nanoseconds since the Unix epoch (UTC) of "YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]]"
/// with an optional "Z" or "+HH:MM"/"-HH:MM" offset (none = UTC); nullopt if malformed.
std::optional<__int128> ParseIsoTimestampNanos(std::string_view s);

}  // namespace lancet::table
