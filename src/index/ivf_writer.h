// Writes an IVF segment's index.idx (IVF model, flat sub-index marker) and
// auxiliary.idx (partition rows with raw vectors or PQ/SQ codes) in the reference's
// layout. Internal to the index layer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "index/ivf_model.h"
#include "index/ivf_shuffle.h"
#include "index/ivf_storage.h"
#include "index/scalar_index.h"

namespace lancet::index {

struct IvfWriteSpec {
  VectorIndexType type = VectorIndexType::kIvfFlat;
  DistanceType distance = DistanceType::kL2;
  StorageKind kind = StorageKind::kFlat;
  const IvfModel* model = nullptr;  // centroids (dim, values) and loss
  const PqCodebook* pq = nullptr;   // kPq
  const SqBounds* sq = nullptr;     // kSq
};

/// Writes auxiliary.idx into `dir` of `store`: each partition of `parts` (in partition
/// order, PQ codes transposed), the partition layout (global buffer 1), the PQ codebook
/// (global buffer 2) and storage_metadata. Shared with IVF_HNSW_SQ, whose index.idx
/// holds the graph instead of the flat marker.
Result<IndexFileEntry> WriteAuxiliaryFile(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                          const IvfWriteSpec& spec, PartitionShuffler& parts);

/// Writes both files into `dir` of `store`, reading each partition back from `parts`
/// (payloads: dim float32 for kFlat, float16 when the model is `half`; num_sub_vectors
/// codes for kPq; dim codes for kSq).
/// Returns the files as IndexMetadata lists them.
Result<std::vector<IndexFileEntry>> WriteIvfSegment(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                                    const IvfWriteSpec& spec, PartitionShuffler& parts);

}  // namespace lancet::index
