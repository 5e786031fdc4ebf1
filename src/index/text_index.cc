// Answering full-text queries with an opened inverted index: every partition's postings
// of the query terms are scored exhaustively with the index-wide BM25 statistics (the
// reference's scores), then the k best admitted rows are kept.
#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "index/fts_params.h"
#include "index/fts_posting.h"
#include "index/fts_tokenizer.h"
#include "index/text_files.h"
#include "index/text_query.h"
#include "lancet/index/text_index.h"

namespace lancet::index {
namespace {

// Decoded posting lists kept per opened index: repeated terms cost no decode.
constexpr uint64_t kPostingCacheBytes = 256ULL << 20;

// The k best (score, row) pairs seen: higher score first, then lower row.
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) {}
  // Whether a doc of `score` could enter (ties are decided by row in Offer).
  bool Admits(float score) const { return heap_.size() < k_ || score >= heap_.front().score; }
  void Offer(float score, uint64_t row) {
    if (k_ == 0) return;
    const TextHit hit{row, score};
    if (heap_.size() < k_) {
      heap_.push_back(hit);
      std::push_heap(heap_.begin(), heap_.end(), Better);
    } else if (Better(hit, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.back() = hit;
      std::push_heap(heap_.begin(), heap_.end(), Better);
    }
  }
  std::vector<TextHit> Sorted() {
    std::sort(heap_.begin(), heap_.end(), Better);
    return std::move(heap_);
  }
  // The heap's front is the worst kept hit.
  static bool Better(const TextHit& a, const TextHit& b) {
    return a.score > b.score || (a.score == b.score && a.row < b.row);
  }

 private:
  size_t k_;
  std::vector<TextHit> heap_;
};

// A term's postings ready for scoring: doc numbers, frequencies (for phrases) and each
// doc's BM25 weight under the index-wide average length (idf applies per query).
struct TermPostings {
  std::vector<uint32_t> doc_ids;
  std::vector<uint32_t> freqs;
  std::vector<float> weights;
  uint64_t bytes() const { return 12 * doc_ids.size() + 64; }
};

class PostingCache {
 public:
  std::shared_ptr<const TermPostings> Get(uint64_t key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second.second);
    return it->second.first;
  }
  void Put(uint64_t key, std::shared_ptr<const TermPostings> p) {
    const uint64_t size = p->bytes();
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.count(key)) return;
    order_.push_front(key);
    map_[key] = {std::move(p), order_.begin()};
    bytes_ += size;
    while (bytes_ > kPostingCacheBytes && order_.size() > 1) {
      auto victim = map_.find(order_.back());
      bytes_ -= victim->second.first->bytes();
      map_.erase(victim);
      order_.pop_back();
    }
  }

 private:
  std::mutex mu_;
  std::list<uint64_t> order_;
  std::unordered_map<uint64_t, std::pair<std::shared_ptr<const TermPostings>, std::list<uint64_t>::iterator>> map_;
  uint64_t bytes_ = 0;
};

class TextIndexImpl final : public TextIndex {
 public:
  TextIndexImpl(fts::IndexParams params, std::vector<std::unique_ptr<TextPartition>> parts,
                std::unique_ptr<fts::Tokenizer> tokenizer, std::unique_ptr<fts::Tokenizer> fuzzy_tokenizer)
      : params_(std::move(params)),
        parts_(std::move(parts)),
        tokenizer_(std::move(tokenizer)),
        fuzzy_tokenizer_(std::move(fuzzy_tokenizer)) {
    for (const auto& p : parts_) {
      num_docs_ += p->rows.size();
      total_tokens_ += p->total_tokens;
    }
  }

  bool with_position() const override { return params_.with_position; }
  uint64_t num_docs() const override { return num_docs_; }
  uint64_t total_tokens() const override { return total_tokens_; }

  Result<std::vector<TextHit>> Search(const TextQuery& query, size_t k,
                                      const std::function<bool(uint64_t)>* allowed) const override;
  Result<std::unique_ptr<FlatScorer>> MakeFlatScorer(const TextQuery& query) const override;

