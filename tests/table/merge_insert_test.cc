// MergeInsert's join against a naive model of the reference's semantics: every clause
// combination, conditions, null and duplicate keys, multi-column and string keys,
// partial-schema sources, and a source spilled to partitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "lancet/record_batch_reader.h"
#include "lancet/table/dataset.h"
#include "lancet/table/merge_insert.h"
#include "lancet/table/write.h"
#include "table/merge_join.h"
#include "table/merge_spill.h"
#include "table/row_rewrite.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

using OptI = std::optional<int64_t>;
using OptS = std::optional<std::string>;
using OptD = std::optional<double>;

// One row of the test tables: key k (int64), tag (utf8), x (float64).
struct Row {
  OptI k;
  OptS tag;
  OptD x;
  auto operator<=>(const Row&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Row& r) {
  os << "{" << (r.k ? std::to_string(*r.k) : "null") << "," << r.tag.value_or("null") << ","
     << (r.x ? std::to_string(*r.x) : "null") << "}";
  return os;
}

Schema RowSchema(bool with_tag = true) {
  Schema s;
  s.fields.push_back(MakeField("k", MakeType(TypeId::kInt64)));
  if (with_tag) s.fields.push_back(MakeField("tag", MakeType(TypeId::kUtf8)));
  s.fields.push_back(MakeField("x", MakeType(TypeId::kFloat64)));
  return s;
}

RecordBatch RowsBatch(const std::vector<Row>& rows, bool with_tag = true) {
  std::vector<int64_t> ks;
  std::vector<bool> kv, xv;
  std::vector<double> xs;
  std::vector<OptS> tags;
  for (const Row& r : rows) {
    ks.push_back(r.k.value_or(0));
    kv.push_back(r.k.has_value());
    xs.push_back(r.x.value_or(0));
    xv.push_back(r.x.has_value());
    tags.push_back(r.tag);
  }
  RecordBatch b{RowSchema(with_tag), static_cast<int64_t>(rows.size()), {}};
  b.columns.push_back(*ArrayFromVector(MakeType(TypeId::kInt64), ks, kv));
  if (with_tag) b.columns.push_back(StringArray(tags));
  b.columns.push_back(*ArrayFromVector(MakeType(TypeId::kFloat64), xs, xv));
  return b;
}

Row RowAt(const RecordBatch& b, int64_t i) {
  Row r;
  const Array& k = b.columns[b.schema.FieldIndex("k")];
  if (k.IsValid(i)) r.k = k.values<int64_t>()[i];
  int t = b.schema.FieldIndex("tag");
  if (t >= 0 && b.columns[t].IsValid(i)) r.tag = std::string(b.columns[t].GetView(i));
  const Array& x = b.columns[b.schema.FieldIndex("x")];
  if (x.IsValid(i)) r.x = x.values<double>()[i];
  return r;
}

std::vector<Row> Sorted(std::vector<Row> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

using MatchedCond = std::function<bool(const Row& target, const Row& source)>;
using TargetCond = std::function<bool(const Row& target)>;

// The reference's semantics, row by row (lineage-notes §3, observed on the peer).
std::optional<std::vector<Row>> ModelMerge(const std::vector<Row>& target, const std::vector<Row>& source,
                                           const MergeInsertOptions& o, bool source_has_tag,
                                           const MatchedCond& cond = {}, const TargetCond& del_cond = {}) {
  std::vector<Row> out;
  std::vector<bool> source_matched(source.size(), false);
  for (const Row& t : target) {
    std::vector<size_t> hits;
    for (size_t s = 0; s < source.size(); ++s) {
      if (t.k && source[s].k == t.k) hits.push_back(s);
    }
    for (size_t s : hits) source_matched[s] = true;
    if (hits.empty()) {
      bool drop = o.when_not_matched_by_source == WhenNotMatchedBySource::kDelete && (!del_cond || del_cond(t));
      if (!drop) out.push_back(t);
      continue;
    }
    if (o.when_matched == WhenMatched::kDoNothing) {
      out.push_back(t);
      continue;
    }
    if (hits.size() > 1) return std::nullopt;  // ambiguous
    const Row& s = source[hits[0]];
    if (cond && !cond(t, s)) {
      out.push_back(t);
      continue;
    }
    Row u = t;
    auto copies = [&](const std::string& c) {
      return o.when_matched == WhenMatched::kUpdateAll ||
             std::find(o.update_columns.begin(), o.update_columns.end(), c) != o.update_columns.end();
    };
    if (copies("tag") && source_has_tag) u.tag = s.tag;
    if (copies("x")) u.x = s.x;
    out.push_back(u);
  }
  if (o.when_not_matched == WhenNotMatched::kInsert) {
    for (size_t s = 0; s < source.size(); ++s) {
      if (source_matched[s]) continue;
      Row r = source[s];
      if (!source_has_tag) r.tag.reset();
      out.push_back(r);
    }
  }
  return Sorted(out);
}

// Applies the sink's calls to the target's rows, checking that each address is
// replaced or removed at most once.
class ModelSink : public MergeSink {
 public:
  explicit ModelSink(std::map<uint64_t, Row> rows) : rows_(std::move(rows)) {}
  Status Add(const RecordBatch& rows, std::span<const uint64_t> replaces) override {
    if (static_cast<int64_t>(replaces.size()) != rows.num_rows) return Status::Internal("length mismatch");
    for (int64_t i = 0; i < rows.num_rows; ++i) {
      if (replaces[i] != kInsertedRow && rows_.erase(replaces[i]) != 1) {
        return Status::Internal("address replaced twice or unknown: " + std::to_string(replaces[i]));
      }
      added_.push_back(RowAt(rows, i));
      if (replaces[i] == kInsertedRow) inserted_keys_.push_back(added_.back().k);
    }
    return Status::OK();
  }
  Status Remove(std::span<const uint64_t> addresses) override {
    for (uint64_t a : addresses) {
      if (rows_.erase(a) != 1) return Status::Internal("address removed twice or unknown: " + std::to_string(a));
    }
    return Status::OK();
  }
  const std::vector<OptI>& inserted_keys() const { return inserted_keys_; }
  std::vector<Row> Result() const {
    std::vector<Row> out = added_;
    for (const auto& [a, r] : rows_) out.push_back(r);
    return Sorted(out);
  }

 private:
  std::map<uint64_t, Row> rows_;
  std::vector<Row> added_;
  std::vector<OptI> inserted_keys_;
};

class MergeJoinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("lancet_merge_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Dataset> MakeTarget(const std::vector<Row>& rows, uint64_t rows_per_file = 7) {
    WriteParams p;
    p.max_rows_per_file = rows_per_file;
    auto v = WriteDataset(dir_.string(), RowSchema(), {RowsBatch(rows)}, p);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    auto ds = Dataset::Open(dir_.string());
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return std::move(ds).value();
  }

  // The join's result applied to the target's rows, or the join's error.
  Result<std::vector<Row>> Join(const Dataset& ds, const std::vector<RecordBatch>& source, const MergeInsertOptions& o,
                                uint64_t* spilled = nullptr, std::vector<OptI>* inserted_keys = nullptr) {
    ScanOptions scan;
    scan.with_row_addr = true;
    ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, ds.Scan(scan));
    std::map<uint64_t, Row> rows;
    for (const RecordBatch& b : batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) rows[b.columns.back().values<uint64_t>()[i]] = RowAt(b, i);
    }
    auto reader = MakeBatchVectorReader(source.at(0).schema, source);
    ASSIGN_OR_RETURN(MergeKeys keys, MergeKeys::Make(reader->schema(), o.on, "source"));
    ASSIGN_OR_RETURN(std::unique_ptr<MergeSource> src,
                     MergeSource::Ingest(*reader, keys, o.memory_budget_bytes, o.spill_partitions, o.spill_dir));
    if (spilled) *spilled = src->spilled_bytes();
    ModelSink sink(std::move(rows));
    RETURN_IF_ERROR(RunMergeJoin(ds, *src, o, sink).status());
    if (inserted_keys) *inserted_keys = sink.inserted_keys();
    return sink.Result();
  }

  std::filesystem::path dir_;
};

