// Shared by the vector index tests: clustered data, datasets of it, exact answers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/index/distance.h"
#include "lancet/result.h"

namespace lancet::index {

/// `n` vectors of `dim` floats around `clusters` random centres (row-major).
std::vector<float> ClusteredVectors(size_t n, uint32_t dim, uint32_t clusters, uint32_t seed);

/// Writes columns id:int32, vec:fixed_size_list<float32, dim> as one fragment per
/// entry of `fragment_rows` (rows in order), appending to the dataset at `uri` or creating it (with
/// stable row ids when asked).
Status WriteVectorDataset(const std::string& uri, const std::vector<float>& data, uint32_t dim,
                          const std::vector<uint64_t>& fragment_rows, bool stable_row_ids = false);

/// The row addresses of the k nearest rows by exact search (fragments numbered from 0).
std::vector<uint64_t> ExactTopK(const std::vector<float>& data, uint32_t dim,
                                const std::vector<uint64_t>& fragment_rows, const std::vector<float>& query, uint32_t k,
                                DistanceType distance);

}  // namespace lancet::index
