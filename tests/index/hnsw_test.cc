// The HNSW sub-index: level draws as the reference's, recall against brute force,
// filtered search, and the index.idx row layout (round trip and damaged input).
#include "index/hnsw.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "hnsw_test_util.h"
#include "lancet/index/distance.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::index {
namespace {

constexpr uint32_t kDim = 32;

struct Fixture {
  std::vector<float> data;
  std::vector<float> queries;  // 300 more draws from the same clusters, not in the graph
  HnswGraph graph;
};

HnswPairDistance PairL2(const std::vector<float>& data, uint32_t dim) {
  return
      [&data, dim](uint32_t a, uint32_t b) { return L2Distance(&data[size_t{a} * dim], &data[size_t{b} * dim], dim); };
}
HnswQueryDistance QueryL2(const std::vector<float>& data, uint32_t dim, const float* q) {
  return [&data, dim, q](uint32_t id) { return L2Distance(q, &data[size_t{id} * dim], dim); };
}

// Built once: 5000 x 32 clustered vectors, m=20, ef_construction=300.
// Nodes a walk over level-0 links reaches from the entry point.
size_t ReachableOnLevel0(const HnswGraph& g) {
  std::vector<bool> seen(g.num_nodes());
  std::vector<uint32_t> stack{g.entry_point()};
  seen[g.entry_point()] = true;
  size_t reached = 0;
  while (!stack.empty()) {
    const uint32_t cur = stack.back();
    stack.pop_back();
    ++reached;
    for (uint32_t nb : g.Neighbors(0, cur)) {
      if (!seen[nb]) stack.push_back(nb), seen[nb] = true;
    }
  }
  return reached;
}

const Fixture& Big() {
  static const Fixture* f = [] {
    auto* fx = new Fixture;
    fx->data = ClusteredVectors(5300, kDim, 40, 7, 1.5f);
    fx->queries.assign(fx->data.begin() + 5000 * kDim, fx->data.end());
    fx->data.resize(5000 * kDim);
    HnswParams p;
    p.m = 20;
    p.ef_construction = 300;
    const auto start = std::chrono::steady_clock::now();
    fx->graph = HnswGraph::Build(5000, PairL2(fx->data, kDim), p).value();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("build 5000 x %u: %.2f s\n", kDim, s);
    return fx;
  }();
  return *f;
}

TEST(HnswLevels, MatchTheReferenceDraws) {
  // Node levels the reference drew for two partitions of 1285 and 1715 vectors (m=20,
  // max_level 7): level offsets [0,1285,1344,1345,...] and [0,1715,1807,1810,...],
  // entry point 364 in both.
  const auto levels = HnswLevels(1715, 20, 7, 42);
  auto count = [&](size_t n, uint16_t at_least) {
    return std::count_if(levels.begin(), levels.begin() + n, [&](uint16_t l) { return l >= at_least; });
  };
  EXPECT_EQ(count(1285, 1), 59);
  EXPECT_EQ(count(1285, 2), 1);
  EXPECT_EQ(count(1285, 3), 0);
  EXPECT_EQ(count(1715, 1), 92);
  EXPECT_EQ(count(1715, 2), 3);
  EXPECT_EQ(count(1715, 3), 0);
  const auto first_top = std::find(levels.begin(), levels.end(), 2) - levels.begin();
  EXPECT_EQ(first_top, 364);
  for (uint16_t l : HnswLevels(100000, 4, 3, 1)) ASSERT_LE(l, 2);
}

TEST(HnswBuild, RejectsWhatTheReferenceRejects) {
  HnswPairDistance d = [](uint32_t, uint32_t) { return 1.0f; };
  HnswParams p;
  p.max_level = 0;
  EXPECT_FALSE(HnswGraph::Build(10, d, p).ok());
  p = HnswParams{};
  p.m = 3;
  EXPECT_FALSE(HnswGraph::Build(10, d, p).ok());
  p = HnswParams{};
  p.ef_construction = 10;
  EXPECT_FALSE(HnswGraph::Build(10, d, p).ok());
  ASSERT_OK_AND_ASSIGN(HnswGraph empty, HnswGraph::Build(0, d, HnswParams{}));
  EXPECT_EQ(empty.num_nodes(), 0u);
  ASSERT_OK_AND_ASSIGN(auto hits, empty.Search([](uint32_t) { return 0.0f; }, 5));
  EXPECT_TRUE(hits.empty());
}

TEST(HnswBuild, StructureHoldsTheReferenceInvariants) {
  const HnswGraph& g = Big().graph;
  ASSERT_EQ(g.num_nodes(), 5000u);
  ASSERT_EQ(g.num_levels(), 7u);
  const uint32_t m = g.params().m;
  for (size_t level = 0; level < g.num_levels(); ++level) {
    auto nodes = g.LevelNodes(level);
    EXPECT_TRUE(std::is_sorted(nodes.begin(), nodes.end()));
    for (uint32_t id : nodes) {
      auto nb = g.Neighbors(level, id);
      EXPECT_LE(nb.size(), level == 0 ? 2 * m + 1 : m) << level << " " << id;
      EXPECT_GE(nb.size(), std::min<size_t>(m, nodes.size() - 1)) << level << " " << id;
      EXPECT_EQ(g.NeighborDistances(level, id).size(), nb.size());
      for (uint32_t other : nb) EXPECT_TRUE(std::binary_search(nodes.begin(), nodes.end(), other)) << level;
    }
  }
  // Level 0 reaches every node from the entry point.
  EXPECT_EQ(ReachableOnLevel0(g), g.num_nodes());
  // The stored distances are the build distances.
  const auto& data = Big().data;
  for (uint32_t id = 0; id < 50; ++id) {
    auto nb = g.Neighbors(0, id);
    auto ds = g.NeighborDistances(0, id);
    for (size_t i = 0; i < nb.size(); ++i) {
      EXPECT_FLOAT_EQ(ds[i], L2Distance(&data[size_t{id} * kDim], &data[size_t{nb[i]} * kDim], kDim));
    }
  }
}

// Ties everywhere (identical vectors, a few distinct values, NaN) strand many nodes
// during insertion; the repair still links every node and the graph stays within the
// bounds the parser enforces.
TEST(HnswBuild, DegenerateDistancesStayConnectedAndParse) {
  const std::vector<HnswPairDistance> distances = {
      [](uint32_t, uint32_t) { return 0.0f; },
      [](uint32_t a, uint32_t b) { return static_cast<float>((a % 3 == b % 3) ? 0 : 1); },
      [](uint32_t a, uint32_t b) { return (a + b) % 7 == 0 ? std::nanf("") : static_cast<float>((a ^ b) % 5); },
  };
  for (size_t i = 0; i < distances.size(); ++i) {
    HnswParams p;
    p.m = 4;
    p.ef_construction = 8;
    ASSERT_OK_AND_ASSIGN(HnswGraph g, HnswGraph::Build(700, distances[i], p));
    EXPECT_EQ(ReachableOnLevel0(g), 700u) << i;
    ASSERT_OK_AND_ASSIGN(auto c, g.ToColumns());
    const Status parsed =
        HnswGraph::FromColumns(c.vector_id, c.neighbors, &c.distance, g.MetadataJson(), 700, "test").status();
    EXPECT_TRUE(parsed.ok()) << i << " " << parsed.ToString();
    ASSERT_OK_AND_ASSIGN(auto hits, g.Search([](uint32_t id) { return static_cast<float>(id % 11); }, 10, 20));
    EXPECT_EQ(hits.size(), 10u);
  }
}

TEST(HnswSearch, RecallAgainstBruteForce) {
  const Fixture& f = Big();
  constexpr uint32_t kQueries = 200;
  std::vector<std::vector<uint32_t>> truth;
  for (uint32_t q = 0; q < kQueries; ++q) truth.push_back(ExactNearest(f.data, kDim, &f.queries[q * kDim], 10));
  HnswScratch scratch;
  // ef 0 is the reference's default for k = 10 (15).
  for (uint32_t ef : {0u, 40u, 100u}) {
    std::vector<std::vector<HnswHit>> found;
    const auto start = std::chrono::steady_clock::now();
    for (uint32_t q = 0; q < kQueries; ++q) {
      ASSERT_OK_AND_ASSIGN(auto hits,
                           f.graph.Search(QueryL2(f.data, kDim, &f.queries[q * kDim]), 10, ef, nullptr, &scratch));
      found.push_back(std::move(hits));
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    double recall = 0;
    for (uint32_t q = 0; q < kQueries; ++q) {
      ASSERT_EQ(found[q].size(), 10u);
      for (size_t i = 1; i < 10; ++i) ASSERT_LE(found[q][i - 1].distance, found[q][i].distance);
      recall += Recall(found[q], truth[q]);
    }
    recall /= kQueries;
    std::printf("ef=%u recall@10 %.4f, %.1f us/query\n", ef, recall, us / kQueries);
    EXPECT_GE(recall, 0.95) << "ef " << ef;
  }
}

TEST(HnswSearch, FiltersAsTheReference) {
  const Fixture& f = Big();
  const float* queries = &f.queries[200 * kDim];
  // 50% admitted walks the graph; 5% admitted is an exact scan.
  for (uint32_t modulo : {2u, 20u}) {
    std::function<bool(uint32_t)> allowed = [modulo](uint32_t id) { return id % modulo == 0; };
    double recall = 0;
    for (uint32_t q = 0; q < 50; ++q) {
      const float* query = &queries[size_t{q} * kDim];
      ASSERT_OK_AND_ASSIGN(auto hits, f.graph.Search(QueryL2(f.data, kDim, query), 10, 100, &allowed));
      for (const HnswHit& h : hits) ASSERT_EQ(h.id % modulo, 0u);
      const auto truth = ExactNearest(f.data, kDim, query, 10, &allowed);
      ASSERT_EQ(hits.size(), truth.size());
      recall += Recall(hits, truth);
    }
    recall /= 50;
    if (modulo == 20) {
      EXPECT_EQ(recall, 1.0);
    }
    EXPECT_GE(recall, 0.95) << modulo;
  }
  std::function<bool(uint32_t)> none = [](uint32_t) { return false; };
  ASSERT_OK_AND_ASSIGN(auto hits, f.graph.Search(QueryL2(f.data, kDim, &queries[0]), 10, 100, &none));
  EXPECT_TRUE(hits.empty());
  EXPECT_FALSE(f.graph.Search(QueryL2(f.data, kDim, &queries[0]), 10, 9).ok());
}

TEST(HnswBuild, ThreadedBuildIsDeterministicAndAsGood) {
  const Fixture& f = Big();
  HnswParams p = f.graph.params();
  p.threads = 2;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(HnswGraph two, HnswGraph::Build(5000, PairL2(f.data, kDim), p));
  std::printf("build 5000 x %u on 2 threads: %.2f s\n", kDim,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  p.threads = 3;
  ASSERT_OK_AND_ASSIGN(HnswGraph three, HnswGraph::Build(5000, PairL2(f.data, kDim), p));
  ASSERT_OK_AND_ASSIGN(auto a, two.ToColumns());
  ASSERT_OK_AND_ASSIGN(auto b, three.ToColumns());
  EXPECT_TRUE(ArraysEqual(a.neighbors, b.neighbors));
  EXPECT_TRUE(ArraysEqual(a.distance, b.distance));
  EXPECT_EQ(two.MetadataJson(), f.graph.MetadataJson());
  double recall = 0;
  for (uint32_t q = 0; q < 200; ++q) {
    ASSERT_OK_AND_ASSIGN(auto hits, two.Search(QueryL2(f.data, kDim, &f.queries[q * kDim]), 10));
    recall += Recall(hits, ExactNearest(f.data, kDim, &f.queries[q * kDim], 10));
  }
  EXPECT_GE(recall / 200, 0.95);
}

TEST(HnswSearch, ThreadsShareAGraph) {
  const Fixture& f = Big();
  const auto run = [&](uint32_t first, std::vector<std::vector<uint32_t>>* out) {
    HnswScratch scratch;
    for (uint32_t q = first; q < first + 100; ++q) {
      auto hits = f.graph.Search(QueryL2(f.data, kDim, &f.queries[q * kDim]), 10, 40, nullptr, &scratch).value();
      std::vector<uint32_t> ids;
      for (const HnswHit& h : hits) ids.push_back(h.id);
      out->push_back(std::move(ids));
    }
  };
  std::vector<std::vector<uint32_t>> alone, a, b;
  run(0, &alone);
  std::thread ta(run, 0, &a), tb(run, 0, &b);
  ta.join();
  tb.join();
  EXPECT_EQ(a, alone);
  EXPECT_EQ(b, alone);
}

TEST(HnswSearch, IsDeterministic) {
  const auto data = ClusteredVectors(800, 8, 5, 3);
  HnswParams p;
  p.ef_construction = 60;
  // Two builds at once (as an IVF build may run partitions in parallel) agree.
  Result<HnswGraph> other = Status::Internal("not run");
  std::thread t([&] { other = HnswGraph::Build(800, PairL2(data, 8), p); });
  ASSERT_OK_AND_ASSIGN(HnswGraph a, HnswGraph::Build(800, PairL2(data, 8), p));
  t.join();
  ASSERT_OK_AND_ASSIGN(HnswGraph b, std::move(other));
  EXPECT_EQ(a.MetadataJson(), b.MetadataJson());
  ASSERT_OK_AND_ASSIGN(auto ca, a.ToColumns());
  ASSERT_OK_AND_ASSIGN(auto cb, b.ToColumns());
  EXPECT_TRUE(ArraysEqual(ca.neighbors, cb.neighbors));
  EXPECT_TRUE(ArraysEqual(ca.distance, cb.distance));
}

}  // namespace
}  // namespace lancet::index