  // Docs containing `token` over every partition (the reference's idf counts).
  Result<uint64_t> DocsContaining(const std::string& token) const {
    uint64_t n = 0;
    for (const auto& p : parts_) {
      ASSIGN_OR_RETURN(std::optional<uint64_t> id, p->terms->Get(token));
      if (id && *id < p->doc_freq.size()) n += p->doc_freq[*id];
    }
    return n;
  }
  float AvgDocLength() const {
    return num_docs_ == 0 ? 0.0f : static_cast<float>(total_tokens_) / static_cast<float>(num_docs_);
  }

 private:
  Result<std::shared_ptr<const TermPostings>> Postings(const TextPartition& part, uint32_t term) const {
    const uint64_t key = (static_cast<uint64_t>(part.id) << 32) | term;
    if (auto hit = cache_.Get(key)) return hit;
    ASSIGN_OR_RETURN(fts::DecodedPostings decoded, ReadTermPostings(part, term));
    auto made = std::make_shared<TermPostings>();
    fts::Bm25 bm25;
    bm25.num_docs = num_docs_;
    bm25.avg_doc_length = AvgDocLength();
    made->weights.resize(decoded.doc_ids.size());
    for (size_t i = 0; i < decoded.doc_ids.size(); ++i) {
      const uint32_t doc = decoded.doc_ids[i];
      if (doc >= part.lengths.size()) {
        return Status::Corruption(part.invert->path() + ": doc " + std::to_string(doc) + " beyond the " +
                                  std::to_string(part.lengths.size()) + " docs of partition " +
                                  std::to_string(part.id));
      }
      made->weights[i] = bm25.DocWeight(decoded.freqs[i], part.lengths[doc]);
    }
    made->doc_ids = std::move(decoded.doc_ids);
    made->freqs = std::move(decoded.freqs);
    std::shared_ptr<const TermPostings> shared = std::move(made);
    cache_.Put(key, shared);
    return shared;
  }
  // The query's tokens, expanded by fuzzy matching against every partition's terms.
  Result<std::vector<QueryToken>> Tokens(const TextQuery& query) const;
  Status SearchPartition(const TextPartition& part, const TextQuery& query, const std::vector<QueryToken>& tokens,
                         const std::vector<float>& idf, bool phrase, TopK& top,
                         const std::function<bool(uint64_t)>* allowed) const;

  fts::IndexParams params_;
  std::vector<std::unique_ptr<TextPartition>> parts_;
  // Thread-safe; built once, as every query and flat scan tokenizes with them.
  std::shared_ptr<const fts::Tokenizer> tokenizer_;
  std::unique_ptr<fts::Tokenizer> fuzzy_tokenizer_;
  uint64_t num_docs_ = 0;
  uint64_t total_tokens_ = 0;
  mutable PostingCache cache_;
};

Result<std::vector<QueryToken>> TextIndexImpl::Tokens(const TextQuery& query) const {
  const bool fuzzy = query.fuzzy && !query.phrase && !IsQuotedPhrase(query.text);
  std::vector<QueryToken> tokens = QueryTokens(query, fuzzy ? *fuzzy_tokenizer_ : *tokenizer_);
  if (!fuzzy) return tokens;
  std::vector<QueryToken> expanded;
  std::set<std::string> seen;
  for (const QueryToken& t : tokens) {
    const uint32_t edits = Fuzziness(query, t.text);
    const std::string_view prefix =
        std::string_view(t.text).substr(0, std::min<size_t>(query.prefix_length, t.text.size()));
    for (const auto& p : parts_) {
      Status walk = p->terms->ForEach([&](std::string_view key, uint64_t) {
        if (expanded.size() >= query.max_expansions) return false;
        if (key.substr(0, prefix.size()) == prefix && WithinEdits(t.text, key, edits) &&
            seen.insert(std::string(key)).second) {
          expanded.push_back({std::string(key), t.position});
        }
        return true;
      });
      RETURN_IF_ERROR(walk);
    }
  }
  return expanded;
}

