// File plumbing shared by `iceberg export` and `iceberg sync`: file:// URIs, whole-file
// and atomic writes, and the sink that streams Lance batches into Parquet data files.
// Internal to the catalog layer.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "catalog/iceberg_manifest.h"
#include "catalog/iceberg_rowmap.h"
#include "catalog/iceberg_schema.h"
#include "catalog/iceberg_stats.h"
#include "lancet/catalog/iceberg.h"

namespace lancet::catalog::iceberg {

/// file:// plus the absolute path, percent-encoding bytes outside RFC 3986's unreserved
/// set (and '/'), so that readers that parse the URI get the path back.
std::string FileUri(const std::filesystem::path& path);
/// The path of a URI FileUri made. InvalidArgument for other URIs.
Result<std::filesystem::path> PathOfFileUri(const std::string& uri);
/// Writes a new file (IOError if it exists).
Status WriteWhole(const std::filesystem::path& path, std::string_view bytes);
/// Writes `bytes` under a temporary name, then renames it over `path`: readers see the
/// old file or the whole new one.
Status WriteAtomically(const std::filesystem::path& path, std::string_view bytes);
/// Milliseconds since the Unix epoch (Iceberg's timestamp-ms).
int64_t NowMs();
/// The whole content of a local file.
Result<std::string> ReadWhole(const std::filesystem::path& path);

class LocalFile;

/// rief Streams Lance batches into Parquet data files of about rows_per_file rows,
/// with column statistics; optionally records each row's stable row id in a RowMap.
class DataFileSink {
 public:
  DataFileSink(std::filesystem::path data_dir, const SchemaMapping& mapping, const IcebergExportOptions& options,
               RowMap* row_map);
  ~DataFileSink();
  /// `row_ids` (uint64, one per row) is required when a RowMap was given.
  Status Write(const RecordBatch& lance_batch, const Array* row_ids);
  /// Closes the current file, if any.
  Status CloseCurrent();
  const std::vector<DataFile>& files() const { return files_; }

 private:
  Status OpenNext();

  std::filesystem::path data_dir_;
  const SchemaMapping& mapping_;
  const IcebergExportOptions& options_;
  RowMap* row_map_;
  format::ParquetWriteOptions parquet_;
  std::unique_ptr<LocalFile> file_;
  std::unique_ptr<format::ParquetWriter> writer_;
  std::filesystem::path current_path_;
  uint32_t current_index_ = 0;  // in row_map_->files
  DataFile current_;
  std::vector<std::unique_ptr<ColumnStats>> stats_;  // per top-level column, null if not primitive
  std::vector<DataFile> files_;
};

/// Writes a scan batch, splitting off its trailing "_rowid" column when `with_row_id`.
Status WriteScanBatch(RecordBatch batch, bool with_row_id, DataFileSink* sink);

}  // namespace lancet::catalog::iceberg
