// Export of one Lance version as an Apache Iceberg v2 table in a local directory:
// Parquet data files (field ids = the Iceberg ids, footer key iceberg.schema), one data
// manifest, one manifest list, metadata/v1.metadata.json and metadata/version-hint.text,
// every location an absolute file:// URI. The table is unpartitioned and unsorted. The
// mapping of Lance types is documented in docs/cli.md (`lancet iceberg export`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/format/parquet.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::catalog {

struct IcebergExportOptions {
  /// A data file is closed after this many rows (it may hold a batch more).
  uint64_t rows_per_file = uint64_t{1} << 20;
  format::ParquetCompression compression = format::ParquetCompression::kZstd;
  /// Manifests and manifest lists compressed with Avro's deflate codec.
  bool deflate_metadata = true;
};

struct IcebergExportResult {
  int64_t snapshot_id = 0;
  uint64_t lance_version = 0;
  uint64_t rows = 0;
  std::vector<std::string> data_files;  // file:// URIs
  std::string metadata_file;            // file:// URI of v1.metadata.json
  /// Columns whose type was widened on the way ("c: uint16 stored as int").
  std::vector<std::string> notes;
};

/// Writes `dataset` (its opened version, every visible row, streamed batch by batch) as
/// a new Iceberg table in the local directory `table_dir`. The snapshot summary records
/// lance.version and lance.dataset (= `dataset_uri`) for later incremental syncs; with
/// stable row ids it also gets a row map (metadata/lance-rowmap-<snapshot id>.bin:
/// row id → data file and position, summary key lance.row-map) that SyncIceberg needs.
///
/// The metadata JSON is written under a temporary name and renamed last: until then the
/// directory holds no table (a crash leaves unreferenced files, never a half table).
/// AlreadyExists when table_dir already holds metadata/v1.metadata.json; NotSupported
/// naming the column for a type Iceberg v2 cannot hold; IOError for file errors.
Result<IcebergExportResult> ExportIceberg(const table::Dataset& dataset, const std::string& dataset_uri,
                                          const std::string& table_dir, const IcebergExportOptions& options = {});

struct IcebergSyncResult {
  uint64_t from_version = 0;  // the Lance version the table held
  uint64_t to_version = 0;    // the dataset's version now
  bool committed = false;     // false: the table was up to date
  int64_t snapshot_id = 0;    // the table's current snapshot afterwards
  uint64_t added_rows = 0;    // inserted rows and new sides of updates
  uint64_t deleted_rows = 0;  // deleted rows and old sides of updates (position deletes)
  std::string metadata_file;  // file:// URI of the new metadata JSON when committed
};

/// Appends to a table ExportIceberg (or an earlier sync) wrote the changes of `dataset`
/// (opened at the version to sync to) since the Lance version the table's current
/// snapshot records: one new snapshot (sequence number + 1) whose data manifest lists
/// the inserted rows and the new values of updated rows, and whose delete manifest
/// lists one v2 position delete file for the deleted rows and the old values of
/// updated rows (found through the snapshot's row map). The parent's manifests are
/// carried over. v<N+1>.metadata.json is renamed into place last (the commit point),
/// then version-hint.text: a crash before leaves the table as it was, so a rerun
/// redoes the sync; a stale or missing hint (a crash after) is repaired from the newest
/// vN.metadata.json; a table already at the dataset's version is left alone.
///
/// Needs stable row ids (Lance CDC) and an unchanged schema: NotSupported otherwise.
/// CommitConflict when v<N+1>.metadata.json appeared meanwhile; Corruption for
/// malformed table metadata.
Result<IcebergSyncResult> SyncIceberg(const table::Dataset& dataset, const std::string& table_dir,
                                      const IcebergExportOptions& options = {});

}  // namespace lancet::catalog