Status TextIndexImpl::SearchPartition(const TextPartition& part, const TextQuery& query,
                                      const std::vector<QueryToken>& tokens, const std::vector<float>& idf, bool phrase,
                                      TopK& top, const std::function<bool(uint64_t)>* allowed) const {
  struct Term {
    size_t query_index;
    uint32_t id;
    std::shared_ptr<const TermPostings> postings;
  };
  std::vector<Term> terms;
  const bool all = phrase || query.op == TextOperator::kAnd;
  for (size_t q = 0; q < tokens.size(); ++q) {
    ASSIGN_OR_RETURN(std::optional<uint64_t> id, part.terms->Get(tokens[q].text));
    if (!id || *id >= part.doc_freq.size()) {
      // A phrase or an AND needs every token: no doc of this partition can match.
      if (all) return Status::OK();
      continue;
    }
    ASSIGN_OR_RETURN(auto postings, Postings(part, static_cast<uint32_t>(*id)));
    terms.push_back({q, static_cast<uint32_t>(*id), std::move(postings)});
  }
  if (terms.empty()) return Status::OK();
  // Positions are read before any score accumulates: nothing may fail once the
  // accumulator is dirty.
  std::vector<std::vector<std::vector<uint32_t>>> positions;
  if (phrase) {
    if (!part.positions) {
      return Status::InvalidArgument(
          "position is not found but required for phrase queries, try recreating the index with position");
    }
    for (const Term& term : terms) {
      ASSIGN_OR_RETURN(auto pos, ReadTermPositions(part, term.id, term.postings->freqs));
      positions.push_back(std::move(pos));
    }
  }
  const size_t num_docs = part.rows.size();
  // Scores accumulate in an array that is all zeros between queries: reading a doc's
  // score back clears it, so no query pays to clear num_docs floats.
  thread_local std::vector<float> scores;
  thread_local std::vector<uint16_t> hits;
  if (scores.size() < num_docs) scores.resize(num_docs, 0.0f);
  if (all && hits.size() < num_docs) hits.resize(num_docs, 0);
  for (const Term& term : terms) {
    const TermPostings& p = *term.postings;
    const float w = idf[term.query_index];
    const uint32_t* docs = p.doc_ids.data();
    const float* weights = p.weights.data();
    const size_t n = p.doc_ids.size();
    for (size_t i = 0; i < n; ++i) scores[docs[i]] += w * weights[i];
    if (all) {
      for (size_t i = 0; i < n; ++i) ++hits[docs[i]];
    }
  }
  std::vector<const std::vector<uint32_t>*> doc_positions(terms.size());
  const uint16_t need = static_cast<uint16_t>(std::min<size_t>(terms.size(), UINT16_MAX));
  // Every doc with a score is met again in some list: its first meeting reads the score
  // (and hit count) and clears them, later meetings see zero.
  // The boost applies after accumulation, so a zero boost cannot leave hit counts behind.
  for (const Term& term : terms) {
    for (uint32_t doc : term.postings->doc_ids) {
      const uint16_t count = all ? hits[doc] : 0;
      if (scores[doc] == 0.0f && count == 0) continue;
      const float score = scores[doc] * query.boost;
      scores[doc] = 0.0f;
      if (all) {
        hits[doc] = 0;
        if (count != need) continue;
      }
      if (score == 0.0f || !top.Admits(score)) continue;
      const uint64_t row = part.rows[doc];
      if (allowed && !(*allowed)(row)) continue;
      if (phrase) {
        for (size_t t = 0; t < terms.size(); ++t) {
          const auto& ids = terms[t].postings->doc_ids;
          const size_t at = static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), doc) - ids.begin());
          doc_positions[t] = &positions[t][at];
        }
        if (!PhraseMatches(tokens, doc_positions, query.slop)) continue;
      }
      top.Offer(score, row);
    }
  }
  return Status::OK();
}

