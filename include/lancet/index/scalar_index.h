// Scalar indexes on a dataset's columns: build, list, drop and optimize them. The scan
// planner (lancet/scan/scanner.h) uses them to answer filters.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lancet/result.h"
#include "lancet/table/dataset.h"
#include "lancet/table/index_metadata.h"

namespace lancet::index {

/// Exact indexes (BTree, Bitmap, LabelList) give the matching rows; zone indexes
/// (ZoneMap, BloomFilter) give zones that may hold matches, which the scan rechecks.
enum class ScalarIndexType : uint8_t { kBTree, kBitmap, kLabelList, kZoneMap, kBloomFilter };

/// "btree", "bitmap", "label_list", "zonemap", "bloomfilter" (case-insensitive; also the
/// display names below); InvalidArgument naming the choices otherwise.
Result<ScalarIndexType> ParseScalarIndexType(const std::string& name);
/// As the reference prints it in plans: "BTree", "Bitmap", "LabelList", "ZoneMap", "BloomFilter".
const char* ScalarIndexTypeName(ScalarIndexType type);
/// The type of a segment by its details type URL (case-insensitive, as the reference
/// matches it); nullopt for other kinds (vector, full-text) or unknown URLs.
std::optional<ScalarIndexType> ScalarTypeOf(const table::IndexMetadata& index);
/// Whether Lancet can read this segment: a known scalar type whose index_version is not
/// newer than what Lancet reads (the reference ignores such indexes too).
bool IsUsable(const table::IndexMetadata& index);

struct CreateIndexOptions {
  /// Default: "<column>_idx", the reference's default.
  std::string name;
  /// The type's parameters: ZoneMap rows_per_zone; BloomFilter number_of_items,
  /// probability; BTree batch_size. InvalidArgument for others.
  std::map<std::string, std::string> params;
  /// An index of the same name is replaced (as the reference's default); false:
  /// AlreadyExists.
  bool replace = true;
  /// Bytes of values held before a build spills sorted runs to disk.
  uint64_t memory_budget = 256ULL << 20;
  /// Called as rows are indexed: (rows so far, rows in total).
  std::function<void(uint64_t, uint64_t)> progress;
};

/// \brief Builds a `type` index on top-level column `column` over every fragment of
/// `dataset`'s version and commits it (a CreateIndex transaction). Returns the committed
/// segment; its files are under dataset.IndexDirectory(). NotFound for an unknown
/// column; InvalidArgument for a column type the index cannot hold (BTree, Bitmap,
/// ZoneMap, BloomFilter: integers, floats, bool, strings, binaries, dates, times,
/// timestamps, durations; LabelList: lists of those). Nothing is left behind on error.
Result<table::IndexMetadata> CreateScalarIndex(const table::Dataset& dataset, const std::string& column,
                                               ScalarIndexType type, const CreateIndexOptions& options = {});

/// Removes every segment of index `name` from the index section (files stay until
/// cleanup). Returns the new version; NotFound if there is no such index.
Result<uint64_t> DropIndex(const table::Dataset& dataset, const std::string& name);

struct OptimizeIndicesResult {
  uint64_t version = 0;              // the dataset's version afterwards (unchanged: nothing to do)
  std::vector<std::string> rebuilt;  // names of the indexes that now cover every fragment
};
/// Brings every usable scalar index up to date with appended (or compacted) fragments:
/// each index that misses fragments is rebuilt as one segment over all of them, its old
/// segments removed, in one CreateIndex transaction (as the reference's optimize()).
Result<OptimizeIndicesResult> OptimizeIndices(const table::Dataset& dataset,
                                              std::function<void(const std::string&)> progress = {});

/// One index (all segments of a name) of a version.
struct IndexStats {
  std::string name;
  std::string type;     // ScalarIndexTypeName, or the type URL for others
  std::string column;   // the indexed field's name ("" if it is gone)
  bool usable = false;  // see IsUsable
  uint64_t num_segments = 0;
  uint64_t num_indexed_rows = 0;    // live rows of covered fragments
  uint64_t num_unindexed_rows = 0;  // live rows of the others
  uint64_t size_bytes = 0;          // sum of the segments' files
};
Result<std::vector<IndexStats>> DescribeIndices(const table::Dataset& dataset);

}  // namespace lancet::index
