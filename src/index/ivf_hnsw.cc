// Opening and searching an IVF_HNSW_SQ segment: each probed partition's graph is walked
// over the SQ distances of its storage rows, as the reference searches it.
#include "index/ivf_hnsw.h"

#include <mutex>

#include "index/index_file.h"
#include "index/vector_details.h"

namespace lancet::index {
namespace {

// One partition as a search needs it: the graph and the storage rows its ids index.
struct HnswPartition {
  HnswGraph graph;
  std::vector<uint64_t> rows;  // node id -> _rowid
  std::vector<uint8_t> codes;  // node id -> dim SQ codes
};

class IvfHnswIndex final : public VectorIndex {
 public:
  IvfHnswIndex(DistanceType distance, IvfModel ivf, std::unique_ptr<format::FileReader> main,
               std::unique_ptr<IvfStorage> storage, bool half_query, std::vector<std::string> metadata)
      : distance_(distance),
        ivf_(std::move(ivf)),
        main_(std::move(main)),
        storage_(std::move(storage)),
        half_query_(half_query),
        metadata_(std::move(metadata)),
        loaded_(ivf_.num_partitions()),
        load_mu_(ivf_.num_partitions()) {}

  VectorIndexType type() const override { return VectorIndexType::kIvfHnswSq; }
  DistanceType distance() const override { return distance_; }
  uint32_t dim() const override { return ivf_.dim; }
  uint32_t num_partitions() const override { return ivf_.num_partitions(); }

  Result<std::vector<VectorHit>> Search(const float* query, const VectorSearchParams& params,
                                        const std::function<bool(uint64_t)>* allowed) const override {
    const uint32_t dim = ivf_.dim;
    std::vector<float> q(query, query + dim);
    if (half_query_) {
      for (float& x : q) x = RoundToHalf(x);
    }
    DistanceType part_metric = distance_;
    if (distance_ == DistanceType::kCosine) {
      NormalizeVector(q.data(), q.size());
      part_metric = DistanceType::kL2;
    }
    const uint32_t ef = params.ef ? params.ef : HnswDefaultEf(params.k);
    if (ef < params.k) {
      return Status::InvalidArgument("HNSW ef (" + std::to_string(ef) + ") must be at least k (" +
                                     std::to_string(params.k) + ")");
    }
    // The query is quantized like the rows; distances are the storage's SQ distances.
    std::vector<uint8_t> qcode(dim);
    const SqBounds& sq = storage_->bounds();
    sq.Encode(q.data(), dim, qcode.data());
    const DistanceType sq_metric = distance_ == DistanceType::kDot ? DistanceType::kDot : DistanceType::kL2;
    const uint32_t nprobes = params.nprobes ? params.nprobes : kDefaultNprobes;
    TopK top(params.k);
    HnswScratch scratch;
    for (uint32_t p : NearestPartitions(ivf_, q.data(), nprobes, part_metric)) {
      ASSIGN_OR_RETURN(std::shared_ptr<const HnswPartition> part, Partition(p));
      if (part->graph.num_nodes() == 0) continue;
      const uint8_t* codes = part->codes.data();
      const auto distance = [&](uint32_t id) {
        return SqCodeDistance(sq, codes + size_t{id} * dim, qcode.data(), dim, sq_metric);
      };
      std::function<bool(uint32_t)> admit;
      if (allowed != nullptr && *allowed) admit = [&](uint32_t id) { return (*allowed)(part->rows[id]); };
      ASSIGN_OR_RETURN(std::vector<HnswHit> hits,
                       part->graph.Search(distance, params.k, ef, admit ? &admit : nullptr, &scratch));
      for (const HnswHit& h : hits) top.Push(part->rows[h.id], h.distance);
    }
    return top.Take();
  }

 private:
  // Partition `p`, read and validated on first use. A failed read is not kept, so a
  // later search reports it again.
  Result<std::shared_ptr<const HnswPartition>> Partition(uint32_t p) const {
    std::lock_guard<std::mutex> lock(load_mu_[p]);
    if (loaded_[p]) return loaded_[p];
    auto part = std::make_shared<HnswPartition>();
    RETURN_IF_ERROR(storage_->ReadPartition(p, &part->rows, nullptr, &part->codes));
    const uint64_t begin = ivf_.offsets[p], end = begin + ivf_.lengths[p];
    const std::string where = main_->path() + " partition " + std::to_string(p);
    ASSIGN_OR_RETURN(Array ids, ReadIndexColumn(*main_, 0, begin, end));
    ASSIGN_OR_RETURN(Array links, ReadIndexColumn(*main_, 1, begin, end));
    // The _distance column is not needed: the reference does not read it either.
    ASSIGN_OR_RETURN(part->graph, HnswGraph::FromColumns(ids, links, nullptr, metadata_[p],
                                                         static_cast<uint32_t>(part->rows.size()), where));
    if (part->graph.num_nodes() == 0 && !part->rows.empty()) {
      return Status::Corruption(where + ": HNSW graph is empty but the partition stores " +
                                std::to_string(part->rows.size()) + " vectors");
    }
    loaded_[p] = std::move(part);
    return loaded_[p];
  }

  DistanceType distance_;
  IvfModel ivf_;  // centroids; offsets/lengths are the graph rows in index.idx
  std::unique_ptr<format::FileReader> main_;
  std::unique_ptr<IvfStorage> storage_;
  bool half_query_;
  std::vector<std::string> metadata_;  // lance:hnsw per partition
  // loaded_[p] is guarded by load_mu_[p].
  mutable std::vector<std::shared_ptr<const HnswPartition>> loaded_;
  mutable std::vector<std::mutex> load_mu_;
};

}  // namespace

Result<std::shared_ptr<const VectorIndex>> OpenIvfHnswIndex(DistanceType distance, IvfModel ivf,
                                                            std::unique_ptr<format::FileReader> main,
                                                            std::unique_ptr<IvfStorage> storage, bool half_query) {
  const std::string& path = main->path();
  if (storage->kind() != StorageKind::kSq) return Status::Internal("IVF_HNSW_SQ opened over non-SQ storage");
  // The graph's columns, each one leaf column (the lists' items are primitives).
  const std::vector<Field> want = HnswFields();
  const std::vector<Field>& got = main->file_schema().fields;
  for (size_t i = 0; i < want.size(); ++i) {
    if (i >= got.size() || got[i].name != want[i].name || got[i].type.ToString() != want[i].type.ToString()) {
      return Status::Corruption(path + ": column " + std::to_string(i) + " is not " + want[i].name + " " +
                                want[i].type.ToString());
    }
  }
  const std::string array = IndexFileMetadata(*main, kHnswMetadataKey);
  if (array.empty()) return Status::Corruption(path + ": schema metadata '" + kHnswMetadataKey + "' is missing");
  ASSIGN_OR_RETURN(std::vector<std::string> metadata, ParseHnswMetadataArray(array, ivf.num_partitions(), path));
  const IvfModel& stored = storage->partitions();
  for (uint32_t p = 0; p < ivf.num_partitions(); ++p) {
    if ((ivf.lengths[p] == 0) != (stored.lengths[p] == 0)) {
      return Status::Corruption(path + ": partition " + std::to_string(p) + " has " + std::to_string(ivf.lengths[p]) +
                                " graph rows for " + std::to_string(stored.lengths[p]) + " stored vectors");
    }
  }
  return std::shared_ptr<const VectorIndex>(std::make_shared<IvfHnswIndex>(
      distance, std::move(ivf), std::move(main), std::move(storage), half_query, std::move(metadata)));
}

}  // namespace lancet::index
