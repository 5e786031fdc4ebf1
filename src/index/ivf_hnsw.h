// IVF_HNSW_SQ segments: the SQ storage of IVF_SQ in auxiliary.idx plus one HNSW graph per
// IVF partition in index.idx (docs/hnsw-format.md, docs/vector-indexes.md). Internal to
// the index layer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "index/hnsw.h"
#include "index/ivf_writer.h"
#include "index/sq_storage.h"
#include "lancet/index/vector_index.h"

namespace lancet::index {

/// The reference's (Node) defaults for IVF_HNSW_SQ graphs.
inline constexpr uint32_t kHnswDefaultM = 20;
inline constexpr uint32_t kHnswDefaultEfConstruction = 300;
inline constexpr uint16_t kHnswDefaultMaxLevel = 7;

/// The SQ distance of two code vectors exactly as SqBounds::Distance computes it, in a
/// form the compiler vectorizes (the graph build spends most of its time here): l2 is
/// the code-space squared L2 times (end - start)^2 / 255^2; dot goes to SqBounds.
inline float SqCodeDistance(const SqBounds& sq, const uint8_t* a, const uint8_t* b, uint32_t dim, DistanceType metric) {
  // 16 lanes of u32, each adding at most 255^2 per 16 dims: no overflow below 2^20 dims.
  if (metric == DistanceType::kDot || dim >= (1u << 20)) return sq.Distance(a, b, dim, metric);
  uint32_t lanes[16] = {0};
  const size_t n = dim;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (size_t j = 0; j < 16; ++j) {
      const int32_t d = int32_t{a[i + j]} - int32_t{b[i + j]};
      lanes[j] += static_cast<uint32_t>(d * d);
    }
  }
  uint64_t sum = 0;
  for (size_t j = 0; j < 16; ++j) sum += lanes[j];
  for (; i < n; ++i) {
    const int32_t d = int32_t{a[i]} - int32_t{b[i]};
    sum += static_cast<uint32_t>(d * d);
  }
  const float range = static_cast<float>(sq.end - sq.start);
  return static_cast<float>(sum) * range * range / (255.0f * 255.0f);
}

/// Writes auxiliary.idx (SQ codes, as IVF_SQ) and index.idx (the IVF centroids with each
/// partition's graph rows, the graphs and lance:hnsw) into `dir`. Each partition's graph
/// is built over the SQ distances between its codes, partitions in parallel; the result
/// does not depend on the number of cores. `spec.kind` must be kSq.
Result<std::vector<IndexFileEntry>> WriteIvfHnswSegment(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                                        const IvfWriteSpec& spec, PartitionShuffler& parts,
                                                        const HnswParams& params);

/// The segment opened from its validated index.idx (`main`, whose IVF model is `ivf`) and
/// SQ storage. Graphs are read and checked when a search first probes their partition,
/// and kept. Corruption naming index.idx when lance:hnsw does not fit the IVF model.
Result<std::shared_ptr<const VectorIndex>> OpenIvfHnswIndex(DistanceType distance, IvfModel ivf,
                                                            std::unique_ptr<format::FileReader> main,
                                                            std::unique_ptr<IvfStorage> storage, bool half_query);

}  // namespace lancet::index
