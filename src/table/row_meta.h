// The row meta columns a reader computes from manifest metadata instead of reading
// them from data files (lineage-notes §0.1): stable row id, row address and the two
// lineage versions. Internal to the table layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::table {

enum class RowMeta : uint8_t { kRowId, kRowAddr, kCreatedAt, kLastUpdated };

/// The meta column called `name`, if it is one.
std::optional<RowMeta> RowMetaFromName(std::string_view name);
const char* RowMetaName(RowMeta meta);
/// Its output field: UInt64, never null.
Field RowMetaField(RowMeta meta);
/// Whether the column needs the per-row versions only stable row ids bring.
inline bool IsLineage(RowMeta meta) { return meta == RowMeta::kCreatedAt || meta == RowMeta::kLastUpdated; }
/// InvalidArgument naming `dataset` for a lineage column asked of a dataset without
/// stable row ids (the reference silently reads 1 there, lineage-notes §0.3).
Status NoLineageError(const std::string& dataset, RowMeta meta);

/// An UInt64 array of `values`.
Array UInt64Array(const std::vector<uint64_t>& values);

/// \brief One of a fragment's RowDatasetVersionSequences: the version of each physical
/// row, kept as runs (memory proportional to the serialized bytes).
class RowVersions {
 public:
  /// Every one of `rows` rows at `version`.
  static RowVersions Constant(uint64_t rows, uint64_t version);
  /// Decodes a serialized RowDatasetVersionSequence. Corruption (prefixed by
  /// `context`) for garbage, a bad span, or runs that do not add up to physical_rows.
  static Result<RowVersions> Parse(const std::string& bytes, uint64_t physical_rows, const std::string& context);

  uint64_t size() const { return ends_.empty() ? 0 : ends_.back(); }
  /// REQUIRES: offset < size().
  uint64_t Get(uint64_t offset) const;
  /// The versions of the physical rows [begin, end), appended to `out`.
  void AppendRange(uint64_t begin, uint64_t end, std::vector<uint64_t>* out) const;

 private:
  std::vector<uint64_t> ends_;      // cumulative row count at the end of each run
  std::vector<uint64_t> versions_;  // the version of each run
};

}  // namespace lancet::table
