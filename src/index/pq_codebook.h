// Product quantization as the reference lays it out: `num_sub_vectors` codebooks of
// 2^num_bits centroids, stored sub-vector-major ([m][256][dim / m] floats) in a
// lance.index.pb.Tensor of shape [256, dim]. Internal to the index layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lancet/index/distance.h"
#include "lancet/result.h"

namespace lancet::index {

struct PqCodebook {
  uint32_t num_bits = 8;
  uint32_t num_sub_vectors = 0;
  uint32_t dim = 0;
  std::vector<float> values;  // [num_sub_vectors][256][sub_dim]
  bool half = false;          // stored as FLOAT16 (float16 columns)

  uint32_t sub_dim() const { return dim / num_sub_vectors; }
  const float* centroid(uint32_t sub, uint32_t code) const {
    return values.data() + (static_cast<size_t>(sub) * 256 + code) * sub_dim();
  }

  /// The per-sub-vector distance table of `query` (dim floats): [m][256]. L2 (also for
  /// cosine, whose vectors are normalized) holds squared distances; dot holds
  /// 1 - dot, as the reference's tables do.
  std::vector<float> DistanceTable(const float* query, DistanceType metric) const;
  /// The approximate distance of a row whose codes are `code(j)` for sub-vector j.
  template <typename CodeAt>
  float Distance(const std::vector<float>& table, DistanceType metric, CodeAt code) const {
    float sum = 0;
    for (uint32_t j = 0; j < num_sub_vectors; ++j) sum += table[static_cast<size_t>(j) * 256 + code(j)];
    return metric == DistanceType::kDot ? sum - static_cast<float>(num_sub_vectors - 1) : sum;
  }
  /// The nearest centroid of each sub-vector of `vector` (L2), into `codes` (m bytes).
  void Encode(const float* vector, uint8_t* codes) const;
};

/// Trains a codebook on `n` vectors (row-major, `dim` floats each): k-means with 256
/// centroids per sub-vector. InvalidArgument unless num_sub_vectors divides dim.
Result<PqCodebook> TrainPqCodebook(const float* vectors, size_t n, uint32_t dim, uint32_t num_sub_vectors,
                                   uint32_t max_iterations, uint64_t seed);

}  // namespace lancet::index
