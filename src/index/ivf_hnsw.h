// IVF_HNSW_SQ segments: the SQ storage of IVF_SQ in auxiliary.idx plus one HNSW graph per
// IVF partition in index.idx (docs/hnsw-format.md, docs/vector-indexes.md). Internal to
// the index layer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "index/hnsw.h"
#include "index/ivf_writer.h"
#include "lancet/index/vector_index.h"

namespace lancet::index {

/// The reference's (Node) defaults for IVF_HNSW_SQ graphs.
inline constexpr uint32_t kHnswDefaultM = 20;
inline constexpr uint32_t kHnswDefaultEfConstruction = 300;
inline constexpr uint16_t kHnswDefaultMaxLevel = 7;

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
