// HNSW graphs the reference (lance 12 through the Node peer) wrote into an IVF_HNSW_SQ
// index.idx: they parse, hold the structure docs/hnsw-format.md describes, and searching
// them over the original vectors finds the true neighbours. Skipped when node or the peer
// is not installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/peer.h"
#include "hnsw_test_util.h"
#include "index/hnsw.h"
#include "index/index_file.h"
#include "lancet/format/file_writer.h"
#include "lancet/index/distance.h"
#include "lancet/io/object_store.h"
#include "lancet/table/dataset.h"
#include "lancet/table/index_metadata.h"
#include "table/commit.h"
#include "util/test_macros.h"

namespace lancet::index {
namespace {

namespace fs = std::filesystem;
constexpr uint32_t kDim = 16;

struct Partition {
  HnswGraph graph;
  std::vector<uint64_t> rows;  // storage row -> row address
  std::vector<uint8_t> codes;  // storage row -> kDim SQ codes
};

// The SQ distance the reference builds the graph with: squared L2 between the u8
// codes, scaled back by (range / 255)^2.
float SqDistance(const Partition& p, float range, uint32_t a, uint32_t b) {
  uint32_t sum = 0;
  for (uint32_t d = 0; d < kDim; ++d) {
    const int diff = int{p.codes[a * kDim + d]} - int{p.codes[b * kDim + d]};
    sum += static_cast<uint32_t>(diff * diff);
  }
  return static_cast<float>(sum) * (range * range) / (255.0f * 255.0f);
}

// Fields 2 (offsets) and 3 (lengths) of the lance.index.pb.IVF message in `buf`: packed
// varints, as protobuf writes repeated integers.
void IvfOffsetsAndLengths(const uint8_t* p, const uint8_t* end, std::vector<uint64_t>* offsets,
                          std::vector<uint64_t>* lengths) {
  const auto varint = [&](const uint8_t*& q) {
    uint64_t v = 0;
    for (int shift = 0; q < end && shift < 64; shift += 7) {
      const uint8_t b = *q++;
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) break;
    }
    return v;
  };
  while (p < end) {
    const uint64_t tag = varint(p);
    const uint64_t field = tag >> 3, wire = tag & 7;
    if (wire == 0) {
      const uint64_t v = varint(p);
      if (field == 2) offsets->push_back(v);
      if (field == 3) lengths->push_back(v);
    } else if (wire == 2) {
      const uint64_t len = varint(p);
      const uint8_t* stop = p + std::min<uint64_t>(len, end - p);
      while ((field == 2 || field == 3) && p < stop) (field == 2 ? offsets : lengths)->push_back(varint(p));
      p = stop;
    } else if (wire == 1) {
      p += 8;
    } else if (wire == 5) {
      p += 4;
    } else {
      return;
    }
  }
}

class HnswReferenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::PeerScratchDir("lancet-hnswref");
    if (dir_.empty()) return;
    const std::string cmd = "LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                            "' node '" LANCET_SOURCE_DIR "/tests/index/hnsw_reference.mjs' '" +
                            testing::PeerHarnessDir() + "/lib/peer.mjs' '" + dir_ + "' > '" + dir_ + "/peer.err' 2>&1";
    ok_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (dir_.empty()) GTEST_SKIP() << "node or the lance peer is not installed";
    ASSERT_TRUE(ok_) << "the peer script failed; see " << dir_ << "/peer.err";
  }
  static std::string SegmentDir() {
    for (const auto& e : fs::directory_iterator(dir_ + "/db/t.lance/_indices")) return e.path().string();
    return "";
  }
  static std::vector<float> Vectors() {
    std::ifstream in(dir_ + "/vectors.f32", std::ios::binary);
    std::vector<float> v(3000 * kDim);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
    return v;
  }
  // Every partition of the segment: graph rows from index.idx, row addresses from
  // auxiliary.idx. Partitions are consecutive in both files.
  static void Load(std::vector<Partition>* parts, std::vector<std::string>* metadata, float* sq_range = nullptr) {
    auto store = io::LocalFileSystem();
    ASSERT_OK_AND_ASSIGN(auto index, OpenIndexFile(*store, SegmentDir(), "index.idx"));
    ASSERT_OK_AND_ASSIGN(auto aux, OpenIndexFile(*store, SegmentDir(), "auxiliary.idx"));
    const Schema& schema = index->file_schema();
    ASSERT_EQ(schema.fields.size(), 3u);
    const std::vector<Field> ours = HnswFields();
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(schema.fields[i].name, ours[i].name);
      EXPECT_EQ(schema.fields[i].type.ToString(), ours[i].type.ToString());
      EXPECT_EQ(schema.fields[i].nullable, ours[i].nullable);
      EXPECT_EQ(schema.fields[i].type.children.empty() || schema.fields[i].type.children[0].nullable,
                ours[i].type.children.empty() || ours[i].type.children[0].nullable);
    }
    EXPECT_EQ(schema.fields[0].name, kHnswVectorIdColumn);
    EXPECT_EQ(schema.fields[0].type.ToString(), "uint32");
    EXPECT_EQ(schema.fields[1].name, kHnswNeighborsColumn);
    EXPECT_EQ(schema.fields[1].type.ToString(), "list<uint32>");
    EXPECT_EQ(schema.fields[2].name, kHnswDistanceColumn);
    EXPECT_EQ(schema.fields[2].type.ToString(), "list<float32>");
    if (sq_range != nullptr) {
      const auto storage = nlohmann::json::parse(IndexFileMetadata(*aux, "storage_metadata"), nullptr, false);
      ASSERT_TRUE(storage.is_array() && storage.size() == 1 && storage[0].is_string());
      const auto bounds = nlohmann::json::parse(storage[0].get<std::string>())["bounds"];
      *sq_range = static_cast<float>(bounds["end"].get<double>() - bounds["start"].get<double>());
    }
    const std::string array = IndexFileMetadata(*index, kHnswMetadataKey);
    ASSERT_OK_AND_ASSIGN(auto strings, ParseHnswMetadataArray(array, 2, "index.idx"));
    EXPECT_EQ(HnswMetadataArray(strings), array);
    uint64_t graph_row = 0, storage_row = 0;
    for (const std::string& entry : strings) {
      metadata->push_back(entry);
      const auto meta = nlohmann::json::parse(metadata->back());
      const uint64_t rows = meta["level_offsets"].back().get<uint64_t>();
      const uint64_t n = meta["level_offsets"][1].get<uint64_t>();
      ASSERT_OK_AND_ASSIGN(Array ids, ReadIndexColumn(*index, 0, graph_row, graph_row + rows));
      ASSERT_OK_AND_ASSIGN(Array nbs, ReadIndexColumn(*index, 1, graph_row, graph_row + rows));
      ASSERT_OK_AND_ASSIGN(Array ds, ReadIndexColumn(*index, 2, graph_row, graph_row + rows));
      ASSERT_OK_AND_ASSIGN(Array addrs, ReadIndexColumn(*aux, 0, storage_row, storage_row + n));
      ASSERT_OK_AND_ASSIGN(Array codes, ReadIndexColumn(*aux, 1, storage_row, storage_row + n));
      Partition p;
      ASSERT_OK_AND_ASSIGN(p.graph, HnswGraph::FromColumns(ids, nbs, &ds, metadata->back(), static_cast<uint32_t>(n),
                                                           "reference partition"));
      p.rows.assign(addrs.values<uint64_t>(), addrs.values<uint64_t>() + n);
      p.codes.assign(codes.children[0].values<uint8_t>(), codes.children[0].values<uint8_t>() + n * kDim);
      parts->push_back(std::move(p));
      graph_row += rows;
      storage_row += n;
    }
    EXPECT_EQ(graph_row, index->num_rows());
    EXPECT_EQ(storage_row, aux->num_rows());
    // The IVF model's offsets/lengths are the partitions' graph rows in index.idx.
    ASSERT_EQ(IndexFileMetadata(*index, "lance:ivf"), "1");
    ASSERT_OK_AND_ASSIGN(BufferPtr ivf, index->ReadGlobalBuffer(1));
    std::vector<uint64_t> offsets, lengths;
    IvfOffsetsAndLengths(ivf->data(), ivf->data() + ivf->size(), &offsets, &lengths);
    std::vector<uint64_t> want_offsets, want_lengths;
    uint64_t at = 0;
    for (const Partition& p : *parts) {
      want_offsets.push_back(at);
      want_lengths.push_back(p.graph.num_rows());
      at += p.graph.num_rows();
    }
    EXPECT_EQ(offsets, want_offsets);
    EXPECT_EQ(lengths, want_lengths);
  }

  // Runs the script's query mode on `dir`: the reference's recall@10 and whether its
  // filtered search was right.
  static std::pair<double, bool> PeerQuery(const std::string& dir) {
    const std::string cmd = "LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                            "' node '" LANCET_SOURCE_DIR "/tests/index/hnsw_reference.mjs' '" +
                            testing::PeerHarnessDir() + "/lib/peer.mjs' '" + dir + "' query 2>'" + dir + "/query.err'";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) return {0, false};
    double recall = 0;
    char ok[16] = {0};
    const int got = std::fscanf(p, "%lf %15s", &recall, ok);
    ::pclose(p);
    return {got == 2 ? recall : 0, std::string(ok) == "true"};
  }

  static inline std::string dir_;
  static inline bool ok_ = false;
};

