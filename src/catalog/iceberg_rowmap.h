// The sidecar that lets `lancet iceberg sync` turn Lance deletions into Iceberg position
// deletes: each live Lance stable row id → (data file, row position in it). Stored as
// metadata/lance-rowmap-<snapshot id>.bin next to the snapshot it describes, in this
// layout (little-endian): "LRMP" u32 version=1, u32 file count, per file u32 length +
// URI bytes, u64 entry count, entries (u64 row id, u32 file index, u64 position).
// Internal to the catalog layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "lancet/result.h"

namespace lancet::catalog::iceberg {

struct RowLocation {
  uint32_t file = 0;  // index into RowMap::files
  uint64_t pos = 0;
};

struct RowMap {
  std::vector<std::string> files;  // data file URIs
  std::unordered_map<uint64_t, RowLocation> rows;

  std::string Serialize() const;
  /// Corruption naming what is wrong for malformed bytes (bounded by their size).
  static Result<RowMap> Parse(std::span<const uint8_t> bytes);
};

}  // namespace lancet::catalog::iceberg
