// NaN literals: CompareValues sorts NaN last and equal to itself, as the reference's
// indexes store it, but engines differ on what `x = NaN` or `x < NaN` mean, so exact
// indexes leave predicates with NaN literals to the scan. Internal to the index layer.
#pragma once

#include "lancet/array.h"

namespace lancet::index {

/// Whether any valid value of a float16/32/64 array is a NaN (false for other types).
bool HasNaN(const Array& values);

}  // namespace lancet::index
