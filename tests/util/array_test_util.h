// Sample arrays of every type, shared by the array and C data tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lancet/array.h"

namespace lancet::testing {

/// One named sample per type in data_type.h (plus nested combinations), each
/// with at least 4 rows and, where the type allows, some nulls.
std::vector<std::pair<std::string, Array>> SampleArrays();

/// A shallow slice [begin, begin+length) of `a` with the null count recomputed.
Array Slice(const Array& a, int64_t begin, int64_t length);

}  // namespace lancet::testing
