// What vector and full-text search share about the index segments of one column: which
// live fragments they cover, which rows an index hit may name, and opened segments kept
// for reuse. Internal to the scan layer.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lancet/table/dataset.h"
#include "lancet/table/index_metadata.h"

namespace lancet::scan {

/// The segments of one index on a column and the live fragments they cover.
struct SegmentPlan {
  std::string name;
  std::vector<table::IndexMetadata> segments;
  std::set<uint64_t> covered;
  bool deletions = false;  // a covered fragment has deleted rows
};

/// The first index on `field` (by name) whose segments `is_kind` accepts; one index per
/// column is searched.
Result<std::optional<SegmentPlan>> PlanSegments(const table::Dataset& dataset, const Field& field,
                                                const std::function<bool(const table::IndexMetadata&)>& is_kind);

/// Which rows an index hit may name: live rows of covered fragments that pass `filter`.
/// Row addresses name their fragment; stable row ids need the covered rows listed
/// whenever a filter, deletions or an uncovered fragment make some rows inadmissible.
/// Returns an empty function when every hit is admissible.
Result<std::function<bool(uint64_t)>> AdmitRows(const table::Dataset& dataset, const SegmentPlan& plan,
                                                const std::string& filter);

/// A search's output rows: `query_index` (when given), the projected columns of `rows`
/// (all by default), `score_name` (float32) with `scores`, then `_rowid`/`_rowaddr` when
/// `options` asks for them.
Result<RecordBatch> TakeScored(const table::Dataset& dataset, const table::ScanOptions& options,
                               const std::vector<uint64_t>& rows, const std::vector<float>& scores,
                               const std::string& score_name, std::optional<uint32_t> query_index = std::nullopt);

/// "[1,2,3]".
std::string JoinIds(const std::vector<uint64_t>& ids);

/// Opened segments of type T kept process-wide (committed segments never change), up to
/// `kMax`; T::Open(dataset, meta) opens one.
template <typename T, size_t kMax>
class SegmentCache {
 public:
  static SegmentCache& Get() {
    static SegmentCache cache;
    return cache;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    open_.clear();
  }
  Result<std::shared_ptr<const T>> Open(const table::Dataset& dataset, const table::IndexMetadata& meta) {
    ASSIGN_OR_RETURN(const std::string dir, dataset.IndexDirectory(meta));
    const std::string key = std::to_string(reinterpret_cast<uintptr_t>(dataset.store().get())) + "|" + dir;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = open_.find(key);
      if (it != open_.end()) return it->second;
    }
    ASSIGN_OR_RETURN(std::shared_ptr<const T> opened, T::Open(dataset, meta));
    std::lock_guard<std::mutex> lock(mu_);
    if (open_.size() >= kMax) open_.clear();
    open_[key] = opened;
    return opened;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const T>> open_;
};

}  // namespace lancet::scan