TEST_F(HnswReferenceTest, GraphsHaveTheDocumentedStructure) {
  std::vector<Partition> parts;
  std::vector<std::string> metadata;
  float range = 0;
  ASSERT_NO_FATAL_FAILURE(Load(&parts, &metadata, &range));
  ASSERT_EQ(parts.size(), 2u);
  const auto vectors = Vectors();
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    const HnswGraph& g = parts[pi].graph;
    const uint32_t n = g.num_nodes();
    // Our serialization of what we parsed is the reference's metadata, byte for byte.
    EXPECT_EQ(g.MetadataJson(), metadata[pi]);
    EXPECT_EQ(g.num_levels(), 7u);
    EXPECT_EQ(g.params().m, 20u);
    EXPECT_EQ(g.params().ef_construction, 300u);
    // Levels are the seed-42 draws, and the entry point the first node at the top.
    const auto levels = HnswLevels(n, 20, 7, 42);
    const uint16_t top = *std::max_element(levels.begin(), levels.end());
    EXPECT_EQ(g.entry_point(), std::find(levels.begin(), levels.end(), top) - levels.begin());
    for (size_t level = 0; level < g.num_levels(); ++level) {
      std::vector<uint32_t> want;
      for (uint32_t id = 0; id < n; ++id) {
        if (levels[id] >= level) want.push_back(id);
      }
      auto got = g.LevelNodes(level);
      EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.end()), want) << "level " << level;
      for (uint32_t id : got) {
        auto nb = g.Neighbors(level, id);
        // Pruning refills up to the limit: m links at least (fewer only on a small
        // level), 2m on level 0 and m above (plus one on level 0 for a stranded node).
        EXPECT_LE(nb.size(), level == 0 ? 41u : 20u);
        EXPECT_GE(nb.size(), std::min<size_t>(20, got.size() - 1)) << level << " " << id;
        EXPECT_EQ(std::find(nb.begin(), nb.end(), id), nb.end()) << "self link";
        for (uint32_t other : nb) EXPECT_GE(levels[other], level);
        // _distance holds the SQ distance between the two nodes (to float rounding),
        // __vector_id being the row inside the partition in auxiliary.idx; it is near
        // the exact distance of the vectors those rows' addresses name.
        auto ds = g.NeighborDistances(level, id);
        for (size_t i = 0; i < nb.size(); ++i) {
          const float sq = SqDistance(parts[pi], range, id, nb[i]);
          EXPECT_NEAR(ds[i], sq, 1e-4 * sq) << level << " " << id;
          const float exact = L2Distance(&vectors[(parts[pi].rows[id] & 0xffffffff) * kDim],
                                         &vectors[(parts[pi].rows[nb[i]] & 0xffffffff) * kDim], kDim);
          EXPECT_NEAR(ds[i], exact, 0.15 * exact + 0.5) << level << " " << id;
        }
      }
    }
  }
}

