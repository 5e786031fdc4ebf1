// Shared by the HNSW tests: vectors, exact neighbours and recall.
#pragma once

#include <cstdint>
#include <vector>

#include "index/hnsw.h"

namespace lancet::index {

/// `n` row-major vectors of `dim` floats: unit normal noise around `clusters` random
/// centres uniform in [-spread, spread]^dim (seeded).
std::vector<float> ClusteredVectors(uint32_t n, uint32_t dim, uint32_t clusters, uint32_t seed, float spread = 10);

/// The ids of the k nearest rows of `data` to `query` by squared L2, nearest first
/// (rows `allowed` rejects are skipped).
std::vector<uint32_t> ExactNearest(const std::vector<float>& data, uint32_t dim, const float* query, uint32_t k,
                                   const std::function<bool(uint32_t)>* allowed = nullptr);

/// Fraction of `truth` found in `hits`.
double Recall(const std::vector<HnswHit>& hits, const std::vector<uint32_t>& truth);

}  // namespace lancet::index
