// Lancet-built IVF_HNSW_SQ segments: recall against exact search, the search over the SQ
// distances of the storage, filters, the reference's file layout, and damaged files.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "index/hnsw.h"
#include "index/index_file.h"
#include "index/ivf_model.h"
#include "index/ivf_storage.h"
#include "index/vector_details.h"
#include "lancet/index/scalar_index.h"
#include "lancet/index/vector_index.h"
#include "lancet/table/dataset.h"
#include "util/array_builder.h"
#include "util/test_macros.h"
#include "vector_test_util.h"

namespace lancet::index {
namespace {

namespace fs = std::filesystem;
constexpr uint32_t kDim = 32;
const std::vector<uint64_t> kFragments = {4000, 2000};

class IvfHnswTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "lancet-ivfhnsw-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    data_ = ClusteredVectors(6000, kDim, 24, 99);
    ASSERT_OK(WriteVectorDataset(dir_ + "/t.lance", data_, kDim, kFragments));
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<table::IndexMetadata> Build(std::map<std::string, std::string> params,
                                     DistanceType distance = DistanceType::kL2) {
    ASSIGN_OR_RETURN(auto ds, table::Dataset::Open(dir_ + "/t.lance"));
    CreateVectorIndexOptions options;
    options.distance = distance;
    options.params = std::move(params);
    return CreateVectorIndex(*ds, "vec", VectorIndexType::kIvfHnswSq, options);
  }
  std::shared_ptr<const VectorIndex> Open(const table::IndexMetadata& meta) {
    auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
    auto index = VectorIndex::Open(*ds, meta);
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    return index.ok() ? *index : nullptr;
  }
  std::vector<float> Query(int q, float noise = 0.3f) {
    std::mt19937 rng(q);
    std::vector<float> query(data_.begin() + (q * 97) * kDim, data_.begin() + (q * 97 + 1) * kDim);
    for (float& x : query) x += std::normal_distribution<float>(0, noise)(rng);
    return query;
  }
  double Recall(const VectorIndex& index, DistanceType distance, uint32_t nprobes, uint32_t ef = 0) {
    double total = 0;
    const int nq = 50;
    for (int q = 0; q < nq; ++q) {
      const std::vector<float> query = Query(q);
      VectorSearchParams sp;
      sp.nprobes = nprobes;
      sp.ef = ef;
      auto hits = index.Search(query.data(), sp, nullptr);
      EXPECT_TRUE(hits.ok()) << hits.status().ToString();
      if (!hits.ok()) return 0;
      std::set<uint64_t> got;
      for (const VectorHit& h : *hits) got.insert(h.row);
      int found = 0;
      for (uint64_t r : ExactTopK(data_, kDim, kFragments, query, 10, distance)) found += got.count(r);
      total += found / 10.0;
    }
    return total / nq;
  }

  std::string dir_;
  std::vector<float> data_;
};

TEST_F(IvfHnswTest, RecallL2) {
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "4"}}));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto index = Open(meta);
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->type(), VectorIndexType::kIvfHnswSq);
  const double recall = Recall(*index, DistanceType::kL2, 4);
  std::printf("[ recall ] IVF_HNSW_SQ l2, 6000 x 32-d, 4 partitions: %.3f (build %.2f s)\n", recall, secs);
  EXPECT_GE(recall, 0.95);
}

TEST_F(IvfHnswTest, RecallCosine) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "2"}}, DistanceType::kCosine));
  auto index = Open(meta);
  ASSERT_NE(index, nullptr);
  const double recall = Recall(*index, DistanceType::kCosine, 2);
  std::printf("[ recall ] IVF_HNSW_SQ cosine: %.3f\n", recall);
  EXPECT_GE(recall, 0.95);
}