TEST_F(HnswReferenceTest, SearchingWithExactDistancesFindsTheTrueNeighbours) {
  std::vector<Partition> parts;
  std::vector<std::string> metadata;
  ASSERT_NO_FATAL_FAILURE(Load(&parts, &metadata));
  const auto vectors = Vectors();
  double recall = 0;
  const uint32_t queries = 100;
  HnswScratch scratch;
  for (uint32_t q = 0; q < queries; ++q) {
    const float* query = &vectors[(q * 29 % 3000) * kDim];
    std::vector<HnswHit> merged;
    for (const Partition& p : parts) {
      const auto dist = [&](uint32_t id) {
        return L2Distance(query, &vectors[(p.rows[id] & 0xffffffff) * kDim], kDim);
      };
      ASSERT_OK_AND_ASSIGN(auto hits, p.graph.Search(dist, 10, 30, nullptr, &scratch));
      for (const HnswHit& h : hits) merged.push_back(HnswHit{static_cast<uint32_t>(p.rows[h.id]), h.distance});
    }
    std::sort(merged.begin(), merged.end(), [](const HnswHit& a, const HnswHit& b) { return a.distance < b.distance; });
    merged.resize(std::min<size_t>(merged.size(), 10));
    recall += Recall(merged, ExactNearest(vectors, kDim, query, 10));
  }
  recall /= queries;
  EXPECT_GE(recall, 0.95);
}

