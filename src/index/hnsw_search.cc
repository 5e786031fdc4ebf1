// Searching an HNSW graph as the reference's HNSW sub-index does (docs/hnsw-format.md).
#include <algorithm>

#include "index/hnsw.h"
#include "index/hnsw_beam.h"

namespace lancet::index {

using hnsw_detail::Cand;

void HnswGraph::BuildLookups() {
  for (size_t level = 1; level < levels_.size(); ++level) {
    Level& l = levels_[level];
    l.lookup.clear();
    l.lookup.reserve(l.ids.size());
    for (uint32_t row = 0; row < l.ids.size(); ++row) l.lookup.emplace_back(l.ids[row], row);
    // A node listed twice on a level keeps its last row, as the reference's loader does.
    std::stable_sort(l.lookup.begin(), l.lookup.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<uint32_t, uint32_t>> unique;
    unique.reserve(l.lookup.size());
    for (const auto& e : l.lookup) {
      if (!unique.empty() && unique.back().first == e.first) {
        unique.back() = e;
      } else {
        unique.push_back(e);
      }
    }
    l.lookup = std::move(unique);
  }
}

int64_t HnswGraph::RowOf(size_t level, uint32_t node) const {
  if (level >= levels_.size()) return -1;
  const Level& l = levels_[level];
  if (level == 0) return node < l.ids.size() ? static_cast<int64_t>(node) : -1;
  auto it =
      std::lower_bound(l.lookup.begin(), l.lookup.end(), node, [](const auto& e, uint32_t id) { return e.first < id; });
  return it != l.lookup.end() && it->first == node ? static_cast<int64_t>(it->second) : -1;
}

std::span<const uint32_t> HnswGraph::Neighbors(size_t level, uint32_t node) const {
  const int64_t row = RowOf(level, node);
  if (row < 0) return {};
  const Level& l = levels_[level];
  return std::span<const uint32_t>(l.neighbors).subspan(l.offsets[row], l.offsets[row + 1] - l.offsets[row]);
}

std::span<const float> HnswGraph::NeighborDistances(size_t level, uint32_t node) const {
  const int64_t row = RowOf(level, node);
  if (row < 0 || levels_[level].distances.empty()) return {};
  const Level& l = levels_[level];
  return std::span<const float>(l.distances).subspan(l.offsets[row], l.offsets[row + 1] - l.offsets[row]);
}

uint64_t HnswGraph::num_rows() const {
  uint64_t rows = 0;
  for (const Level& l : levels_) rows += l.ids.size();
  return rows;
}

size_t HnswGraph::HeightInUse() const {
  size_t height = levels_.size();
  while (height > 0 && levels_[height - 1].ids.empty()) --height;
  return height;
}

std::vector<HnswHit> HnswGraph::SearchGraph(const HnswQueryDistance& distance, uint32_t k, uint32_t ef,
                                            const std::vector<bool>* allowed, HnswScratch& scratch) const {
  Cand ep{distance(entry_point_), entry_point_};
  // Greedy descent stops at level 1; level 0 is left to the beam.
  for (size_t level = HeightInUse(); level-- > 1;) {
    ep = hnsw_detail::Greedy(
        ep, [&](uint32_t id) { return Neighbors(level, id); }, distance);
  }
  scratch.Reset(num_nodes());
  std::vector<Cand>& candidates = scratch.candidates;
  std::vector<Cand>& found = scratch.found;
  const auto bottom = [&](uint32_t id) { return Neighbors(0, id); };
  if (allowed == nullptr) {
    hnsw_detail::BeamSearch(
        ep, ef, bottom, distance, [](uint32_t) { return true; }, scratch, candidates, found);
  } else {
    hnsw_detail::BeamSearch(
        ep, ef, bottom, distance, [&](uint32_t id) { return (*allowed)[id]; }, scratch, candidates, found);
  }
  std::vector<HnswHit> hits;
  for (size_t i = 0; i < found.size() && i < k; ++i) hits.push_back(HnswHit{found[i].id, found[i].dist});
  return hits;
}

Result<std::vector<HnswHit>> HnswGraph::Search(const HnswQueryDistance& distance, uint32_t k, uint32_t ef,
                                               const std::function<bool(uint32_t)>* allowed,
                                               HnswScratch* scratch) const {
  if (ef == 0) ef = HnswDefaultEf(k);
  if (ef < k) {
    return Status::InvalidArgument("HNSW ef (" + std::to_string(ef) + ") must be at least k (" + std::to_string(k) +
                                   ")");
  }
  const uint32_t n = num_nodes();
  if (n == 0 || k == 0) return std::vector<HnswHit>{};
  HnswScratch local;
  HnswScratch& s = scratch != nullptr ? *scratch : local;
  if (allowed == nullptr || !*allowed) return SearchGraph(distance, k, ef, nullptr, s);

  std::vector<bool>& admitted = s.admitted;
  admitted.assign(n, false);
  uint32_t count = 0;
  for (uint32_t id = 0; id < n; ++id) {
    admitted[id] = (*allowed)(id);
    count += admitted[id] ? 1 : 0;
  }
  if (count == n) return SearchGraph(distance, k, ef, nullptr, s);
  if (count >= uint64_t{n} * 10 / 100) return SearchGraph(distance, k, ef, &admitted, s);
  // Few admitted items: an exact scan of them is cheaper than walking the graph.
  std::vector<Cand>& all = s.found;
  all.clear();
  for (uint32_t id = 0; id < n; ++id) {
    if (admitted[id]) all.push_back(Cand{distance(id), id});
  }
  const size_t keep = std::min<size_t>(k, all.size());
  std::partial_sort(all.begin(), all.begin() + keep, all.end(), hnsw_detail::Ascending);
  std::vector<HnswHit> hits;
  for (size_t i = 0; i < keep; ++i) hits.push_back(HnswHit{all[i].id, all[i].dist});
  return hits;
}

}  // namespace lancet::index
