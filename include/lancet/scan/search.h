// Nearest-neighbour search over a dataset: vector indexes where they cover fragments,
// exact (flat) search over the rest, filters applied before (default) or after.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancet/index/distance.h"
#include "lancet/record_batch_reader.h"
#include "lancet/table/dataset.h"

namespace lancet::scan {

struct VectorQuery {
  /// The searched column; empty = the only vector column as wide as the queries.
  std::string column;
  /// One search per vector (each dim() floats; uint8 columns take byte values 0..255).
  /// With several, every output row starts with `query_index` (uint32).
  std::vector<std::vector<float>> vectors;
  /// Rows returned per query (after `ScanOptions::offset` skipped rows).
  uint32_t k = 10;
  /// Default: the index's metric when one is used, else l2; uint8 columns always use
  /// hamming (as the reference).
  std::optional<index::DistanceType> distance;
  uint32_t nprobes = 0;  // 0 = the reference's default (20)
  /// Re-rank refine_factor * k index candidates by exact distance.
  std::optional<uint32_t> refine_factor;
  uint32_t ef = 0;          // HNSW beam; 0 = the index's default
  bool use_index = true;    // false = exact search even where an index exists
  bool postfilter = false;  // filter the k nearest instead of searching among matches
};

/// What Search did (`lancet search --explain`).
struct SearchExplain {
  std::string column;
  std::string distance;
  std::string index;  // "vec_idx(IvfPq)"; empty when no index was used
  size_t segments = 0;
  uint32_t nprobes = 0;
  std::optional<uint32_t> refine_factor;
  std::vector<uint64_t> indexed_fragments;  // answered through the index
  std::vector<uint64_t> flat_fragments;     // searched exactly
  std::string filter;
  bool postfilter = false;
  std::string ToString() const;
};

/// \brief The `query.k` rows nearest to each query vector, nearest first, ties by row
/// id; rows whose distance is null or NaN (null vectors, zero vectors under cosine)
/// never appear.
///
/// Output columns: `options.columns` (all by default, "_rowid"/"_rowaddr" allowed),
/// then `_distance` (float32), then `_rowid`/`_rowaddr` when the flags ask for them.
/// `options.filter` selects the rows searched (or, with postfilter, the rows kept);
/// `options.offset` skips rows of each query's result; `options.limit` is not used.
/// InvalidArgument for a column that is not a vector column, a query of the wrong
/// dimension, or a distance the column cannot use.
Result<std::unique_ptr<RecordBatchReader>> Search(const table::Dataset& dataset, const table::ScanOptions& options,
                                                  const VectorQuery& query, SearchExplain* explain = nullptr);

/// Drops the opened vector index segments Search keeps for reuse.
void ClearVectorIndexCache();

}  // namespace lancet::scan