// With a filter admitting half the rows the walk still goes through every node, so the
// recall among admitted rows stays high.
TEST_F(HnswReferenceTest, FilteredSearchFindsAdmittedNeighbours) {
  std::vector<Partition> parts;
  std::vector<std::string> metadata;
  ASSERT_NO_FATAL_FAILURE(Load(&parts, &metadata));
  const auto vectors = Vectors();
  const std::function<bool(uint32_t)> even_row = [](uint32_t row) { return row % 2 == 0; };
  double recall = 0;
  for (uint32_t q = 0; q < 50; ++q) {
    const float* query = &vectors[(q * 31 % 3000) * kDim];
    std::vector<HnswHit> merged;
    for (const Partition& p : parts) {
      const auto dist = [&](uint32_t id) {
        return L2Distance(query, &vectors[(p.rows[id] & 0xffffffff) * kDim], kDim);
      };
      const std::function<bool(uint32_t)> allowed = [&](uint32_t id) { return even_row(p.rows[id] & 0xffffffff); };
      ASSERT_OK_AND_ASSIGN(auto hits, p.graph.Search(dist, 10, 30, &allowed));
      for (const HnswHit& h : hits) {
        ASSERT_TRUE(allowed(h.id));
        merged.push_back(HnswHit{static_cast<uint32_t>(p.rows[h.id]), h.distance});
      }
    }
    std::sort(merged.begin(), merged.end(), [](const HnswHit& a, const HnswHit& b) { return a.distance < b.distance; });
    merged.resize(std::min<size_t>(merged.size(), 10));
    recall += Recall(merged, ExactNearest(vectors, kDim, query, 10, &even_row));
  }
  EXPECT_GE(recall / 50, 0.95);
}

