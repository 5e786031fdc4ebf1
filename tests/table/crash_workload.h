// The deterministic workload of crash_child and the tests that kill it: from a seed, the
// operation that makes each version and the ids present afterwards, so a test can tell
// exactly which rows (and payloads) any committed version must hold.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace lancet::table::testing {

struct CrashOp {
  bool append = true;
  bool update = false;  // when not an append: update the rows instead of deleting them
  bool merge = false;   // or merge_insert `upsert` (rows in [lo, hi) and new ids) by id
  int64_t lo = 0,
          hi = 0;  // append: ids [lo, hi); delete, update, merge: rows with lo <= id < hi
  std::vector<int64_t> upsert;  // merge: the source's ids, ascending
  std::string Predicate() const { return "id >= " + std::to_string(lo) + " AND id < " + std::to_string(hi); }
};

/// The payload the workload writes for row `id`: its original one, or after an update
/// or a merge at `version` "u<version>".
inline std::optional<std::string> CrashPayload(int64_t id, uint64_t updated_at) {
  if (updated_at > 0) return "u" + std::to_string(updated_at);
  if (id % 11 == 0) return std::nullopt;
  return "payload-" + std::to_string(id);
}

class CrashWorkload {
 public:
  explicit CrashWorkload(uint64_t seed) : rng_(seed) {}

  /// The operation that makes the next version (the first one creates the table), applied
  /// to ids(). A delete, update or merge always matches at least one row, so every
  /// operation makes exactly one version.
  CrashOp Next() {
    CrashOp op;
    ++version_;
    const uint64_t pick = rng_();
    if (ids_.empty() || pick % 3 != 0) {
      op.lo = next_id_;
      op.hi = next_id_ + 1 + static_cast<int64_t>(rng_() % 40);
      next_id_ = op.hi;
      for (int64_t id = op.lo; id < op.hi; ++id) ids_.insert(id);
    } else {
      op.append = false;
      auto it = ids_.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(rng_() % ids_.size()));
      op.lo = *it;
      op.hi = op.lo + 1 + static_cast<int64_t>(rng_() % 20);
      const uint64_t kind = rng_() % 3;
      op.update = kind == 0;
      op.merge = kind == 2;
      if (op.update) {
        for (auto id = ids_.lower_bound(op.lo); id != ids_.lower_bound(op.hi); ++id) updated_at_[*id] = version_;
      } else if (op.merge) {
        for (auto id = ids_.lower_bound(op.lo); id != ids_.lower_bound(op.hi); ++id) op.upsert.push_back(*id);
        for (int64_t k = 0, fresh = 1 + static_cast<int64_t>(rng_() % 5); k < fresh; ++k) op.upsert.push_back(next_id_++);
        for (int64_t id : op.upsert) {
          ids_.insert(id);
          updated_at_[id] = version_;
        }
      } else {
        ids_.erase(ids_.lower_bound(op.lo), ids_.lower_bound(op.hi));
      }
    }
    return op;
  }

  const std::set<int64_t>& ids() const { return ids_; }
  /// The payload of every row in ids().
  std::map<int64_t, std::optional<std::string>> payloads() const {
    std::map<int64_t, std::optional<std::string>> out;
    for (int64_t id : ids_) {
      auto it = updated_at_.find(id);
      out[id] = CrashPayload(id, it == updated_at_.end() ? 0 : it->second);
    }
    return out;
  }

 private:
  std::mt19937_64 rng_;
  int64_t next_id_ = 0;
  uint64_t version_ = 0;
  std::set<int64_t> ids_;
  std::map<int64_t, uint64_t> updated_at_;  // id -> version of its last update
};

/// Ids present at `version` of the workload of `seed`.
inline std::set<int64_t> CrashWorkloadIds(uint64_t seed, uint64_t version) {
  CrashWorkload w(seed);
  for (uint64_t v = 0; v < version; ++v) w.Next();
  return w.ids();
}

/// Payloads of the rows present at `version` of the workload of `seed`.
inline std::map<int64_t, std::optional<std::string>> CrashWorkloadPayloads(uint64_t seed, uint64_t version) {
  CrashWorkload w(seed);
  for (uint64_t v = 0; v < version; ++v) w.Next();
  return w.payloads();
}

}  // namespace lancet::table::testing
