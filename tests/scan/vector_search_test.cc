// Exact nearest-neighbour search equals a brute-force model: every metric, filters
// before and after, offsets, several queries, deletions, nulls and the column types.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "lancet/index/distance.h"
#include "lancet/scan/search.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::scan {
namespace {

namespace fs = std::filesystem;
using index::DistanceType;

constexpr int kDim = 8;
constexpr int64_t kRows = 2000;

DataType VecType(TypeId item, int dim) { return FixedSizeListOf(MakeField("item", MakeType(item)), dim); }

// Row r: id = r, cat = r % 5, vec = a deterministic float vector; every 97th null,
// row 5 all zeros (cosine NaN); bits = 4 bytes derived from r.
struct Model {
  std::vector<std::vector<float>> vec;
  std::vector<bool> valid;
  std::vector<std::vector<uint8_t>> bits;
};

Model MakeModel() {
  Model m;
  std::mt19937 rng(7);
  std::normal_distribution<float> g(0, 1);
  for (int64_t r = 0; r < kRows; ++r) {
    std::vector<float> v(kDim);
    // Clusters with ties: every row also repeats its neighbour 1000 rows away.
    std::mt19937 local(static_cast<uint32_t>(r % 1000));
    for (float& x : v) x = std::round(std::normal_distribution<float>(0, 1)(local) * 4) / 4;
    if (r == 5) std::fill(v.begin(), v.end(), 0.0f);
    m.vec.push_back(v);
    m.valid.push_back(r % 97 != 3);
    std::vector<uint8_t> b(4);
    for (uint8_t& x : b) x = static_cast<uint8_t>(rng());
    m.bits.push_back(b);
  }
  (void)g;
  return m;
}

RecordBatch Batch(const Model& m, int64_t begin, int64_t n) {
  Schema s;
  s.fields = {MakeField("id", MakeType(TypeId::kInt32)), MakeField("cat", MakeType(TypeId::kInt32)),
              MakeField("vec", VecType(TypeId::kFloat32, kDim)), MakeField("vec64", VecType(TypeId::kFloat64, kDim)),
              MakeField("bits", VecType(TypeId::kUInt8, 4))};
  std::vector<int32_t> id, cat;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<uint8_t> bytes;
  std::vector<bool> valid;
  for (int64_t r = begin; r < begin + n; ++r) {
    id.push_back(static_cast<int32_t>(r));
    cat.push_back(static_cast<int32_t>(r % 5));
    for (float x : m.vec[static_cast<size_t>(r)]) {
      f32.push_back(x);
      f64.push_back(x);
    }
    bytes.insert(bytes.end(), m.bits[static_cast<size_t>(r)].begin(), m.bits[static_cast<size_t>(r)].end());
    valid.push_back(m.valid[static_cast<size_t>(r)]);
  }
  RecordBatch b;
  b.schema = s;
  b.num_rows = n;
  b.columns.push_back(ArrayFromVector(MakeType(TypeId::kInt32), id).MoveValue());
  b.columns.push_back(ArrayFromVector(MakeType(TypeId::kInt32), cat).MoveValue());
  auto f32a = ArrayFromVector(MakeType(TypeId::kFloat32), f32).MoveValue();
  b.columns.push_back(MakeFixedSizeListArray(s.fields[2].type, n, f32a, valid).MoveValue());
  auto f64a = ArrayFromVector(MakeType(TypeId::kFloat64), f64).MoveValue();
  b.columns.push_back(MakeFixedSizeListArray(s.fields[3].type, n, f64a).MoveValue());
  auto u8 = ArrayFromVector(MakeType(TypeId::kUInt8), bytes).MoveValue();
  b.columns.push_back(MakeFixedSizeListArray(s.fields[4].type, n, u8).MoveValue());
  return b;
}

struct Hit {
  int32_t id;
  float distance;
  uint32_t query = 0;
};

class VectorSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lancet_vector_search_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    model_ = MakeModel();
    table::WriteParams p;
    p.max_rows_per_file = 700;
    std::vector<RecordBatch> batches;
    for (int64_t b = 0; b < kRows; b += 500) batches.push_back(Batch(model_, b, 500));
    const Schema schema = batches[0].schema;
    ASSERT_TRUE(table::WriteDataset(dir_.string(), schema, std::move(batches), p).ok());
    ds_ = table::Dataset::Open(dir_.string()).MoveValue();
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<std::vector<Hit>> Run(const table::ScanOptions& o, const VectorQuery& q) {
    ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, Search(*ds_, o, q));
    std::vector<Hit> out;
    for (;;) {
      ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader->Next());
      if (!b) break;
      const int qi = b->schema.FieldIndex("query_index");
      const int id = b->schema.FieldIndex("id");
      const int d = b->schema.FieldIndex("_distance");
      EXPECT_GE(id, 0);
      EXPECT_EQ(d, static_cast<int>(b->columns.size()) - 1 - (o.with_row_id ? 1 : 0));
      for (int64_t i = 0; i < b->num_rows; ++i) {
        Hit h{b->columns[static_cast<size_t>(id)].values<int32_t>()[i],
              b->columns[static_cast<size_t>(d)].values<float>()[i],
              qi >= 0 ? b->columns[static_cast<size_t>(qi)].values<uint32_t>()[i] : 0u};
        out.push_back(h);
      }
    }
    return out;
  }

  // Brute force over the model: rows passing `keep`, sorted by (distance, row), NaN out.
  std::vector<Hit> Expected(const std::vector<float>& q, DistanceType type, size_t k, size_t offset,
                            const std::function<bool(int64_t)>& keep) {
    std::vector<std::pair<float, int64_t>> all;
    for (int64_t r = 0; r < kRows; ++r) {
      if (!model_.valid[static_cast<size_t>(r)] || !keep(r)) continue;
      const float d = index::Distance(type, q.data(), model_.vec[static_cast<size_t>(r)].data(), kDim);
      if (std::isnan(d)) continue;
      all.emplace_back(d, r);
    }
    std::sort(all.begin(), all.end());
    std::vector<Hit> out;
    for (size_t i = offset; i < std::min(all.size(), offset + k); ++i) {
      out.push_back({static_cast<int32_t>(all[i].second), all[i].first});
    }
    return out;
  }

  static void ExpectSame(const std::vector<Hit>& got, const std::vector<Hit>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].id, want[i].id) << what << " rank " << i;
      EXPECT_FLOAT_EQ(got[i].distance, want[i].distance) << what << " rank " << i;
    }
  }

  fs::path dir_;
  Model model_;
  std::unique_ptr<table::Dataset> ds_;
};

