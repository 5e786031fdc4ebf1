// Date and timestamp text as the reference's DATE '...' and TIMESTAMP '...' literals
// accept it. Internal to the expr layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "lancet/data_type.h"

namespace lancet::expr {

/// Days since 1970-01-01 of "YYYY-M[M]-D[D]", nullopt if malformed or not a real date.
std::optional<int64_t> ParseDate(std::string_view s);

/// UTC nanoseconds since the epoch of "YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]]" with an
/// optional "Z" or "+HH[:MM]"/"-HH[:MM]" offset (none = UTC); nullopt if malformed.
std::optional<__int128> ParseTimestampNanos(std::string_view s);

/// Nanoseconds in one `unit`.
int64_t NanosPerUnit(TimeUnit unit);

inline constexpr int64_t kNanosPerDay = int64_t{86400} * 1000000000;

/// Floor division: the reference rounds timestamps toward negative infinity when it
/// drops precision (23:59:59.9999999 on the day before the epoch is -1 µs, not 0).
inline __int128 FloorDiv(__int128 a, __int128 b) {
  __int128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace lancet::expr
