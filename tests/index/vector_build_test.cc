// Lancet-built IVF_FLAT, IVF_PQ and IVF_SQ segments: recall against exact search on
// clustered data, the reference's file layout, spilling, and damaged files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>

#include "index/index_file.h"
#include "index/ivf_model.h"
#include "index/vector_details.h"
#include "lancet/index/scalar_index.h"
#include "lancet/index/vector_index.h"
#include "lancet/table/dataset.h"
#include "util/test_macros.h"
#include "vector_test_util.h"

namespace lancet::index {
namespace {

namespace fs = std::filesystem;

class VectorBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "lancet-vecbuild-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    data_ = ClusteredVectors(6000, 32, 24, 99);
    ASSERT_OK(WriteVectorDataset(dir_ + "/t.lance", data_, 32, {4000, 2000}));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Builds an index and returns its mean recall@10 against exact search over queries
  // drawn near the data: the share of the exact 10 nearest among the index's
  // 10 * `refine` nearest (PQ distances are approximate: the scan layer re-ranks
  // refine_factor times more candidates exactly).
  double BuildAndRecall(VectorIndexType type, DistanceType distance, std::map<std::string, std::string> params,
                        uint32_t nprobes, uint64_t budget = 256ULL << 20, uint32_t refine = 1) {
    auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
    CreateVectorIndexOptions options;
    options.distance = distance;
    options.params = std::move(params);
    options.memory_budget = budget;
    auto meta = CreateVectorIndex(*ds, "vec", type, options);
    EXPECT_TRUE(meta.ok()) << meta.status().ToString();
    if (!meta.ok()) return 0;
    auto latest = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
    auto indices = latest->ListIndices().MoveValue();
    EXPECT_EQ(indices.size(), 1u);
    EXPECT_EQ(VectorTypeOf(indices[0]), type);
    auto index = VectorIndex::Open(*latest, indices[0]);
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    if (!index.ok()) return 0;
    std::mt19937 rng(5);
    double total = 0;
    const int nq = 40;
    for (int q = 0; q < nq; ++q) {
      std::vector<float> query(data_.begin() + (q * 97) * 32, data_.begin() + (q * 97 + 1) * 32);
      for (float& x : query) x += std::normal_distribution<float>(0, 0.3f)(rng);
      VectorSearchParams sp;
      sp.k = 10 * refine;
      sp.nprobes = nprobes;
      auto hits = (*index)->Search(query.data(), sp, nullptr);
      EXPECT_TRUE(hits.ok());
      std::set<uint64_t> got;
      for (const VectorHit& h : *hits) got.insert(h.row);
      const std::vector<uint64_t> exact = ExactTopK(data_, 32, {4000, 2000}, query, 10, distance);
      int found = 0;
      for (uint64_t r : exact) found += got.count(r);
      total += found / 10.0;
    }
    std::printf("[ recall ] %s %s refine %u: %.3f\n", VectorIndexTypeName(type), DistanceTypeName(distance), refine,
                total / nq);
    return total / nq;
  }

