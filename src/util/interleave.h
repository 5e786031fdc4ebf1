// Gathering rows from several arrays of one type, for takes that span fragments.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "lancet/array.h"

namespace lancet {

/// Row `rows[i].second` of `parts[rows[i].first]` for each i, in one pass: what
/// TakeRows of the concatenated parts would give, without building the concatenation.
Result<Array> InterleaveRows(const std::vector<Array>& parts, std::span<const std::pair<uint32_t, int64_t>> rows);

}  // namespace lancet
