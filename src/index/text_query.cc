#include "index/text_query.h"

#include "index/fts_unicode_data.h"

#include <algorithm>

namespace lancet::index {
namespace {

// Code points as the analyzer reads them (invalid bytes become U+FFFD).
std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) out.push_back(fts::NextCodePoint(s, &i));
  return out;
}

}  // namespace

bool IsQuotedPhrase(std::string_view text) { return text.size() >= 2 && text.front() == '"' && text.back() == '"'; }

fts::TokenizerParams FuzzyTokenizerParams(const fts::TokenizerParams& params) {
  fts::TokenizerParams p;
  p.base_tokenizer = params.base_tokenizer;
  p.language = params.language;
  p.max_token_length = 0;
  p.lower_case = false;
  p.stem = false;
  p.remove_stop_words = false;
  p.ascii_folding = false;
  return p;
}

std::vector<QueryToken> QueryTokens(const TextQuery& query, const fts::Tokenizer& tokenizer) {
  std::string_view text = query.text;
  if (IsQuotedPhrase(text)) text = text.substr(1, text.size() - 2);
  std::vector<fts::Token> tokens;
  tokenizer.Tokenize(text, &tokens);
  std::vector<QueryToken> out;
  // Repeated tokens are kept: each occurrence adds its score, as the reference's do.
  for (fts::Token& t : tokens) out.push_back({std::move(t.text), t.position});
  return out;
}

uint32_t Fuzziness(const TextQuery& query, std::string_view token) {
  if (query.fuzziness) return *query.fuzziness;
  const size_t chars = CodePoints(token).size();
  return chars <= 2 ? 0 : chars <= 5 ? 1 : 2;
}

bool WithinEdits(std::string_view token, std::string_view candidate, uint32_t max_edits) {
  const std::vector<uint32_t> a = CodePoints(token);
  const std::vector<uint32_t> b = CodePoints(candidate);
  const size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (diff > max_edits) return false;
  std::vector<uint32_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<uint32_t>(i);
    uint32_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      const uint32_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > max_edits) return false;  // every later row is at least this far
    std::swap(prev, cur);
  }
  return prev[b.size()] <= max_edits;
}

bool PhraseMatches(const std::vector<QueryToken>& tokens, const std::vector<const std::vector<uint32_t>*>& positions,
                   uint32_t slop) {
  if (tokens.empty() || positions.size() != tokens.size() || positions[0]->empty()) return false;
  std::vector<uint64_t> candidates(positions[0]->begin(), positions[0]->end());
  std::vector<uint64_t> next;
  for (size_t q = 1; q < tokens.size(); ++q) {
    if (tokens[q].position < tokens[q - 1].position) return false;
    const uint64_t delta = tokens[q].position - tokens[q - 1].position;
    next.clear();
    for (uint32_t p : *positions[q]) {
      for (uint64_t c : candidates) {
        if (c + delta <= p && p <= c + delta + slop) {
          next.push_back(p);
          break;
        }
      }
    }
    if (next.empty()) return false;
    candidates.swap(next);
  }
  return true;
}

}  // namespace lancet::index
