// Full-text search equals a brute-force BM25 model over the same tokens: OR and AND
// matches, phrases, filters, deletions, fragments the index does not cover, several
// partitions, hybrid fusion, and damaged index files.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "index/fts_posting.h"
#include "index/fts_tokenizer.h"
#include "lancet/index/text_index.h"
#include "lancet/scan/text_search.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::scan {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRows = 3000;
const std::vector<std::string> kWords = {"apple", "banana", "cherry", "running", "runs",  "quick",    "brown",
                                         "fox",   "jumps",  "lazy",   "dogs",    "river", "mountain", "cloud",
                                         "rain",  "sunny",  "winter", "summer",  "house", "garden",   "the",
                                         "of",    "and",    "light",  "dark",    "stone", "water",    "fire"};

std::string Doc(int64_t r) {
  if (r % 101 == 7) return "";        // no tokens: not a document
  if (r % 101 == 8) return "the of";  // only stop words
  std::mt19937 rng(static_cast<uint32_t>(r * 7919 + 13));
  const int n = 2 + static_cast<int>(rng() % 12);
  std::string s;
  for (int i = 0; i < n; ++i) {
    // Skewed: low word numbers are common.
    const size_t w = std::min<size_t>(kWords.size() - 1, (rng() % kWords.size()) * (rng() % 3) / 2);
    s += (i ? " " : "") + kWords[w];
  }
  return s;
}

RecordBatch Batch(int64_t begin, int64_t n) {
  std::vector<int32_t> id, cat;
  std::vector<std::optional<std::string>> text;
  std::vector<float> vec;
  for (int64_t r = begin; r < begin + n; ++r) {
    vec.push_back(static_cast<float>(r % 17));
    vec.push_back(static_cast<float>(r % 13));
    id.push_back(static_cast<int32_t>(r));
    cat.push_back(static_cast<int32_t>(r % 5));
    if (r % 211 == 5) {
      text.emplace_back(std::nullopt);
    } else {
      text.emplace_back(Doc(r));
    }
  }
  RecordBatch b;
  b.schema.fields = {MakeField("id", MakeType(TypeId::kInt32)), MakeField("cat", MakeType(TypeId::kInt32)),
                     MakeField("text", MakeType(TypeId::kUtf8)),
                     MakeField("vec", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 2))};
  b.num_rows = n;
  b.columns.push_back(ArrayFromVector(MakeType(TypeId::kInt32), id).MoveValue());
  b.columns.push_back(ArrayFromVector(MakeType(TypeId::kInt32), cat).MoveValue());
  b.columns.push_back(MakeBinaryArray(MakeType(TypeId::kUtf8), text).MoveValue());
  auto values = ArrayFromVector(MakeType(TypeId::kFloat32), vec).MoveValue();
  b.columns.push_back(MakeFixedSizeListArray(b.schema.fields[3].type, n, values).MoveValue());
  return b;
}

struct Hit {
  int32_t id;
  float score;
};