std::vector<Row> TargetRows() {
  std::vector<Row> rows;
  for (int64_t i = 0; i < 20; ++i) {
    rows.push_back({i, i % 7 == 0 ? OptS() : OptS("t" + std::to_string(i)), static_cast<double>(i)});
  }
  rows.push_back({std::nullopt, OptS("t-null"), 100.0});  // a null key matches nothing
  return rows;
}

std::vector<Row> SourceRows() {
  return {{3, "s3", 1.0},    {5, std::nullopt, 50.0},       {19, "s19", 190.0},        {25, "s25a", 2.0},
          {25, "s25b", 3.0}, {std::nullopt, "s-null", 4.0}, {40, "s40", std::nullopt}, {11, "s11", 11.0}};
}

TEST_F(MergeJoinTest, EveryClauseCombinationMatchesTheModel) {
  auto ds = MakeTarget(TargetRows());
  ASSERT_TRUE(ds);
  struct Cond {
    std::string text;
    MatchedCond f;
  };
  const std::vector<Cond> matched_conds = {
      {"", {}},
      {"source.x > target.x", [](const Row& t, const Row& s) { return s.x && t.x && *s.x > *t.x; }},
  };
  struct DelCond {
    std::string text;
    TargetCond f;
  };
  const std::vector<DelCond> del_conds = {{"", {}}, {"x < 5", [](const Row& t) { return t.x && *t.x < 5; }}};
  int checked = 0;
  for (WhenMatched wm : {WhenMatched::kUpdateAll, WhenMatched::kUpdateColumns, WhenMatched::kDoNothing}) {
    for (WhenNotMatched wn : {WhenNotMatched::kInsert, WhenNotMatched::kSkip}) {
      for (WhenNotMatchedBySource wb : {WhenNotMatchedBySource::kKeep, WhenNotMatchedBySource::kDelete}) {
        for (const Cond& mc : matched_conds) {
          for (const DelCond& dc : del_conds) {
            MergeInsertOptions o;
            o.on = {"k"};
            o.when_matched = wm;
            o.update_columns = {"x"};
            o.when_not_matched = wn;
            o.when_not_matched_by_source = wb;
            o.when_matched_condition = mc.text;
            o.by_source_condition = dc.text;
            std::string what = "matched " + std::to_string(int(wm)) + " not " + std::to_string(int(wn)) +
                               " by-source " + std::to_string(int(wb)) + " [" + mc.text + "] [" + dc.text + "]";
            auto want = ModelMerge(TargetRows(), SourceRows(), o, true, mc.f, dc.f);
            ASSERT_TRUE(want) << what;
            ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Join(*ds, {RowsBatch(SourceRows())}, o));
            EXPECT_EQ(got, *want) << what;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 48);
}

TEST_F(MergeJoinTest, SpilledSourceGivesTheSameRows) {
  std::vector<Row> target, source;
  for (int64_t i = 0; i < 4000; ++i) target.push_back({i, "t" + std::to_string(i), double(i)});
  std::vector<RecordBatch> batches;
  for (int64_t b = 0; b < 5; ++b) {
    std::vector<Row> part;
    for (int64_t i = 2000 + b * 1000; i < 3000 + b * 1000; ++i)
      part.push_back({i, "s" + std::to_string(i), -double(i)});
    source.insert(source.end(), part.begin(), part.end());
    batches.push_back(RowsBatch(part));
  }
  auto ds = MakeTarget(target, 1000);
  ASSERT_TRUE(ds);
  MergeInsertOptions o;
  o.on = {"k"};
  o.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
  o.by_source_condition = "k % 2 = 0";
  o.memory_budget_bytes = 20000;  // about one batch
  o.spill_partitions = 8;
  o.spill_dir = dir_.string() + "-spill";
  std::filesystem::create_directories(o.spill_dir);
  uint64_t spilled = 0;
  std::vector<OptI> inserted;
  ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Join(*ds, batches, o, &spilled, &inserted));
  EXPECT_GT(spilled, 0u);
  // New rows come out in source order (the reference numbers their row ids so).
  std::vector<OptI> want_inserted;
  for (int64_t k = 4000; k < 7000; ++k) want_inserted.push_back(k);
  EXPECT_EQ(inserted, want_inserted);
  auto want = ModelMerge(target, source, o, true, {}, [](const Row& t) { return *t.k % 2 == 0; });
  ASSERT_TRUE(want);
  EXPECT_EQ(got, *want);
  // The spill directory is gone once the source is.
  EXPECT_TRUE(std::filesystem::is_empty(o.spill_dir));
  std::filesystem::remove_all(o.spill_dir);

  o.memory_budget_bytes = 1ull << 30;
  ASSERT_OK_AND_ASSIGN(std::vector<Row> in_memory, Join(*ds, batches, o, &spilled));
  EXPECT_EQ(spilled, 0u);
  EXPECT_EQ(in_memory, got);
}

TEST_F(MergeJoinTest, PartialSchemaSourceKeepsOldValuesAndInsertsNulls) {
  auto ds = MakeTarget(TargetRows());
  ASSERT_TRUE(ds);
  MergeInsertOptions o;
  o.on = {"k"};
  ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Join(*ds, {RowsBatch(SourceRows(), false)}, o));
  // Duplicate keys 25 match nothing, so both are inserted.
  auto want = ModelMerge(TargetRows(), SourceRows(), o, false);
  ASSERT_TRUE(want);
  EXPECT_EQ(got, *want);
  auto t3 = std::find_if(got.begin(), got.end(), [](const Row& r) { return r.k == 3; });
  ASSERT_NE(t3, got.end());
  EXPECT_EQ(t3->tag, OptS("t3"));
  EXPECT_EQ(t3->x, OptD(1.0));
}

// A source read in several batches is joined without gathering them: matched and
// inserted rows go out in source order as views of the batches, or as takes where
// unmatched rows are skipped; a target key held twice has both rows updated.
TEST_F(MergeJoinTest, SourceInSeveralBatchesAndRepeatedTargetKeys) {
  std::vector<Row> target = TargetRows();
  target.push_back({7, "t7b", 70.0});
  target.push_back({3, std::nullopt, 30.0});
  auto ds = MakeTarget(target);
  ASSERT_TRUE(ds);
  std::vector<Row> source = SourceRows();
  source.push_back({7, "s7", 7.5});
  source.push_back({30, "s30", 30.5});
  source.push_back({std::nullopt, std::nullopt, 8.0});
  source.push_back({2, "s2", 2.5});
  int checked = 0;
  for (bool with_tag : {true, false}) {
    // 3, 1, 4 and 4 rows: keys 25 (twice, unmatched) straddle the first cut.
    std::vector<RecordBatch> batches;
    for (auto [b, e] : {std::pair{0, 3}, {3, 4}, {4, 8}, {8, 12}}) {
      batches.push_back(RowsBatch({source.begin() + b, source.begin() + e}, with_tag));
    }
    for (WhenMatched wm : {WhenMatched::kUpdateAll, WhenMatched::kDoNothing}) {
      for (WhenNotMatched wn : {WhenNotMatched::kInsert, WhenNotMatched::kSkip}) {
        for (WhenNotMatchedBySource wb : {WhenNotMatchedBySource::kKeep, WhenNotMatchedBySource::kDelete}) {
          MergeInsertOptions o;
          o.on = {"k"};
          o.when_matched = wm;
          o.when_not_matched = wn;
          o.when_not_matched_by_source = wb;
          const std::string what = "tag " + std::to_string(with_tag) + " matched " + std::to_string(int(wm)) + " not " +
                                   std::to_string(int(wn)) + " by-source " + std::to_string(int(wb));
          auto want = ModelMerge(target, source, o, with_tag);
          ASSERT_TRUE(want) << what;
          std::vector<OptI> inserted;
          ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Join(*ds, batches, o, nullptr, &inserted));
          EXPECT_EQ(got, *want) << what;
          // Inserted rows keep their source order (the reference numbers them so).
          std::vector<OptI> want_inserted;
          if (wn == WhenNotMatched::kInsert) want_inserted = {25, 25, std::nullopt, 40, 30, std::nullopt};
          EXPECT_EQ(inserted, want_inserted) << what;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 16);
  // Both target rows of key 7 took the source's values.
  MergeInsertOptions o;
  o.on = {"k"};
  std::vector<RecordBatch> batches = {RowsBatch({source.begin(), source.begin() + 9}),
                                      RowsBatch({source.begin() + 9, source.end()})};
  ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Join(*ds, batches, o));
  EXPECT_EQ(std::count(got.begin(), got.end(), Row{7, "s7", 7.5}), 2);
  EXPECT_EQ(std::count(got.begin(), got.end(), Row{3, "s3", 1.0}), 2);
}

TEST_F(MergeJoinTest, AmbiguityInALaterSourceBatchNamesItsKey) {
  auto ds = MakeTarget(TargetRows());
  ASSERT_TRUE(ds);
  MergeInsertOptions o;
  o.on = {"k"};
  auto r = Join(*ds, {RowsBatch({{1, "a", 1.0}, {4, "b", 2.0}}), RowsBatch({{9, "c", 3.0}, {4, "d", 4.0}})}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("(k = 4)"), std::string::npos) << r.status().message();
}

TEST_F(MergeJoinTest, TwoSourceRowsOnOneTargetRowIsTheReferencesError) {
  auto ds = MakeTarget(TargetRows());
  ASSERT_TRUE(ds);
  std::vector<Row> source = {{3, "a", 1.0}, {4, "b", 2.0}, {3, "c", 3.0}};
  MergeInsertOptions o;
  o.on = {"k"};
  auto r = Join(*ds, {RowsBatch(source)}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("Ambiguous merge inserts are prohibited"), std::string::npos);
  EXPECT_NE(r.status().message().find("(k = 3)"), std::string::npos) << r.status().message();
  // Without updates the duplicates are no ambiguity (the reference agrees).
  o.when_matched = WhenMatched::kDoNothing;
  ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Join(*ds, {RowsBatch(source)}, o));
  EXPECT_EQ(got, *ModelMerge(TargetRows(), source, o, true));
}

TEST_F(MergeJoinTest, BadSourcesAreRejectedBeforeAnyChange) {
  auto ds = MakeTarget(TargetRows());
  ASSERT_TRUE(ds);
  MergeInsertOptions o;
  o.on = {"k"};
  auto wrong_type =
      *MakeRecordBatch({"k", "x"}, {*ArrayFromVector(MakeType(TypeId::kInt32), std::vector<int32_t>{1}),
                                    *ArrayFromVector(MakeType(TypeId::kFloat64), std::vector<double>{1})});
  auto r = Join(*ds, {wrong_type}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'k' has type int32"), std::string::npos) << r.status().message();
  auto unknown = *MakeRecordBatch({"k", "zz"}, {*ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{1}),
                                                *ArrayFromVector(MakeType(TypeId::kFloat64), std::vector<double>{1})});
  r = Join(*ds, {unknown}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'zz' is not in the dataset"), std::string::npos) << r.status().message();
  o.on = {"tag", "nope"};
  r = Join(*ds, {RowsBatch(SourceRows())}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no key column 'nope'"), std::string::npos) << r.status().message();
  o.on = {"k"};
  o.when_matched_condition = "source.nope > 1";
  r = Join(*ds, {RowsBatch(SourceRows())}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
}

// Keys (tag, k2): a string and an int32 column; a null in either part matches nothing.
TEST_F(MergeJoinTest, MultiColumnStringKeys) {
  auto make = [](const std::vector<std::tuple<OptS, std::optional<int32_t>, double>>& rows) {
    std::vector<OptS> tags;
    std::vector<int32_t> k2;
    std::vector<bool> k2v;
    std::vector<double> xs;
    for (const auto& [t, k, x] : rows) {
      tags.push_back(t);
      k2.push_back(k.value_or(0));
      k2v.push_back(k.has_value());
      xs.push_back(x);
    }
    return *MakeRecordBatch({"tag", "k2", "x"}, {StringArray(tags), *ArrayFromVector(MakeType(TypeId::kInt32), k2, k2v),
                                                 *ArrayFromVector(MakeType(TypeId::kFloat64), xs)});
  };
  RecordBatch target = make({{"a", 1, 1}, {"a", 2, 2}, {"b", 1, 3}, {std::nullopt, 1, 4}, {"ab", 1, 5}});
  ASSERT_OK(WriteDataset(dir_.string(), target.schema, {target}).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir_.string()));
  RecordBatch source = make({{"a", 2, 20}, {"b", 1, 30}, {std::nullopt, 1, 40}, {"a", std::nullopt, 50}, {"a", 3, 60}});
  auto reader = MakeBatchVectorReader(source.schema, {source});
  MergeInsertOptions o;
  o.on = {"tag", "k2"};
  o.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
  ASSERT_OK_AND_ASSIGN(MergeKeys keys, MergeKeys::Make(source.schema, o.on, "source"));
  ASSERT_OK_AND_ASSIGN(auto src, MergeSource::Ingest(*reader, keys, 1 << 20, 0, ""));
  struct Recorder : MergeSink {
    std::vector<std::tuple<std::string, double, bool>> added;  // (tag|k2, x, replaced)
    size_t removed = 0;
    Status Add(const RecordBatch& rows, std::span<const uint64_t> replaces) override {
      for (int64_t i = 0; i < rows.num_rows; ++i) {
        std::string key = (rows.columns[0].IsValid(i) ? std::string(rows.columns[0].GetView(i)) : "null") + "|" +
                          (rows.columns[1].IsValid(i) ? std::to_string(rows.columns[1].values<int32_t>()[i]) : "null");
        added.emplace_back(key, rows.columns[2].values<double>()[i], replaces[i] != kInsertedRow);
      }
      return Status::OK();
    }
    Status Remove(std::span<const uint64_t> a) override {
      removed += a.size();
      return Status::OK();
    }
  } rec;
  ASSERT_OK_AND_ASSIGN(MergeCounts counts, RunMergeJoin(*ds, *src, o, rec));
  EXPECT_EQ(counts.updated, 2u);
  EXPECT_EQ(counts.inserted, 3u);
  EXPECT_EQ(counts.deleted, 3u);  // (a,1), (null,1), (ab,1)
  EXPECT_EQ(rec.removed, 3u);
  std::sort(rec.added.begin(), rec.added.end());
  std::vector<std::tuple<std::string, double, bool>> want = {
      {"a|2", 20, true}, {"a|3", 60, false}, {"a|null", 50, false}, {"b|1", 30, true}, {"null|1", 40, false}};
  EXPECT_EQ(rec.added, want);
}

// Through MergeInsert: committed rows, counts and versions.
class MergeInsertTest : public MergeJoinTest {
 protected:
  Result<std::vector<Row>> Committed(uint64_t version) {
    OpenOptions open;
    open.version = version;
    ASSIGN_OR_RETURN(auto ds, Dataset::Open(dir_.string(), open));
    ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, ds->Scan());
    std::vector<Row> rows;
    for (const RecordBatch& b : batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) rows.push_back(RowAt(b, i));
    }
    return Sorted(rows);
  }
  Result<MergeInsertResult> Merge(const Dataset& ds, const std::vector<RecordBatch>& source,
                                  const MergeInsertOptions& o) {
    auto reader = MakeBatchVectorReader(source.at(0).schema, source);
    return MergeInsert(ds, *reader, o);
  }
};

TEST_F(MergeInsertTest, EveryClauseCombinationCommitsTheModelsRows) {
  for (WhenMatched wm : {WhenMatched::kUpdateAll, WhenMatched::kUpdateColumns, WhenMatched::kDoNothing}) {
    for (WhenNotMatched wn : {WhenNotMatched::kInsert, WhenNotMatched::kSkip}) {
      for (WhenNotMatchedBySource wb : {WhenNotMatchedBySource::kKeep, WhenNotMatchedBySource::kDelete}) {
        std::filesystem::remove_all(dir_);
        auto ds = MakeTarget(TargetRows());
        ASSERT_TRUE(ds);
        MergeInsertOptions o;
        o.on = {"k"};
        o.when_matched = wm;
        o.update_columns = {"tag"};
        o.when_not_matched = wn;
        o.when_not_matched_by_source = wb;
        const std::string what =
            std::to_string(int(wm)) + "/" + std::to_string(int(wn)) + "/" + std::to_string(int(wb));
        auto want = ModelMerge(TargetRows(), SourceRows(), o, true);
        ASSERT_TRUE(want) << what;
        ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*ds, {RowsBatch(SourceRows())}, o));
        ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Committed(r.version));
        EXPECT_EQ(got, *want) << what;
        const bool changes = r.rows_inserted + r.rows_updated + r.rows_deleted > 0;
        EXPECT_EQ(r.version, changes ? 2u : 1u) << what;
        EXPECT_EQ(r.attempts, 1) << what;
        // Counts follow the model: 4 of the 8 source rows match (3, 5, 11, 19); 4 do not.
        EXPECT_EQ(r.rows_updated, wm == WhenMatched::kDoNothing ? 0u : 4u) << what;
        EXPECT_EQ(r.rows_inserted, wn == WhenNotMatched::kInsert ? 4u : 0u) << what;
        EXPECT_EQ(r.rows_deleted, wb == WhenNotMatchedBySource::kDelete ? 17u : 0u) << what;
      }
    }
  }
}

