// Vector index types and opening/searching an IVF segment (IVF_FLAT, IVF_PQ, IVF_SQ;
// IVF_HNSW_SQ in ivf_hnsw.cc).
#include "lancet/index/vector_index.h"

#include <algorithm>
#include <cctype>
#include <thread>

#include <nlohmann/json.hpp>

#include "index/index_file.h"
#include "index/index_segment.h"
#include "index/ivf_hnsw.h"
#include "index/ivf_storage.h"
#include "index/vector_details.h"

namespace lancet::index {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

class IvfIndex final : public VectorIndex {
 public:
  IvfIndex(VectorIndexType type, DistanceType distance, IvfModel ivf, std::unique_ptr<IvfStorage> storage,
           bool half_query)
      : type_(type), distance_(distance), ivf_(std::move(ivf)), storage_(std::move(storage)), half_query_(half_query) {}

  VectorIndexType type() const override { return type_; }
  DistanceType distance() const override { return distance_; }
  uint32_t dim() const override { return ivf_.dim; }
  uint32_t num_partitions() const override { return ivf_.num_partitions(); }

  Result<std::vector<VectorHit>> Search(const float* query, const VectorSearchParams& params,
                                        const std::function<bool(uint64_t)>* allowed) const override {
    std::vector<float> q(query, query + ivf_.dim);
    // The reference casts the query to the column's type: float16 columns search with
    // a float16 query.
    if (half_query_) {
      for (float& x : q) x = RoundToHalf(x);
    }
    // Cosine indexes hold normalized vectors and pick partitions by L2 between them.
    DistanceType part_metric = distance_;
    if (distance_ == DistanceType::kCosine) {
      NormalizeVector(q.data(), q.size());
      part_metric = DistanceType::kL2;
    }
    const uint32_t nprobes = params.nprobes ? params.nprobes : kDefaultNprobes;
    const std::vector<uint32_t> probe = NearestPartitions(ivf_, q.data(), nprobes, part_metric);
    auto scan = [&](size_t first, size_t step, TopK& top) -> Status {
      for (size_t i = first; i < probe.size(); i += step) {
        RETURN_IF_ERROR(storage_->Scan(probe[i], q.data(), ivf_.centroid(probe[i]), distance_, allowed, top));
      }
      return Status::OK();
    };
    TopK top(params.k);
    // Large probes (IVF_FLAT's raw vectors, wide partitions) split over two threads; a
    // thread costs more than small probes of codes.
    uint64_t rows = 0;
    for (uint32_t p : probe) rows += storage_->partitions().lengths[p];
    if (probe.size() > 1 && rows * ivf_.dim >= (uint64_t{1} << 22) && std::thread::hardware_concurrency() > 1) {
      TopK other(params.k);
      Status other_status;
      std::thread helper([&] { other_status = scan(1, 2, other); });
      Status st = scan(0, 2, top);
      helper.join();
      RETURN_IF_ERROR(st);
      RETURN_IF_ERROR(other_status);
      for (const VectorHit& h : other.Take()) top.Push(h.row, h.distance);
      return top.Take();
    }
    RETURN_IF_ERROR(scan(0, 1, top));
    return top.Take();
  }

 private:
  VectorIndexType type_;
  DistanceType distance_;
  IvfModel ivf_;
  std::unique_ptr<IvfStorage> storage_;
  bool half_query_;
};

}  // namespace

Result<VectorIndexType> ParseVectorIndexType(const std::string& name) {
  const std::string n = Lower(name);
  if (n == "ivf_flat" || n == "ivfflat") return VectorIndexType::kIvfFlat;
  if (n == "ivf_pq" || n == "ivfpq") return VectorIndexType::kIvfPq;
  if (n == "ivf_sq" || n == "ivfsq") return VectorIndexType::kIvfSq;
  if (n == "ivf_hnsw_sq" || n == "hnsw_sq" || n == "ivfhnswsq" || n == "hnswsq") return VectorIndexType::kIvfHnswSq;
  return Status::InvalidArgument("unknown vector index type '" + name +
                                 "' (choose ivf_flat, ivf_pq, ivf_sq or ivf_hnsw_sq)");
}

const char* VectorIndexTypeName(VectorIndexType type) {
  switch (type) {
    case VectorIndexType::kIvfFlat:
      return "IvfFlat";
    case VectorIndexType::kIvfPq:
      return "IvfPq";
    case VectorIndexType::kIvfSq:
      return "IvfSq";
    case VectorIndexType::kIvfHnswSq:
      return "IvfHnswSq";
  }
  return "IvfFlat";
}