// Dot over SQ codes is the dot of the codes, which ranks poorly against the exact dot
// (codes are offset by the bounds' start); the graph finds what that distance ranks
// first, as an exhaustive scan of the codes would.
TEST_F(IvfHnswTest, DotFindsWhatTheCodesRank) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "2"}}, DistanceType::kDot));
  auto index = Open(meta);
  ASSERT_NE(index, nullptr);
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(std::string dir, ds->IndexDirectory(meta));
  ASSERT_OK_AND_ASSIGN(auto file, OpenIndexFile(*ds->store(), dir, "auxiliary.idx"));
  ASSERT_OK_AND_ASSIGN(auto storage, IvfStorage::Open(std::move(file), StorageKind::kSq, kDim));
  double recall = 0;
  for (int q = 0; q < 20; ++q) {
    const std::vector<float> query = Query(q);
    TopK all(10);
    for (uint32_t p = 0; p < 2; ++p) {
      ASSERT_OK(storage->Scan(p, query.data(), nullptr, DistanceType::kDot, nullptr, all));
    }
    std::set<uint64_t> want;
    for (const VectorHit& h : all.Take()) want.insert(h.row);
    VectorSearchParams sp;
    sp.nprobes = 2;
    ASSERT_OK_AND_ASSIGN(auto hits, index->Search(query.data(), sp, nullptr));
    for (const VectorHit& h : hits) recall += want.count(h.row) / 200.0;
  }
  std::printf("[ recall ] IVF_HNSW_SQ dot against the exhaustive SQ scan: %.3f\n", recall);
  EXPECT_GE(recall, 0.8);
}

// With a wide beam the graph search finds what an exhaustive scan of the same SQ
// storage finds, with the same distances: HNSW answers in the storage's distances.
TEST_F(IvfHnswTest, WideBeamEqualsExhaustiveSqScan) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "2"}}));
  auto index = Open(meta);
  ASSERT_NE(index, nullptr);
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(std::string dir, ds->IndexDirectory(meta));
  ASSERT_OK_AND_ASSIGN(auto file, OpenIndexFile(*ds->store(), dir, "auxiliary.idx"));
  ASSERT_OK_AND_ASSIGN(auto storage, IvfStorage::Open(std::move(file), StorageKind::kSq, kDim));
  for (int q = 0; q < 10; ++q) {
    const std::vector<float> query = Query(q);
    TopK all(10);
    for (uint32_t p = 0; p < 2; ++p) {
      ASSERT_OK(storage->Scan(p, query.data(), nullptr, DistanceType::kL2, nullptr, all));
    }
    const std::vector<VectorHit> want = all.Take();
    VectorSearchParams sp;
    sp.nprobes = 2;
    sp.ef = 600;
    ASSERT_OK_AND_ASSIGN(auto hits, index->Search(query.data(), sp, nullptr));
    ASSERT_EQ(hits.size(), want.size());
    for (size_t i = 0; i < hits.size(); ++i) {
      EXPECT_FLOAT_EQ(hits[i].distance, want[i].distance) << q << " " << i;
    }
  }
}

TEST_F(IvfHnswTest, EfIsCheckedAndWidensTheBeam) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "2"}, {"m", "6"}, {"ef_construction", "12"}}));
  auto index = Open(meta);
  ASSERT_NE(index, nullptr);
  const std::vector<float> q = Query(3);
  VectorSearchParams sp;
  sp.nprobes = 2;
  sp.ef = 5;
  EXPECT_EQ(index->Search(q.data(), sp, nullptr).status().code(), StatusCode::kInvalidArgument);
  const double narrow = Recall(*index, DistanceType::kL2, 2, 10);
  const double wide = Recall(*index, DistanceType::kL2, 2, 200);
  std::printf("[ recall ] m=6: ef 10 %.3f, ef 200 %.3f\n", narrow, wide);
  EXPECT_GE(wide, narrow);
  EXPECT_GE(wide, 0.9);
}