TEST_F(MergeInsertTest, FailureCommitsNothingAndLeavesNoFiles) {
  auto ds = MakeTarget(TargetRows());
  ASSERT_TRUE(ds);
  auto files = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_)) n += e.is_regular_file();
    return n;
  };
  const size_t before = files();
  // Spilled into two partitions, the duplicate in the second: the first partition's
  // updates are written to data files before the duplicate is met.
  int64_t dup = -1;
  for (int64_t k = 0; k < 20 && dup < 0; ++k) {
    if (KeyPartition(std::string(reinterpret_cast<const char*>(&k), sizeof k), 2) == 1) dup = k;
  }
  ASSERT_GE(dup, 0);
  std::vector<Row> source;
  for (int64_t k = 0; k < 20; ++k) source.push_back({k, "s", 1.0});
  source.push_back({dup, "again", 2.0});
  MergeInsertOptions o;
  o.on = {"k"};
  o.max_rows_per_file = 2;
  o.memory_budget_bytes = 1;
  o.spill_partitions = 2;
  auto r = Merge(*ds, {RowsBatch(source)}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("(k = " + std::to_string(dup) + ")"), std::string::npos) << r.status().message();
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(dir_.string()));
  EXPECT_EQ(latest->version(), 1u);
  EXPECT_EQ(files(), before);
}

