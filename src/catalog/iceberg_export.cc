// One Lance version → a new Iceberg v2 table (see include/lancet/catalog/iceberg.h).
#include <filesystem>
#include <memory>
#include <optional>

#include "catalog/iceberg_files.h"
#include "catalog/iceberg_manifest.h"
#include "catalog/iceberg_metadata.h"
#include "catalog/iceberg_schema.h"
#include "catalog/iceberg_stats.h"
#include "lancet/catalog/iceberg.h"

namespace lancet::catalog {
namespace {

namespace fs = std::filesystem;
using namespace iceberg;  // NOLINT: this file is the glue of the iceberg_* parts

}  // namespace

Result<IcebergExportResult> ExportIceberg(const table::Dataset& dataset, const std::string& dataset_uri,
                                          const std::string& table_dir, const IcebergExportOptions& options) {
  for (const Field& f : dataset.schema().fields) {
    if (IsBlobV2Field(f)) {
      return Status::NotSupported("column '" + f.name + "': Lance blob columns have no Iceberg type");
    }
  }
  ASSIGN_OR_RETURN(SchemaMapping mapping, MapLanceSchema(dataset.read_schema()));

  std::error_code ec;
  const fs::path root = fs::absolute(fs::path(table_dir), ec).lexically_normal();
  if (ec) return Status::IOError("cannot resolve " + table_dir);
  const fs::path metadata_dir = root / "metadata";
  const fs::path data_dir = root / "data";
  const fs::path metadata_json = metadata_dir / "v1.metadata.json";
  if (fs::exists(metadata_json)) return Status::AlreadyExists(table_dir + " already holds an Iceberg table");
  fs::create_directories(metadata_dir, ec);
  if (!ec) fs::create_directories(data_dir, ec);
  if (ec) return Status::IOError("cannot create " + root.string() + ": " + ec.message());

  const int64_t snapshot_id = NewSnapshotId();
  const int64_t sequence_number = 1;
  const auto codec = options.deflate_metadata ? format::avro::Codec::kDeflate : format::avro::Codec::kNull;

  // With stable row ids, the row map lets a later sync find the rows Lance deletes.
  std::optional<RowMap> row_map;
  if (dataset.stable_row_ids()) row_map.emplace();
  DataFileSink sink(data_dir, mapping, options, row_map ? &*row_map : nullptr);
  table::ScanOptions scan;
  scan.with_row_id = row_map.has_value();
  ASSIGN_OR_RETURN(auto reader, dataset.NewScan(scan));
  while (true) {
    ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    RETURN_IF_ERROR(WriteScanBatch(*batch, scan.with_row_id, &sink));
  }
  RETURN_IF_ERROR(sink.CloseCurrent());

  IcebergExportResult result;
  result.snapshot_id = snapshot_id;
  result.lance_version = dataset.version();
  result.notes = mapping.notes;
  int64_t rows = 0;
  for (const DataFile& f : sink.files()) {
    rows += f.record_count;
    result.data_files.push_back(f.file_path);
  }
  result.rows = static_cast<uint64_t>(rows);

  const std::string commit_uuid = NewUuid();
  ASSIGN_OR_RETURN(std::string manifest, WriteManifest(sink.files(), false, mapping.schema, 0, snapshot_id, codec));
  const fs::path manifest_path = metadata_dir / (commit_uuid + "-m0.avro");
  RETURN_IF_ERROR(WriteWhole(manifest_path, manifest));

  ManifestFile mf;
  mf.manifest_path = FileUri(manifest_path);
  mf.manifest_length = static_cast<int64_t>(manifest.size());
  mf.sequence_number = mf.min_sequence_number = sequence_number;
  mf.added_snapshot_id = snapshot_id;
  mf.added_files_count = static_cast<int32_t>(sink.files().size());
  mf.added_rows_count = rows;
  ASSIGN_OR_RETURN(std::string list, WriteManifestList({mf}, snapshot_id, std::nullopt, sequence_number, codec));
  const fs::path list_path = metadata_dir / ("snap-" + std::to_string(snapshot_id) + "-1-" + commit_uuid + ".avro");
  RETURN_IF_ERROR(WriteWhole(list_path, list));

  TableMetadata md;
  md.table_uuid = NewUuid();
  md.location = FileUri(root);
  md.last_updated_ms = NowMs();
  md.schema = mapping.schema;
  md.last_column_id = mapping.last_column_id;
  Snapshot snap;
  snap.snapshot_id = snapshot_id;
  snap.sequence_number = sequence_number;
  snap.timestamp_ms = md.last_updated_ms;
  snap.manifest_list = FileUri(list_path);
  const std::string files = std::to_string(sink.files().size());
  snap.summary = {{"operation", "append"},
                  {"added-data-files", files},
                  {"added-records", std::to_string(rows)},
                  {"total-data-files", files},
                  {"total-records", std::to_string(rows)},
                  {"total-delete-files", "0"},
                  {"total-position-deletes", "0"},
                  {"total-equality-deletes", "0"},
                  {"lance.dataset", dataset_uri},
                  {"lance.version", std::to_string(dataset.version())}};
  if (row_map) {
    const std::string name = "lance-rowmap-" + std::to_string(snapshot_id) + ".bin";
    RETURN_IF_ERROR(WriteWhole(metadata_dir / name, row_map->Serialize()));
    snap.summary.emplace_back("lance.row-map", name);
  }
  md.snapshots.push_back(std::move(snap));
  md.properties = {{"write.format.default", "parquet"}, {"lance.dataset", dataset_uri}};
  // The commit point: before this rename there is no table, after it a whole one.
  RETURN_IF_ERROR(WriteAtomically(metadata_json, TableMetadataJson(md).dump(2)));
  RETURN_IF_ERROR(WriteAtomically(metadata_dir / "version-hint.text", "1"));
  result.metadata_file = FileUri(metadata_json);
  return result;
}

}  // namespace lancet::catalog
