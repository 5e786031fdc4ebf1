// IVF_FLAT and IVF_PQ segments the reference (lance 12 through the Node peer) built:
// Lancet's Search with the same nprobes returns the rows and distances of the
// reference's vectorSearch. Skipped when node or the peer is not installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/peer.h"
#include "index/index_file.h"
#include "index/ivf_storage.h"
#include "index/vector_details.h"
#include "lancet/index/scalar_index.h"
#include "lancet/index/vector_index.h"
#include "lancet/table/dataset.h"
#include "util/test_macros.h"
#include "vector_test_util.h"

namespace lancet::index {
namespace {

namespace fs = std::filesystem;

struct Answer {
  std::string table;
  int query = 0;
  uint32_t nprobes = 0, k = 0, ef = 0;  // ef 0: the default
  std::vector<uint64_t> rows;
  std::vector<double> distances;
};

class VectorReferenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::PeerScratchDir("lancet-vecref");
    if (dir_.empty()) return;
    const std::string cmd = "LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                            "' node '" LANCET_SOURCE_DIR "/tests/index/vector_reference_indexes.mjs' '" +
                            testing::PeerHarnessDir() + "/lib/peer.mjs' '" + dir_ + "' 2>'" + dir_ + "/peer.err'";
    ok_ = RunNode(cmd, &answers_, nullptr);
    std::ifstream q(dir_ + "/queries.json");
    std::stringstream s;
    s << q.rdbuf();
    auto qs = nlohmann::json::parse(s.str(), nullptr, false);
    if (qs.is_array()) {
      for (const auto& v : qs) {
        std::vector<float> f;
        for (const auto& x : v) f.push_back(x.get<float>());
        queries_.push_back(std::move(f));
      }
    }
  }
  // Runs a peer script printing JSON lines: answers go to `answers`, other objects
  // (per-table reports) to `reports`.
  static bool RunNode(const std::string& cmd, std::vector<Answer>* answers, std::vector<nlohmann::json>* reports) {
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) return false;
    std::string out;
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
    const bool ok = ::pclose(p) == 0;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) continue;
      if (!j.contains("rows")) {
        if (reports) reports->push_back(std::move(j));
        continue;
      }
      Answer a;
      a.table = j["table"].get<std::string>();
      a.query = j["query"].get<int>();
      a.nprobes = j["nprobes"].get<uint32_t>();
      a.k = j["k"].get<uint32_t>();
      if (j.contains("ef")) a.ef = j["ef"].get<uint32_t>();
      for (const auto& r : j["rows"]) a.rows.push_back(std::stoull(r.get<std::string>()));
      for (const auto& d : j["distances"]) a.distances.push_back(d.get<double>());
      answers->push_back(std::move(a));
    }
    return ok;
  }

  static void TearDownTestSuite() {
    if (!dir_.empty() && !std::getenv("LANCET_KEEP_TMP")) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (dir_.empty()) GTEST_SKIP() << "node or the lance peer is not installed";
    ASSERT_TRUE(ok_) << "the peer script failed";
    ASSERT_FALSE(answers_.empty());
    ASSERT_FALSE(queries_.empty());
  }

  // Opens the one vector index of `table` and checks every answer of that table.
  void CheckTable(const std::string& table, VectorIndexType type, DistanceType distance, double rel_tol) {
    CheckAnswers(dir_, answers_, table, type, distance, rel_tol);
  }
  void CheckAnswers(const std::string& db, const std::vector<Answer>& answers, const std::string& table,
                    VectorIndexType type, DistanceType distance, double rel_tol, uint32_t partitions = 8,
                    const std::function<bool(uint64_t)>* allowed = nullptr) {
    ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(db + "/" + table + ".lance"));
    ASSERT_OK_AND_ASSIGN(auto indices, ds->ListIndices());
    ASSERT_EQ(indices.size(), 1u);
    ASSERT_EQ(VectorTypeOf(indices[0]), type);
    ASSERT_OK_AND_ASSIGN(auto index, VectorIndex::Open(*ds, indices[0]));
    EXPECT_EQ(index->type(), type);
    EXPECT_EQ(index->distance(), distance);
    EXPECT_EQ(index->dim(), 32u);
    EXPECT_EQ(index->num_partitions(), partitions);
    int checked = 0;
    for (const Answer& a : answers) {
      if (a.table != table) continue;
      VectorSearchParams params;
      params.k = a.k;
      params.nprobes = a.nprobes;
      params.ef = a.ef;
      ASSERT_OK_AND_ASSIGN(std::vector<VectorHit> hits, index->Search(queries_[a.query].data(), params, allowed));
      ASSERT_EQ(hits.size(), a.rows.size()) << table << " query " << a.query << " nprobes " << a.nprobes;
      for (size_t i = 0; i < hits.size(); ++i) {
        const double want = a.distances[i];
        EXPECT_NEAR(hits[i].distance, want, rel_tol * std::max(1.0, std::abs(want)))
            << table << " query " << a.query << " nprobes " << a.nprobes << " hit " << i;
        // Rows must agree except where neighbouring distances tie within the tolerance.
        if (hits[i].row != a.rows[i]) {
          const bool tie =
              (i > 0 && std::abs(a.distances[i - 1] - want) <= rel_tol * std::max(1.0, std::abs(want))) ||
              (i + 1 < hits.size() && std::abs(a.distances[i + 1] - want) <= rel_tol * std::max(1.0, std::abs(want)));
          EXPECT_TRUE(tie) << table << " query " << a.query << " nprobes " << a.nprobes << " hit " << i << ": row "
                           << hits[i].row << ", reference " << a.rows[i];
        }
      }
      ++checked;
    }
    EXPECT_GT(checked, 0);
  }

  static inline std::string dir_;
  static inline bool ok_ = false;
  static inline std::vector<Answer> answers_;
  static inline std::vector<std::vector<float>> queries_;
};

