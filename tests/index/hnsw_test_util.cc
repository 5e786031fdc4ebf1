#include "hnsw_test_util.h"

#include <algorithm>
#include <random>
#include <set>

#include "lancet/index/distance.h"

namespace lancet::index {

std::vector<float> ClusteredVectors(uint32_t n, uint32_t dim, uint32_t clusters, uint32_t seed, float spread) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> centre(-spread, spread);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::vector<float> centres(size_t{clusters} * dim);
  for (float& c : centres) c = centre(rng);
  std::vector<float> out(size_t{n} * dim);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t c = static_cast<uint32_t>(rng() % clusters);
    for (uint32_t d = 0; d < dim; ++d) out[size_t{i} * dim + d] = centres[size_t{c} * dim + d] + noise(rng);
  }
  return out;
}

std::vector<uint32_t> ExactNearest(const std::vector<float>& data, uint32_t dim, const float* query, uint32_t k,
                                   const std::function<bool(uint32_t)>* allowed) {
  std::vector<std::pair<float, uint32_t>> all;
  const uint32_t n = static_cast<uint32_t>(data.size() / dim);
  for (uint32_t i = 0; i < n; ++i) {
    if (allowed != nullptr && !(*allowed)(i)) continue;
    all.emplace_back(L2Distance(query, &data[size_t{i} * dim], dim), i);
  }
  const size_t keep = std::min<size_t>(k, all.size());
  std::partial_sort(all.begin(), all.begin() + keep, all.end());
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < keep; ++i) ids.push_back(all[i].second);
  return ids;
}

double Recall(const std::vector<HnswHit>& hits, const std::vector<uint32_t>& truth) {
  if (truth.empty()) return 1.0;
  std::set<uint32_t> want(truth.begin(), truth.end());
  size_t found = 0;
  for (const HnswHit& h : hits) found += want.count(h.id);
  return static_cast<double>(found) / truth.size();
}

}  // namespace lancet::index