  std::string dir_;
  std::vector<float> data_;
};

TEST_F(VectorBuildTest, IvfFlatL2Recall) {
  EXPECT_GE(BuildAndRecall(VectorIndexType::kIvfFlat, DistanceType::kL2, {{"num_partitions", "16"}}, 4), 0.9);
}
TEST_F(VectorBuildTest, IvfFlatCosineRecall) {
  EXPECT_GE(BuildAndRecall(VectorIndexType::kIvfFlat, DistanceType::kCosine, {{"num_partitions", "16"}}, 4), 0.9);
}
TEST_F(VectorBuildTest, IvfFlatDotRecall) {
  EXPECT_GE(BuildAndRecall(VectorIndexType::kIvfFlat, DistanceType::kDot, {{"num_partitions", "8"}}, 8), 0.99);
}
TEST_F(VectorBuildTest, IvfPqL2Recall) {
  EXPECT_GE(BuildAndRecall(VectorIndexType::kIvfPq, DistanceType::kL2,
                           {{"num_partitions", "16"}, {"num_sub_vectors", "8"}}, 4, 256ULL << 20, 4),
            0.9);
}
TEST_F(VectorBuildTest, IvfPqCosineRecall) {
  EXPECT_GE(BuildAndRecall(VectorIndexType::kIvfPq, DistanceType::kCosine,
                           {{"num_partitions", "16"}, {"num_sub_vectors", "8"}}, 4, 256ULL << 20, 4),
            0.9);
}
TEST_F(VectorBuildTest, IvfSqL2Recall) {
  EXPECT_GE(BuildAndRecall(VectorIndexType::kIvfSq, DistanceType::kL2, {{"num_partitions", "16"}}, 4), 0.9);
}
TEST_F(VectorBuildTest, SpillingGivesTheSameRecall) {
  // A 64 KiB budget spills the partitioned rows many times over.
  EXPECT_GE(BuildAndRecall(VectorIndexType::kIvfFlat, DistanceType::kL2, {{"num_partitions", "16"}}, 4, 64 << 10), 0.9);
}

TEST_F(VectorBuildTest, FilesFollowTheReferenceLayout) {
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  CreateVectorIndexOptions options;
  options.params = {{"num_partitions", "4"}, {"num_sub_vectors", "4"}};
  ASSERT_OK_AND_ASSIGN(table::IndexMetadata meta, CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfPq, options));
  EXPECT_EQ(meta.type_url, "/lance.index.pb.VectorIndexDetails");
  EXPECT_EQ(meta.index_version, 1);
  EXPECT_EQ(meta.fragment_ids, (std::vector<uint64_t>{0, 1}));
  ASSERT_EQ(meta.files.size(), 2u);
  ASSERT_OK_AND_ASSIGN(VectorDetails details, ParseVectorDetails(meta));
  EXPECT_EQ(details.pq_num_sub_vectors, 4u);
  EXPECT_EQ(details.runtime_hints["lance.ivf.max_iters"], "50");
  ASSERT_OK_AND_ASSIGN(std::string dir, ds->IndexDirectory(meta));
  ASSERT_OK_AND_ASSIGN(auto main, OpenIndexFile(*ds->store(), dir, "index.idx"));
  EXPECT_EQ(IndexFileMetadata(*main, "lance:index"), R"({"type":"IVF_PQ","distance_type":"l2"})");
  EXPECT_EQ(IndexFileMetadata(*main, "lance:flat"), R"(["","","",""])");
  EXPECT_EQ(main->num_rows(), 0u);
  ASSERT_OK_AND_ASSIGN(auto aux, OpenIndexFile(*ds->store(), dir, "auxiliary.idx"));
  EXPECT_EQ(aux->num_rows(), 6000u);
  EXPECT_EQ(
      IndexFileMetadata(*aux, "storage_metadata"),
      R"(["{\"codebook_position\":2,\"nbits\":8,\"num_sub_vectors\":4,\"dimension\":32,\"codebook_tensor\":[],\"transposed\":true}"])");
  EXPECT_EQ(aux->file_schema().fields[1].name, "__pq_code");
  ASSERT_OK_AND_ASSIGN(IvfModel layout, ReadIvfModel(*aux));
  uint64_t rows = 0;
  for (uint32_t l : layout.lengths) rows += l;
  EXPECT_EQ(rows, 6000u);
  auto latest = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(std::vector<IndexStats> stats, DescribeIndices(*latest));
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].type, "IvfPq");
  EXPECT_TRUE(stats[0].usable);
  EXPECT_EQ(stats[0].num_indexed_rows, 6000u);
}

TEST_F(VectorBuildTest, DefaultsFollowTheReference) {
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(table::IndexMetadata meta, CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfPq));
  ASSERT_OK_AND_ASSIGN(VectorDetails details, ParseVectorDetails(meta));
  EXPECT_EQ(details.pq_num_sub_vectors, 2u);  // dim / 16
  auto latest = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(auto index, VectorIndex::Open(*latest, meta));
  EXPECT_EQ(index->num_partitions(), 1u);  // 6000 rows / 8192, at least 1
}