TEST_F(VectorReferenceTest, IvfFlatL2) { CheckTable("flat_l2", VectorIndexType::kIvfFlat, DistanceType::kL2, 1e-4); }
TEST_F(VectorReferenceTest, IvfFlatCosine) {
  CheckTable("flat_cos", VectorIndexType::kIvfFlat, DistanceType::kCosine, 1e-4);
}
TEST_F(VectorReferenceTest, IvfFlatDot) { CheckTable("flat_dot", VectorIndexType::kIvfFlat, DistanceType::kDot, 1e-4); }
TEST_F(VectorReferenceTest, IvfPqL2) { CheckTable("pq_l2", VectorIndexType::kIvfPq, DistanceType::kL2, 1e-4); }
TEST_F(VectorReferenceTest, IvfPqCosine) { CheckTable("pq_cos", VectorIndexType::kIvfPq, DistanceType::kCosine, 1e-4); }
TEST_F(VectorReferenceTest, IvfFlatFloat16) {
  CheckTable("flat_f16", VectorIndexType::kIvfFlat, DistanceType::kL2, 1e-4);
}
TEST_F(VectorReferenceTest, IvfPqFloat16) { CheckTable("pq_f16", VectorIndexType::kIvfPq, DistanceType::kL2, 1e-4); }
TEST_F(VectorReferenceTest, IvfPqDot) { CheckTable("pq_dot", VectorIndexType::kIvfPq, DistanceType::kDot, 1e-4); }

