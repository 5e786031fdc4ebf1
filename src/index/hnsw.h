// HNSW graphs as the reference's IVF_HNSW_* indexes store one per IVF partition: build
// over caller-supplied distances, search, and the index.idx row layout (docs/hnsw-format.md).
// Internal to the index layer.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::index {

/// Schema-metadata key of index.idx: a JSON array with one JSON *string* per partition
/// (HnswGraph::MetadataJson, or "" for an empty partition).
inline constexpr const char* kHnswMetadataKey = "lance:hnsw";
inline constexpr const char* kHnswVectorIdColumn = "__vector_id";
inline constexpr const char* kHnswNeighborsColumn = "__neighbors";
inline constexpr const char* kHnswDistanceColumn = "_distance";

struct HnswParams {
  /// Levels the graph may have (level numbers 0 .. max_level-1).
  uint16_t max_level = 7;
  /// Links a node keeps per upper level; level 0 keeps up to 2m.
  uint32_t m = 20;
  uint32_t ef_construction = 150;
  /// Only recorded in the metadata (the reference's prefetch look-ahead).
  std::optional<uint32_t> prefetch_distance = 2;
  /// Seeds the level draws; the reference always uses 42.
  uint64_t seed = 42;
  /// 1: nodes are inserted one by one in id order. More: after the first 1024, nodes go
  /// in batches of 64 whose neighbour searches run on up to this many threads; the graph
  /// is then the same for any thread count > 1 (but not the same as with 1), and the
  /// distance function must be safe to call concurrently.
  uint32_t threads = 1;
};

/// Distance between stored items a and b (ids 0..N-1), as the graph is built over them.
using HnswPairDistance = std::function<float(uint32_t a, uint32_t b)>;
/// Distance from the query to stored item `id`.
using HnswQueryDistance = std::function<float(uint32_t id)>;

struct HnswHit {
  uint32_t id = 0;
  float distance = 0;
};

/// Search state kept between searches of one thread (visited marks, heaps). Optional.
namespace hnsw_detail {
struct Cand {
  float dist;
  uint32_t id;
};
}  // namespace hnsw_detail

class HnswScratch {
 public:
  /// Marks `id` visited; false if it already was since the last Reset.
  bool Visit(uint32_t id) {
    if (marks_[id] == epoch_) return false;
    marks_[id] = epoch_;
    return true;
  }
  bool Visited(uint32_t id) const { return marks_[id] == epoch_; }
  /// Clears every mark for a graph of `n` nodes (O(1) except on growth or wrap-around).
  void Reset(size_t n);

  // Heaps and the admitted set of one search, kept to save allocations.
  std::vector<hnsw_detail::Cand> candidates, found;
  std::vector<bool> admitted;

 private:
  std::vector<uint32_t> marks_;
  uint32_t epoch_ = 0;
};

/// The level of each of `n` nodes as the reference draws them: node i gets the i-th draw
/// of a xoshiro256++ generator seeded with `seed` (SplitMix64 expansion),
/// min(floor(-ln(u) / ln(m)), max_level - 1) in f32 with u = (next_u64 >> 40) / 2^24.
std::vector<uint16_t> HnswLevels(uint32_t n, uint32_t m, uint16_t max_level, uint64_t seed);

/// The three HNSW columns of index.idx with the reference's types and nullability (all
/// nullable; list items named "item", nullable).
std::vector<Field> HnswFields();

/// The lance:hnsw value for per-partition objects `partitions` ("" for an empty
/// partition): a JSON array of JSON strings.
std::string HnswMetadataArray(const std::vector<std::string>& partitions);
/// One partition's lance:hnsw object for a graph with entry point `entry_point` and
/// `level_sizes[l]` nodes on level l, as the reference writes it (byte for byte).
std::string HnswMetadataObject(uint32_t entry_point, const HnswParams& params,
                               const std::vector<uint64_t>& level_sizes);

/// The per-partition strings of a lance:hnsw value; Corruption naming `where` unless it
/// is a JSON array of `num_partitions` strings.
Result<std::vector<std::string>> ParseHnswMetadataArray(std::string_view json, size_t num_partitions,
                                                        const std::string& where);

/// The reference's default beam width for a query of k results (k times the refine
/// factor): k + k/2.
inline uint32_t HnswDefaultEf(uint32_t k) { return k + k / 2; }