// BM25 the way the reference computes it, over the docs `stats` admits (the index's
// view), scoring the docs `scored` admits.
class Model {
 public:
  explicit Model(bool positions = false) {
    index::fts::TokenizerParams p;
    tokenizer_ = index::fts::Tokenizer::Make(p).MoveValue();
    (void)positions;
  }
  std::vector<index::fts::Token> Tokens(const std::string& s) const {
    std::vector<index::fts::Token> t;
    tokenizer_->Tokenize(s, &t);
    return t;
  }
  // rows [0, rows) are documents unless null/empty; `in_stats(r)` selects which count.
  std::vector<Hit> Search(const std::string& query, int64_t rows, const std::function<bool(int64_t)>& in_stats,
                          const std::function<bool(int64_t)>& scored, size_t k, bool all_terms = false,
                          bool phrase = false) const {
    std::vector<index::fts::Token> q = Tokens(query);
    uint64_t num_docs = 0, total = 0;
    std::map<std::string, uint64_t> df;
    std::vector<std::vector<index::fts::Token>> docs(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      if (r % 211 == 5) continue;
      docs[static_cast<size_t>(r)] = Tokens(Doc(r));
      const auto& d = docs[static_cast<size_t>(r)];
      if (d.empty() || !in_stats(r)) continue;
      ++num_docs;
      total += d.size();
      std::set<std::string> seen;
      for (const auto& t : d) seen.insert(t.text);
      for (const auto& t : seen) ++df[t];
    }
    index::fts::Bm25 bm25;
    bm25.num_docs = num_docs;
    bm25.avg_doc_length = static_cast<float>(total) / static_cast<float>(num_docs);
    std::vector<std::pair<float, int64_t>> all;
    for (int64_t r = 0; r < rows; ++r) {
      const auto& d = docs[static_cast<size_t>(r)];
      if (d.empty() || !scored(r)) continue;
      float score = 0;
      size_t matched = 0;
      for (const auto& t : q) {
        uint32_t f = 0;
        for (const auto& x : d) f += x.text == t.text;
        if (f == 0) continue;
        ++matched;
        score += index::fts::Bm25::Idf(df[t.text], num_docs) * bm25.DocWeight(f, static_cast<uint32_t>(d.size()));
      }
      if (matched == 0 || ((all_terms || phrase) && matched != q.size())) continue;
      if (phrase) {
        bool found = false;
        for (size_t s = 0; s < d.size() && !found; ++s) {
          bool ok = true;
          for (size_t j = 0; j < q.size() && ok; ++j) {
            ok = false;
            for (const auto& x : d)
              ok = ok || (x.text == q[j].text && x.position == d[s].position + (q[j].position - q[0].position));
          }
          found = ok && d[s].text == q[0].text;
        }
        if (!found) continue;
      }
      all.emplace_back(score, r);
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::vector<Hit> out;
    for (size_t i = 0; i < std::min(k, all.size()); ++i)
      out.push_back({static_cast<int32_t>(all[i].second), all[i].first});
    return out;
  }

 private:
  std::unique_ptr<index::fts::Tokenizer> tokenizer_;
};

class TextSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lancet_text_search_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    table::WriteParams p;
    p.max_rows_per_file = 1100;
    std::vector<RecordBatch> batches;
    for (int64_t b = 0; b < kRows; b += 500) batches.push_back(Batch(b, 500));
    const Schema schema = batches[0].schema;
    ASSERT_TRUE(table::WriteDataset(dir_.string(), schema, std::move(batches), p).ok());
    Reopen();
  }
  void TearDown() override {
    ClearTextIndexCache();
    fs::remove_all(dir_);
  }
  void Reopen() { ds_ = table::Dataset::Open(dir_.string()).MoveValue(); }
  void Index(std::map<std::string, std::string> params = {}, uint64_t budget = 512ULL << 20) {
    index::CreateTextIndexOptions o;
    o.params = std::move(params);
    o.memory_budget = budget;
    auto made = index::CreateTextIndex(*ds_, "text", o);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    Reopen();
  }

  Result<std::vector<Hit>> Run(const std::string& text, size_t k, const std::string& filter = "",
                               bool all_terms = false, bool phrase = false) {
    table::ScanOptions o;
    o.columns = {"id"};
    o.filter = filter;
    TextSearchRequest r;
    r.query.text = text;
    r.query.op = all_terms ? index::TextOperator::kAnd : index::TextOperator::kOr;
    r.query.phrase = phrase;
    r.k = static_cast<uint32_t>(k);
    ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, TextSearch(*ds_, o, r));
    std::vector<Hit> out;
    for (;;) {
      ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader->Next());
      if (!b) break;
      EXPECT_EQ(b->schema.fields.back().name, "_score");
      for (int64_t i = 0; i < b->num_rows; ++i) {
        out.push_back({b->columns[0].values<int32_t>()[i], b->columns[1].values<float>()[i]});
      }
    }
    return out;
  }

  static void ExpectSame(const std::vector<Hit>& got, const std::vector<Hit>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i].score, want[i].score, 1e-5 * std::abs(want[i].score)) << what << " rank " << i;
      // Ties may order differently only if the scores really are equal.
      if (got[i].id != want[i].id) {
        EXPECT_FLOAT_EQ(got[i].score, want[i].score) << what << " rank " << i;
      }
    }
  }

  fs::path dir_;
  std::unique_ptr<table::Dataset> ds_;
  Model model_;
};

const auto kAll = [](int64_t) { return true; };

