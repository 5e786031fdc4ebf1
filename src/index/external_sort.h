// Sorting (value, row id) pairs by CompareValues within a memory budget: runs that
// outgrow it are sorted and spilled to temporary Lance files, then merged. Internal to
// the index layer (the BTree builder).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "table/merge_spill.h"

namespace lancet::index {

class ExternalSorter {
 public:
  /// Called with consecutive chunks of the sorted pairs.
  using Sink = std::function<Status(const Array& values, std::span<const uint64_t> ids)>;

  /// `budget`: bytes of values and ids held before a run spills into a fresh
  /// directory under `spill_parent` (the system temp dir when empty).
  ExternalSorter(DataType type, uint64_t budget, std::string spill_parent);
  ~ExternalSorter();

  /// REQUIRES: values.type is the sorter's type and values.length == ids.size().
  Status Add(const Array& values, std::span<const uint64_t> ids);
  /// Every pair in order (nulls first; equal values in the order they were added), in
  /// chunks of exactly `chunk_rows` rows but the last. The spill files are deleted.
  Status Finish(int64_t chunk_rows, const Sink& sink);

  uint32_t num_spilled_runs() const { return static_cast<uint32_t>(runs_.size()); }

 private:
  struct Held;
  Result<Held> SortHeld();
  Status SpillRun();

  DataType type_;
  uint64_t budget_;
  std::string spill_parent_;
  std::vector<Array> values_;
  std::vector<uint64_t> ids_;
  uint64_t held_bytes_ = 0;
  std::unique_ptr<table::SpillDir> dir_;
  std::vector<std::string> runs_;
};

}  // namespace lancet::index
