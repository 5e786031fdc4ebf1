// The deterministic workload of crash_child and the tests that kill it: from a seed, the
// operation that makes each version and the ids present afterwards, so a test can tell
// exactly which rows any committed version must hold.
#pragma once

#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <string>

namespace lancet::table::testing {

struct CrashOp {
  bool append = true;
  int64_t lo = 0,
          hi = 0;  // append: ids [lo, hi); delete: rows with lo <= id < hi
  std::string Predicate() const { return "id >= " + std::to_string(lo) + " AND id < " + std::to_string(hi); }
};

class CrashWorkload {
 public:
  explicit CrashWorkload(uint64_t seed) : rng_(seed) {}

  /// The operation that makes the next version (the first one creates the table), applied
  /// to ids(). A delete always matches at least one row, so every operation makes exactly
  /// one version.
  CrashOp Next() {
    CrashOp op;
    if (ids_.empty() || rng_() % 3 != 0) {
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
      ids_.erase(ids_.lower_bound(op.lo), ids_.lower_bound(op.hi));
    }
    return op;
  }

  const std::set<int64_t>& ids() const { return ids_; }

 private:
  std::mt19937_64 rng_;
  int64_t next_id_ = 0;
  std::set<int64_t> ids_;
};

/// Ids present at `version` of the workload of `seed`.
inline std::set<int64_t> CrashWorkloadIds(uint64_t seed, uint64_t version) {
  CrashWorkload w(seed);
  for (uint64_t v = 0; v < version; ++v) w.Next();
  return w.ids();
}

}  // namespace lancet::table::testing