// Without an index a flat scan scores every row with statistics over them all: the
// ground truth an index must reproduce.
TEST_F(TextSearchTest, WithoutAnIndexAFlatScanGivesTheScoresOfAnIndex) {
  struct Case {
    std::string text;
    std::string filter;
    bool all_terms;
    bool phrase;
  };
  const std::vector<Case> cases = {{"apple", "", false, false},
                                   {"cherry banana dogs", "", false, false},
                                   {"apple banana", "", true, false},
                                   {"quick brown", "", false, true},
                                   {"apple cherry", "cat = 2", false, false}};
  std::vector<std::vector<Hit>> flat;
  for (const Case& c : cases) {
    auto got = Run(c.text, 40, c.filter, c.all_terms, c.phrase);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_FALSE(got->empty()) << c.text;
    flat.push_back(*got);
  }
  ExpectSame(flat[0], model_.Search("apple", kRows, kAll, kAll, 40), "flat apple");
  Index({{"with_position", "true"}});
  for (size_t i = 0; i < cases.size(); ++i) {
    auto indexed = Run(cases[i].text, 40, cases[i].filter, cases[i].all_terms, cases[i].phrase);
    ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
    ExpectSame(flat[i], *indexed, "flat vs index: " + cases[i].text + " " + cases[i].filter);
  }
}

TEST_F(TextSearchTest, MatchesEqualBruteForceBm25) {
  Index();
  for (const std::string q : {"apple", "cherry banana", "Running RUNS", "the apple of the river", "zebra",
                              "fire fire water", "quick, brown... fox!"}) {
    for (size_t k : {1, 10, 100}) {
      auto got = Run(q, k);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectSame(*got, model_.Search(q, kRows, kAll, kAll, k), q + " k=" + std::to_string(k));
    }
  }
  auto none = Run("the of", 10);  // stop words only: no tokens, no rows
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(TextSearchTest, AndNeedsEveryToken) {
  Index();
  for (const std::string q : {"apple banana", "cherry river stone", "apple zebra"}) {
    auto got = Run(q, 20, "", true);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectSame(*got, model_.Search(q, kRows, kAll, kAll, 20, true), q);
  }
}

// A boost of zero scores nothing; it must not leave per-thread state that changes the
// next query's answer.
TEST_F(TextSearchTest, AZeroBoostLeavesTheNextQueryAlone) {
  Index();
  table::ScanOptions o;
  o.columns = {"id"};
  TextSearchRequest r;
  r.query.text = "apple banana";
  r.query.op = index::TextOperator::kAnd;
  r.query.boost = 0.0f;
  auto zero = TextSearch(*ds_, o, r);
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  auto got = Run("apple banana", 20, "", true);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got, model_.Search("apple banana", kRows, kAll, kAll, 20, true), "after a zero boost");
}

TEST_F(TextSearchTest, SeveralPartitionsScoreWithIndexWideStatistics) {
  Index({}, 16 << 10);  // a tiny budget: many partitions
  for (const std::string q : {"apple", "cherry banana dogs", "light dark"}) {
    auto got = Run(q, 25);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectSame(*got, model_.Search(q, kRows, kAll, kAll, 25), q);
  }
}

TEST_F(TextSearchTest, PhrasesNeedPositions) {
  Index();
  auto refused = Run("quick brown", 10, "", false, true);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("position"), std::string::npos);
  Index({{"with_position", "true"}});
  for (const std::string q : {"apple banana", "\"brown fox\"", "river the mountain"}) {
    auto got = Run(q, 30, "", false, true);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectSame(*got, model_.Search(q, kRows, kAll, kAll, 30, false, true), q);
  }
}

TEST_F(TextSearchTest, FiltersSelectRowsButNotStatistics) {
  Index();
  auto got = Run("apple cherry", 15, "cat = 2");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got,
             model_.Search(
                 "apple cherry", kRows, kAll, [](int64_t r) { return r % 5 == 2; }, 15),
             "filter");
}

TEST_F(TextSearchTest, DeletedRowsNeverAppear) {
  Index();
  ASSERT_TRUE(table::DeleteWhere(*ds_, "id % 3 = 0").ok());
  Reopen();
  auto got = Run("apple banana", 40);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSame(*got,
             model_.Search(
                 "apple banana", kRows, kAll, [](int64_t r) { return r % 3 != 0; }, 40),
             "deleted");
}

