// Row-id sets a search needs from the dataset: the live rows of some fragments that
// pass a filter, and which of a few candidate rows pass one. Internal to the scan layer.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <roaring/roaring64map.hh>
#include "lancet/table/dataset.h"

namespace lancet::scan {

/// Row ids of `fragments` that are live and pass `filter` (all live rows when empty).
Result<Roaring64Map> AllowedRows(const table::Dataset& dataset, const std::set<uint64_t>& fragments,
                                 const std::string& filter);

/// Which of `rows` (row ids) pass `filter`: only those rows are read, through a
/// selection, not their whole fragments.
Result<Roaring64Map> PassingRows(const table::Dataset& dataset, const std::vector<uint64_t>& rows,
                                 const std::string& filter);

}  // namespace lancet::scan