// Sums the clause hits of a boolean query: must clauses intersect (should ones only add
// scores), without a must clause the should clauses unite, must_not clauses remove.
std::vector<TextHit> CombineClauses(const std::vector<TextClause>& clauses,
                                    const std::vector<std::vector<TextHit>>& results) {
  std::unordered_map<uint64_t, float> score;
  std::unordered_map<uint64_t, size_t> musts;
  std::set<uint64_t> excluded;
  size_t must_count = 0;
  for (size_t c = 0; c < clauses.size(); ++c) {
    if (clauses[c].occur == Occur::kMust) ++must_count;
    for (const TextHit& h : results[c]) {
      switch (clauses[c].occur) {
        case Occur::kMustNot:
          excluded.insert(h.row);
          break;
        case Occur::kMust:
          ++musts[h.row];
          score[h.row] += h.score;
          break;
        case Occur::kShould:
          score[h.row] += h.score;
          break;
      }
    }
  }
  std::vector<TextHit> out;
  for (const auto& [row, s] : score) {
    if (excluded.count(row)) continue;
    if (must_count > 0 && musts[row] != must_count) continue;
    out.push_back({row, s});
  }
  return out;
}

std::vector<TextHit> TopHits(std::vector<TextHit> hits, size_t k) {
  const size_t keep = std::min(k, hits.size());
  std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(keep), hits.end(), TopK::Better);
  hits.resize(keep);
  return hits;
}

Result<std::vector<TextHit>> TextIndexImpl::Search(const TextQuery& query, size_t k,
                                                   const std::function<bool(uint64_t)>* allowed) const {
  std::vector<TextHit> hits;
  if (k == 0 || num_docs_ == 0) return hits;
  if (!query.clauses.empty()) {
    std::vector<std::vector<TextHit>> results;
    for (const TextClause& c : query.clauses) {
      ASSIGN_OR_RETURN(std::vector<TextHit> r, Search(c.query, SIZE_MAX, allowed));
      results.push_back(std::move(r));
    }
    std::vector<TextHit> combined = CombineClauses(query.clauses, results);
    for (TextHit& h : combined) h.score *= query.boost;
    return TopHits(std::move(combined), k);
  }
  const bool phrase = query.phrase || IsQuotedPhrase(query.text);
  if (phrase && !params_.with_position) {
    return Status::InvalidArgument(
        "position is not found but required for phrase queries, try recreating the index with position");
  }
  ASSIGN_OR_RETURN(std::vector<QueryToken> tokens, Tokens(query));
  if (tokens.empty()) return hits;
  std::vector<float> idf;
  for (const QueryToken& t : tokens) {
    ASSIGN_OR_RETURN(uint64_t n, DocsContaining(t.text));
    idf.push_back(n == 0 ? 0.0f : fts::Bm25::Idf(n, num_docs_));
  }
  TopK top(k);
  for (const auto& part : parts_) RETURN_IF_ERROR(SearchPartition(*part, query, tokens, idf, phrase, top, allowed));
  return top.Sorted();
}

// Documents outside the index: every one is tokenized first, because the reference
// scores them with statistics over the index's docs and all of them together.
class FlatScorerImpl final : public TextIndex::FlatScorer {
 public:
  FlatScorerImpl(std::shared_ptr<const fts::Tokenizer> tokenizer, std::vector<QueryToken> tokens,
                 std::vector<uint64_t> index_docs_with, uint64_t index_docs, uint64_t index_tokens, TextQuery query)
      : tokenizer_(std::move(tokenizer)),
        tokens_(std::move(tokens)),
        docs_with_(std::move(index_docs_with)),
        num_docs_(index_docs),
        total_tokens_(index_tokens),
        query_(std::move(query)),
        phrase_(query_.phrase || IsQuotedPhrase(query_.text)) {}

