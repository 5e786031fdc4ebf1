// Row ids and row versions of the fragments compaction writes (docs/format §4.2).
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::table {

/// A serialized lance.table.RowIdSequence of `ids` in order: runs of consecutive ids
/// become Range segments, everything between them one array segment (sorted_array when
/// ascending), with the narrowest offset width that fits.
std::string EncodeRowIds(std::span<const uint64_t> ids);

/// The version of each of a fragment's `physical_rows` rows from a serialized
/// RowDatasetVersionSequence (runs of one version over a span of row positions).
/// Corruption (prefixed by `context`) for garbage or a length other than physical_rows.
Result<std::vector<uint64_t>> DecodeRowVersions(const std::string& bytes, uint64_t physical_rows,
                                                const std::string& context);

/// A serialized RowDatasetVersionSequence: one run per stretch of equal versions, its
/// span the Range of row positions it covers.
std::string EncodeRowVersions(std::span<const uint64_t> versions);

/// A serialized RowDatasetVersionSequence of `rows` rows all at `version` (one run),
/// as the reference writes for rows a commit creates or rewrites.
std::string EncodeConstantRowVersions(uint64_t rows, uint64_t version);

}  // namespace lancet::table