std::vector<float> Query(int seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::normal_distribution<float> g(0, 1);
  std::vector<float> q(kDim);
  for (float& x : q) x = g(rng);
  return q;
}

TEST_F(VectorSearchTest, EveryMetricEqualsBruteForce) {
  for (DistanceType type : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
    for (int seed = 0; seed < 5; ++seed) {
      VectorQuery q;
      q.column = "vec";
      q.vectors = {Query(seed)};
      q.k = 17;
      q.distance = type;
      auto got = Run({}, q);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectSame(*got, Expected(q.vectors[0], type, 17, 0, [](int64_t) { return true; }),
                 std::string(index::DistanceTypeName(type)) + " seed " + std::to_string(seed));
    }
  }
}

TEST_F(VectorSearchTest, TiesGoByRowIdAndNullsAndZeroVectorsNeverAppear) {
  VectorQuery q;
  q.column = "vec";
  q.vectors = {model_.vec[10]};  // rows 10 and 1010 are at distance 0
  q.k = kRows;
  auto got = Run({}, q);
  ASSERT_TRUE(got.ok());
  ASSERT_GE(got->size(), 2u);
  EXPECT_EQ((*got)[0].id, 10);
  EXPECT_EQ((*got)[1].id, 1010);
  size_t valid = 0;
  for (bool v : model_.valid) valid += v;
  EXPECT_EQ(got->size(), valid);  // every non-null row, the zero vector included (l2)
  q.distance = DistanceType::kCosine;
  got = Run({}, q);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->size(), valid - 1);  // the zero vector has no cosine distance
  for (const Hit& h : *got) EXPECT_NE(h.id, 5);
}

TEST_F(VectorSearchTest, PrefilterSearchesMatchingRowsAndPostfilterFiltersTheNearest) {
  VectorQuery q;
  q.column = "vec";
  q.vectors = {Query(11)};
  q.k = 10;
  table::ScanOptions o;
  o.filter = "cat = 2 AND id > 300";
  auto keep = [](int64_t r) { return r % 5 == 2 && r > 300; };
  auto pre = Run(o, q);
  ASSERT_TRUE(pre.ok()) << pre.status().ToString();
  ExpectSame(*pre, Expected(q.vectors[0], DistanceType::kL2, 10, 0, keep), "prefilter");
  q.postfilter = true;
  auto post = Run(o, q);
  ASSERT_TRUE(post.ok());
  std::vector<Hit> want;
  for (const Hit& h : Expected(q.vectors[0], DistanceType::kL2, 10, 0, [](int64_t) { return true; })) {
    if (keep(h.id)) want.push_back(h);
  }
  ExpectSame(*post, want, "postfilter");
}

