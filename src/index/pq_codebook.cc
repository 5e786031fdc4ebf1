// Product quantization: distance tables, encoding and codebook training.
#include "index/pq_codebook.h"

#include <limits>

#include "index/kmeans.h"

namespace lancet::index {

std::vector<float> PqCodebook::DistanceTable(const float* query, DistanceType metric) const {
  const uint32_t sd = sub_dim();
  std::vector<float> table(static_cast<size_t>(num_sub_vectors) * 256);
  for (uint32_t j = 0; j < num_sub_vectors; ++j) {
    const float* q = query + static_cast<size_t>(j) * sd;
    for (uint32_t c = 0; c < 256; ++c) {
      table[static_cast<size_t>(j) * 256 + c] =
          metric == DistanceType::kDot ? DotDistance(q, centroid(j, c), sd) : L2Distance(q, centroid(j, c), sd);
    }
  }
  return table;
}

void PqCodebook::Encode(const float* vector, uint8_t* codes) const {
  const uint32_t sd = sub_dim();
  for (uint32_t j = 0; j < num_sub_vectors; ++j) {
    const float* v = vector + static_cast<size_t>(j) * sd;
    uint32_t best = 0;
    float best_d = std::numeric_limits<float>::infinity();
    for (uint32_t c = 0; c < 256; ++c) {
      const float d = L2Distance(v, centroid(j, c), sd);
      if (d < best_d) {
        best_d = d;
        best = c;
      }
    }
    codes[j] = static_cast<uint8_t>(best);
  }
}

Result<PqCodebook> TrainPqCodebook(const float* vectors, size_t n, uint32_t dim, uint32_t num_sub_vectors,
                                   uint32_t max_iterations, uint64_t seed) {
  if (num_sub_vectors == 0 || dim % num_sub_vectors != 0) {
    return Status::InvalidArgument("num_sub_vectors (" + std::to_string(num_sub_vectors) +
                                   ") must divide the vector dimension (" + std::to_string(dim) + ")");
  }
  if (n < 256) {
    return Status::InvalidArgument("PQ training needs at least 256 vectors, the column has " + std::to_string(n));
  }
  PqCodebook book;
  book.num_sub_vectors = num_sub_vectors;
  book.dim = dim;
  const uint32_t sd = dim / num_sub_vectors;
  book.values.resize(static_cast<size_t>(num_sub_vectors) * 256 * sd);
  std::vector<float> sub(n * sd);
  for (uint32_t j = 0; j < num_sub_vectors; ++j) {
    for (size_t i = 0; i < n; ++i) {
      std::copy(vectors + i * dim + static_cast<size_t>(j) * sd, vectors + i * dim + static_cast<size_t>(j + 1) * sd,
                sub.begin() + i * sd);
    }
    KMeansOptions options;
    options.max_iterations = max_iterations;
    options.seed = seed + j;
    ASSIGN_OR_RETURN(KMeansResult km, TrainKMeans(sub.data(), n, sd, 256, options));
    std::copy(km.centroids.begin(), km.centroids.end(), book.values.begin() + static_cast<size_t>(j) * 256 * sd);
  }
  return book;
}

}  // namespace lancet::index
