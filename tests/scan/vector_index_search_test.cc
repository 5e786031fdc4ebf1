// Search through a vector index: IVF_FLAT probing every partition is exact, so it must
// equal exact search under filters, deletions, appended (unindexed) fragments, offsets,
// several queries, stable row ids and compaction; PQ/SQ reach their recall; the plan
// says what was used.
#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "lancet/index/vector_index.h"
#include "lancet/scan/search.h"
#include "lancet/table/compaction.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::scan {
namespace {

namespace fs = std::filesystem;
using index::DistanceType;
using index::VectorIndexType;

constexpr int kDim = 16;

// Clustered vectors: row r near centre r % 24, with id = r and cat = r % 6.
RecordBatch MakeRows(int64_t begin, int64_t n) {
  Schema s;
  s.fields = {MakeField("id", MakeType(TypeId::kInt32)), MakeField("cat", MakeType(TypeId::kInt32)),
              MakeField("vec", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), kDim))};
  std::mt19937 centre_rng(99);
  std::normal_distribution<float> g(0, 1);
  std::vector<float> centres(24 * kDim);
  for (float& x : centres) x = g(centre_rng) * 5;
  std::vector<int32_t> id, cat;
  std::vector<float> v;
  std::vector<bool> valid;
  for (int64_t r = begin; r < begin + n; ++r) {
    std::mt19937 rng(static_cast<uint32_t>(r));
    id.push_back(static_cast<int32_t>(r));
    cat.push_back(static_cast<int32_t>(r % 6));
    for (int j = 0; j < kDim; ++j) v.push_back(centres[static_cast<size_t>((r % 24) * kDim + j)] + g(rng));
    valid.push_back(r % 211 != 9);
  }
  RecordBatch b;
  b.schema = s;
  b.num_rows = n;
  b.columns.push_back(ArrayFromVector(MakeType(TypeId::kInt32), id).MoveValue());
  b.columns.push_back(ArrayFromVector(MakeType(TypeId::kInt32), cat).MoveValue());
  auto items = ArrayFromVector(MakeType(TypeId::kFloat32), v).MoveValue();
  b.columns.push_back(MakeFixedSizeListArray(s.fields[2].type, n, items, valid).MoveValue());
  return b;
}

std::vector<float> Query(int seed) {
  RecordBatch b = MakeRows(100000 + seed, 1);
  const float* p = b.columns[2].children[0].values<float>();
  return std::vector<float>(p, p + kDim);
}

struct Row {
  uint32_t query;
  int32_t id;
  float distance;
  bool operator==(const Row& o) const { return query == o.query && id == o.id && distance == o.distance; }
};

class VectorIndexSearchTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("lancet_vector_index_search_" + std::to_string(::getpid()) + "_" + std::to_string(GetParam())))
               .string();
    fs::remove_all(dir_);
    table::WriteParams p;
    p.max_rows_per_file = 1500;
    p.enable_stable_row_ids = GetParam();
    ASSERT_TRUE(table::WriteDataset(dir_, MakeRows(0, 1).schema, std::vector<RecordBatch>{MakeRows(0, 4000)}, p).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<table::Dataset> Open() { return table::Dataset::Open(dir_).MoveValue(); }

  std::vector<Row> Run(const table::Dataset& ds, table::ScanOptions o, VectorQuery q,
                       SearchExplain* explain = nullptr) {
    o.columns = {"id"};
    auto reader = Search(ds, o, q, explain);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    std::vector<Row> out;
    if (!reader.ok()) return out;
    for (;;) {
      auto b = (*reader)->Next();
      EXPECT_TRUE(b.ok());
      if (!b.ok() || !*b) break;
      const int qi = (*b)->schema.FieldIndex("query_index");
      const int id = (*b)->schema.FieldIndex("id");
      const int d = (*b)->schema.FieldIndex("_distance");
      for (int64_t i = 0; i < (*b)->num_rows; ++i) {
        out.push_back({qi >= 0 ? (*b)->columns[static_cast<size_t>(qi)].values<uint32_t>()[i] : 0u,
                       (*b)->columns[static_cast<size_t>(id)].values<int32_t>()[i],
                       (*b)->columns[static_cast<size_t>(d)].values<float>()[i]});
      }
    }
    return out;
  }

  // The index's answers equal exact search for every case below.
  void ExpectExact(const table::Dataset& ds, DistanceType metric, const std::string& what, bool indexed = true) {
    struct Case {
      std::string filter;
      bool postfilter;
      uint64_t offset;
      uint32_t k;
    };
    const std::vector<Case> cases = {{"", false, 0, 10},       {"cat = 2", false, 0, 10}, {"id > 3500", false, 0, 25},
                                     {"cat = 4", true, 0, 10}, {"", false, 7, 5},         {"id < 0", false, 0, 10}};
    for (const Case& c : cases) {
      VectorQuery q;
      q.column = "vec";
      q.vectors = {Query(1), Query(2)};
      q.k = c.k;
      q.distance = metric;
      q.nprobes = 1000;  // every partition: IVF_FLAT is then exact
      q.postfilter = c.postfilter;
      table::ScanOptions o;
      o.filter = c.filter;
      o.offset = c.offset;
      SearchExplain explain;
      std::vector<Row> got = Run(ds, o, q, &explain);
      EXPECT_EQ(!explain.index.empty(), indexed) << what;
      q.use_index = false;
      std::vector<Row> want = Run(ds, o, q);
      EXPECT_EQ(got.size(), want.size()) << what << " filter '" << c.filter << "'";
      for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        EXPECT_EQ(got[i].query, want[i].query) << what << " " << c.filter << " rank " << i;
        EXPECT_EQ(got[i].id, want[i].id) << what << " " << c.filter << " rank " << i;
        EXPECT_NEAR(got[i].distance, want[i].distance, 1e-4f * std::max(1.0f, std::abs(want[i].distance)));
      }
    }
  }

  std::string dir_;
};