// The SQ storage (auxiliary.idx) of the reference's IVF_HNSW_SQ is what IVF_SQ stores:
// Lancet reads it, and its SQ distance of every row the reference's HNSW search
// returned equals the reference's _distance.
TEST_F(VectorReferenceTest, ReadsTheReferencesSqStorage) {
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(dir_ + "/hnsw_sq.lance"));
  ASSERT_OK_AND_ASSIGN(auto indices, ds->ListIndices());
  ASSERT_EQ(indices.size(), 1u);
  ASSERT_EQ(VectorTypeOf(indices[0]), VectorIndexType::kIvfHnswSq);
  ASSERT_OK_AND_ASSIGN(std::string dir, ds->IndexDirectory(indices[0]));
  ASSERT_OK_AND_ASSIGN(auto file, OpenIndexFile(*ds->store(), dir, "auxiliary.idx"));
  ASSERT_OK_AND_ASSIGN(auto storage, IvfStorage::Open(std::move(file), StorageKind::kSq, 32));
  ASSERT_EQ(storage->partitions().num_partitions(), 2u);
  EXPECT_LT(storage->bounds().start, storage->bounds().end);
  int checked = 0;
  for (const Answer& a : answers_) {
    if (a.table != "hnsw_sq") continue;
    TopK all(4000);
    for (uint32_t p = 0; p < 2; ++p) {
      ASSERT_OK(storage->Scan(p, queries_[a.query].data(), nullptr, DistanceType::kL2, nullptr, all));
    }
    std::map<uint64_t, float> by_row;
    for (const VectorHit& h : all.Take()) by_row[h.row] = h.distance;
    ASSERT_EQ(by_row.size(), 4000u);
    for (size_t i = 0; i < a.rows.size(); ++i) {
      ASSERT_TRUE(by_row.count(a.rows[i]));
      EXPECT_NEAR(by_row[a.rows[i]], a.distances[i], 1e-4 * std::max(1.0, std::abs(a.distances[i])));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// IVF_HNSW_SQ both ways. Lancet searches the reference's segment (2 partitions, m 20,
// ef_construction 300) and returns the reference's rows and SQ distances, with a wide
// beam and with the default one (ef = 1.5 k). The reference lists, plans with and
// searches a segment Lancet built on the same rows, with the recall of its own, and
// both write the same VectorIndexDetails.
TEST_F(VectorReferenceTest, IvfHnswSqBothWays) {
  CheckAnswers(dir_, answers_, "hnsw_sq", VectorIndexType::kIvfHnswSq, DistanceType::kL2, 1e-4, 2);
  // The script's queries at nprobes 1, 3 and 8 with the default ef, and its recall.
  const auto run = [&](const std::string& db, const std::string& spec, std::vector<Answer>* answers,
                       std::vector<nlohmann::json>* reports, const std::string& filter = "") {
    const std::string cmd = "VECTOR_FILTER='" + filter + "' LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                            "' node '" LANCET_SOURCE_DIR "/tests/index/vector_reference_search.mjs' '" +
                            testing::PeerHarnessDir() + "/lib/peer.mjs' '" + db + "' '" + dir_ + "/queries.json' '" +
                            spec + "' 2>>'" + dir_ + "/hnsw.err'";
    return RunNode(cmd, answers, reports);
  };
  std::vector<Answer> theirs;
  std::vector<nlohmann::json> their_reports;
  ASSERT_TRUE(run(dir_, "hnsw_sq:l2:recall", &theirs, &their_reports));
  ASSERT_EQ(their_reports.size(), 1u);
  CheckAnswers(dir_, theirs, "hnsw_sq", VectorIndexType::kIvfHnswSq, DistanceType::kL2, 1e-4, 2);

  const std::string db = dir_ + "/lancet_hnsw";
  fs::create_directories(db);
  fs::copy(dir_ + "/flat_l2.lance", db + "/l_hnsw.lance", fs::copy_options::recursive);
  {
    ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(db + "/l_hnsw.lance"));
    ASSERT_OK(DropIndex(*ds, "vec_idx").status());
  }
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(db + "/l_hnsw.lance"));
  CreateVectorIndexOptions options;
  options.params = {{"num_partitions", "2"}};
  ASSERT_OK_AND_ASSIGN(table::IndexMetadata meta, CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfHnswSq, options));
  std::vector<Answer> ours;
  std::vector<nlohmann::json> reports;
  ASSERT_TRUE(run(db, "l_hnsw:l2:recall", &ours, &reports));
  ASSERT_EQ(reports.size(), 1u);
  const nlohmann::json& r = reports[0];
  ASSERT_EQ(r["indices"].size(), 1u);
  EXPECT_EQ(r["indices"][0]["indexType"], "IvfHnswSq");
  EXPECT_EQ(r["stats"]["numIndexedRows"], 4000);
  EXPECT_EQ(r["stats"]["numUnindexedRows"], 0);
  const std::string plan = r["plan"].get<std::string>();
  EXPECT_NE(plan.find("ANNSubIndex: name=vec_idx"), std::string::npos) << plan;
  EXPECT_NE(plan.find("ANNIvfPartition: uuid=" + meta.uuid), std::string::npos) << plan;
  const double their_recall = their_reports[0]["recall"].get<double>();
  const double our_recall = r["recall"].get<double>();
  std::printf("[ recall ] reference's IVF_HNSW_SQ search over its segment %.3f, over Lancet's %.3f\n", their_recall,
              our_recall);
  EXPECT_GE(our_recall, their_recall - 0.02);
  // Same graph, same search: the reference's answers over Lancet's graphs are Lancet's.
  CheckAnswers(db, ours, "l_hnsw", VectorIndexType::kIvfHnswSq, DistanceType::kL2, 1e-4, 2);

  // Prefiltered: half the rows admitted (the walk goes through all nodes) and 300 of
  // 4000 (under 10% of each partition: an exhaustive scan of them). Both sides answer
  // alike over both segments. Row addresses: fragment 0 holds ids 0..2999, fragment 1
  // ids 3000..3999.
  const std::function<bool(uint64_t)> even = [](uint64_t row) { return (row & 0xffffffff) % 2 == 0; };
  const std::function<bool(uint64_t)> few = [](uint64_t row) { return (row >> 32) == 0 && (row & 0xffffffff) < 300; };
  for (const auto& [filter, allowed] : {std::pair{"id % 2 = 0", &even}, std::pair{"id < 300", &few}}) {
    SCOPED_TRACE(filter);
    std::vector<Answer> their_filtered, our_filtered;
    std::vector<nlohmann::json> ignored;
    ASSERT_TRUE(run(dir_, "hnsw_sq:l2", &their_filtered, &ignored, filter));
    ASSERT_TRUE(run(db, "l_hnsw:l2", &our_filtered, &ignored, filter));
    for (const auto* answers : {&their_filtered, &our_filtered}) {
      for (const Answer& a : *answers) {
        EXPECT_EQ(a.rows.size(), 10u);
        for (uint64_t row : a.rows) EXPECT_TRUE((*allowed)(row)) << row;
      }
    }
    CheckAnswers(dir_, their_filtered, "hnsw_sq", VectorIndexType::kIvfHnswSq, DistanceType::kL2, 1e-4, 2, allowed);
    CheckAnswers(db, our_filtered, "l_hnsw", VectorIndexType::kIvfHnswSq, DistanceType::kL2, 1e-4, 2, allowed);
  }

  // The manifest side is the reference's, field for field.
  ASSERT_OK_AND_ASSIGN(auto reference_ds, table::Dataset::Open(dir_ + "/hnsw_sq.lance"));
  ASSERT_OK_AND_ASSIGN(auto reference_indices, reference_ds->ListIndices());
  ASSERT_OK_AND_ASSIGN(VectorDetails want, ParseVectorDetails(reference_indices[0]));
  ASSERT_OK_AND_ASSIGN(VectorDetails got, ParseVectorDetails(meta));
  EXPECT_EQ(got.hnsw_m, want.hnsw_m);
  EXPECT_EQ(got.hnsw_ef_construction, want.hnsw_ef_construction);
  EXPECT_EQ(got.hnsw_max_level, want.hnsw_max_level);
  EXPECT_EQ(got.sq_num_bits, want.sq_num_bits);
  EXPECT_EQ(got.runtime_hints, want.runtime_hints);
  EXPECT_EQ(meta.index_version, reference_indices[0].index_version);
  ASSERT_OK_AND_ASSIGN(std::string their_dir, reference_ds->IndexDirectory(reference_indices[0]));
  ASSERT_OK_AND_ASSIGN(std::string our_dir, ds->IndexDirectory(meta));
  ASSERT_OK_AND_ASSIGN(auto their_main, OpenIndexFile(*reference_ds->store(), their_dir, "index.idx"));
  ASSERT_OK_AND_ASSIGN(auto our_main, OpenIndexFile(*ds->store(), our_dir, "index.idx"));
  std::vector<std::string> their_keys, our_keys;
  for (const auto& [k, v] : their_main->file_schema().metadata) their_keys.push_back(k);
  for (const auto& [k, v] : our_main->file_schema().metadata) our_keys.push_back(k);
  std::sort(their_keys.begin(), their_keys.end());
  std::sort(our_keys.begin(), our_keys.end());
  EXPECT_EQ(our_keys, their_keys);
  EXPECT_EQ(IndexFileMetadata(*our_main, "lance:index"), IndexFileMetadata(*their_main, "lance:index"));
}