TEST_F(MergeInsertTest, SpilledSourceCommitsTheSameRows) {
  std::vector<Row> target, source;
  for (int64_t i = 0; i < 3000; ++i) target.push_back({i, "t" + std::to_string(i), double(i)});
  std::vector<RecordBatch> batches;
  for (int64_t b = 0; b < 4; ++b) {
    std::vector<Row> part;
    for (int64_t i = 1500 + b * 1000; i < 2500 + b * 1000; ++i) part.push_back({i, std::nullopt, -double(i)});
    source.insert(source.end(), part.begin(), part.end());
    batches.push_back(RowsBatch(part));
  }
  auto ds = MakeTarget(target, 500);
  ASSERT_TRUE(ds);
  MergeInsertOptions o;
  o.on = {"k"};
  o.memory_budget_bytes = 1;
  o.spill_partitions = 5;
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*ds, batches, o));
  EXPECT_GT(r.spilled_bytes, 0u);
  EXPECT_EQ(r.rows_updated, 1500u);
  EXPECT_EQ(r.rows_inserted, 2500u);
  ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Committed(r.version));
  EXPECT_EQ(got, *ModelMerge(target, source, o, true));
}

// Big enough for the file writer to encode columns in parallel, over a target with
// deleted rows, with new files cut inside the source's batches (views with offsets).
TEST_F(MergeInsertTest, ManyBatchesOverDeletedRowsCommitTheModelsRows) {
  std::vector<Row> target, source;
  for (int64_t i = 0; i < 9000; ++i) target.push_back({i, i % 11 ? OptS("t" + std::to_string(i)) : OptS(), double(i)});
  auto written = MakeTarget(target, 4000);
  ASSERT_TRUE(written);
  ASSERT_OK(DeleteWhere(*written, "k % 10 = 3").status());
  target.erase(std::remove_if(target.begin(), target.end(), [](const Row& r) { return *r.k % 10 == 3; }), target.end());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir_.string()));
  std::vector<RecordBatch> batches;
  for (int64_t b = 0; b < 3; ++b) {
    std::vector<Row> part;
    for (int64_t i = 6000 + b * 2500; i < 8500 + b * 2500; ++i) {
      part.push_back({i, i % 3 ? OptS("s" + std::to_string(i)) : OptS(), -double(i)});
    }
    source.insert(source.end(), part.begin(), part.end());
    batches.push_back(RowsBatch(part));
  }
  MergeInsertOptions o;
  o.on = {"k"};
  o.max_rows_per_file = 1700;
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*ds, batches, o));
  EXPECT_EQ(r.spilled_bytes, 0u);
  EXPECT_EQ(r.rows_updated, 2700u);   // 6000..8999 less the deleted tenth
  EXPECT_EQ(r.rows_inserted, 4800u);  // the deleted keys come back as new rows
  ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Committed(r.version));
  EXPECT_EQ(got, *ModelMerge(target, source, o, true));
}

