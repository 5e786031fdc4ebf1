// One HNSW partition to index.idx rows and back, and damaged rows or metadata refused
// without a crash.
#include <gtest/gtest.h>

#include <random>

#include "hnsw_test_util.h"
#include "index/hnsw.h"
#include "lancet/index/distance.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::index {
namespace {

constexpr uint32_t kDim = 8;
constexpr uint32_t kN = 600;

struct Built {
  std::vector<float> data;
  HnswGraph graph;
  HnswGraph::Columns columns;
  std::string json;
};

const Built& Small() {
  static const Built* b = [] {
    auto* x = new Built;
    x->data = ClusteredVectors(kN, kDim, 6, 11);
    HnswParams p;
    p.m = 6;
    p.ef_construction = 40;
    p.max_level = 4;
    const auto& data = x->data;
    x->graph = HnswGraph::Build(
                   kN, [&](uint32_t a, uint32_t b) { return L2Distance(&data[a * kDim], &data[b * kDim], kDim); }, p)
                   .value();
    x->columns = x->graph.ToColumns().value();
    x->json = x->graph.MetadataJson();
    return x;
  }();
  return *b;
}

Result<HnswGraph> Parse(const Array& ids, const Array& nb, const Array* ds, const std::string& json,
                        uint32_t num_vectors = kN) {
  return HnswGraph::FromColumns(ids, nb, ds, json, num_vectors, "index.idx partition 0");
}

std::vector<uint32_t> U32(const Array& a) {
  const uint32_t* v = a.values<uint32_t>();
  return std::vector<uint32_t>(v, v + a.length);
}
Array MakeU32(const std::vector<uint32_t>& v) {
  return ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), v).value();
}
Array ListU32(const Array& like, const std::vector<uint32_t>& values) {
  Array out = like;
  out.children[0] = MakeU32(values);
  return out;
}

TEST(HnswFile, MetadataHasTheReferenceShape) {
  const Built& b = Small();
  // Keys in the reference's order; one offset per configured level plus one.
  EXPECT_EQ(b.json.rfind("{\"entry_point\":" + std::to_string(b.graph.entry_point()) +
                             ",\"params\":{\"max_level\":4,\"m\":6,\"ef_construction\":40,\"prefetch_distance\":2},"
                             "\"level_offsets\":[0,600,",
                         0),
            0u)
      << b.json;
  EXPECT_EQ(b.columns.vector_id.length, static_cast<int64_t>(b.graph.num_rows()));
  EXPECT_EQ(b.columns.neighbors.type.ToString(), "list<uint32>");
  EXPECT_EQ(b.columns.distance.type.ToString(), "list<float32>");
}

TEST(HnswFile, RoundTrips) {
  const Built& b = Small();
  ASSERT_OK_AND_ASSIGN(HnswGraph g, Parse(b.columns.vector_id, b.columns.neighbors, &b.columns.distance, b.json));
  EXPECT_EQ(g.MetadataJson(), b.json);
  ASSERT_OK_AND_ASSIGN(auto again, g.ToColumns());
  EXPECT_TRUE(ArraysEqual(again.vector_id, b.columns.vector_id));
  EXPECT_TRUE(ArraysEqual(again.neighbors, b.columns.neighbors));
  EXPECT_TRUE(ArraysEqual(again.distance, b.columns.distance));
  // Without the distance column (as the reference reads it) searches are the same.
  ASSERT_OK_AND_ASSIGN(HnswGraph nd, Parse(b.columns.vector_id, b.columns.neighbors, nullptr, b.json));
  for (uint32_t q = 0; q < 20; ++q) {
    const float* query = &b.data[q * 13 * kDim];
    auto dist = [&](uint32_t id) { return L2Distance(query, &b.data[id * kDim], kDim); };
    ASSERT_OK_AND_ASSIGN(auto x, b.graph.Search(dist, 5, 30));
    ASSERT_OK_AND_ASSIGN(auto y, nd.Search(dist, 5, 30));
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i].id, y[i].id);
  }
  // An empty partition: no rows and no metadata.
  Array no_ids = MakeU32({});
  ASSERT_OK_AND_ASSIGN(Array no_lists, MakeListArray(b.columns.neighbors.type, {0}, MakeU32({})));
  ASSERT_OK_AND_ASSIGN(HnswGraph empty, Parse(no_ids, no_lists, nullptr, ""));
  EXPECT_EQ(empty.num_nodes(), 0u);
}

TEST(HnswFile, RefusesBadMetadata) {
  const Built& b = Small();
  const Array& ids = b.columns.vector_id;
  const Array& nb = b.columns.neighbors;
  const std::string ok = b.json;
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = ok;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::vector<std::string> bad = {
      "",
      "[]",
      "{",
      replaced("\"entry_point\":", "\"entry_point\":99999999,\"x\":"),
      replaced("\"entry_point\":", "\"entry_point\":-1,\"x\":"),
      replaced("\"max_level\":4", "\"max_level\":0"),
      replaced("\"max_level\":4", "\"max_level\":70000"),
      replaced("\"m\":6", "\"m\":\"6\""),
      replaced("\"level_offsets\":[0,", "\"level_offsets\":[1,"),
      replaced("\"level_offsets\":[0,600,", "\"level_offsets\":[0,601,"),
      replaced("\"level_offsets\":[0,600,", "\"level_offsets\":[0,0,"),
      replaced("\"level_offsets\":[0,", "\"level_offsets\":[0,700,"),
      replaced("\"level_offsets\":[0,600,", "\"level_offsets\":[0,600,1.5,"),
      replaced("\"level_offsets\":[",
               "\"level_offsets\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
               "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"),
  };
  for (const std::string& json : bad) {
    auto r = Parse(ids, nb, nullptr, json);
    ASSERT_FALSE(r.ok()) << json;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << json;
    EXPECT_NE(r.status().message().find("index.idx partition 0"), std::string::npos) << r.status().message();
  }
  // More nodes than the partition has vectors.
  EXPECT_FALSE(Parse(ids, nb, nullptr, ok, kN - 1).ok());
}

