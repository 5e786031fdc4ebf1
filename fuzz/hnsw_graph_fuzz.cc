// Fuzzes HNSW graph parsing and search: a valid partition graph (built once) is
// serialized to index.idx's columns and metadata; the input then overwrites bytes of
// the metadata, the vector ids, the neighbour offsets or the neighbour ids, and the
// result is parsed and, when accepted, searched with and without a filter. Parsing
// must refuse anything a search could trip on.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "index/hnsw.h"

namespace {

constexpr uint32_t kNodes = 300;
constexpr uint32_t kDim = 4;

struct Fixture {
  std::vector<float> vectors;
  lancet::index::HnswGraph::Columns columns;
  std::string metadata;
};

const Fixture& Get() {
  static const Fixture fixture = [] {
    Fixture f;
    std::mt19937 rng(3);
    std::normal_distribution<float> g(0, 1);
    f.vectors.resize(kNodes * kDim);
    for (float& v : f.vectors) v = g(rng);
    auto dist = [&f](uint32_t a, uint32_t b) {
      float s = 0;
      for (uint32_t j = 0; j < kDim; ++j) {
        const float d = f.vectors[a * kDim + j] - f.vectors[b * kDim + j];
        s += d * d;
      }
      return s;
    };
    lancet::index::HnswParams params;
    params.m = 6;
    params.ef_construction = 20;
    auto graph = lancet::index::HnswGraph::Build(kNodes, dist, params).MoveValue();
    f.columns = graph.ToColumns().MoveValue();
    f.metadata = graph.MetadataJson();
    return f;
  }();
  return fixture;
}

// A deep copy of `a`'s buffer `b` whose bytes the fuzzer may overwrite.
void Overwrite(lancet::Array& a, size_t b, const uint8_t* data, size_t size, size_t at) {
  if (b >= a.buffers.size() || !a.buffers[b] || a.buffers[b]->size() == 0) return;
  auto copy = lancet::Buffer::Copy(a.buffers[b]->span());
  uint8_t* p = copy->mutable_data();
  const size_t n = copy->size();
  for (size_t i = 0; i < size; ++i) p[(at + i) % n] = data[i];
  a.buffers[b] = copy;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const Fixture& f = Get();
  lancet::index::HnswGraph::Columns c = f.columns;
  std::string metadata = f.metadata;
  const uint8_t target = data[0] % 5;
  const size_t at = static_cast<size_t>(data[1]) * 131 + data[2];
  data += 3;
  size -= 3;
  switch (target) {
    case 0:
      metadata.assign(reinterpret_cast<const char*>(data), size);
      break;
    case 1:
      Overwrite(c.vector_id, 1, data, size, at);
      break;
    case 2:
      Overwrite(c.neighbors, 1, data, size, at);  // list offsets
      break;
    case 3:
      if (!c.neighbors.children.empty()) Overwrite(c.neighbors.children[0], 1, data, size, at);
      break;
    default:
      for (size_t i = 0; i < size && at + i < metadata.size(); ++i) metadata[at + i] = static_cast<char>(data[i]);
      break;
  }
  if (c.vector_id.Validate().ok() && c.neighbors.Validate().ok()) {
    auto graph = lancet::index::HnswGraph::FromColumns(c.vector_id, c.neighbors, nullptr, metadata, kNodes, "fuzz");
    if (graph.ok()) {
      const float* q = f.vectors.data();
      auto dist = [&f, q](uint32_t id) {
        float s = 0;
        for (uint32_t j = 0; j < kDim; ++j) {
          const float d = f.vectors[id * kDim + j] - q[j];
          s += d * d;
        }
        return s;
      };
      (void)graph->Search(dist, 10);
      std::function<bool(uint32_t)> even = [](uint32_t id) { return id % 2 == 0; };
      (void)graph->Search(dist, 5, 40, &even);
    }
  }
  return 0;
}
