// Full-text (inverted, "FTS") indexes in the reference's layout: build one over a string
// column, open one and answer BM25 queries with it, and score documents no index covers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/result.h"
#include "lancet/table/dataset.h"
#include "lancet/table/index_metadata.h"

namespace lancet::index {

struct CreateTextIndexOptions {
  std::string name;  // default "<column>_idx"
  /// The reference's tokenizer settings: base_tokenizer (simple, whitespace, raw),
  /// language, with_position, max_token_length (0: none), lower_case, stem,
  /// remove_stop_words, ascii_folding, custom_stop_words (comma-separated).
  std::map<std::string, std::string> params;
  bool replace = true;
  std::function<void(uint64_t, uint64_t)> progress;  // (rows so far, rows in total)
  /// Bytes of postings held before the build writes them out as one partition and
  /// starts the next: memory stays flat however large the column is.
  uint64_t memory_budget = 256ULL << 20;
};

/// \brief Builds a full-text index on string column `column` over every fragment of
/// `dataset`'s version and commits it (CreateIndex), so the reference lists and uses it.
/// InvalidArgument for a column that is not utf8/large_utf8 or for bad params.
Result<table::IndexMetadata> CreateTextIndex(const table::Dataset& dataset, const std::string& column,
                                             const CreateTextIndexOptions& options = {});

/// Whether `index` is a full-text (InvertedIndexDetails) segment.
bool IsTextIndex(const table::IndexMetadata& index);

enum class TextOperator : uint8_t { kOr, kAnd };
/// How a clause of a boolean query counts (the reference's Occur).
enum class Occur : uint8_t { kShould, kMust, kMustNot };

struct TextClause;

/// \brief One full-text query, as the reference's MatchQuery / PhraseQuery, or a
/// BooleanQuery when `clauses` is not empty (then `text` is not used).
struct TextQuery {
  std::string text;
  /// A phrase: the tokens in order, at most `slop` positions apart (needs an index built
  /// with positions). Text in double quotes is a phrase too, as the reference reads it.
  bool phrase = false;
  uint32_t slop = 0;
  TextOperator op = TextOperator::kOr;  // match: any token, or every token
  /// Match tokens within this edit distance (0: exact); nullopt = automatic (0 for
  /// tokens up to 2 bytes, 1 up to 5, else 2), used only when `fuzzy` is set.
  bool fuzzy = false;
  std::optional<uint32_t> fuzziness;
  uint32_t max_expansions = 50;
  uint32_t prefix_length = 0;
  float boost = 1.0f;
  /// Boolean: rows matching every must clause (or, without one, any should clause) and
  /// no must_not clause, scored by the sum of the clauses they match.
  std::vector<TextClause> clauses;
};

struct TextClause {
  Occur occur = Occur::kShould;
  TextQuery query;
};

struct TextHit {
  uint64_t row = 0;  // row address, or stable row id when the dataset has them
  float score = 0;
};

/// \brief One opened full-text index segment. Thread-safe; immutable once opened.
class TextIndex {
 public:
  virtual ~TextIndex() = default;
  /// Reads metadata.lance and each partition's tokens and docs files (postings are read
  /// per query term). Corruption naming the file; NotSupported for settings Lancet
  /// cannot tokenize with.
  static Result<std::shared_ptr<const TextIndex>> Open(const table::Dataset& dataset,
                                                       const table::IndexMetadata& index);

  virtual bool with_position() const = 0;
  virtual uint64_t num_docs() const = 0;
  virtual uint64_t total_tokens() const = 0;

  /// The `k` best rows by BM25 among those `allowed` admits (null: all), best first,
  /// ties by row. InvalidArgument for a phrase on an index without positions.
  virtual Result<std::vector<TextHit>> Search(const TextQuery& query, size_t k,
                                              const std::function<bool(uint64_t)>* allowed) const = 0;

  /// Scores documents outside the index as the reference does for fragments the index
  /// does not cover: with the index's tokenizer, and BM25 statistics over the index's
  /// documents and all the added ones together (so scores are known only at the end).
  /// Holds a few bytes per matching document.
  class FlatScorer {
   public:
    virtual ~FlatScorer() = default;
    /// Tokenizes one document (row `row`) and counts it in the statistics; it is scored
    /// only when `emit` (a row a filter drops still counts, as in an index).
    virtual void Add(uint64_t row, std::string_view doc, bool emit = true) = 0;
    /// The matching documents added so far with their scores (unordered).
    virtual std::vector<TextHit> Finish() = 0;
  };
  virtual Result<std::unique_ptr<FlatScorer>> MakeFlatScorer(const TextQuery& query) const = 0;
};

/// \brief Scores documents with no index at all: tokenized with `params` (the index
/// params of CreateTextIndexOptions; default the reference's), BM25 statistics over
/// every added document — the scores an index over the same rows would give.
/// InvalidArgument for a fuzzy query (it expands to an index's terms).
Result<std::unique_ptr<TextIndex::FlatScorer>> MakeFlatTextScorer(
    const TextQuery& query, const std::map<std::string, std::string>& params = {});

}  // namespace lancet::index
