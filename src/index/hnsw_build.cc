// Building an HNSW graph the way the reference's HNSW sub-index does (docs/hnsw-format.md).
#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_map>

#include "index/hnsw.h"
#include "index/hnsw_beam.h"
#include "util/thread_pool.h"

namespace lancet::index {

using hnsw_detail::Cand;
using hnsw_detail::DistLess;

namespace {

// The reference's SmallRng on 64-bit targets.
class Xoshiro256pp {
 public:
  explicit Xoshiro256pp(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      s = z ^ (z >> 31);
    }
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[0] + s_[3], 23) + s_[0];
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace

void HnswScratch::Reset(size_t n) {
  if (marks_.size() < n) marks_.resize(n, epoch_);
  if (++epoch_ == 0) {  // wrapped: old marks could alias the new epoch
    std::fill(marks_.begin(), marks_.end(), 0);
    epoch_ = 1;
  }
}

std::vector<uint16_t> HnswLevels(uint32_t n, uint32_t m, uint16_t max_level, uint64_t seed) {
  std::vector<uint16_t> levels(n);
  Xoshiro256pp rng(seed);
  // f32 throughout, as the reference computes it.
  const float ml = 1.0f / std::log(static_cast<float>(m));
  const float top = static_cast<float>(max_level - 1);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t bits = static_cast<uint32_t>(rng.Next() >> 32) >> 8;
    const float u = static_cast<float>(bits) * (1.0f / 16777216.0f);
    const float level = -std::log(u) * ml;  // +inf for u == 0: clamps to the top
    levels[i] = static_cast<uint16_t>(level >= top ? top : std::floor(level));
  }
  return levels;
}

class HnswBuilder {
 public:
  HnswBuilder(uint32_t n, const HnswPairDistance& distance, const HnswParams& params)
      : n_(n), distance_(distance), params_(params), adj_(n) {}

  HnswGraph Run() {
    const std::vector<uint16_t> levels = HnswLevels(n_, params_.m, params_.max_level, params_.seed);
    uint16_t top = 0;
    for (uint32_t i = 0; i < n_; ++i) {
      if (levels[i] > top) {
        top = levels[i];
        entry_ = i;
      }
    }
    for (uint32_t i = 0; i < n_; ++i) adj_[i].resize(levels[i] + 1);
    std::vector<uint32_t> order;
    order.reserve(n_);
    for (uint32_t i = 0; i < n_; ++i) {
      if (i != entry_) order.push_back(i);
    }
    if (params_.threads <= 1) {
      HnswScratch scratch;
      std::vector<List> own;
      for (uint32_t node : order) {
        Select(node, scratch, own);
        Link(node, own);
      }
    } else {
      InsertBatched(order);
    }
    ConnectStranded();
    return Freeze();
  }

 private:
  using List = std::vector<Cand>;

  size_t Limit(size_t level) const { return level == 0 ? 2 * size_t{params_.m} : params_.m; }

  // The links `node` picks on each of its levels from the graph as it is (read only).
  void Select(uint32_t node, HnswScratch& scratch, std::vector<List>& own) const {
    const size_t target = adj_[node].size() - 1;
    const auto from_node = [&](uint32_t other) { return distance_(node, other); };
    Cand ep{from_node(entry_), entry_};
    for (size_t level = adj_[entry_].size() - 1; level > target; --level) {
      ep = hnsw_detail::Greedy(
          ep, [&](uint32_t id) { return Ids(id, level); }, from_node);
    }
    own.resize(target + 1);
    for (size_t level = target + 1; level-- > 0;) {
      scratch.Reset(n_);
      hnsw_detail::BeamSearch(
          ep, params_.ef_construction, [&](uint32_t id) { return Ids(id, level); }, from_node,
          [](uint32_t) { return true; }, scratch, scratch.candidates, scratch.found);
      own[level] = scratch.found;
      // The new node picks m links on every level; level 0's 2m room is for links back.
      Prune(own[level], params_.m);
      ep = scratch.found.front();
    }
  }

  // Makes `own` the node's links and links each of them back.
  void Link(uint32_t node, std::vector<List>& own) {
    for (size_t level = 0; level < adj_[node].size(); ++level) {
      adj_[node][level] = std::move(own[level]);
      for (const Cand& e : adj_[node][level]) {
        List& back = adj_[e.id][level];
        back.push_back(Cand{e.dist, node});
        Prune(back, Limit(level));
      }
    }
  }