TEST_F(VectorBuildTest, RejectsBadParams) {
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  CreateVectorIndexOptions options;
  options.params = {{"num_sub_vectors", "5"}};
  EXPECT_FALSE(CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfPq, options).ok());
  options.params = {{"bogus", "1"}};
  EXPECT_EQ(CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfFlat, options).status().code(),
            StatusCode::kInvalidArgument);
  options.params = {{"num_partitions", "0"}};
  EXPECT_FALSE(CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfFlat, options).ok());
  EXPECT_EQ(CreateVectorIndex(*ds, "id", VectorIndexType::kIvfFlat).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(VectorBuildTest, IvfPqWithoutRefine) {
  EXPECT_GE(BuildAndRecall(VectorIndexType::kIvfPq, DistanceType::kL2,
                           {{"num_partitions", "16"}, {"num_sub_vectors", "8"}}, 4),
            0.6);
}

TEST_F(VectorBuildTest, DamagedFilesAreErrorsNamingTheFile) {
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  CreateVectorIndexOptions options;
  options.params = {{"num_partitions", "4"}, {"num_sub_vectors", "4"}};
  ASSERT_OK_AND_ASSIGN(table::IndexMetadata meta, CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfPq, options));
  auto latest = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(std::string dir, latest->IndexDirectory(meta));
  for (const char* name : {"index.idx", "auxiliary.idx"}) {
    const std::string path = dir + "/" + name;
    std::ifstream in(path, std::ios::binary);
    const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    // Every single-byte change in a stride of positions, and truncations: Open and
    // Search fail cleanly or answer; none crashes.
    for (size_t at = 0; at < original.size(); at += std::max<size_t>(1, original.size() / 300)) {
      std::string bad = original;
      bad[at] = static_cast<char>(bad[at] ^ 0x5a);
      std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
      auto index = VectorIndex::Open(*latest, meta);
      if (index.ok()) {
        std::vector<float> q(32, 0.5f);
        VectorSearchParams sp;
        sp.nprobes = 4;
        (void)(*index)->Search(q.data(), sp, nullptr);
      }
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << original.substr(0, original.size() / 2);
    auto truncated = VectorIndex::Open(*latest, meta);
    ASSERT_FALSE(truncated.ok());
    EXPECT_NE(truncated.status().ToString().find(name), std::string::npos) << truncated.status().ToString();
    std::ofstream(path, std::ios::binary | std::ios::trunc) << original;
  }
  EXPECT_TRUE(VectorIndex::Open(*latest, meta).ok());
}

// An append leaves a fragment unindexed; OptimizeIndices replaces the segment by one
// over every fragment that keeps the trained centroids and codebook.
TEST_F(VectorBuildTest, OptimizeCoversAppendedFragmentsWithTheSameModel) {
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  CreateVectorIndexOptions options;
  options.params = {{"num_partitions", "8"}, {"num_sub_vectors", "8"}};
  ASSERT_OK_AND_ASSIGN(table::IndexMetadata before, CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfPq, options));
  const std::vector<float> more = ClusteredVectors(500, 32, 24, 99);
  ASSERT_OK(WriteVectorDataset(dir_ + "/t.lance", more, 32, {500}));
  auto appended = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_EQ(appended->fragments().size(), 3u);
  ASSERT_OK_AND_ASSIGN(OptimizeIndicesResult result, OptimizeIndices(*appended));
  ASSERT_EQ(result.rebuilt, (std::vector<std::string>{"vec_idx"}));
  auto latest = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(auto indices, latest->ListIndices());
  ASSERT_EQ(indices.size(), 1u);
  const table::IndexMetadata& after = indices[0];
  EXPECT_NE(after.uuid, before.uuid);
  EXPECT_EQ(after.fragment_ids, (std::vector<uint64_t>{0, 1, 2}));
  auto model = [&](const table::IndexMetadata& m) {
    auto dir = latest->IndexDirectory(m).MoveValue();
    return ReadIvfModel(*OpenIndexFile(*latest->store(), dir, "index.idx").MoveValue()).MoveValue().centroids;
  };
  EXPECT_EQ(model(after), model(before));
  ASSERT_OK_AND_ASSIGN(auto index, VectorIndex::Open(*latest, after));
  // Every row is in the new segment, the appended fragment's too.
  VectorSearchParams sp;
  sp.k = 7000;
  sp.nprobes = 8;
  const std::vector<float> q(more.begin(), more.begin() + 32);
  ASSERT_OK_AND_ASSIGN(auto hits, index->Search(q.data(), sp, nullptr));
  EXPECT_EQ(hits.size(), 6500u);
  size_t appended_rows = 0;
  for (const VectorHit& h : hits) appended_rows += (h.row >> 32) == 2 ? 1 : 0;
  EXPECT_EQ(appended_rows, 500u);
  ASSERT_OK_AND_ASSIGN(OptimizeIndicesResult again, OptimizeIndices(*latest));
  EXPECT_TRUE(again.rebuilt.empty());
}

// `allowed` drops rows before they compete for the k places; nprobes 0 means the
// reference's 20 (here every one of 16 partitions, so the search is exact).
TEST_F(VectorBuildTest, SearchHonoursAllowedAndDefaultNprobes) {
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  CreateVectorIndexOptions options;
  options.params = {{"num_partitions", "16"}};
  ASSERT_OK_AND_ASSIGN(table::IndexMetadata meta, CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfFlat, options));
  auto latest = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(auto index, VectorIndex::Open(*latest, meta));
  const std::vector<float> q(data_.begin() + 10 * 32, data_.begin() + 11 * 32);
  const std::function<bool(uint64_t)> odd = [](uint64_t row) { return row % 2 == 1; };
  VectorSearchParams sp;
  sp.k = 10;
  ASSERT_OK_AND_ASSIGN(auto hits, index->Search(q.data(), sp, &odd));
  ASSERT_EQ(hits.size(), 10u);
  std::vector<uint64_t> want;
  for (uint64_t r : ExactTopK(data_, 32, {4000, 2000}, q, 40, DistanceType::kL2)) {
    if (r % 2 == 1 && want.size() < 10) want.push_back(r);
  }
  for (size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(hits[i].row, want[i]);
    if (i > 0) {
      EXPECT_LE(hits[i - 1].distance, hits[i].distance);
    }
  }
  sp.k = 100000;
  ASSERT_OK_AND_ASSIGN(auto all, index->Search(q.data(), sp, nullptr));
  EXPECT_EQ(all.size(), 6000u);
  sp.k = 0;
  ASSERT_OK_AND_ASSIGN(auto none, index->Search(q.data(), sp, nullptr));
  EXPECT_TRUE(none.empty());
}

TEST(IvfModelTest, PartitionsPastTheFileAreCorruption) {
  IvfModel model;
  model.AddPartition(10);
  model.AddPartition(20);
  const std::string bytes = model.Serialize();
  const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(ParseIvfModel(span, "f", 30).ok());
  auto bad = ParseIvfModel(span, "f.idx", 29);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kCorruption);
  EXPECT_NE(bad.status().ToString().find("f.idx"), std::string::npos);
}

}  // namespace
}  // namespace lancet::index