// A version older than the latest: the first commit conflicts (the latest deleted a
// row the merge updates), and the merge re-runs on the latest, where that key is new.
TEST_F(MergeInsertTest, LostRaceReRunsOnTheLatestVersion) {
  auto v1 = MakeTarget(TargetRows());
  ASSERT_TRUE(v1);
  ASSERT_OK_AND_ASSIGN(uint64_t v2, DeleteWhere(*v1, "k = 3"));
  ASSERT_EQ(v2, 2u);
  MergeInsertOptions o;
  o.on = {"k"};
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*v1, {RowsBatch(SourceRows())}, o));
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.version, 3u);
  EXPECT_EQ(r.rows_updated, 3u);
  EXPECT_EQ(r.rows_inserted, 5u);
  std::vector<Row> after_delete = TargetRows();
  after_delete.erase(after_delete.begin() + 3);
  ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Committed(r.version));
  EXPECT_EQ(got, *ModelMerge(after_delete, SourceRows(), o, true));
}

TEST_F(MergeInsertTest, StableRowIdsKeepIdsAndCreatedVersionOfUpdatedRows) {
  WriteParams p;
  p.enable_stable_row_ids = true;
  p.max_rows_per_file = 7;
  ASSERT_OK(WriteDataset(dir_.string(), RowSchema(), {RowsBatch(TargetRows())}, p).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir_.string()));
  auto ids_by_key = [](const Dataset& d) {
    ScanOptions scan;
    scan.with_row_id = true;
    std::map<int64_t, uint64_t> ids;
    auto batches = d.Scan(scan);
    EXPECT_TRUE(batches.ok()) << batches.status().ToString();
    if (!batches.ok()) return ids;
    for (const RecordBatch& b : *batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        if (b.columns[0].IsValid(i)) ids[b.columns[0].values<int64_t>()[i]] = b.columns.back().values<uint64_t>()[i];
      }
    }
    return ids;
  };
  std::map<int64_t, uint64_t> before = ids_by_key(*ds);
  MergeInsertOptions o;
  o.on = {"k"};
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*ds, {RowsBatch(SourceRows())}, o));
  ASSERT_OK_AND_ASSIGN(auto after_ds, Dataset::Open(dir_.string()));
  std::map<int64_t, uint64_t> after = ids_by_key(*after_ds);
  for (int64_t k : {3, 5, 11, 19}) EXPECT_EQ(after.at(k), before.at(k)) << "key " << k;
  // New rows get ids past every old one.
  const uint64_t max_old = before.rbegin()->second;
  for (int64_t k : {25, 40}) EXPECT_GT(after.at(k), max_old) << "key " << k;
  EXPECT_EQ(r.rows_inserted, 4u);
}

