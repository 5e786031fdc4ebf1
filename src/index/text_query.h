// The query side of a full-text index that does not depend on its files: query tokens,
// fuzzy expansion, phrase matching and BM25 arithmetic. Internal to the index layer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "index/fts_tokenizer.h"
#include "lancet/index/text_index.h"

namespace lancet::index {

/// A query token and its position in the query (phrases compare position deltas).
struct QueryToken {
  std::string text;
  uint32_t position = 0;
};

/// Whether `text` is a phrase by the reference's rule: it starts and ends with '"'.
bool IsQuotedPhrase(std::string_view text);

/// The tokens of `query` in order, repeats included (each adds its score); the quotes
/// of a quoted phrase are dropped.
std::vector<QueryToken> QueryTokens(const TextQuery& query, const fts::Tokenizer& tokenizer);

/// The tokenizer a fuzzy query's text goes through: the base tokenizer, no filters.
fts::TokenizerParams FuzzyTokenizerParams(const fts::TokenizerParams& params);

/// The edit distance a fuzzy token allows (auto: 0 up to 2 chars, 1 up to 5, else 2).
uint32_t Fuzziness(const TextQuery& query, std::string_view token);
/// Whether `candidate` is within `max_edits` Levenshtein edits (over code points) of `token`.
bool WithinEdits(std::string_view token, std::string_view candidate, uint32_t max_edits);

/// Whether per-token position lists (in query order) hold the phrase: each token at its
/// query offset from the previous one, up to `slop` positions later.
bool PhraseMatches(const std::vector<QueryToken>& tokens, const std::vector<const std::vector<uint32_t>*>& positions,
                   uint32_t slop);

}  // namespace lancet::index
