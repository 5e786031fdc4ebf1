// NaN literals: engines differ on what `x = NaN` or `x < NaN` mean, so exact indexes
// leave predicates with NaN literals to the scan. Internal to the index layer.
#pragma once

#include "index/scalar_index.h"
#include "lancet/array.h"

namespace lancet::index {

/// Whether any valid value of a float16/32/64 array is a NaN (false for other types).
bool HasNaN(const Array& values);

/// Whether an exact index over values of `type` takes the literals of equality, IN or
/// range query `q`: of that type, one per bound or equality, none NaN.
bool ComparisonLiteralsFit(const ScalarQuery& q, const DataType& type);

}  // namespace lancet::index
