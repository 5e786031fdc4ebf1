// K-means for IVF partitions and PQ codebooks. Internal to the index layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lancet/index/distance.h"
#include "lancet/result.h"

namespace lancet::index {

/// Where the centroids start: k-means++ spreads them apart (good for PQ codebooks);
/// random rows follow the density, as the reference seeds its IVF partitions, which
/// keeps partitions of clustered data near the same size.
enum class KMeansInit { kPlusPlus, kRandomRows };

struct KMeansOptions {
  uint32_t max_iterations = 50;
  KMeansInit init = KMeansInit::kPlusPlus;
  /// Stops once the loss improves by less than this fraction.
  double tolerance = 1e-4;
  /// kL2 (cosine callers normalize first) or kDot (assignment by largest dot product).
  DistanceType metric = DistanceType::kL2;
  uint64_t seed = 42;
  /// Assignment threads; 0 = hardware concurrency.
  unsigned threads = 0;
};

struct KMeansResult {
  std::vector<float> centroids;  // k x dim
  double loss = 0;               // sum of the final assignment distances
};

/// Clusters `n` vectors of `dim` floats (row-major, finite) into `k` clusters:
/// seeding by `options.init`, then Lloyd iterations; an emptied cluster takes the point
/// farthest from its centroid. InvalidArgument when n < k or k == 0.
Result<KMeansResult> TrainKMeans(const float* data, size_t n, uint32_t dim, uint32_t k, const KMeansOptions& options);

/// For each of `n` vectors, the nearest of the k centroids (and its distance), using
/// `threads` threads (0 = hardware concurrency).
void AssignNearest(const float* data, size_t n, uint32_t dim, const float* centroids, uint32_t k, DistanceType metric,
                   unsigned threads, uint32_t* assignment, float* distance);

}  // namespace lancet::index
