#include "catalog/iceberg_metadata.h"

#include <cstdio>
#include <random>

namespace lancet::catalog::iceberg {
namespace {

uint64_t RandomU64() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

OrderedJson SnapshotJson(const Snapshot& s) {
  OrderedJson summary = OrderedJson::object();
  for (const auto& [k, v] : s.summary) summary[k] = v;
  OrderedJson j = {{"snapshot-id", s.snapshot_id}};
  if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
  j["sequence-number"] = s.sequence_number;
  j["timestamp-ms"] = s.timestamp_ms;
  j["summary"] = std::move(summary);
  j["manifest-list"] = s.manifest_list;
  j["schema-id"] = 0;
  return j;
}

OrderedJson TableMetadataJson(const TableMetadata& m) {
  OrderedJson snapshots = OrderedJson::array();
  OrderedJson snapshot_log = OrderedJson::array();
  for (const Snapshot& s : m.snapshots) {
    OrderedJson j = SnapshotJson(s);
    snapshots.push_back(std::move(j));
    snapshot_log.push_back({{"timestamp-ms", s.timestamp_ms}, {"snapshot-id", s.snapshot_id}});
  }
  OrderedJson properties = OrderedJson::object();
  for (const auto& [k, v] : m.properties) properties[k] = v;
  const int64_t current = m.snapshots.empty() ? -1 : m.snapshots.back().snapshot_id;
  OrderedJson refs = OrderedJson::object();
  if (!m.snapshots.empty()) refs["main"] = {{"snapshot-id", current}, {"type", "branch"}};
  return {
      {"format-version", 2},
      {"table-uuid", m.table_uuid},
      {"location", m.location},
      {"last-sequence-number", m.snapshots.empty() ? 0 : m.snapshots.back().sequence_number},
      {"last-updated-ms", m.last_updated_ms},
      {"last-column-id", m.last_column_id},
      {"current-schema-id", 0},
      {"schemas", OrderedJson::array({SchemaJson(m.schema, 0)})},
      {"default-spec-id", 0},
      {"partition-specs", OrderedJson::array({{{"spec-id", 0}, {"fields", OrderedJson::array()}}})},
      // Java's value for a table that never had a partition field.
      {"last-partition-id", 999},
      {"default-sort-order-id", 0},
      {"sort-orders", OrderedJson::array({{{"order-id", 0}, {"fields", OrderedJson::array()}}})},
      {"properties", std::move(properties)},
      {"current-snapshot-id", current},
      {"refs", std::move(refs)},
      {"snapshots", std::move(snapshots)},
      {"statistics", OrderedJson::array()},
      {"partition-statistics", OrderedJson::array()},
      {"snapshot-log", std::move(snapshot_log)},
      {"metadata-log", OrderedJson::array()},
  };
}

int64_t NewSnapshotId() {
  const uint64_t id = RandomU64() & ((uint64_t{1} << 53) - 1);
  return id == 0 ? 1 : static_cast<int64_t>(id);
}

std::string NewUuid() {
  uint64_t hi = RandomU64(), lo = RandomU64();
  hi = (hi & ~uint64_t{0xf000}) | 0x4000;                      // version 4
  lo = (lo & ~(uint64_t{0xc} << 60)) | (uint64_t{0x8} << 60);  // RFC 4122 variant
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

}  // namespace lancet::catalog::iceberg