// The other way round: graphs Lancet builds (over the same SQ distances), written as
// index.idx of a new segment, are read and searched by the reference as well as its own.
TEST_F(HnswReferenceTest, ReferenceSearchesGraphsLancetBuilt) {
  const std::string copy = dir_ + "/ours";
  fs::create_directories(copy);
  fs::copy(dir_ + "/db", copy + "/db", fs::copy_options::recursive);
  fs::copy_file(dir_ + "/vectors.f32", copy + "/vectors.f32");
  ASSERT_OK_AND_ASSIGN(auto dataset, table::Dataset::Open(copy + "/db/t.lance"));
  ASSERT_OK_AND_ASSIGN(auto indices, dataset->ListIndices());
  ASSERT_EQ(indices.size(), 1u);
  const table::IndexMetadata& theirs = indices[0];
  auto store = dataset->store();
  ASSERT_OK_AND_ASSIGN(std::string their_dir, dataset->IndexDirectory(theirs));
  ASSERT_OK_AND_ASSIGN(auto index, OpenIndexFile(*store, their_dir, "index.idx"));
  ASSERT_OK_AND_ASSIGN(auto aux, OpenIndexFile(*store, their_dir, "auxiliary.idx"));
  std::vector<Partition> parts;
  std::vector<std::string> metadata;
  float range = 0;
  ASSERT_NO_FATAL_FAILURE(Load(&parts, &metadata, &range));

  std::vector<std::string> ours_metadata;
  std::vector<Array> ids, links, dists;
  for (size_t pi = 0; pi < parts.size(); ++pi) {
    const Partition& p = parts[pi];
    HnswParams params;
    params.m = 20;
    params.ef_construction = 300;
    const auto sq = [&](uint32_t a, uint32_t b) { return SqDistance(p, range, a, b); };
    ASSERT_OK_AND_ASSIGN(HnswGraph g, HnswGraph::Build(p.graph.num_nodes(), sq, params));
    // Same level draws, so the same rows per partition and the same IVF model.
    EXPECT_EQ(g.MetadataJson(), metadata[pi]);
    ASSERT_OK_AND_ASSIGN(auto c, g.ToColumns());
    ids.push_back(c.vector_id);
    links.push_back(c.neighbors);
    dists.push_back(c.distance);
    ours_metadata.push_back(g.MetadataJson());
  }
  Schema schema;
  schema.fields = HnswFields();
  schema.metadata = index->file_schema().metadata;
  schema.metadata[kHnswMetadataKey] = HnswMetadataArray(ours_metadata);
  RecordBatch batch;
  batch.schema = schema;
  ASSERT_OK_AND_ASSIGN(Array id_col, Concatenate(ids));
  ASSERT_OK_AND_ASSIGN(Array link_col, Concatenate(links));
  ASSERT_OK_AND_ASSIGN(Array dist_col, Concatenate(dists));
  batch.columns = {id_col, link_col, dist_col};
  batch.num_rows = id_col.length;

  table::IndexMetadata ours = theirs;
  ours.uuid = table::NewUuid();
  const std::string our_dir = dataset->root() + "/_indices/" + ours.uuid;
  ASSERT_OK_AND_ASSIGN(BufferPtr ivf, index->ReadGlobalBuffer(1));
  ASSERT_OK_AND_ASSIGN(auto writer, CreateIndexFile(store, our_dir, "index.idx", schema));
  ASSERT_OK_AND_ASSIGN(uint32_t buffer, writer->WriteGlobalBuffer({ivf->data(), ivf->size()}));
  ASSERT_EQ(buffer, 1u);
  ASSERT_OK(writer->Write(batch));
  ASSERT_OK_AND_ASSIGN(IndexFileEntry written, FinishIndexFile(*writer, "index.idx"));
  fs::copy_file(their_dir + "/auxiliary.idx", our_dir + "/auxiliary.idx");
  // The reference opens index files with the sizes the manifest records.
  ours.files = {{"index.idx", written.size_bytes}, {"auxiliary.idx", fs::file_size(our_dir + "/auxiliary.idx")}};
  ASSERT_OK(table::CommitIndexChange(*dataset, {ours}, {theirs.uuid}).status());

  const auto [their_recall, their_filter_ok] = PeerQuery(dir_);
  const auto [our_recall, our_filter_ok] = PeerQuery(copy);
  std::printf("reference recall@10 over its graphs %.3f, over Lancet's %.3f\n", their_recall, our_recall);
  EXPECT_TRUE(their_filter_ok);
  EXPECT_TRUE(our_filter_ok);
  EXPECT_GE(our_recall, 0.9);
  EXPECT_GE(our_recall, their_recall - 0.03);
}

}  // namespace
}  // namespace lancet::index