// Filters: half the rows admitted walks the graph through all nodes; under 10% admitted
// scans the admitted rows exhaustively. Only admitted rows come back either way.
TEST_F(IvfHnswTest, AllowedRows) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "2"}}));
  auto index = Open(meta);
  ASSERT_NE(index, nullptr);
  const std::function<bool(uint64_t)> even = [](uint64_t row) { return row % 2 == 0; };
  const std::function<bool(uint64_t)> rare = [](uint64_t row) { return row % 50 == 7; };
  const std::function<bool(uint64_t)> all = [](uint64_t) { return true; };
  double recall = 0;
  for (int q = 0; q < 20; ++q) {
    const std::vector<float> query = Query(q);
    VectorSearchParams sp;
    sp.nprobes = 2;
    ASSERT_OK_AND_ASSIGN(auto hits, index->Search(query.data(), sp, &even));
    ASSERT_EQ(hits.size(), 10u);
    std::set<uint64_t> got;
    for (const VectorHit& h : hits) {
      EXPECT_TRUE(even(h.row));
      got.insert(h.row);
    }
    std::vector<uint64_t> want;
    for (uint64_t r : ExactTopK(data_, kDim, kFragments, query, 60, DistanceType::kL2)) {
      if (even(r) && want.size() < 10) want.push_back(r);
    }
    for (uint64_t r : want) recall += got.count(r) / 200.0;
    ASSERT_OK_AND_ASSIGN(auto few, index->Search(query.data(), sp, &rare));
    ASSERT_EQ(few.size(), 10u);
    for (const VectorHit& h : few) EXPECT_TRUE(rare(h.row));
    ASSERT_OK_AND_ASSIGN(auto plain, index->Search(query.data(), sp, nullptr));
    ASSERT_OK_AND_ASSIGN(auto admitted_all, index->Search(query.data(), sp, &all));
    ASSERT_EQ(plain.size(), admitted_all.size());
    for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(plain[i].row, admitted_all[i].row);
  }
  EXPECT_GE(recall, 0.9);
}

TEST_F(IvfHnswTest, FilesFollowTheReferenceLayout) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "3"}, {"m", "10"}, {"ef_construction", "50"}}));
  EXPECT_EQ(meta.type_url, "/lance.index.pb.VectorIndexDetails");
  EXPECT_EQ(meta.index_version, 1);
  ASSERT_OK_AND_ASSIGN(VectorDetails details, ParseVectorDetails(meta));
  EXPECT_EQ(details.type, VectorIndexType::kIvfHnswSq);
  EXPECT_EQ(details.hnsw_m, 10u);
  EXPECT_EQ(details.hnsw_ef_construction, 50u);
  EXPECT_EQ(details.hnsw_max_level, 7u);
  EXPECT_EQ(details.sq_num_bits, 8u);
  EXPECT_EQ(details.runtime_hints["lance.hnsw.prefetch_distance"], "2");
  EXPECT_EQ(details.runtime_hints["lance.sq.sample_rate"], "256");
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(std::string dir, ds->IndexDirectory(meta));
  // The manifest records the exact sizes: the reference opens the files with them.
  ASSERT_EQ(meta.files.size(), 2u);
  for (const auto& f : meta.files) EXPECT_EQ(f.size_bytes, fs::file_size(dir + "/" + f.path)) << f.path;
  ASSERT_OK_AND_ASSIGN(auto main, OpenIndexFile(*ds->store(), dir, "index.idx"));
  EXPECT_EQ(IndexFileMetadata(*main, "lance:index"), R"({"type":"IVF_HNSW_SQ","distance_type":"l2"})");
  EXPECT_EQ(IndexFileMetadata(*main, "lance:ivf"), "1");
  const std::vector<Field> want = HnswFields();
  ASSERT_EQ(main->file_schema().fields.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(main->file_schema().fields[i].name, want[i].name);
    EXPECT_EQ(main->file_schema().fields[i].type.ToString(), want[i].type.ToString());
  }
  ASSERT_OK_AND_ASSIGN(IvfModel ivf, ReadIvfModel(*main));
  EXPECT_EQ(ivf.dim, kDim);
  ASSERT_EQ(ivf.num_partitions(), 3u);
  ASSERT_OK_AND_ASSIGN(auto aux, OpenIndexFile(*ds->store(), dir, "auxiliary.idx"));
  ASSERT_OK_AND_ASSIGN(IvfModel stored, ReadIvfModel(*aux));
  EXPECT_EQ(aux->file_schema().fields[1].name, "__sq_code");
  ASSERT_OK_AND_ASSIGN(auto strings, ParseHnswMetadataArray(IndexFileMetadata(*main, "lance:hnsw"), 3, "index.idx"));
  uint64_t graph_rows = 0, vectors = 0;
  for (uint32_t p = 0; p < 3; ++p) {
    // The graph rows of each partition follow one another, levels as lance:hnsw says;
    // level 0 has one row per stored vector of the partition.
    EXPECT_EQ(ivf.offsets[p], graph_rows);
    const auto m = nlohmann::json::parse(strings[p]);
    EXPECT_EQ(m["params"]["m"], 10);
    EXPECT_EQ(m["params"]["ef_construction"], 50);
    EXPECT_EQ(m["params"]["max_level"], 7);
    EXPECT_EQ(m["level_offsets"].size(), 8u);
    EXPECT_EQ(m["level_offsets"][1].get<uint64_t>(), stored.lengths[p]);
    EXPECT_EQ(m["level_offsets"].back().get<uint64_t>(), ivf.lengths[p]);
    graph_rows += ivf.lengths[p];
    vectors += stored.lengths[p];
    ASSERT_OK_AND_ASSIGN(Array ids, ReadIndexColumn(*main, 0, ivf.offsets[p], ivf.offsets[p] + ivf.lengths[p]));
    ASSERT_OK_AND_ASSIGN(Array links, ReadIndexColumn(*main, 1, ivf.offsets[p], ivf.offsets[p] + ivf.lengths[p]));
    ASSERT_OK_AND_ASSIGN(Array dists, ReadIndexColumn(*main, 2, ivf.offsets[p], ivf.offsets[p] + ivf.lengths[p]));
    ASSERT_OK_AND_ASSIGN(HnswGraph g, HnswGraph::FromColumns(ids, links, &dists, strings[p], stored.lengths[p], "p"));
    EXPECT_EQ(g.MetadataJson(), strings[p]);
    EXPECT_GT(g.num_rows(), g.num_nodes());
  }
  EXPECT_EQ(graph_rows, main->num_rows());
  EXPECT_EQ(vectors, 6000u);
}