TEST_F(VectorSearchTest, OffsetSeveralQueriesAndProjection) {
  VectorQuery q;
  q.column = "vec";
  q.vectors = {Query(1), Query(2), Query(3)};
  q.k = 6;
  table::ScanOptions o;
  o.offset = 4;
  o.columns = {"id"};
  o.with_row_id = true;
  auto got = Run(o, q);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 18u);
  for (uint32_t i = 0; i < 3; ++i) {
    std::vector<Hit> mine(got->begin() + i * 6, got->begin() + (i + 1) * 6);
    for (const Hit& h : mine) EXPECT_EQ(h.query, i);
    ExpectSame(mine, Expected(q.vectors[i], DistanceType::kL2, 6, 4, [](int64_t) { return true; }),
               "query " + std::to_string(i));
  }
  auto reader = Search(*ds_, o, q);
  ASSERT_TRUE(reader.ok());
  const Schema& s = (*reader)->schema();
  ASSERT_EQ(s.fields.size(), 4u);
  EXPECT_EQ(s.fields[0].name, "query_index");
  EXPECT_EQ(s.fields[1].name, "id");
  EXPECT_EQ(s.fields[2].name, "_distance");
  EXPECT_EQ(s.fields[3].name, "_rowid");
}

TEST_F(VectorSearchTest, DeletedRowsNeverAppear) {
  VectorQuery q;
  q.column = "vec";
  q.vectors = {model_.vec[42]};
  q.k = 3;
  ASSERT_TRUE(table::DeleteWhere(*ds_, "id = 42 OR id = 1042").ok());
  ds_ = table::Dataset::Open(dir_.string()).MoveValue();
  auto got = Run({}, q);
  ASSERT_TRUE(got.ok());
  ExpectSame(*got, Expected(q.vectors[0], DistanceType::kL2, 3, 0, [](int64_t r) { return r != 42 && r != 1042; }),
             "after delete");
}

TEST_F(VectorSearchTest, Float64AndHammingColumns) {
  VectorQuery q;
  q.column = "vec64";
  q.vectors = {Query(5)};
  q.k = 8;
  auto got = Run({}, q);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  // vec64 has no nulls: compare with every row.
  std::vector<std::pair<float, int64_t>> all;
  for (int64_t r = 0; r < kRows; ++r) {
    all.emplace_back(index::L2Distance(q.vectors[0].data(), model_.vec[static_cast<size_t>(r)].data(), kDim), r);
  }
  std::sort(all.begin(), all.end());
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ((*got)[i].id, all[i].second) << i;

  q.column = "bits";
  const std::vector<uint8_t>& b = model_.bits[77];
  q.vectors = {
      {static_cast<float>(b[0]), static_cast<float>(b[1]), static_cast<float>(b[2]), static_cast<float>(b[3])}};
  got = Run({}, q);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)[0].id, 77);
  EXPECT_EQ((*got)[0].distance, 0.0f);
  std::vector<std::pair<float, int64_t>> ham;
  for (int64_t r = 0; r < kRows; ++r) {
    ham.emplace_back(index::HammingDistance(b.data(), model_.bits[static_cast<size_t>(r)].data(), 4), r);
  }
  std::sort(ham.begin(), ham.end());
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ((*got)[i].id, ham[i].second) << i;
}

TEST_F(VectorSearchTest, ClearErrors) {
  VectorQuery q;
  q.column = "vec";
  q.vectors = {{1, 2, 3}};
  auto r = Search(*ds_, {}, q);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("query dim(3) doesn't match the column vec vector dim(8)"), std::string::npos);
  q.vectors = {Query(0)};
  q.column = "id";
  r = Search(*ds_, {}, q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a vector column"), std::string::npos);
  q.column = "nope";
  EXPECT_TRUE(Search(*ds_, {}, q).status().IsNotFound());
  q.column = "";  // vec and vec64 are both 8 wide: ambiguous
  r = Search(*ds_, {}, q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("several vector columns"), std::string::npos);
  q.vectors = {{1, 2, 3, 4}};  // only bits is 4 wide
  auto only = Run({}, q);
  ASSERT_TRUE(only.ok()) << only.status().ToString();
  EXPECT_EQ(only->size(), 10u);
  q.vectors = {Query(0)};
  q.column = "bits";
  q.vectors = {{1, 2, 3.5, 4}};
  EXPECT_TRUE(Search(*ds_, {}, q).status().IsInvalidArgument());
  q.column = "vec";
  q.vectors = {Query(0)};
  q.distance = DistanceType::kHamming;
  EXPECT_TRUE(Search(*ds_, {}, q).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lancet::scan
