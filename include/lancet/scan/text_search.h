// Full-text (BM25) search over a dataset, and hybrid search fusing it with a vector
// search: the reference's MatchQuery/PhraseQuery plans and its RRF reranker.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lancet/index/text_index.h"
#include "lancet/record_batch_reader.h"
#include "lancet/scan/search.h"
#include "lancet/table/dataset.h"

namespace lancet::scan {

struct TextSearchRequest {
  /// The searched column; empty = the only column with a full-text index.
  std::string column;
  index::TextQuery query;
  uint32_t k = 10;  // rows returned (after `ScanOptions::offset` skipped rows)
  /// Without an index on the column: the tokenizer settings of the flat scan (the index
  /// params of CreateTextIndexOptions; default the reference's).
  std::map<std::string, std::string> params;
};

/// What TextSearch did (`lancet search --text ... --explain`).
struct TextSearchExplain {
  std::string column;
  std::string index;                        // "text_idx(Inverted)"
  std::vector<uint64_t> indexed_fragments;  // answered through the index
  std::vector<uint64_t> flat_fragments;     // tokenized and scored at query time
  std::string filter;
  std::string ToString() const;
};

/// \brief The `request.k` rows of best BM25 score (`_score`, float32, after the projected
/// columns; `_rowid`/`_rowaddr` after it when asked), best first, ties by row id.
///
/// Fragments the column's full-text index does not cover are tokenized and scored at
/// query time; deleted rows never appear; `options.filter` selects the rows searched.
/// Without an index (where the reference refuses) every row is scanned and scored with
/// statistics over them all: the scores an index would give, the ground truth for it.
/// InvalidArgument for a phrase on an index without positions, or a fuzzy query without
/// an index.
Result<std::unique_ptr<RecordBatchReader>> TextSearch(const table::Dataset& dataset, const table::ScanOptions& options,
                                                      const TextSearchRequest& request,
                                                      TextSearchExplain* explain = nullptr);

enum class Fusion : uint8_t {
  kRrf,     // reciprocal rank fusion, the reference's default reranker
  kLinear,  // weighted sum of scores normalised to [0, 1]
};

struct HybridOptions {
  Fusion fusion = Fusion::kRrf;
  float rrf_k = 60.0f;         // the reference's constant
  float vector_weight = 0.7f;  // linear: weight of the vector side (the text side gets 1 - it)
};

/// \brief A vector query and a text query over the same rows: each side's k best (the
/// filter applies to both), fused into `_relevance_score` (float32, after the projected
/// columns), best first; `k` rows at most.
Result<std::unique_ptr<RecordBatchReader>> HybridSearch(const table::Dataset& dataset,
                                                        const table::ScanOptions& options, const VectorQuery& vector,
                                                        const TextSearchRequest& text,
                                                        const HybridOptions& hybrid = {});

/// Drops the opened full-text index segments TextSearch keeps for reuse.
void ClearTextIndexCache();

}  // namespace lancet::scan