// The graph depends only on the data and the params, not on the machine's cores.
TEST_F(IvfHnswTest, BuildsAreDeterministic) {
  ASSERT_OK_AND_ASSIGN(auto first, Build({{"num_partitions", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto second, Build({{"num_partitions", "2"}}));
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  // The graphs and lance:hnsw are the same (the files' metadata maps may be ordered
  // differently).
  const auto read = [&](const table::IndexMetadata& m) {
    auto main = OpenIndexFile(*ds->store(), ds->IndexDirectory(m).MoveValue(), "index.idx").MoveValue();
    std::vector<std::string> out{IndexFileMetadata(*main, "lance:hnsw")};
    for (int c = 0; c < 3; ++c) {
      Array a = ReadIndexColumn(*main, c, 0, main->num_rows()).MoveValue();
      const Array& v = c == 0 ? a : a.children[0];
      const auto* bytes = reinterpret_cast<const char*>(v.values<uint32_t>());
      out.emplace_back(bytes, bytes + v.length * 4);
      for (int64_t r = 0; c > 0 && r < a.length; ++r) out.back() += std::to_string(a.ListRange(r).second) + ",";
    }
    return out;
  };
  EXPECT_EQ(read(first), read(second));
}

TEST_F(IvfHnswTest, RejectsBadParams) {
  EXPECT_EQ(Build({{"m", "3"}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Build({{"m", "20"}, {"ef_construction", "10"}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Build({{"num_sub_vectors", "4"}}).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(IvfHnswTest, DefaultsFollowTheReference) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({}));
  ASSERT_OK_AND_ASSIGN(VectorDetails details, ParseVectorDetails(meta));
  EXPECT_EQ(details.hnsw_m, 20u);
  EXPECT_EQ(details.hnsw_ef_construction, 300u);
  auto index = Open(meta);
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->num_partitions(), 1u);  // 6000 rows / 2^20, at least 1
}

// Searches from several threads on a freshly opened index (racing to load the
// partitions' graphs) answer as one thread does.
TEST_F(IvfHnswTest, ConcurrentSearchesAgree) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "3"}}));
  auto reference = Open(meta);
  ASSERT_NE(reference, nullptr);
  VectorSearchParams sp;
  sp.nprobes = 3;
  std::vector<std::vector<VectorHit>> want;
  for (int q = 0; q < 20; ++q) want.push_back(reference->Search(Query(q).data(), sp, nullptr).MoveValue());
  auto index = Open(meta);
  ASSERT_NE(index, nullptr);
  std::vector<std::vector<std::vector<VectorHit>>> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int q = 0; q < 20; ++q) {
        auto hits = index->Search(Query(q).data(), sp, nullptr);
        got[t].push_back(hits.ok() ? *hits : std::vector<VectorHit>{});
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& per_thread : got) {
    ASSERT_EQ(per_thread.size(), want.size());
    for (size_t q = 0; q < want.size(); ++q) {
      ASSERT_EQ(per_thread[q].size(), want[q].size());
      for (size_t i = 0; i < want[q].size(); ++i) EXPECT_EQ(per_thread[q][i].row, want[q][i].row);
    }
  }
}