  void Add(uint64_t row, std::string_view doc, bool emit) override {
    doc_tokens_.clear();
    tokenizer_->Tokenize(doc, &doc_tokens_);
    if (doc_tokens_.empty()) return;  // not a document, as in the index
    ++num_docs_;
    total_tokens_ += doc_tokens_.size();
    std::vector<uint32_t> freqs(tokens_.size(), 0);
    std::vector<std::vector<uint32_t>> positions(phrase_ ? tokens_.size() : 0);
    bool any = false;
    for (size_t q = 0; q < tokens_.size(); ++q) {
      for (const fts::Token& t : doc_tokens_) {
        if (t.text != tokens_[q].text) continue;
        ++freqs[q];
        if (phrase_) positions[q].push_back(t.position);
      }
      // A token counts once per document for its document frequency.
      bool first = true;
      for (size_t p = 0; p < q; ++p) first = first && tokens_[p].text != tokens_[q].text;
      if (freqs[q] > 0 && first) ++docs_with_[q];
      any = any || freqs[q] > 0;
    }
    if (!any || !emit) return;
    const bool all = phrase_ || query_.op == TextOperator::kAnd;
    if (all && std::count(freqs.begin(), freqs.end(), 0u) > 0) return;
    if (phrase_) {
      std::vector<const std::vector<uint32_t>*> ptrs;
      for (const auto& p : positions) ptrs.push_back(&p);
      if (!PhraseMatches(tokens_, ptrs, query_.slop)) return;
    }
    matches_.push_back({row, static_cast<uint32_t>(doc_tokens_.size()), std::move(freqs)});
  }

  std::vector<TextHit> Finish() override {
    // Repeated query tokens share one document frequency: the first occurrence's.
    std::vector<uint64_t> docs_with(tokens_.size());
    for (size_t q = 0; q < tokens_.size(); ++q) {
      docs_with[q] = docs_with_[q];
      for (size_t p = 0; p < q; ++p) {
        if (tokens_[p].text == tokens_[q].text) {
          docs_with[q] = docs_with_[p];
          break;
        }
      }
    }
    fts::Bm25 bm25;
    bm25.num_docs = num_docs_;
    bm25.avg_doc_length = num_docs_ ? static_cast<float>(total_tokens_) / static_cast<float>(num_docs_) : 0.0f;
    std::vector<float> idf;
    for (uint64_t n : docs_with) idf.push_back(n == 0 ? 0.0f : fts::Bm25::Idf(n, num_docs_));
    std::vector<TextHit> hits;
    for (const Match& m : matches_) {
      float score = 0;
      for (size_t q = 0; q < tokens_.size(); ++q) {
        if (m.freqs[q] > 0) score += idf[q] * bm25.DocWeight(m.freqs[q], m.length);
      }
      score *= query_.boost;
      if (score > 0) hits.push_back({m.row, score});
    }
    matches_.clear();
    return hits;
  }

 private:
  struct Match {
    uint64_t row;
    uint32_t length;
    std::vector<uint32_t> freqs;
  };
  std::shared_ptr<const fts::Tokenizer> tokenizer_;
  std::vector<QueryToken> tokens_;
  std::vector<uint64_t> docs_with_;  // per query token: index docs + flat docs holding it
  uint64_t num_docs_;
  uint64_t total_tokens_;
  TextQuery query_;
  bool phrase_;
  std::vector<fts::Token> doc_tokens_;
  std::vector<Match> matches_;
};

// A boolean query's documents: each clause scores them, then the clauses combine.
class BooleanFlatScorer final : public TextIndex::FlatScorer {
 public:
  BooleanFlatScorer(std::vector<TextClause> clauses, std::vector<std::unique_ptr<TextIndex::FlatScorer>> children,
                    float boost)
      : clauses_(std::move(clauses)), children_(std::move(children)), boost_(boost) {}
  void Add(uint64_t row, std::string_view doc, bool emit) override {
    for (auto& c : children_) c->Add(row, doc, emit);
  }
  std::vector<TextHit> Finish() override {
    std::vector<std::vector<TextHit>> results;
    for (auto& c : children_) results.push_back(c->Finish());
    std::vector<TextHit> out = CombineClauses(clauses_, results);
    for (TextHit& h : out) h.score *= boost_;
    return out;
  }

 private:
  std::vector<TextClause> clauses_;
  std::vector<std::unique_ptr<TextIndex::FlatScorer>> children_;
  float boost_;
};

