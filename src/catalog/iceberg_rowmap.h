// The sidecar that lets `lancet iceberg sync` turn Lance deletions into Iceberg position
// deletes: each live Lance stable row id → (data file, row position in it), held as runs
// of consecutive ids at consecutive positions of one file, so a table written from a
// scan costs a few runs per data file, not an entry per row; only rows moved one by one
// (updates) cost a run each. Stored as metadata/lance-rowmap-<snapshot id>.bin next to
// the snapshot it describes: "LRMP", u32 version, then a zstd frame of u32 file count,
// per file u32 length + URI bytes, u64 count, and varints. Version 1 (still read) has
// one entry per row (id delta, file, pos); version 2 one per run (gap from the previous
// run's end, length, file, pos). Internal to the catalog layer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::catalog::iceberg {

struct RowLocation {
  uint32_t file = 0;  // index into RowMap::files
  uint64_t pos = 0;
};

class RowMap {
 public:
  std::vector<std::string> files;  // data file URIs

  /// Records where row `id` now lives; an id already present is an internal error.
  Status Add(uint64_t id, RowLocation loc);
  /// Removes row `id`, returning where it was; nullopt if it is not in the map.
  std::optional<RowLocation> Take(uint64_t id);
  std::optional<RowLocation> Find(uint64_t id) const;

  uint64_t size() const { return rows_; }
  size_t runs() const { return runs_.size(); }
  /// Every (id, location) in id order; for tests.
  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& [start, run] : runs_) {
      for (uint64_t i = 0; i < run.length; ++i) f(start + i, RowLocation{run.file, run.pos + i});
    }
  }

  bool operator==(const RowMap&) const = default;

  std::string Serialize() const;
  /// Corruption naming what is wrong for malformed bytes (bounded by their size).
  static Result<RowMap> Parse(std::span<const uint8_t> bytes);

 private:
  struct Run {
    uint64_t length = 0;
    uint32_t file = 0;
    uint64_t pos = 0;
    bool operator==(const Run&) const = default;
  };
  std::map<uint64_t, Run> runs_;  // keyed by the first id of the run
  uint64_t rows_ = 0;
};

}  // namespace lancet::catalog::iceberg