// Lancet builds the indexes on copies of the reference's tables; the reference lists
// them, plans with them and its vectorSearch answers equal Lancet's Search.
TEST_F(VectorReferenceTest, ReferenceSearchesLancetIndexes) {
  struct Build {
    std::string table, source;
    VectorIndexType type;
    DistanceType distance;
    std::map<std::string, std::string> params;
  };
  const std::map<std::string, std::string> pq = {{"num_partitions", "8"}, {"num_sub_vectors", "4"}};
  const std::vector<Build> builds = {
      {"l_flat_l2", "flat_l2", VectorIndexType::kIvfFlat, DistanceType::kL2, {{"num_partitions", "8"}}},
      {"l_flat_cos", "flat_cos", VectorIndexType::kIvfFlat, DistanceType::kCosine, {{"num_partitions", "8"}}},
      {"l_flat_dot", "flat_dot", VectorIndexType::kIvfFlat, DistanceType::kDot, {{"num_partitions", "8"}}},
      {"l_pq_l2", "pq_l2", VectorIndexType::kIvfPq, DistanceType::kL2, pq},
      {"l_pq_cos", "pq_cos", VectorIndexType::kIvfPq, DistanceType::kCosine, pq},
      {"l_pq_dot", "pq_dot", VectorIndexType::kIvfPq, DistanceType::kDot, pq},
      {"l_sq_l2", "flat_l2", VectorIndexType::kIvfSq, DistanceType::kL2, {{"num_partitions", "8"}}},
      {"l_sq_cos", "flat_cos", VectorIndexType::kIvfSq, DistanceType::kCosine, {{"num_partitions", "8"}}},
      {"l_flat_f16", "plain_f16", VectorIndexType::kIvfFlat, DistanceType::kL2, {{"num_partitions", "8"}}},
      {"l_pq_f16", "plain_f16", VectorIndexType::kIvfPq, DistanceType::kL2, pq},
      {"l_sq_f16", "plain_f16", VectorIndexType::kIvfSq, DistanceType::kL2, {{"num_partitions", "8"}}},
  };
  const std::string db = dir_ + "/lancet";
  fs::create_directories(db);
  std::map<std::string, std::string> uuids;
  std::string specs;
  for (const Build& b : builds) {
    fs::copy(dir_ + "/" + b.source + ".lance", db + "/" + b.table + ".lance", fs::copy_options::recursive);
    ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(db + "/" + b.table + ".lance"));
    ASSERT_OK_AND_ASSIGN(auto listed, ds->ListIndices());
    if (!listed.empty()) ASSERT_OK(DropIndex(*ds, "vec_idx").status());
    ASSERT_OK_AND_ASSIGN(auto latest, table::Dataset::Open(db + "/" + b.table + ".lance"));
    CreateVectorIndexOptions options;
    options.distance = b.distance;
    options.params = b.params;
    ASSERT_OK_AND_ASSIGN(table::IndexMetadata meta, CreateVectorIndex(*latest, "vec", b.type, options));
    uuids[b.table] = meta.uuid;
    specs += " '" + b.table + ":" + DistanceTypeName(b.distance) + "'";
  }
  const std::string cmd = "LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                          "' node '" LANCET_SOURCE_DIR "/tests/index/vector_reference_search.mjs' '" +
                          testing::PeerHarnessDir() + "/lib/peer.mjs' '" + db + "' '" + dir_ + "/queries.json'" +
                          specs + " 2>'" + dir_ + "/search.err'";
  std::vector<Answer> answers;
  std::vector<nlohmann::json> reports;
  ASSERT_TRUE(RunNode(cmd, &answers, &reports)) << "the peer search script failed";
  ASSERT_EQ(reports.size(), builds.size());
  for (size_t i = 0; i < builds.size(); ++i) {
    const Build& b = builds[i];
    const nlohmann::json& r = reports[i];
    ASSERT_EQ(r["table"], b.table);
    ASSERT_EQ(r["indices"].size(), 1u);
    EXPECT_EQ(r["indices"][0]["indexType"], VectorIndexTypeName(b.type)) << b.table;
    EXPECT_EQ(r["stats"]["numIndexedRows"], 4000) << b.table;
    EXPECT_EQ(r["stats"]["numUnindexedRows"], 0) << b.table;
    const std::string plan = r["plan"].get<std::string>();
    EXPECT_NE(plan.find("ANNSubIndex: name=vec_idx"), std::string::npos) << b.table << "\n" << plan;
    EXPECT_NE(plan.find("ANNIvfPartition: uuid=" + uuids[b.table]), std::string::npos) << b.table << "\n" << plan;
    CheckAnswers(db, answers, b.table, b.type, b.distance, 1e-4);
  }
}

