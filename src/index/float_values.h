// Float facts the zone indexes need about one value: NaN and zero, for float16/32/64
// (false for every other type). Internal to the index layer.
#pragma once

#include <cstdint>

#include "lancet/array.h"

namespace lancet::index {

bool IsFloatType(const DataType& type);
/// Whether valid value i of `a` is a NaN (of any sign or payload).
bool IsNaNAt(const Array& a, int64_t i);
/// Whether valid value i of `a` is +0 or -0.
bool IsZeroAt(const Array& a, int64_t i);
/// A length-1 array of `type` (a float type) holding -0 or +0.
Result<Array> SignedZero(const DataType& type, bool negative);

}  // namespace lancet::index