/// \brief One partition's HNSW graph. Immutable once built or parsed; Search is
/// thread-safe (each thread passing its own scratch, or none).
class HnswGraph {
 public:
  HnswGraph() = default;

  /// Builds over items 0..n-1. The entry point is the first node drawn at the highest
  /// level; nodes are inserted in id order; neighbours are chosen with the reference's
  /// heuristic; finally nodes unreachable on level 0 are linked in as the reference does.
  /// InvalidArgument for params the reference rejects (max_level 0, m < 4,
  /// ef_construction < m). Deterministic for given params and distances.
  static Result<HnswGraph> Build(uint32_t n, const HnswPairDistance& distance, const HnswParams& params);

  /// The k nearest items (ascending distance, ties by id) found with beam width `ef`
  /// (0: HnswDefaultEf(k)); InvalidArgument if ef < k. With `allowed`, only admitted
  /// items are returned: when fewer than 10% of the items are admitted they are scanned
  /// exhaustively, otherwise the graph is walked through all items as the reference does.
  Result<std::vector<HnswHit>> Search(const HnswQueryDistance& distance, uint32_t k, uint32_t ef = 0,
                                      const std::function<bool(uint32_t)>* allowed = nullptr,
                                      HnswScratch* scratch = nullptr) const;

  /// The partition's rows in index.idx: per level (0 first), one row per node of that
  /// level in ascending id order.
  struct Columns {
    Array vector_id;  // uint32
    Array neighbors;  // list<uint32>
    Array distance;   // list<float32>, parallel to neighbors
  };
  Result<Columns> ToColumns() const;
  /// The partition's object in lance:hnsw, e.g. {"entry_point":364,"params":{"max_level":7,
  /// "m":20,"ef_construction":300,"prefetch_distance":2},"level_offsets":[0,1285,1344,...]}.
  std::string MetadataJson() const;

  /// \brief Parses one partition's rows and metadata object, validating everything a
  /// search relies on. `num_vectors` is the partition's row count in the vector storage
  /// (a graph with more nodes is refused). `distance` may be null (the reference does
  /// not read that column). Corruption naming `where` on any inconsistency.
  static Result<HnswGraph> FromColumns(const Array& vector_id, const Array& neighbors, const Array* distance,
                                       std::string_view metadata_json, uint32_t num_vectors, const std::string& where);

  uint32_t num_nodes() const { return levels_.empty() ? 0 : static_cast<uint32_t>(levels_[0].ids.size()); }
  uint32_t entry_point() const { return entry_point_; }
  const HnswParams& params() const { return params_; }
  /// Level slices, including empty ones the metadata lists.
  size_t num_levels() const { return levels_.size(); }
  /// Nodes of `level` in row order.
  std::span<const uint32_t> LevelNodes(size_t level) const { return levels_[level].ids; }
  /// Neighbours of `node` on `level` in stored order; empty if the node is not there.
  std::span<const uint32_t> Neighbors(size_t level, uint32_t node) const;
  /// Distances parallel to Neighbors (empty when parsed without the distance column).
  std::span<const float> NeighborDistances(size_t level, uint32_t node) const;
  /// Total rows over all levels (the partition's length in the IVF global buffer).
  uint64_t num_rows() const;

 private:
  struct Level {
    std::vector<uint32_t> ids;                          // row -> node
    std::vector<uint64_t> offsets;                      // row -> [offsets[row], offsets[row+1]) in neighbors
    std::vector<uint32_t> neighbors;                    // concatenated lists
    std::vector<float> distances;                       // parallel to neighbors, or empty
    std::vector<std::pair<uint32_t, uint32_t>> lookup;  // (node, row) sorted; upper levels
  };
  // Row of `node` on `level`, or -1.
  int64_t RowOf(size_t level, uint32_t node) const;
  // Highest level with nodes, plus one.
  size_t HeightInUse() const;
  void BuildLookups();

  std::vector<HnswHit> SearchGraph(const HnswQueryDistance& distance, uint32_t k, uint32_t ef,
                                   const std::vector<bool>* allowed, HnswScratch& scratch) const;

  friend class HnswBuilder;
  HnswParams params_;
  uint32_t entry_point_ = 0;
  std::vector<Level> levels_;
};

}  // namespace lancet::index