TEST(HnswFile, RefusesBadRows) {
  const Built& b = Small();
  const Array& ids = b.columns.vector_id;
  const Array& nb = b.columns.neighbors;
  const Array& ds = b.columns.distance;
  auto id_values = U32(ids);
  auto nb_values = U32(nb.children[0]);
  // Level 0 out of order, an upper-level node that does not exist, a link past the end.
  for (auto [row, value] : std::vector<std::pair<size_t, uint32_t>>{{3, 4}, {kN + 1, kN}, {kN + 1, 1u << 31}}) {
    auto v = id_values;
    v[row] = value;
    EXPECT_FALSE(Parse(MakeU32(v), nb, &ds, b.json).ok()) << row;
  }
  for (size_t at : {size_t{0}, nb_values.size() / 2, nb_values.size() - 1}) {
    auto v = nb_values;
    v[at] = kN;
    EXPECT_FALSE(Parse(ids, ListU32(nb, v), &ds, b.json).ok()) << at;
  }
  // Columns of different lengths, or link and distance lists that disagree.
  EXPECT_FALSE(Parse(ArraySlice(ids, 0, ids.length - 1), nb, &ds, b.json).ok());
  EXPECT_FALSE(Parse(ids, nb, &b.columns.neighbors, b.json).ok());
  Array short_ds = ds;
  {
    std::vector<int64_t> offs;
    for (int64_t i = 0; i <= ds.length; ++i) offs.push_back(ds.ListRange(std::min(i, ds.length - 1)).first);
    offs.back() = ds.ListRange(ds.length - 1).second - 1;
    ASSERT_OK_AND_ASSIGN(short_ds, MakeListArray(ds.type, offs, ds.children[0]));
  }
  EXPECT_FALSE(Parse(ids, nb, &short_ds, b.json).ok());
  // A link list longer than 2m+1.
  {
    std::vector<int64_t> offs{0};
    std::vector<uint32_t> vals;
    for (int64_t r = 0; r < nb.length; ++r) {
      const size_t len = r == 5 ? 14 : 1;
      for (size_t i = 0; i < len; ++i) vals.push_back(static_cast<uint32_t>(i));
      offs.push_back(static_cast<int64_t>(vals.size()));
    }
    ASSERT_OK_AND_ASSIGN(Array long_nb, MakeListArray(nb.type, offs, MakeU32(vals)));
    EXPECT_FALSE(Parse(ids, long_nb, nullptr, b.json).ok());
  }
}

TEST(HnswFile, MetadataArray) {
  const std::vector<std::string> parts = {Small().json, "", Small().json};
  const std::string array = HnswMetadataArray(parts);
  EXPECT_EQ(array.substr(0, 3), "[\"{");
  ASSERT_OK_AND_ASSIGN(auto back, ParseHnswMetadataArray(array, 3, "index.idx"));
  EXPECT_EQ(back, parts);
  for (const char* bad : {"", "{}", "[1]", "[\"\",2]", "[\"\"]", "[\"\",\"\",\"\",\"\"]"}) {
    auto r = ParseHnswMetadataArray(bad, 3, "index.idx");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
}

// Random damage to ids, links and offsets: refused or parsed, and if parsed every
// search ends with valid ids.
TEST(HnswFile, RandomDamageNeverCrashes) {
  const Built& b = Small();
  std::mt19937 rng(5);
  const auto id_values = U32(b.columns.vector_id);
  const auto nb_values = U32(b.columns.neighbors.children[0]);
  int parsed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto ids = id_values;
    auto nbs = nb_values;
    std::string json = b.json;
    for (int flips = 0; flips < 3; ++flips) {
      const uint32_t bit = 1u << (rng() % 32);
      switch (rng() % 3) {
        case 0:
          ids[rng() % ids.size()] ^= bit;
          break;
        case 1:
          nbs[rng() % nbs.size()] ^= bit % 1024 == 0 ? 1 : bit % 1024;
          break;
        default:
          json[rng() % json.size()] ^= static_cast<char>(1 << (rng() % 7));
      }
    }
    auto r = Parse(MakeU32(ids), ListU32(b.columns.neighbors, nbs), nullptr, json);
    if (!r.ok()) continue;
    ++parsed;
    const HnswGraph& g = *r;
    for (uint32_t q = 0; q < 3; ++q) {
      const float* query = &b.data[(trial * 7 + q) % kN * kDim];
      auto hits = g.Search([&](uint32_t id) { return L2Distance(query, &b.data[id * kDim], kDim); }, 10, 20);
      ASSERT_TRUE(hits.ok());
      for (const HnswHit& h : *hits) ASSERT_LT(h.id, g.num_nodes());
    }
  }
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace lancet::index
