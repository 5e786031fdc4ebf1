// The manifest side of a vector index: lance.index.pb.VectorIndexDetails in
// IndexMetadata.details and the constants the reference uses. Internal.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "lancet/index/vector_index.h"

namespace lancet::index {

inline constexpr const char* kVectorIndexTypeUrl = "/lance.index.pb.VectorIndexDetails";
/// index_version the reference writes (and reads at most) for IVF_FLAT/PQ/SQ/HNSW.
inline constexpr int32_t kVectorIndexVersion = 1;
/// The reference's nprobes when a query gives none (its plans show minimum_nprobes=20).
inline constexpr uint32_t kDefaultNprobes = 20;

struct VectorDetails {
  std::optional<VectorIndexType> type;  // nullopt: RQ, HNSW_PQ, HNSW_FLAT or unknown
  DistanceType distance = DistanceType::kL2;
  uint32_t pq_num_bits = 0, pq_num_sub_vectors = 0;
  uint32_t sq_num_bits = 0;
  uint32_t hnsw_m = 0, hnsw_ef_construction = 0, hnsw_max_level = 0;
  std::map<std::string, std::string> runtime_hints;
};

/// InvalidArgument for another type URL; Corruption naming the index when the details
/// do not parse.
Result<VectorDetails> ParseVectorDetails(const table::IndexMetadata& index);
/// Serialized VectorIndexDetails for `details` (type must be set).
std::string SerializeVectorDetails(const VectorDetails& details);

/// Whether Lancet opens and searches `index` (an IVF_FLAT/PQ/SQ or IVF_HNSW_SQ segment
/// of a version it reads).
bool IsUsableVector(const table::IndexMetadata& index);

/// The `type` string of index.idx's lance:index metadata: "IVF_FLAT", "IVF_PQ", ...
const char* VectorIndexFileType(VectorIndexType type);

}  // namespace lancet::index
