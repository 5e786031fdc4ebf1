// Iceberg v2 table metadata JSON (spec: "Table Metadata", Appendix C) for unpartitioned,
// unsorted tables with one schema. Internal to the catalog layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/iceberg_types.h"

namespace lancet::catalog::iceberg {

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;  // absolute URI
  /// "operation" first, then the rest in order.
  std::vector<std::pair<std::string, std::string>> summary;
};

struct TableMetadata {
  std::string table_uuid;
  std::string location;  // absolute URI of the table directory
  int64_t last_updated_ms = 0;
  Type schema;  // schema-id 0
  int32_t last_column_id = 0;
  std::vector<Snapshot> snapshots;  // oldest first; the last one is current
  std::vector<std::pair<std::string, std::string>> properties;
};

/// One entry of "snapshots" (schema-id 0).
OrderedJson SnapshotJson(const Snapshot& snapshot);
/// Every key v2 requires plus current-snapshot-id (-1 without snapshots), snapshots,
/// snapshot-log, metadata-log, refs.main and properties.
OrderedJson TableMetadataJson(const TableMetadata& metadata);

/// A random snapshot id in [1, 2^53-1]: positive, as the spec asks, and exact in
/// JavaScript's doubles (icebird and iceberg-js parse ids with JSON.parse).
int64_t NewSnapshotId();
/// A random (version 4) UUID in its 36-character text form.
std::string NewUuid();

}  // namespace lancet::catalog::iceberg