  // After a sequential start, nodes go in fixed batches: the batch's selections run in
  // parallel against the graph before it, then link in id order. The graph depends on
  // the batch size only, not on the thread count or scheduling.
  void InsertBatched(const std::vector<uint32_t>& order) {
    constexpr size_t kSequential = 1024, kBatch = 64;
    HnswScratch scratch;
    std::vector<List> own;
    size_t pos = 0;
    for (; pos < order.size() && pos < kSequential; ++pos) {
      Select(order[pos], scratch, own);
      Link(order[pos], own);
    }
    const size_t threads = std::min<size_t>(params_.threads, kBatch);
    std::vector<HnswScratch> scratches(threads);
    std::vector<std::vector<List>> selected(kBatch);
    for (; pos < order.size(); pos += kBatch) {
      const size_t count = std::min(kBatch, order.size() - pos);
      ParallelFor(ThreadPool::Cpu(), threads, threads, [&](size_t t) {
        for (size_t i = t; i < count; i += threads) Select(order[pos + i], scratches[t], selected[i]);
      });
      for (size_t i = 0; i < count; ++i) Link(order[pos + i], selected[i]);
    }
  }

  // The ids of a node's links on a level, viewed without copying.
  struct IdView {
    const List* list;
    struct It {
      const Cand* p;
      uint32_t operator*() const { return p->id; }
      It& operator++() {
        ++p;
        return *this;
      }
      bool operator!=(const It& o) const { return p != o.p; }
    };
    It begin() const { return It{list->data()}; }
    It end() const { return It{list->data() + list->size()}; }
  };
  IdView Ids(uint32_t id, size_t level) const { return IdView{&adj_[id][level]}; }

  // Algorithm 4 of the HNSW paper with keepPrunedConnections (what lance 12 writes: lists
  // fill up to the limit): nearest first, a candidate is kept if it is nearer to the node
  // than to every one kept so far; the rest fill the free places, nearest first.
  void Prune(List& list, size_t limit) const {
    if (list.size() <= limit) return;
    std::stable_sort(list.begin(), list.end(), hnsw_detail::FartherOnTop);
    List kept, pruned;
    kept.reserve(limit);
    for (const Cand& c : list) {
      if (kept.size() >= limit) break;
      bool diverse = true;
      for (const Cand& k : kept) {
        if (!DistLess(c.dist, distance_(c.id, k.id))) {
          diverse = false;
          break;
        }
      }
      (diverse ? kept : pruned).push_back(c);
    }
    for (size_t i = 0; kept.size() < limit && i < pruned.size(); ++i) kept.push_back(pruned[i]);
    list = std::move(kept);
  }

  // Marks what level 0 reaches from `start`; returns the nodes newly reached.
  std::vector<uint32_t> MarkReachable(uint32_t start, std::vector<bool>& reachable) const {
    std::vector<uint32_t> reached;
    if (reachable[start]) return reached;
    reachable[start] = true;
    std::deque<uint32_t> queue{start};
    while (!queue.empty()) {
      const uint32_t cur = queue.front();
      queue.pop_front();
      reached.push_back(cur);
      for (const Cand& nb : adj_[cur][0]) {
        if (!reachable[nb.id]) {
          reachable[nb.id] = true;
          queue.push_back(nb.id);
        }
      }
    }
    return reached;
  }