TEST_F(TextSearchTest, UnindexedFragmentsAreScoredWithTheirOwnDocsCounted) {
  Index();
  table::WriteParams p;
  p.mode = table::WriteMode::kAppend;
  std::vector<RecordBatch> more{Batch(kRows, 400)};
  const Schema schema = more[0].schema;
  ASSERT_TRUE(table::WriteDataset(dir_.string(), schema, std::move(more), p).ok());
  Reopen();
  const int64_t total = kRows + 400;
  // Indexed rows keep the index's statistics; appended rows use the index's and theirs.
  auto got = Run("cherry mountain", 3000);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto indexed = model_.Search(
      "cherry mountain", total, [](int64_t r) { return r < kRows; }, [](int64_t r) { return r < kRows; }, 3000);
  auto flat = model_.Search(
      "cherry mountain", total, kAll, [](int64_t r) { return r >= kRows; }, 3000);
  std::map<int32_t, float> want;
  for (const Hit& h : indexed) want[h.id] = h.score;
  for (const Hit& h : flat) want[h.id] = h.score;
  ASSERT_EQ(got->size(), want.size());
  for (const Hit& h : *got) {
    ASSERT_TRUE(want.count(h.id)) << h.id;
    EXPECT_NEAR(h.score, want[h.id], 1e-5 * want[h.id]) << h.id;
  }
}

// Reads (id, score column) pairs of a search's output.
std::vector<Hit> Collect(RecordBatchReader& reader, const std::string& score) {
  std::vector<Hit> out;
  for (;;) {
    auto b = reader.Next();
    EXPECT_TRUE(b.ok());
    if (!b.ok() || !*b) break;
    const int id = (*b)->schema.FieldIndex("id");
    const int sc = (*b)->schema.FieldIndex(score);
    for (int64_t i = 0; i < (*b)->num_rows; ++i) {
      out.push_back({(*b)->columns[static_cast<size_t>(id)].values<int32_t>()[i],
                     (*b)->columns[static_cast<size_t>(sc)].values<float>()[i]});
    }
  }
  return out;
}

TEST_F(TextSearchTest, HybridRrfFusesTheRanksOfBothSides) {
  Index();
  table::ScanOptions o;
  o.columns = {"id"};
  o.filter = "cat != 1";
  VectorQuery v;
  v.vectors = {{3.0f, 4.0f}};
  v.k = 20;
  TextSearchRequest t;
  t.query.text = "apple cherry";
  t.k = 20;
  auto vec = Search(*ds_, o, v);
  ASSERT_TRUE(vec.ok()) << vec.status().ToString();
  auto text = TextSearch(*ds_, o, t);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const std::vector<Hit> vh = Collect(**vec, "_distance");
  const std::vector<Hit> th = Collect(**text, "_score");
  std::map<int32_t, float> fused;
  std::vector<int32_t> order;
  for (size_t i = 0; i < vh.size(); ++i) {
    if (!fused.count(vh[i].id)) order.push_back(vh[i].id);
    fused[vh[i].id] += 1.0f / (static_cast<float>(i) + 60.0f);
  }
  for (size_t i = 0; i < th.size(); ++i) {
    if (!fused.count(th[i].id)) order.push_back(th[i].id);
    fused[th[i].id] += 1.0f / (static_cast<float>(i) + 60.0f);
  }
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return fused[a] > fused[b]; });
  order.resize(20);
  auto hybrid = HybridSearch(*ds_, o, v, t);
  ASSERT_TRUE(hybrid.ok()) << hybrid.status().ToString();
  const std::vector<Hit> got = Collect(**hybrid, "_relevance_score");
  ASSERT_EQ(got.size(), order.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, order[i]) << i;
    EXPECT_FLOAT_EQ(got[i].score, fused[order[i]]) << i;
    EXPECT_NE(got[i].id % 5, 1);  // the filter applies to both sides
  }
}

TEST_F(TextSearchTest, DamagedIndexFilesGiveErrorsNamingThem) {
  Index();
  fs::path dir;
  for (const auto& e : fs::recursive_directory_iterator(dir_ / "_indices")) {
    if (e.path().filename() == "part_0_invert.lance") dir = e.path();
  }
  ASSERT_FALSE(dir.empty());
  const auto size = fs::file_size(dir);
  for (uint64_t cut : {size / 2, size - 3}) {
    fs::resize_file(dir, cut);
    ClearTextIndexCache();
    auto r = Run("apple", 10);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().ToString().find("part_0_invert.lance"), std::string::npos) << r.status().ToString();
  }
}

}  // namespace
}  // namespace lancet::scan
