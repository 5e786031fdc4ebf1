// Shared by the index tests: the answer a full scan gives, and queries to ask.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "index/scalar_index.h"

namespace lancet::index {

/// The ids of the rows of `column` (row i has id ids[i]) that `q` selects, by brute
/// force; for kHasAny/kHasAll `column` is the list column.
std::set<uint64_t> BruteForce(const Array& column, const std::vector<uint64_t>& ids, const ScalarQuery& q);

/// The set bits of `rows`.
std::set<uint64_t> ToSet(const Roaring64Map& rows);

/// Queries of every kind over literals drawn from `literals` (of the column's type):
/// equality, IN, ranges of both inclusivities, one-sided ranges, IS NULL.
std::vector<ScalarQuery> QueriesOver(const Array& literals);

/// Row ids spread over fragments: row i is in fragment i % 3 * 7 + 1.
std::vector<uint64_t> SpreadIds(int64_t n);

/// Reads every byte of `path` in `store`.
std::vector<uint8_t> ReadAll(io::ObjectStore& store, const std::string& path);

}  // namespace lancet::index

namespace lancet::index {

/// Builds a `type` index over `values` (row i has id ids[i]) into `dir` of `store`,
/// adding it in a few batches.
Result<std::vector<IndexFileEntry>> BuildIndex(ScalarIndexType type, const Field& field, const Array& values,
                                               const std::vector<uint64_t>& ids,
                                               std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                               const BuildOptions& options = {});

/// Opens the index and checks every query against BruteForce (gtest failures);
/// queries the index does not support are skipped. Returns how many were checked.
int CheckQueries(ScalarIndexType type, std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                 const DataType& value_type, const Array& column, const std::vector<uint64_t>& ids,
                 const std::vector<ScalarQuery>& queries);

/// Opens the index and runs `queries` over it; for damaged files: the result is
/// ignored, only that there is no crash. Returns the first error (OK if none).
Status OpenAndSearch(ScalarIndexType type, std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                     const DataType& value_type, const std::vector<ScalarQuery>& queries);

}  // namespace lancet::index

namespace lancet::index {

/// Damages each of `files` (in `dir` of `store`) in turn, truncated at several lengths
/// and with single bytes flipped, and checks that opening and searching the damaged
/// copy never crashes and that a truncated file is an error.
void CheckDamage(ScalarIndexType type, io::ObjectStore& store, const std::string& dir,
                 const std::vector<IndexFileEntry>& files, const DataType& value_type,
                 const std::vector<ScalarQuery>& queries);

}  // namespace lancet::index
