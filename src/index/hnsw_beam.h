// The HNSW layer walks shared by graph construction and search (hnsw.h). Internal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "index/hnsw.h"

namespace lancet::index::hnsw_detail {

/// Orders floats as the reference's total_cmp does (-NaN < -inf < ... < +inf < +NaN), so
/// a NaN distance neither breaks a heap nor wins.
inline int32_t TotalKey(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof(i));
  return i ^ static_cast<int32_t>(static_cast<uint32_t>(i >> 31) >> 1);
}
inline bool DistLess(float a, float b) { return TotalKey(a) < TotalKey(b); }

// Heap orders (function objects, so the heap code inlines them): `results` keeps the
// farthest on top, `candidates` the nearest.
struct FartherOnTopT {
  bool operator()(const Cand& a, const Cand& b) const { return DistLess(a.dist, b.dist); }
};
struct NearerOnTopT {
  bool operator()(const Cand& a, const Cand& b) const { return DistLess(b.dist, a.dist); }
};
struct AscendingT {
  bool operator()(const Cand& a, const Cand& b) const {
    const int32_t ka = TotalKey(a.dist), kb = TotalKey(b.dist);
    return ka != kb ? ka < kb : a.id < b.id;
  }
};
inline constexpr FartherOnTopT FartherOnTop{};
inline constexpr NearerOnTopT NearerOnTop{};
inline constexpr AscendingT Ascending{};

/// From the node nearest the query, moves to any closer neighbour until none is closer
/// (the upper-level descent). Terminates: the distance strictly falls at each move.
template <typename NeighborsFn, typename DistFn>
Cand Greedy(Cand current, NeighborsFn&& neighbors, DistFn&& dist) {
  for (;;) {
    bool moved = false;
    for (uint32_t nb : neighbors(current.id)) {
      const float d = dist(nb);
      if (d < current.dist) {
        current = Cand{d, nb};
        moved = true;
      }
    }
    if (!moved) return current;
  }
}

/// Search-Layer of the HNSW paper with the reference's filter handling: every node is
/// walked through, but only nodes `accept` admits enter the `ef` results. Each node is
/// visited at most once (`visited` must be Reset by the caller), so this ends within N
/// expansions whatever the graph. Leaves `results` ascending.
template <typename NeighborsFn, typename DistFn, typename AcceptFn>
void BeamSearch(Cand ep, size_t ef, NeighborsFn&& neighbors, DistFn&& dist, AcceptFn&& accept, HnswScratch& visited,
                std::vector<Cand>& candidates, std::vector<Cand>& results) {
  candidates.clear();
  results.clear();
  visited.Visit(ep.id);
  candidates.push_back(ep);
  if (accept(ep.id)) results.push_back(ep);
  const auto furthest = [&] { return results.empty() ? std::numeric_limits<float>::infinity() : results.front().dist; };
  while (!candidates.empty()) {
    std::pop_heap(candidates.begin(), candidates.end(), NearerOnTop);
    const Cand current = candidates.back();
    candidates.pop_back();
    if (results.size() >= ef && DistLess(furthest(), current.dist)) break;
    for (uint32_t nb : neighbors(current.id)) {
      if (!visited.Visit(nb)) continue;
      const float d = dist(nb);
      if (results.size() < ef || !DistLess(furthest(), d)) {
        if (accept(nb)) {
          if (results.size() < ef) {
            results.push_back(Cand{d, nb});
            std::push_heap(results.begin(), results.end(), FartherOnTop);
          } else if (DistLess(d, results.front().dist)) {
            std::pop_heap(results.begin(), results.end(), FartherOnTop);
            results.back() = Cand{d, nb};
            std::push_heap(results.begin(), results.end(), FartherOnTop);
          }
        }
        candidates.push_back(Cand{d, nb});
        std::push_heap(candidates.begin(), candidates.end(), NearerOnTop);
      }
    }
  }
  std::sort(results.begin(), results.end(), Ascending);
}

}  // namespace lancet::index::hnsw_detail
