// `lancet iceberg export`: a Lance version as a new Iceberg v2 table (Parquet data, Avro
// manifests, file:// URIs) that Iceberg readers open from its directory; `iceberg sync`:
// the changes since then as a new snapshot.
#include <cstdio>
#include <filesystem>

#include "lancet/catalog/iceberg.h"
#include "lancet/commands.h"
#include "lancet/io/uri.h"

namespace lancet::cli {
namespace {

struct IcebergState {
  CLI::App* export_cmd = nullptr;
  CLI::App* sync_cmd = nullptr;
  std::string dataset;
  std::string table_dir;
  VersionSelector selector;
  uint64_t rows_per_file = uint64_t{1} << 20;
  bool no_deflate = false;

  int Export() const {
    auto path = ResolveDatasetPath(dataset);
    if (!path.ok()) return ReportError(path.status(), dataset);
    auto ds = OpenDataset(dataset, selector);
    if (!ds.ok()) return ReportError(ds.status(), dataset);
    // The dataset is recorded by an absolute location so that a later sync finds it
    // from any working directory.
    std::string uri = *path;
    if (!io::IsRemoteUri(uri) && !uri.starts_with("file://")) uri = std::filesystem::absolute(uri).lexically_normal();
    if (rows_per_file == 0) return ReportUsage("--rows-per-file must be at least 1");
    catalog::IcebergExportOptions options;
    options.rows_per_file = rows_per_file;
    options.deflate_metadata = !no_deflate;
    auto result = catalog::ExportIceberg(**ds, uri, table_dir, options);
    if (!result.ok()) return ReportError(result.status(), table_dir);
    for (const std::string& note : result->notes) std::fprintf(stderr, "lancet: note: %s\n", note.c_str());
    std::printf("exported version %llu: %llu rows in %zu data files, snapshot %lld\n%s\n",
                static_cast<unsigned long long>(result->lance_version), static_cast<unsigned long long>(result->rows),
                result->data_files.size(), static_cast<long long>(result->snapshot_id), result->metadata_file.c_str());
    return kExitOk;
  }

  int Sync() const {
    auto ds = OpenDataset(dataset, selector);
    if (!ds.ok()) return ReportError(ds.status(), dataset);
    catalog::IcebergExportOptions options;
    options.rows_per_file = rows_per_file;
    options.deflate_metadata = !no_deflate;
    if (rows_per_file == 0) return ReportUsage("--rows-per-file must be at least 1");
    auto result = catalog::SyncIceberg(**ds, table_dir, options);
    if (!result.ok()) return ReportError(result.status(), table_dir);
    if (!result->committed) {
      std::printf("up to date at version %llu\n", static_cast<unsigned long long>(result->to_version));
      return kExitOk;
    }
    std::printf(
        "synced versions %llu..%llu: %llu rows added, %llu deleted, snapshot %lld\n%s\n",
        static_cast<unsigned long long>(result->from_version), static_cast<unsigned long long>(result->to_version),
        static_cast<unsigned long long>(result->added_rows), static_cast<unsigned long long>(result->deleted_rows),
        static_cast<long long>(result->snapshot_id), result->metadata_file.c_str());
    return kExitOk;
  }
};

}  // namespace

Command AddIcebergCommand(CLI::App& root) {
  auto state = std::make_shared<IcebergState>();
  CLI::App* app = root.add_subcommand("iceberg", "Export Lance versions as Apache Iceberg v2 tables");
  app->require_subcommand(1);
  CLI::App* ex = app->add_subcommand("export", "Write a version's rows as a new Iceberg table in TABLE_DIR");
  state->export_cmd = ex;
  ex->add_option("DATASET", state->dataset, "Dataset directory or URI")->required();
  ex->add_option("TABLE_DIR", state->table_dir, "Local directory of the new Iceberg table")->required();
  state->selector.AddOptions(*ex);
  ex->add_option("--rows-per-file", state->rows_per_file, "Close a Parquet data file after this many rows");
  ex->add_flag("--no-deflate", state->no_deflate, "Write manifests uncompressed (Avro codec null)");
  state->sync_cmd =
      app->add_subcommand("sync", "Append the dataset's changes since the exported version as a new snapshot");
  state->sync_cmd->add_option("DATASET", state->dataset, "Dataset directory or URI")->required();
  state->sync_cmd->add_option("TABLE_DIR", state->table_dir, "The table `iceberg export` wrote")->required();
  state->selector.AddOptions(*state->sync_cmd);
  state->sync_cmd->add_option("--rows-per-file", state->rows_per_file,
                              "Close a Parquet data file after this many rows");
  state->sync_cmd->add_flag("--no-deflate", state->no_deflate, "Write manifests uncompressed (Avro codec null)");
  return {app, [state] {
            if (state->export_cmd->parsed()) return state->Export();
            return state->sync_cmd->parsed() ? state->Sync() : kExitUsage;
          }};
}

}  // namespace lancet::cli
