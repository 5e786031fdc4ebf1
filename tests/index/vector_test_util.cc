#include "vector_test_util.h"

#include <algorithm>
#include <random>

#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::index {

std::vector<float> ClusteredVectors(size_t n, uint32_t dim, uint32_t clusters, uint32_t seed) {
  // Each cluster spreads along a few random directions plus a little isotropic noise,
  // so nearest neighbours are well separated as in real embeddings (isotropic noise
  // alone makes every cluster member nearly equidistant).
  constexpr uint32_t kLatent = 4;
  std::mt19937 rng(seed);
  std::normal_distribution<float> wide(0, 4), unit(0, 1), noise(0, 0.05f);
  std::vector<float> centres(static_cast<size_t>(clusters) * dim), axes(static_cast<size_t>(clusters) * kLatent * dim);
  for (float& c : centres) c = wide(rng);
  for (float& a : axes) a = unit(rng) * 0.5f;
  std::vector<float> out(n * dim);
  for (size_t i = 0; i < n; ++i) {
    const size_t c = std::uniform_int_distribution<size_t>(0, clusters - 1)(rng);
    float z[kLatent];
    for (float& x : z) x = unit(rng);
    for (uint32_t j = 0; j < dim; ++j) {
      float v = centres[c * dim + j] + noise(rng);
      for (uint32_t l = 0; l < kLatent; ++l) v += z[l] * axes[(c * kLatent + l) * dim + j];
      out[i * dim + j] = v;
    }
  }
  return out;
}

Status WriteVectorDataset(const std::string& uri, const std::vector<float>& data, uint32_t dim,
                          const std::vector<uint64_t>& fragment_rows, bool stable_row_ids) {
  const DataType vec_type = FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), static_cast<int32_t>(dim));
  Schema schema;
  schema.fields = {MakeField("id", MakeType(TypeId::kInt32), false), MakeField("vec", vec_type)};
  uint64_t begin = 0;
  for (size_t f = 0; f < fragment_rows.size(); ++f) {
    const uint64_t n = fragment_rows[f];
    std::vector<int32_t> ids(n);
    for (uint64_t i = 0; i < n; ++i) ids[i] = static_cast<int32_t>(begin + i);
    std::vector<float> values(data.begin() + static_cast<int64_t>(begin * dim),
                              data.begin() + static_cast<int64_t>((begin + n) * dim));
    ASSIGN_OR_RETURN(Array id, ArrayFromVector(MakeType(TypeId::kInt32), ids));
    ASSIGN_OR_RETURN(Array child, ArrayFromVector(MakeType(TypeId::kFloat32), values));
    ASSIGN_OR_RETURN(Array vec, MakeFixedSizeListArray(vec_type, static_cast<int64_t>(n), child));
    table::WriteParams params;
    params.mode = table::WriteMode::kAppend;  // creates the dataset when absent
    params.enable_stable_row_ids = stable_row_ids;
    RETURN_IF_ERROR(
        table::WriteDataset(uri, schema, {RecordBatch{schema, static_cast<int64_t>(n), {id, vec}}}, params).status());
    begin += n;
  }
  return Status::OK();
}

std::vector<uint64_t> ExactTopK(const std::vector<float>& data, uint32_t dim,
                                const std::vector<uint64_t>& fragment_rows, const std::vector<float>& query, uint32_t k,
                                DistanceType distance) {
  std::vector<std::pair<float, uint64_t>> all;
  uint64_t begin = 0;
  for (size_t f = 0; f < fragment_rows.size(); ++f) {
    for (uint64_t i = 0; i < fragment_rows[f]; ++i) {
      const float d = Distance(distance, query.data(), data.data() + (begin + i) * dim, dim);
      all.push_back({d, (static_cast<uint64_t>(f) << 32) | i});
    }
    begin += fragment_rows[f];
  }
  std::partial_sort(all.begin(), all.begin() + k, all.end());
  std::vector<uint64_t> out;
  for (uint32_t i = 0; i < k; ++i) out.push_back(all[i].second);
  return out;
}

}  // namespace lancet::index
