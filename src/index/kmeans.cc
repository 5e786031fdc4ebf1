// K-means: k-means++ seeding and Lloyd iterations with the assignment step split
// across threads.
#include "index/kmeans.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <unordered_set>

namespace lancet::index {

void AssignNearest(const float* data, size_t n, uint32_t dim, const float* centroids, uint32_t k, DistanceType metric,
                   unsigned threads, uint32_t* assignment, float* distance) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  // Threads only pay off on enough work.
  if (static_cast<uint64_t>(n) * k * dim < (1ULL << 20)) threads = 1;
  auto work = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const float* v = data + i * dim;
      uint32_t best = 0;
      float best_d = std::numeric_limits<float>::infinity();
      for (uint32_t c = 0; c < k; ++c) {
        const float d = Distance(metric, v, centroids + static_cast<size_t>(c) * dim, dim);
        if (d < best_d) {
          best_d = d;
          best = c;
        }
      }
      assignment[i] = best;
      if (distance) distance[i] = best_d;
    }
  };
  if (threads <= 1) {
    work(0, n);
    return;
  }
  std::vector<std::thread> pool;
  const size_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    if (begin < end) pool.emplace_back(work, begin, end);
  }
  for (std::thread& t : pool) t.join();
}

Result<KMeansResult> TrainKMeans(const float* data, size_t n, uint32_t dim, uint32_t k, const KMeansOptions& options) {
  if (k == 0 || n < k) {
    return Status::InvalidArgument("k-means needs at least " + std::to_string(k) + " training vectors, got " +
                                   std::to_string(n));
  }
  std::mt19937_64 rng(options.seed);
  KMeansResult out;
  out.centroids.resize(static_cast<size_t>(k) * dim);
  // The stream's first draw is k-means++'s first seed.
  size_t pick = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  if (options.init == KMeansInit::kRandomRows) {
    // k distinct rows, each equally likely (Floyd's sampling).
    std::unordered_set<size_t> chosen;
    uint32_t c = 0;
    for (size_t j = n - k; j < n; ++j, ++c) {
      size_t row = std::uniform_int_distribution<size_t>(0, j)(rng);
      if (!chosen.insert(row).second) {
        row = j;
        chosen.insert(j);
      }
      std::copy(data + row * dim, data + (row + 1) * dim, out.centroids.begin() + static_cast<size_t>(c) * dim);
    }
  } else {
    // k-means++: each next seed is drawn with probability proportional to its squared
    // distance from the nearest seed so far.
    std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
    for (uint32_t c = 0; c < k; ++c) {
      std::copy(data + pick * dim, data + (pick + 1) * dim, out.centroids.begin() + static_cast<size_t>(c) * dim);
      if (c + 1 == k) break;
      double total = 0;
      for (size_t i = 0; i < n; ++i) {
        nearest[i] = std::min(nearest[i], static_cast<double>(L2Distance(data + i * dim, data + pick * dim, dim)));
        total += nearest[i];
      }
      if (total <= 0) {
        pick = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
        continue;
      }
      double r = std::uniform_real_distribution<double>(0, total)(rng);
      pick = n - 1;
      for (size_t i = 0; i < n; ++i) {
        r -= nearest[i];
        if (r <= 0) {
          pick = i;
          break;
        }
      }
    }
  }

  std::vector<uint32_t> assignment(n);
  std::vector<float> dist(n);
  std::vector<double> sums(static_cast<size_t>(k) * dim);
  std::vector<uint64_t> counts(k);
  double previous = std::numeric_limits<double>::infinity();
  for (uint32_t iter = 0; iter < std::max(1u, options.max_iterations); ++iter) {
    AssignNearest(data, n, dim, out.centroids.data(), k, options.metric, options.threads, assignment.data(),
                  dist.data());
    double loss = 0;
    for (size_t i = 0; i < n; ++i) loss += dist[i];
    out.loss = loss;
    if (previous - loss <= options.tolerance * std::abs(previous)) break;
    previous = loss;
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(counts.begin(), counts.end(), 0);
    for (size_t i = 0; i < n; ++i) {
      double* s = sums.data() + static_cast<size_t>(assignment[i]) * dim;
      for (uint32_t j = 0; j < dim; ++j) s[j] += data[i * dim + j];
      ++counts[assignment[i]];
    }
    for (uint32_t c = 0; c < k; ++c) {
      float* centroid = out.centroids.data() + static_cast<size_t>(c) * dim;
      if (counts[c] == 0) {
        // An empty cluster restarts at the point worst served by its centroid.
        const size_t far = static_cast<size_t>(std::max_element(dist.begin(), dist.end()) - dist.begin());
        std::copy(data + far * dim, data + (far + 1) * dim, centroid);
        dist[far] = 0;
        continue;
      }
      for (uint32_t j = 0; j < dim; ++j) {
        centroid[j] = static_cast<float>(sums[static_cast<size_t>(c) * dim + j] / static_cast<double>(counts[c]));
      }
    }
  }
  return out;
}

}  // namespace lancet::index
