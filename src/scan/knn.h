// Pieces of nearest-neighbour search shared by the flat and the indexed paths.
// Internal to the scan layer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "lancet/index/distance.h"
#include "lancet/table/dataset.h"

namespace lancet::scan {

/// One result row: its row id and distance.
struct Neighbor {
  float distance = 0;
  uint64_t row = 0;
  bool operator<(const Neighbor& o) const { return distance < o.distance || (distance == o.distance && row < o.row); }
};

/// The `limit` smallest (distance, row) pairs seen; NaN distances are dropped, as the
/// reference drops null distances. A row offered twice keeps its first distance.
class TopK {
 public:
  explicit TopK(size_t limit) : limit_(limit) {}
  void Offer(float distance, uint64_t row) {
    if (limit_ == 0 || distance != distance) return;
    const Neighbor n{distance, row};
    if (heap_.size() == limit_ && !(n < heap_.front())) return;
    if (!seen_.insert(row).second) return;
    if (heap_.size() == limit_) {
      std::pop_heap(heap_.begin(), heap_.end());
      seen_.erase(heap_.back().row);
      heap_.back() = n;
    } else {
      heap_.push_back(n);
    }
    std::push_heap(heap_.begin(), heap_.end());
  }
  void Merge(const TopK& other) {
    for (const Neighbor& n : other.heap_) Offer(n.distance, n.row);
  }
  /// Nearest first.
  std::vector<Neighbor> Sorted() const {
    std::vector<Neighbor> out = heap_;
    std::sort(out.begin(), out.end());
    return out;
  }
  size_t limit() const { return limit_; }

 private:
  size_t limit_;
  std::vector<Neighbor> heap_;  // max-heap: the worst kept pair on top
  std::set<uint64_t> seen_;
};

/// A vector column as searched: its name, width and how distances are taken.
struct VectorColumn {
  std::string name;
  uint32_t dim = 0;
  bool bits = false;  // fixed_size_list<uint8>: hamming over packed bytes
  index::DistanceType distance = index::DistanceType::kL2;
};

/// Queries as the column's kernel reads them: floats, or bytes for hamming.
struct PreparedQueries {
  std::vector<std::vector<float>> floats;
  std::vector<std::vector<uint8_t>> bytes;
  size_t size() const { return bits ? bytes.size() : floats.size(); }
  bool bits = false;
};

/// Exact search of `column` over the rows `scan` selects (its filter and fragment_ids;
/// columns and row-id flags are set here): one TopK of `limit` per query. Batches are
/// scored on every core.
Result<std::vector<TopK>> FlatSearch(const table::Dataset& dataset, table::ScanOptions scan, const VectorColumn& column,
                                     const PreparedQueries& queries, size_t limit);

/// Exact distances of `rows` (row ids) to each query, for refining index candidates.
/// Rows whose vector is null get NaN.
Result<std::vector<std::vector<float>>> ExactDistances(const table::Dataset& dataset, const VectorColumn& column,
                                                       const PreparedQueries& queries,
                                                       const std::vector<uint64_t>& rows);

}  // namespace lancet::scan