// lineage-notes §3.3: two merges of keys {1 existing, 100 new} from the same version.
// The second loses the race (the first replaced row 1), re-runs on the first's version
// and then updates both rows instead of inserting key 100 twice.
TEST_F(MergeInsertTest, SecondOfTwoRacingUpsertsUpdatesWhatTheFirstInserted) {
  auto v1 = MakeTarget(TargetRows());
  ASSERT_TRUE(v1);
  MergeInsertOptions o;
  o.on = {"k"};
  ASSERT_OK_AND_ASSIGN(MergeInsertResult first, Merge(*v1, {RowsBatch({{1, "first", 1.5}, {100, "new", 100.5}})}, o));
  EXPECT_EQ(first.version, 2u);
  EXPECT_EQ(first.rows_inserted, 1u);
  EXPECT_EQ(first.rows_updated, 1u);
  ASSERT_OK_AND_ASSIGN(MergeInsertResult second,
                       Merge(*v1, {RowsBatch({{1, "second", 2.5}, {100, "again", 200.5}})}, o));
  EXPECT_EQ(second.version, 3u);
  EXPECT_EQ(second.attempts, 2);
  EXPECT_EQ(second.rows_inserted, 0u);
  EXPECT_EQ(second.rows_updated, 2u);
  ASSERT_OK_AND_ASSIGN(std::vector<Row> got, Committed(3));
  std::vector<Row> want = TargetRows();
  want[1] = {1, "second", 2.5};
  want.push_back({100, "again", 200.5});
  EXPECT_EQ(got, Sorted(want));
}

}  // namespace
}  // namespace lancet::table
