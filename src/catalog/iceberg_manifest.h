// Iceberg v2 manifests (manifest_entry/data_file records) and manifest lists
// (manifest_file records) as Avro container files (spec: "Manifests", "Manifest Lists";
// field ids as in Java's ManifestFile/DataFile interfaces). Unpartitioned tables only.
// Internal to the catalog layer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/iceberg_types.h"
#include "lancet/format/avro.h"
#include "lancet/result.h"

namespace lancet::catalog::iceberg {

/// \brief One Parquet data file of a snapshot. Stats maps are keyed by field id; bounds
/// are in Iceberg's single-value binary serialization (spec Appendix D).
struct DataFile {
  int32_t content = 0;    // 0 data, 1 position deletes
  std::string file_path;  // absolute URI
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;
  std::map<int32_t, int64_t> nan_value_counts;
  std::map<int32_t, std::string> lower_bounds;
  std::map<int32_t, std::string> upper_bounds;
};

/// \brief A manifest as the manifest list describes it.
struct ManifestFile {
  int32_t content = 0;        // 0 data, 1 deletes
  std::string manifest_path;  // absolute URI
  int64_t manifest_length = 0;
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int32_t added_files_count = 0;
  int64_t added_rows_count = 0;
};

/// The manifest_entry struct (v2), data_file nested with id 2.
Type ManifestEntryType();
/// The manifest_file struct (v2).
Type ManifestFileType();

/// A manifest of ADDED entries (status 1, sequence numbers left to inheritance) for
/// `snapshot_id`: data files, or (`deletes`) position delete files. Header keys: schema,
/// schema-id, partition-spec ("[]"), partition-spec-id (0), format-version (2), content
/// (data or deletes), iceberg.schema.
Result<std::string> WriteManifest(const std::vector<DataFile>& files, bool deletes, const Type& table_schema,
                                  int32_t schema_id, int64_t snapshot_id, format::avro::Codec codec);

/// A manifest list: `carried` (manifest_file records of the parent's list, kept as they
/// were), then `manifests`. Header keys: snapshot-id, parent-snapshot-id ("null" without
/// a parent), sequence-number, format-version (2), iceberg.schema.
Result<std::string> WriteManifestList(const std::vector<ManifestFile>& manifests, int64_t snapshot_id,
                                      std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                                      format::avro::Codec codec, const std::vector<format::avro::Value>& carried = {});

}  // namespace lancet::catalog::iceberg
