// A total order over the values of one Arrow array type, the order a BTree sorts by
// and zone maps keep min/max in. Internal to the index layer.
#pragma once

#include <cstdint>

#include "lancet/array.h"

namespace lancet::index {

/// Whether values of `type` can be ordered by CompareValues: every integer, float,
/// bool, utf8/binary (large too), date, time, timestamp and duration type.
bool IsOrderable(const DataType& type);

/// <0, 0, >0 as a[i] sorts before, with or after b[j]. `a` and `b` have the same
/// orderable type. Nulls sort first and equal each other; floats by IEEE totalOrder as
/// the reference compares them (NaN after +inf, a NaN with its sign bit set before
/// -inf, NaNs of one sign equal) except that -0 equals 0; strings and binaries bytewise.
int CompareValues(const Array& a, int64_t i, const Array& b, int64_t j);

}  // namespace lancet::index