// OptimizeIndices rebuilds the segment over appended rows with the same centroids, SQ
// bounds, m and ef_construction; the new rows are found.
TEST_F(IvfHnswTest, OptimizeKeepsTheModelAndParams) {
  ASSERT_OK_AND_ASSIGN(auto before, Build({{"num_partitions", "2"}, {"m", "8"}, {"ef_construction", "40"}}));
  const std::vector<float> more = ClusteredVectors(500, kDim, 24, 99);
  ASSERT_OK(WriteVectorDataset(dir_ + "/t.lance", more, kDim, {500}));
  auto appended = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(OptimizeIndicesResult result, OptimizeIndices(*appended));
  ASSERT_EQ(result.rebuilt, (std::vector<std::string>{"vec_idx"}));
  auto latest = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(auto indices, latest->ListIndices());
  ASSERT_EQ(indices.size(), 1u);
  ASSERT_OK_AND_ASSIGN(VectorDetails details, ParseVectorDetails(indices[0]));
  EXPECT_EQ(details.type, VectorIndexType::kIvfHnswSq);
  EXPECT_EQ(details.hnsw_m, 8u);
  EXPECT_EQ(details.hnsw_ef_construction, 40u);
  const auto centroids = [&](const table::IndexMetadata& m) {
    auto dir = latest->IndexDirectory(m).MoveValue();
    return ReadIvfModel(*OpenIndexFile(*latest->store(), dir, "index.idx").MoveValue()).MoveValue().centroids;
  };
  EXPECT_EQ(centroids(indices[0]), centroids(before));
  ASSERT_OK_AND_ASSIGN(auto index, VectorIndex::Open(*latest, indices[0]));
  const std::vector<float> q(more.begin() + 3 * kDim, more.begin() + 4 * kDim);
  VectorSearchParams sp;
  sp.nprobes = 2;
  ASSERT_OK_AND_ASSIGN(auto hits, index->Search(q.data(), sp, nullptr));
  // The appended vectors repeat the first 500 (same generator seed): both copies tie.
  ASSERT_GE(hits.size(), 2u);
  std::set<uint64_t> top2{hits[0].row, hits[1].row};
  EXPECT_EQ(top2, (std::set<uint64_t>{3, (uint64_t{2} << 32) | 3}));
}

// Writes index.idx anew from the built one's columns after `edit` changes them.
void RewriteIndexFile(const table::Dataset& ds, const std::string& dir,
                      const std::function<void(Schema&, std::vector<uint32_t>&, std::vector<uint32_t>&)>& edit) {
  auto main = OpenIndexFile(*ds.store(), dir, "index.idx").MoveValue();
  const uint64_t rows = main->num_rows();
  Array ids = ReadIndexColumn(*main, 0, 0, rows).MoveValue();
  Array links = ReadIndexColumn(*main, 1, 0, rows).MoveValue();
  Array dists = ReadIndexColumn(*main, 2, 0, rows).MoveValue();
  std::vector<uint32_t> id_values(ids.values<uint32_t>(), ids.values<uint32_t>() + rows);
  std::vector<uint32_t> nb_values;
  std::vector<int64_t> offsets{0};
  for (uint64_t r = 0; r < rows; ++r) {
    const auto [begin, end] = links.ListRange(static_cast<int64_t>(r));
    const uint32_t* v = links.children[0].values<uint32_t>();
    nb_values.insert(nb_values.end(), v + begin, v + end);
    offsets.push_back(static_cast<int64_t>(nb_values.size()));
  }
  Schema schema = main->file_schema();
  BufferPtr ivf = main->ReadGlobalBuffer(1).MoveValue();
  const std::string ivf_bytes(reinterpret_cast<const char*>(ivf->data()), ivf->size());
  main.reset();
  edit(schema, id_values, nb_values);
  fs::remove(dir + "/index.idx");
  auto writer = CreateIndexFile(ds.store(), dir, "index.idx", schema).MoveValue();
  ASSERT_OK(writer
                ->WriteGlobalBuffer(
                    std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(ivf_bytes.data()), ivf_bytes.size()))
                .status());
  ASSERT_OK_AND_ASSIGN(Array new_ids, ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), id_values));
  ASSERT_OK_AND_ASSIGN(Array values, ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), nb_values));
  ASSERT_OK_AND_ASSIGN(Array new_links,
                       MakeListArray(ListOf(MakeField("item", MakeType(TypeId::kUInt32))), offsets, values));
  ASSERT_OK(writer->Write(RecordBatch{writer->schema(), static_cast<int64_t>(rows), {new_ids, new_links, dists}}));
  ASSERT_OK(FinishIndexFile(*writer, "index.idx").status());
}

