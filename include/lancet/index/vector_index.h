// Vector indexes (IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_SQ) in the reference's layout:
// build, open and search one segment. The scan layer (lancet/scan/search.h) combines
// segments, flat search over unindexed fragments, filters and refinement.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancet/index/distance.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"
#include "lancet/table/index_metadata.h"

namespace lancet::index {

enum class VectorIndexType : uint8_t { kIvfFlat, kIvfPq, kIvfSq, kIvfHnswSq };

/// "ivf_flat", "ivf_pq", "ivf_sq", "ivf_hnsw_sq" (also "hnsw_sq" and the display names
/// below), case-insensitive; InvalidArgument naming the choices otherwise.
Result<VectorIndexType> ParseVectorIndexType(const std::string& name);
/// As the reference's listIndices names them: "IvfFlat", "IvfPq", "IvfSq", "IvfHnswSq".
const char* VectorIndexTypeName(VectorIndexType type);
/// The type of a segment from its VectorIndexDetails; nullopt for other indexes or
/// vector kinds Lancet does not read.
std::optional<VectorIndexType> VectorTypeOf(const table::IndexMetadata& index);

struct CreateVectorIndexOptions {
  std::string name;  // default "<column>_idx"
  DistanceType distance = DistanceType::kL2;
  /// num_partitions, num_sub_vectors, num_bits, max_iterations, sample_rate, m,
  /// ef_construction (the reference's names); InvalidArgument for others.
  std::map<std::string, std::string> params;
  bool replace = true;
  std::function<void(uint64_t, uint64_t)> progress;  // (rows so far, rows in total)
  /// Bytes of partitioned rows the build holds before it spills them to a temporary
  /// file (the training sample comes on top: partitions x sample_rate vectors).
  uint64_t memory_budget = 256ULL << 20;
};

/// \brief Builds a vector index of `type` on fixed-size-list column `column` over every
/// fragment of `dataset`'s version and commits it (CreateIndex transaction) so the
/// reference lists and uses it. Returns the committed segment.
Result<table::IndexMetadata> CreateVectorIndex(const table::Dataset& dataset, const std::string& column,
                                               VectorIndexType type, const CreateVectorIndexOptions& options = {});

struct VectorSearchParams {
  uint32_t k = 10;
  uint32_t nprobes = 0;  // partitions searched; 0 = the reference's default
  uint32_t ef = 0;       // HNSW beam; 0 = the reference's default
};

/// One candidate: `row` is what the index stores (row address, or the stable row id
/// when the dataset uses them); `distance` as the index computes it (approximate for
/// PQ/SQ codes).
struct VectorHit {
  uint64_t row = 0;
  float distance = 0;
};

/// \brief One opened vector index segment. Thread-safe; immutable once opened.
class VectorIndex {
 public:
  virtual ~VectorIndex() = default;
  /// Opens segment `index` of `dataset` (reading index.idx and auxiliary.idx metadata).
  /// Corruption naming the file for damaged files; NotSupported for other kinds.
  static Result<std::shared_ptr<const VectorIndex>> Open(const table::Dataset& dataset,
                                                         const table::IndexMetadata& index);

  virtual VectorIndexType type() const = 0;
  virtual DistanceType distance() const = 0;
  virtual uint32_t dim() const = 0;
  virtual uint32_t num_partitions() const = 0;

  /// The `params.k` nearest rows to `query` (dim() floats) among those `allowed`
  /// admits (null: all), nearest first. Rows deleted since the build are not filtered
  /// here: callers pass `allowed` or drop them.
  virtual Result<std::vector<VectorHit>> Search(const float* query, const VectorSearchParams& params,
                                                const std::function<bool(uint64_t)>* allowed) const = 0;
};

}  // namespace lancet::index