Result<std::unique_ptr<TextIndex::FlatScorer>> TextIndexImpl::MakeFlatScorer(const TextQuery& query) const {
  if (!query.clauses.empty()) {
    std::vector<std::unique_ptr<FlatScorer>> children;
    for (const TextClause& c : query.clauses) {
      ASSIGN_OR_RETURN(std::unique_ptr<FlatScorer> child, MakeFlatScorer(c.query));
      children.push_back(std::move(child));
    }
    return std::unique_ptr<FlatScorer>(new BooleanFlatScorer(query.clauses, std::move(children), query.boost));
  }
  ASSIGN_OR_RETURN(std::vector<QueryToken> tokens, Tokens(query));
  std::vector<uint64_t> docs_with;
  for (const QueryToken& t : tokens) {
    ASSIGN_OR_RETURN(uint64_t n, DocsContaining(t.text));
    docs_with.push_back(n);
  }
  return std::unique_ptr<FlatScorer>(
      new FlatScorerImpl(tokenizer_, std::move(tokens), std::move(docs_with), num_docs_, total_tokens_, query));
}

// Scores without an index: every document is a flat one, so the statistics are exactly
// those an index over the same rows would hold.
Result<std::unique_ptr<TextIndex::FlatScorer>> MakeIndexFreeScorer(const TextQuery& query,
                                                                   const fts::IndexParams& params) {
  if (!query.clauses.empty()) {
    std::vector<std::unique_ptr<TextIndex::FlatScorer>> children;
    for (const TextClause& c : query.clauses) {
      ASSIGN_OR_RETURN(std::unique_ptr<TextIndex::FlatScorer> child, MakeIndexFreeScorer(c.query, params));
      children.push_back(std::move(child));
    }
    return std::unique_ptr<TextIndex::FlatScorer>(
        new BooleanFlatScorer(query.clauses, std::move(children), query.boost));
  }
  if (query.fuzzy) return Status::InvalidArgument("a fuzzy query needs a full-text index (its terms to expand to)");
  ASSIGN_OR_RETURN(std::unique_ptr<fts::Tokenizer> tokenizer, fts::Tokenizer::Make(params.tokenizer));
  std::vector<QueryToken> tokens = QueryTokens(query, *tokenizer);
  std::vector<uint64_t> docs_with(tokens.size(), 0);
  return std::unique_ptr<TextIndex::FlatScorer>(
      new FlatScorerImpl(std::move(tokenizer), std::move(tokens), std::move(docs_with), 0, 0, query));
}

}  // namespace

Result<std::unique_ptr<TextIndex::FlatScorer>> MakeFlatTextScorer(const TextQuery& query,
                                                                  const std::map<std::string, std::string>& params) {
  ASSIGN_OR_RETURN(fts::IndexParams parsed, fts::ParamsFromOptions(params));
  return MakeIndexFreeScorer(query, parsed);
}

Result<std::shared_ptr<const TextIndex>> TextIndex::Open(const table::Dataset& dataset,
                                                         const table::IndexMetadata& index) {
  if (!IsTextIndex(index)) return Status::NotSupported("index '" + index.name + "' is not a full-text index");
  ASSIGN_OR_RETURN(const std::string dir, dataset.IndexDirectory(index));
  const io::ObjectStore& store = *dataset.store();
  ASSIGN_OR_RETURN(TextMetadata meta, ReadTextMetadata(store, dir));
  std::vector<std::unique_ptr<TextPartition>> parts;
  for (uint32_t id : meta.partitions) {
    ASSIGN_OR_RETURN(auto part, ReadTextPartition(store, dir, id, meta.params.with_position));
    parts.push_back(std::move(part));
  }
  // Settings Lancet cannot tokenize with are refused now, not at the first query.
  ASSIGN_OR_RETURN(std::unique_ptr<fts::Tokenizer> tokenizer, fts::Tokenizer::Make(meta.params.tokenizer));
  ASSIGN_OR_RETURN(std::unique_ptr<fts::Tokenizer> fuzzy,
                   fts::Tokenizer::Make(FuzzyTokenizerParams(meta.params.tokenizer)));
  return std::shared_ptr<const TextIndex>(
      new TextIndexImpl(std::move(meta.params), std::move(parts), std::move(tokenizer), std::move(fuzzy)));
}

}  // namespace lancet::index