TEST_F(IvfHnswTest, DamagedGraphsAreErrorsNamingTheFile) {
  ASSERT_OK_AND_ASSIGN(auto meta, Build({{"num_partitions", "2"}}));
  auto ds = table::Dataset::Open(dir_ + "/t.lance").MoveValue();
  ASSERT_OK_AND_ASSIGN(std::string dir, ds->IndexDirectory(meta));
  const std::string path = dir + "/index.idx";
  std::string original;
  {
    std::ifstream in(path, std::ios::binary);
    original.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  const std::vector<float> q = Query(1);
  VectorSearchParams sp;
  sp.nprobes = 2;
  const auto expect_corrupt = [&](const std::string& what) {
    auto index = VectorIndex::Open(*ds, meta);
    Status st = index.ok() ? (*index)->Search(q.data(), sp, nullptr).status() : index.status();
    EXPECT_EQ(st.code(), StatusCode::kCorruption) << what << ": " << st.ToString();
    EXPECT_NE(st.ToString().find("index.idx"), std::string::npos) << what << ": " << st.ToString();
  };
  const auto restore = [&] { std::ofstream(path, std::ios::binary | std::ios::trunc) << original; };
  using Edit = std::function<void(Schema&, std::vector<uint32_t>&, std::vector<uint32_t>&)>;
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"link past the nodes", [](Schema&, std::vector<uint32_t>&, std::vector<uint32_t>& nb) { nb[5] = 1u << 30; }},
      {"level 0 out of order", [](Schema&, std::vector<uint32_t>& ids, std::vector<uint32_t>&) { ids[3] = 4; }},
      {"metadata not an array", [](Schema& s, auto&, auto&) { s.metadata["lance:hnsw"] = "{"; }},
      {"metadata missing", [](Schema& s, auto&, auto&) { s.metadata.erase("lance:hnsw"); }},
      {"one partition too few", [](Schema& s, auto&, auto&) { s.metadata["lance:hnsw"] = R"([""])"; }},
      {"entry point past the nodes",
       [](Schema& s, auto&, auto&) {
         auto a = nlohmann::json::parse(s.metadata["lance:hnsw"]);
         auto m = nlohmann::json::parse(a[0].get<std::string>());
         m["entry_point"] = 1u << 30;
         a[0] = m.dump();
         s.metadata["lance:hnsw"] = a.dump();
       }},
      {"levels past the rows",
       [](Schema& s, auto&, auto&) {
         auto a = nlohmann::json::parse(s.metadata["lance:hnsw"]);
         auto m = nlohmann::json::parse(a[1].get<std::string>());
         m["level_offsets"].back() = 1u << 30;
         a[1] = m.dump();
         s.metadata["lance:hnsw"] = a.dump();
       }},
  };
  for (const auto& [what, edit] : edits) {
    ASSERT_NO_FATAL_FAILURE(RewriteIndexFile(*ds, dir, edit));
    expect_corrupt(what);
    restore();
  }
  // Byte flips and truncation: errors or answers, never crashes.
  for (size_t at = 0; at < original.size(); at += std::max<size_t>(1, original.size() / 200)) {
    std::string bad = original;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
    auto index = VectorIndex::Open(*ds, meta);
    if (index.ok()) (void)(*index)->Search(q.data(), sp, nullptr);
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << original.substr(0, original.size() / 2);
  auto truncated = VectorIndex::Open(*ds, meta);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().ToString().find("index.idx"), std::string::npos);
  restore();
  auto index = VectorIndex::Open(*ds, meta);
  ASSERT_TRUE(index.ok());
  EXPECT_TRUE((*index)->Search(q.data(), sp, nullptr).ok());
}

}  // namespace
}  // namespace lancet::index
