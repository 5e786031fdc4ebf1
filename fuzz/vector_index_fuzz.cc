// Fuzzes the IVF vector index readers: the first byte picks a target, the rest is a
// protobuf to parse (IVF model, tensor, VectorIndexDetails) or replaces one file of a
// valid IVF_FLAT / IVF_PQ / IVF_SQ segment (built once), which is then opened and
// every partition scanned.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "index/index_file.h"
#include "index/ivf_writer.h"
#include "index/vector_details.h"

namespace {

using lancet::index::StorageKind;

constexpr uint32_t kDim = 16;
constexpr uint32_t kParts = 4;

const char* DirOf(StorageKind kind) {
  return kind == StorageKind::kFlat ? "flat" : kind == StorageKind::kPq ? "pq" : "sq";
}

// A memory store holding one valid segment per storage kind, over 600 random vectors.
std::shared_ptr<lancet::io::ObjectStore> Segments() {
  auto store = lancet::io::NewMemoryStore();
  std::mt19937 rng(1);
  std::normal_distribution<float> gauss(0, 1);
  std::vector<float> vectors(600 * kDim);
  for (float& v : vectors) v = gauss(rng);
  lancet::index::IvfModel model;
  model.dim = kDim;
  model.centroids.assign(vectors.begin(), vectors.begin() + kParts * kDim);
  model.loss = 1.0;
  auto pq = lancet::index::TrainPqCodebook(vectors.data(), 600, kDim, 4, 5, 1).value();
  lancet::index::SqBounds sq;
  sq.Update(vectors.data(), vectors.size());
  for (StorageKind kind : {StorageKind::kFlat, StorageKind::kPq, StorageKind::kSq}) {
    const size_t payload = kind == StorageKind::kFlat ? kDim * 4 : kind == StorageKind::kPq ? 4 : kDim;
    lancet::index::PartitionShuffler parts(kParts, payload, 1 << 20);
    std::vector<uint8_t> code(payload);
    for (size_t i = 0; i < 600; ++i) {
      const float* v = vectors.data() + i * kDim;
      const uint32_t p = lancet::index::NearestPartition(model, v, lancet::index::DistanceType::kL2).first;
      if (kind == StorageKind::kFlat) {
        std::memcpy(code.data(), v, payload);
      } else if (kind == StorageKind::kPq) {
        pq.Encode(v, code.data());
      } else {
        sq.Encode(v, kDim, code.data());
      }
      (void)parts.Add(p, (uint64_t{i % 2} << 32) | i, code.data());
    }
    lancet::index::IvfWriteSpec spec;
    spec.type = kind == StorageKind::kFlat ? lancet::index::VectorIndexType::kIvfFlat
                : kind == StorageKind::kPq ? lancet::index::VectorIndexType::kIvfPq
                                           : lancet::index::VectorIndexType::kIvfSq;
    spec.kind = kind;
    spec.model = &model;
    spec.pq = &pq;
    spec.sq = &sq;
    (void)lancet::index::WriteIvfSegment(store, DirOf(kind), spec, parts);
  }
  return store;
}

void OpenAndScan(const std::shared_ptr<lancet::io::ObjectStore>& store, StorageKind kind) {
  auto main = lancet::index::OpenIndexFile(*store, DirOf(kind), lancet::index::kIndexFileName);
  if (main.ok()) (void)lancet::index::ReadIvfModel(**main);
  auto aux = lancet::index::OpenIndexFile(*store, DirOf(kind), lancet::index::kAuxiliaryFileName);
  if (!aux.ok()) return;
  auto storage = lancet::index::IvfStorage::Open(std::move(*aux), kind, kDim);
  if (!storage.ok()) return;
  std::vector<float> query(kDim, 0.25f), centroid(kDim, 0.0f);
  lancet::index::TopK top(10);
  for (uint32_t p = 0; p < (*storage)->partitions().num_partitions(); ++p) {
    (void)(*storage)->Scan(p, query.data(), centroid.data(), lancet::index::DistanceType::kL2, nullptr, top);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> rest(data + 1, size - 1);
  const int pick = data[0] % 9;
  if (pick == 0) {
    (void)lancet::index::ParseIvfModel(rest, "fuzz", 1000);
    return 0;
  }
  if (pick == 1) {
    (void)lancet::index::ParseFloatTensor(rest, "fuzz", "fuzz");
    return 0;
  }
  if (pick == 2) {
    lancet::table::IndexMetadata meta;
    meta.type_url = lancet::index::kVectorIndexTypeUrl;
    meta.details.assign(reinterpret_cast<const char*>(rest.data()), rest.size());
    (void)lancet::index::ParseVectorDetails(meta);
    return 0;
  }
  static const auto segments = Segments();
  const StorageKind kinds[] = {StorageKind::kFlat, StorageKind::kPq, StorageKind::kSq};
  const StorageKind kind = kinds[(pick - 3) % 3];
  const char* replaced = pick < 6 ? lancet::index::kAuxiliaryFileName : lancet::index::kIndexFileName;
  // A copy of the segment's files with the one picked replaced.
  auto store = lancet::io::NewMemoryStore();
  for (const char* f : {lancet::index::kIndexFileName, lancet::index::kAuxiliaryFileName}) {
    const std::string path = std::string(DirOf(kind)) + "/" + f;
    auto file = segments->OpenRead(path);
    if (!file.ok()) continue;
    auto bytes = (*file)->ReadAt(0, (*file)->Size().value());
    if (bytes.ok()) (void)store->Put(path, std::span<const uint8_t>((*bytes)->data(), (*bytes)->size()));
  }
  (void)store->Put(std::string(DirOf(kind)) + "/" + replaced, rest);
  OpenAndScan(store, kind);
  return 0;
}
