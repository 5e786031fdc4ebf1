// One Lance version → a new Iceberg v2 table (see include/lancet/catalog/iceberg.h).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "catalog/iceberg_manifest.h"
#include "catalog/iceberg_metadata.h"
#include "catalog/iceberg_schema.h"
#include "catalog/iceberg_stats.h"
#include "lancet/catalog/iceberg.h"

namespace lancet::catalog {
namespace {

namespace fs = std::filesystem;
using namespace iceberg;  // NOLINT: this file is the glue of the iceberg_* parts

// file:// plus the absolute path, percent-encoding bytes outside RFC 3986's unreserved
// set (and '/'), so that readers that parse the URI get the path back.
std::string FileUri(const fs::path& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path.string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

class LocalFile {
 public:
  static Result<std::unique_ptr<LocalFile>> Create(const fs::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "wbx");
    if (!f) return Status::IOError("cannot create " + path.string());
    return std::unique_ptr<LocalFile>(new LocalFile(f, path));
  }
  ~LocalFile() {
    if (f_) std::fclose(f_);
  }
  Status Write(std::span<const uint8_t> bytes) {
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size()) {
      return Status::IOError("write failed: " + path_.string());
    }
    return Status::OK();
  }
  Status Close() {
    const bool ok = std::fflush(f_) == 0 && std::fclose(f_) == 0;
    f_ = nullptr;
    return ok ? Status::OK() : Status::IOError("cannot close " + path_.string());
  }

 private:
  LocalFile(std::FILE* f, fs::path path) : f_(f), path_(std::move(path)) {}
  std::FILE* f_;
  fs::path path_;
};

Status WriteWhole(const fs::path& path, std::string_view bytes) {
  ASSIGN_OR_RETURN(auto file, LocalFile::Create(path));
  RETURN_IF_ERROR(file->Write({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
  return file->Close();
}

// Writes `bytes` under a temporary name, then renames it over `path`: readers see the
// old file or the whole new one.
Status WriteAtomically(const fs::path& path, std::string_view bytes) {
  fs::path tmp = path;
  tmp += "." + NewUuid() + ".tmp";
  RETURN_IF_ERROR(WriteWhole(tmp, bytes));
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return Status::IOError("cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
  return Status::OK();
}

// Streams batches into data files of about rows_per_file rows each.
class DataFileSink {
 public:
  DataFileSink(fs::path data_dir, const SchemaMapping& mapping, std::string iceberg_schema,
               const IcebergExportOptions& options)
      : data_dir_(std::move(data_dir)), mapping_(mapping), options_(options) {
    parquet_.compression = options.compression;
    parquet_.key_value_metadata = {{"iceberg.schema", std::move(iceberg_schema)}};
  }

  Status Write(const RecordBatch& lance_batch) {
    if (lance_batch.num_rows == 0) return Status::OK();
    ASSIGN_OR_RETURN(RecordBatch batch, ConformBatch(lance_batch, mapping_));
    if (!writer_) RETURN_IF_ERROR(OpenNext());
    RETURN_IF_ERROR(writer_->Write(batch));
    current_.record_count += batch.num_rows;
    for (size_t i = 0; i < stats_.size(); ++i) {
      if (stats_[i]) stats_[i]->Update(batch.columns[i]);
    }
    if (static_cast<uint64_t>(current_.record_count) >= options_.rows_per_file) return CloseCurrent();
    return Status::OK();
  }

  Status CloseCurrent() {
    if (!writer_) return Status::OK();
    RETURN_IF_ERROR(writer_->Finish());
    RETURN_IF_ERROR(file_->Close());
    std::error_code ec;
    const uint64_t size = fs::file_size(current_path_, ec);
    if (ec) return Status::IOError("cannot stat " + current_path_.string());
    if (size != writer_->bytes_written()) {
      return Status::IOError(current_path_.string() + " holds " + std::to_string(size) + " bytes, the writer wrote " +
                             std::to_string(writer_->bytes_written()));
    }
    current_.file_size_in_bytes = static_cast<int64_t>(size);
    for (const auto& st : stats_) {
      if (st) st->AddTo(&current_);
    }
    files_.push_back(std::move(current_));
    current_ = DataFile();
    writer_.reset();
    file_.reset();
    return Status::OK();
  }

  const std::vector<DataFile>& files() const { return files_; }

 private:
  Status OpenNext() {
    current_path_ = data_dir_ / (NewUuid() + "-" + std::to_string(files_.size()) + ".parquet");
    ASSIGN_OR_RETURN(file_, LocalFile::Create(current_path_));
    current_.file_path = FileUri(current_path_);
    // Statistics for top-level primitive columns; nested ones would count leaf values.
    stats_.clear();
    for (size_t i = 0; i < mapping_.schema.fields.size(); ++i) {
      const NestedField& f = mapping_.schema.fields[i];
      // Dictionary arrays hold indices, not values: they get no statistics.
      const bool plain =
          f.type.kind == Type::Kind::kPrimitive && mapping_.parquet_schema.fields[i].type.id != TypeId::kDictionary;
      stats_.push_back(plain ? std::make_unique<ColumnStats>(f.id, f.type.primitive) : nullptr);
    }
    LocalFile* f = file_.get();
    ASSIGN_OR_RETURN(writer_, format::ParquetWriter::Open([f](std::span<const uint8_t> b) { return f->Write(b); },
                                                          mapping_.parquet_schema, parquet_));
    return Status::OK();
  }

  fs::path data_dir_;
  const SchemaMapping& mapping_;
  const IcebergExportOptions& options_;
  format::ParquetWriteOptions parquet_;
  std::unique_ptr<LocalFile> file_;
  std::unique_ptr<format::ParquetWriter> writer_;
  fs::path current_path_;
  DataFile current_;
  std::vector<std::unique_ptr<ColumnStats>> stats_;  // per top-level column, null if not primitive
  std::vector<DataFile> files_;
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<IcebergExportResult> ExportIceberg(const table::Dataset& dataset, const std::string& dataset_uri,
                                          const std::string& table_dir, const IcebergExportOptions& options) {
  for (const Field& f : dataset.schema().fields) {
    if (IsBlobV2Field(f))
      return Status::NotSupported("column '" + f.name + "': Lance blob columns have no Iceberg type");
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

  DataFileSink sink(data_dir, mapping, SchemaJson(mapping.schema, 0).dump(), options);
  ASSIGN_OR_RETURN(auto reader, dataset.NewScan());
  while (true) {
    ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    RETURN_IF_ERROR(sink.Write(*batch));
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
  ASSIGN_OR_RETURN(std::string manifest, WriteDataManifest(sink.files(), mapping.schema, 0, snapshot_id, codec));
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
  md.snapshots.push_back(std::move(snap));
  md.properties = {{"write.format.default", "parquet"}, {"lance.dataset", dataset_uri}};
  // The commit point: before this rename there is no table, after it a whole one.
  RETURN_IF_ERROR(WriteAtomically(metadata_json, TableMetadataJson(md).dump(2)));
  RETURN_IF_ERROR(WriteAtomically(metadata_dir / "version-hint.text", "1"));
  result.metadata_file = FileUri(metadata_json);
  return result;
}

}  // namespace lancet::catalog