TEST_P(VectorIndexSearchTest, IvfFlatProbingEveryPartitionIsExact) {
  for (DistanceType metric : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
    auto ds = Open();
    index::CreateVectorIndexOptions o;
    o.distance = metric;
    o.params = {{"num_partitions", "8"}};
    auto built = index::CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfFlat, o);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    ds = Open();
    ExpectExact(*ds, metric, std::string("fresh ") + index::DistanceTypeName(metric));
  }
  // Deletions inside indexed fragments, then an unindexed appended fragment.
  ASSERT_TRUE(table::DeleteWhere(*Open(), "id % 7 = 3 OR id = 1234").ok());
  ExpectExact(*Open(), DistanceType::kDot, "after delete");
  table::WriteParams append;
  append.mode = table::WriteMode::kAppend;
  ASSERT_TRUE(
      table::WriteDataset(dir_, MakeRows(0, 1).schema, std::vector<RecordBatch>{MakeRows(4000, 700)}, append).ok());
  auto ds = Open();
  SearchExplain explain;
  VectorQuery q;
  q.column = "vec";
  q.vectors = {Query(3)};
  q.distance = DistanceType::kDot;
  Run(*ds, {}, q, &explain);
  EXPECT_EQ(explain.flat_fragments.size(), 1u);
  EXPECT_EQ(explain.indexed_fragments.size(), 3u);
  EXPECT_NE(explain.ToString().find("ANNIvfPartition: index=vec_idx(IvfFlat)"), std::string::npos);
  EXPECT_NE(explain.ToString().find("KNNVectorDistance"), std::string::npos);
  ExpectExact(*ds, DistanceType::kDot, "with an unindexed fragment");
  // Compaction rewrites the fragments the index names.
  table::CompactionOptions compact;
  compact.target_rows_per_fragment = 100000;
  ASSERT_TRUE(table::Compact(*ds, compact).ok());
  // Compaction moves every row to new fragments, which the index does not cover (only
  // scalar indexes are remapped): the search is exact and the index unused.
  ExpectExact(*Open(), DistanceType::kDot, "after compaction", false);
}

TEST_P(VectorIndexSearchTest, AnIndexOfAnotherMetricIsNotUsed) {
  auto ds = Open();
  index::CreateVectorIndexOptions o;
  o.distance = DistanceType::kCosine;
  o.params = {{"num_partitions", "4"}};
  ASSERT_TRUE(index::CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfPq, o).ok());
  ds = Open();
  VectorQuery q;
  q.column = "vec";
  q.vectors = {Query(5)};
  SearchExplain explain;
  Run(*ds, {}, q, &explain);  // default metric: the index's
  EXPECT_EQ(explain.distance, "cosine");
  EXPECT_FALSE(explain.index.empty());
  q.distance = DistanceType::kL2;
  Run(*ds, {}, q, &explain);
  explain = {};
  Run(*ds, {}, q, &explain);
  EXPECT_TRUE(explain.index.empty());
  EXPECT_EQ(explain.flat_fragments.size(), 3u);
}

TEST_P(VectorIndexSearchTest, QuantizedIndexesReachTheirRecallAndRefineMakesDistancesExact) {
  for (VectorIndexType type : {VectorIndexType::kIvfPq, VectorIndexType::kIvfSq}) {
    auto ds = Open();
    index::CreateVectorIndexOptions o;
    o.params = {{"num_partitions", "8"}};
    if (type == VectorIndexType::kIvfPq) o.params["num_sub_vectors"] = "8";
    auto built = index::CreateVectorIndex(*ds, "vec", type, o);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    auto opened = Open();
    double hit = 0, total = 0;
    for (int s = 0; s < 10; ++s) {
      VectorQuery q;
      q.column = "vec";
      q.vectors = {Query(s)};
      q.refine_factor = 5;
      std::vector<Row> ann = Run(*opened, {}, q);
      q.use_index = false;
      std::vector<Row> exact = Run(*opened, {}, q);
      std::set<int32_t> truth;
      for (const Row& r : exact) truth.insert(r.id);
      for (const Row& r : ann) {
        hit += truth.count(r.id);
        // Refined distances are exact ones: equal to the exact search's for shared rows.
        for (const Row& e : exact) {
          if (e.id == r.id) {
            EXPECT_NEAR(r.distance, e.distance, 1e-3f * std::max(1.0f, e.distance));
          }
        }
      }
      total += static_cast<double>(truth.size());
    }
    EXPECT_GE(hit / total, 0.9) << index::VectorIndexTypeName(type);
  }
}

INSTANTIATE_TEST_SUITE_P(RowIds, VectorIndexSearchTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Stable" : "Addresses"; });

}  // namespace
}  // namespace lancet::scan