std::optional<VectorIndexType> VectorTypeOf(const table::IndexMetadata& index) {
  auto details = ParseVectorDetails(index);
  if (!details.ok()) return std::nullopt;
  return details->type;
}

Result<std::shared_ptr<const VectorIndex>> VectorIndex::Open(const table::Dataset& dataset,
                                                             const table::IndexMetadata& index) {
  ASSIGN_OR_RETURN(VectorDetails details, ParseVectorDetails(index));
  if (!details.type) {
    return Status::NotSupported(dataset.uri() + ": index '" + index.name +
                                "' is a vector index kind Lancet cannot read");
  }
  const VectorIndexType type = *details.type;
  if (index.index_version.value_or(0) > kVectorIndexVersion) {
    return Status::NotSupported(dataset.uri() + ": index '" + index.name + "' has version " +
                                std::to_string(*index.index_version) + ", Lancet reads up to " +
                                std::to_string(kVectorIndexVersion));
  }
  const Field* field = index.fields.size() == 1 ? FieldById(dataset.schema(), index.fields[0]) : nullptr;
  if (!field || field->type.id != TypeId::kFixedSizeList) {
    return Status::Corruption(dataset.uri() + ": index '" + index.name + "' does not cover one vector column");
  }
  ASSIGN_OR_RETURN(const std::string dir, dataset.IndexDirectory(index));
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  ASSIGN_OR_RETURN(std::unique_ptr<format::FileReader> main, OpenIndexFile(*store, dir, kIndexFileName));
  const std::string& path = main->path();
  nlohmann::json info = nlohmann::json::parse(IndexFileMetadata(*main, kVectorIndexMetadataKey), nullptr, false);
  if (info.is_discarded() || !info.is_object() || !info.contains("type") || !info["type"].is_string() ||
      !info.contains("distance_type") || !info["distance_type"].is_string()) {
    return Status::Corruption(path + ": schema metadata 'lance:index' is not {\"type\":..,\"distance_type\":..}");
  }
  const std::string file_type = info["type"].get<std::string>();
  if (file_type != VectorIndexFileType(type)) {
    return Status::Corruption(path + ": the file is a " + file_type + " index, the manifest says " +
                              VectorIndexFileType(type));
  }
  ASSIGN_OR_RETURN(DistanceType file_distance, ParseDistanceType(info["distance_type"].get<std::string>()));
  if (file_distance != details.distance) {
    return Status::Corruption(path + ": the file's distance type is " + DistanceTypeName(file_distance) +
                              ", the manifest's " + DistanceTypeName(details.distance));
  }
  ASSIGN_OR_RETURN(IvfModel ivf, ReadIvfModel(*main));
  if (ivf.dim == 0 || ivf.num_partitions() == 0) {
    return Status::Corruption(path + ": the IVF model has no centroids");
  }
  if (static_cast<uint32_t>(field->type.list_size) != ivf.dim) {
    return Status::Corruption(path + ": centroids are " + std::to_string(ivf.dim) + "-d, column '" + field->name +
                              "' is " + std::to_string(field->type.list_size) + "-d");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<format::FileReader> aux, OpenIndexFile(*store, dir, kAuxiliaryFileName));
  const StorageKind kind = type == VectorIndexType::kIvfFlat ? StorageKind::kFlat
                           : type == VectorIndexType::kIvfPq ? StorageKind::kPq
                                                             : StorageKind::kSq;
  const bool half = field->type.children[0].type.id == TypeId::kFloat16;
  ASSIGN_OR_RETURN(std::unique_ptr<IvfStorage> storage, IvfStorage::Open(std::move(aux), kind, ivf.dim, half));
  if (storage->partitions().num_partitions() != ivf.num_partitions()) {
    return Status::Corruption(dir + "/" + kAuxiliaryFileName + ": " +
                              std::to_string(storage->partitions().num_partitions()) + " partitions, index.idx has " +
                              std::to_string(ivf.num_partitions()));
  }
  if (type == VectorIndexType::kIvfHnswSq) {
    return OpenIvfHnswIndex(details.distance, std::move(ivf), std::move(main), std::move(storage), half);
  }
  return std::shared_ptr<const VectorIndex>(
      std::make_shared<IvfIndex>(type, details.distance, std::move(ivf), std::move(storage), half));
}

}  // namespace lancet::index
