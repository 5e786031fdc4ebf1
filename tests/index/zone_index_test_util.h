// Shared by the ZoneMap and BloomFilter tests: row layouts, building and opening an
// index in a memory store, and the brute-force check that a search covers every match.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "index/scalar_index.h"

namespace lancet::index::testing {

/// Ascending row addresses of `sizes[i]` physical rows in fragment `fragments[i]`, less
/// the offsets `deleted` rejects.
std::vector<uint64_t> RowAddresses(const std::vector<uint64_t>& fragments, const std::vector<uint64_t>& sizes,
                                   const std::function<bool(uint64_t fragment, uint64_t offset)>& deleted = {});

/// Builds an index of `type` over `values` at `rows` into store:/idx, feeding the rows
/// in batches of `batch` (so zones span Add calls), and reopens it.
Result<std::unique_ptr<ScalarIndexReader>> BuildAndOpen(ScalarIndexType type,
                                                        const std::shared_ptr<io::ObjectStore>& store,
                                                        const Array& values, const std::vector<uint64_t>& rows,
                                                        std::map<std::string, std::string> params, int64_t batch = 777);

/// The scan's comparison of value i of `column` with literal j of `literal`: floats by
/// IEEE totalOrder with -0 equal to 0 (as expr's evaluator), anything else by CompareValues.
int ScanCompare(const Array& column, int64_t i, const Array& literal, int64_t j);

/// Whether row i matches `query` under the scan's semantics (SQL: null matches only IS NULL).
bool RowMatches(const Array& column, int64_t i, const ScalarQuery& query);

/// Checks that every row matching `query` is in `result.rows` and the result is inexact;
/// returns how many rows the result holds.
uint64_t ExpectCovers(const Array& column, const std::vector<uint64_t>& rows, const ScalarQuery& query,
                      const SearchResult& result);

ScalarQuery Equals(Array value);
ScalarQuery In(Array values);
ScalarQuery Range(std::optional<Array> lower, bool lower_inclusive, std::optional<Array> upper, bool upper_inclusive);
ScalarQuery IsNull();

}  // namespace lancet::index::testing
