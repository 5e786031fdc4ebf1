// auxiliary.idx of an IVF segment: the rows of each partition with their raw vectors
// (IVF_FLAT), PQ codes (IVF_PQ) or SQ codes (IVF_SQ, IVF_HNSW_SQ), and `_rowid`.
// Internal to the index layer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "index/ivf_model.h"
#include "index/pq_codebook.h"
#include "index/sq_storage.h"
#include "lancet/format/file_reader.h"
#include "lancet/index/vector_index.h"

namespace lancet::index {

inline constexpr const char* kFlatColumn = "flat";
inline constexpr const char* kPqCodeColumn = "__pq_code";
inline constexpr const char* kSqCodeColumn = "__sq_code";

enum class StorageKind : uint8_t { kFlat, kPq, kSq };

/// The k best (smallest distance) candidates seen.
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) {}
  void Push(uint64_t row, float distance);
  /// Nearest first; ties by row.
  std::vector<VectorHit> Take();

 private:
  size_t k_;
  std::vector<VectorHit> heap_;  // max-heap on (distance, row)
};

/// \brief An opened auxiliary.idx. Thread-safe; partitions are read on demand and kept
/// (within a process-wide budget) for later searches, as committed files never change.
class IvfStorage {
 public:
  ~IvfStorage();
  /// Validates the file: `_rowid` u64 and the code column, storage_metadata, the IVF
  /// partitions (within the file's rows) and the codebook/bounds, for vectors of `dim`
  /// (`half`: of a float16 column, whose PQ residuals are float16 too).
  static Result<std::unique_ptr<IvfStorage>> Open(std::unique_ptr<format::FileReader> file, StorageKind kind,
                                                  uint32_t dim, bool half = false);

  const IvfModel& partitions() const { return ivf_; }
  StorageKind kind() const { return kind_; }
  const PqCodebook& codebook() const { return pq_; }
  const SqBounds& bounds() const { return sq_; }
  DistanceType file_distance() const { return file_distance_; }

  /// Scores partition `p`'s rows against `query` (normalized for cosine) into `top`.
  /// `centroid` is the partition's centroid (for PQ residuals); `metric` is the index's
  /// distance type.
  Status Scan(uint32_t p, const float* query, const float* centroid, DistanceType metric,
              const std::function<bool(uint64_t)>* allowed, TopK& top) const;

  /// Row ids and the raw code bytes of partition `p` (row-major codes, un-transposed),
  /// for callers that rebuild or merge segments.
  Status ReadPartition(uint32_t p, std::vector<uint64_t>* rows, std::vector<float>* vectors,
                       std::vector<uint8_t>* codes) const;

 private:
  // One partition as searches use it: row ids, and float vectors or row-major codes.
  struct Partition {
    std::vector<uint64_t> rows;
    std::vector<float> vectors;
    std::vector<uint8_t> codes;
    uint64_t bytes() const { return rows.size() * 8 + vectors.size() * 4 + codes.size(); }
  };
  Result<std::shared_ptr<const Partition>> Load(uint32_t p) const;

  std::unique_ptr<format::FileReader> file_;
  mutable std::mutex cache_mu_;
  mutable std::vector<std::shared_ptr<const Partition>> cache_;  // by partition, once loaded
  mutable uint64_t cached_bytes_ = 0;
  StorageKind kind_ = StorageKind::kFlat;
  uint32_t dim_ = 0;
  bool half_ = false;
  IvfModel ivf_;
  PqCodebook pq_;
  bool transposed_ = true;
  SqBounds sq_;
  DistanceType file_distance_ = DistanceType::kL2;
};

}  // namespace lancet::index