// With stable row ids the index stores row ids, not addresses: Lancet's Search and
// the reference's vectorSearch of Lancet's index name the same rows by their ids.
TEST_F(VectorReferenceTest, StableRowIds) {
  const std::string db = dir_ + "/stable";
  const std::vector<float> data = ClusteredVectors(3000, 32, 12, 7);
  ASSERT_OK(WriteVectorDataset(db + "/s.lance", data, 32, {2000, 1000}, /*stable_row_ids=*/true));
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(db + "/s.lance"));
  ASSERT_TRUE(ds->stable_row_ids());
  CreateVectorIndexOptions options;
  options.params = {{"num_partitions", "8"}};
  ASSERT_OK(CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfFlat, options).status());
  const std::string cmd = "LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                          "' node '" LANCET_SOURCE_DIR "/tests/index/vector_reference_search.mjs' '" +
                          testing::PeerHarnessDir() + "/lib/peer.mjs' '" + db + "' '" + dir_ +
                          "/queries.json' s:l2 2>'" + dir_ + "/stable.err'";
  std::vector<Answer> answers;
  std::vector<nlohmann::json> reports;
  ASSERT_TRUE(RunNode(cmd, &answers, &reports)) << "the peer search script failed";
  bool second_fragment = false;
  for (const Answer& a : answers) {
    for (uint64_t r : a.rows) {
      EXPECT_LT(r, 3000u) << "a row address where a row id belongs";
      second_fragment = second_fragment || r >= 2000;
    }
  }
  EXPECT_TRUE(second_fragment);
  CheckAnswers(db, answers, "s", VectorIndexType::kIvfFlat, DistanceType::kL2, 1e-4);
}

}  // namespace
}  // namespace lancet::index