  // A query only walks level 0 from the entry point, so every node needs a level-0 path
  // from it; insertion can leave a node without any in-link. Each stranded node gets
  // one in-link from a reachable node near it (each anchor gives at most one, so a list
  // grows to at most 2m + 1), with the reference's bounded walk.
  void ConnectStranded() {
    std::vector<bool> reachable(n_, false);
    MarkReachable(entry_, reachable);
    std::vector<uint32_t> stranded;
    for (uint32_t i = 0; i < n_; ++i) {
      if (!reachable[i]) stranded.push_back(i);
    }
    if (stranded.empty()) return;
    std::unordered_map<uint32_t, std::vector<uint32_t>> waiting_on;
    for (uint32_t node : stranded) {
      for (const Cand& nb : adj_[node][0]) {
        if (!reachable[nb.id]) waiting_on[nb.id].push_back(node);
      }
    }
    std::vector<bool> anchored(n_, false);
    std::optional<uint32_t> chain_tail;
    const auto link = [&](Cand anchor, uint32_t node) {
      adj_[anchor.id][0].push_back(Cand{anchor.dist, node});
      anchored[anchor.id] = true;
      chain_tail = node;
    };
    std::vector<uint32_t> isolated;
    std::deque<uint32_t> ready(stranded.begin(), stranded.end());
    while (!ready.empty()) {
      const uint32_t node = ready.front();
      ready.pop_front();
      if (reachable[node]) continue;
      List candidates;
      for (const Cand& nb : adj_[node][0]) {
        if (reachable[nb.id]) candidates.push_back(nb);
      }
      if (candidates.empty()) {
        isolated.push_back(node);
        continue;
      }
      const Cand nearest = *std::min_element(candidates.begin(), candidates.end(), hnsw_detail::FartherOnTop);
      Cand closest = nearest;
      for (uint32_t step = 0; step < params_.ef_construction; ++step) {
        std::optional<Cand> best;
        for (const Cand& nb : adj_[closest.id][0]) {
          if (!reachable[nb.id]) continue;
          const Cand c{distance_(node, nb.id), nb.id};
          if (!best || DistLess(c.dist, best->dist)) best = c;
        }
        if (!best || !DistLess(best->dist, closest.dist)) break;
        closest = *best;
      }
      std::stable_sort(candidates.begin(), candidates.end(), hnsw_detail::FartherOnTop);
      std::optional<Cand> anchor;
      if (!anchored[closest.id]) anchor = closest;
      for (size_t i = 0; !anchor && i < candidates.size(); ++i) {
        if (!anchored[candidates[i].id]) anchor = candidates[i];
      }
      if (!anchor && chain_tail) anchor = Cand{distance_(node, *chain_tail), *chain_tail};
      link(anchor.value_or(nearest), node);
      for (uint32_t now : MarkReachable(node, reachable)) {
        auto it = waiting_on.find(now);
        if (it == waiting_on.end()) continue;
        ready.insert(ready.end(), it->second.begin(), it->second.end());
        waiting_on.erase(it);
      }
    }
    for (uint32_t node : isolated) {
      if (reachable[node]) continue;
      const uint32_t anchor = chain_tail.value_or(entry_);
      link(Cand{distance_(anchor, node), anchor}, node);
      MarkReachable(node, reachable);
    }
  }

  HnswGraph Freeze() {
    HnswGraph g;
    g.params_ = params_;
    g.entry_point_ = entry_;
    g.levels_.resize(params_.max_level);
    for (size_t level = 0; level < g.levels_.size(); ++level) {
      HnswGraph::Level& out = g.levels_[level];
      out.offsets.push_back(0);
      for (uint32_t id = 0; id < n_; ++id) {
        if (adj_[id].size() <= level) continue;
        out.ids.push_back(id);
        for (const Cand& c : adj_[id][level]) {
          out.neighbors.push_back(c.id);
          out.distances.push_back(c.dist);
        }
        out.offsets.push_back(out.neighbors.size());
      }
    }
    g.BuildLookups();
    return g;
  }

  const uint32_t n_;
  const HnswPairDistance& distance_;
  const HnswParams params_;
  uint32_t entry_ = 0;
  std::vector<std::vector<List>> adj_;  // node -> level -> ranked links
};

Result<HnswGraph> HnswGraph::Build(uint32_t n, const HnswPairDistance& distance, const HnswParams& params) {
  if (params.max_level == 0) return Status::InvalidArgument("HNSW max_level must be greater than 0");
  if (params.m < 4) return Status::InvalidArgument("HNSW m must be at least 4, got " + std::to_string(params.m));
  if (params.m > (1u << 20)) return Status::InvalidArgument("HNSW m is too large: " + std::to_string(params.m));
  if (params.ef_construction < params.m) {
    return Status::InvalidArgument("HNSW ef_construction must be at least m (" + std::to_string(params.m) + "), got " +
                                   std::to_string(params.ef_construction));
  }
  if (n == 0) {
    HnswGraph g;
    g.params_ = params;
    return g;
  }
  return HnswBuilder(n, distance, params).Run();
}

}  // namespace lancet::index
