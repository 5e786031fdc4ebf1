// ArrayFromJson: compact array literals for tests and tools.
#pragma once

#include <string_view>

#include "lancet/array.h"

namespace lancet {

/// \brief Builds an array of `type` from a JSON array literal, one element per row.
///
/// `null` is a null row everywhere. Per type:
///   bool: true/false; integers and temporal types: numbers, or strings holding
///   an integer (for values past 2^53); floats: numbers or "NaN", "Inf", "-Inf";
///   float16: numbers (rounded to nearest); utf8: strings; binary and
///   fixed_size_binary: hex strings ("00ff"); decimal: strings or numbers such as
///   "-12.34" (at most `scale` fractional digits; the result is the unscaled value);
///   list/large_list/fixed_size_list: JSON arrays; struct: objects keyed by field
///   name (a missing key is null) or arrays in field order; map: arrays of
///   [key, value] pairs or {"key": .., "value": ..} objects; dictionary: the
///   decoded values (the dictionary holds each distinct value once).
/// InvalidArgument names the offending row on malformed JSON or a value that
/// does not fit the type.
Result<Array> ArrayFromJson(const DataType& type, std::string_view json);

}  // namespace lancet
