#include "catalog/iceberg_files.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include "catalog/iceberg_metadata.h"

namespace lancet::catalog::iceberg {

namespace fs = std::filesystem;

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

Result<fs::path> PathOfFileUri(const std::string& uri) {
  if (!uri.starts_with("file://")) return Status::InvalidArgument("not a file:// URI: " + uri);
  std::string out;
  for (size_t i = 7; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size()) {
      out.push_back(static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(uri[i]);
    }
  }
  return fs::path(out);
}

Status WriteWhole(const fs::path& path, std::string_view bytes) {
  ASSIGN_OR_RETURN(auto file, LocalFile::Create(path));
  RETURN_IF_ERROR(file->Write({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
  return file->Close();
}

Status WriteAtomically(const fs::path& path, std::string_view bytes) {
  fs::path tmp = path;
  tmp += "." + NewUuid() + ".tmp";
  RETURN_IF_ERROR(WriteWhole(tmp, bytes));
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return Status::IOError("cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
  return Status::OK();
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<std::string> ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IOError("cannot read " + path.string());
  return ss.str();
}

DataFileSink::DataFileSink(fs::path data_dir, const SchemaMapping& mapping, const IcebergExportOptions& options,
                           RowMap* row_map)
    : data_dir_(std::move(data_dir)), mapping_(mapping), options_(options), row_map_(row_map) {
  parquet_.compression = options.compression;
  parquet_.key_value_metadata = {{"iceberg.schema", SchemaJson(mapping.schema, 0).dump()}};
}

DataFileSink::~DataFileSink() = default;

Status DataFileSink::Write(const RecordBatch& lance_batch, const Array* row_ids) {
  if (lance_batch.num_rows == 0) return Status::OK();
  ASSIGN_OR_RETURN(RecordBatch batch, ConformBatch(lance_batch, mapping_));
  if (!writer_) RETURN_IF_ERROR(OpenNext());
  RETURN_IF_ERROR(writer_->Write(batch));
  if (row_map_) {
    if (!row_ids || row_ids->type.id != TypeId::kUInt64 || row_ids->length != batch.num_rows) {
      return Status::Internal("Iceberg export: row ids missing for the row map");
    }
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      RETURN_IF_ERROR(row_map_->Add(row_ids->values<uint64_t>()[i],
                                    {current_index_, static_cast<uint64_t>(current_.record_count + i)}));
    }
  }
  current_.record_count += batch.num_rows;
  for (size_t i = 0; i < stats_.size(); ++i) {
    if (stats_[i]) stats_[i]->Update(batch.columns[i]);
  }
  if (static_cast<uint64_t>(current_.record_count) >= options_.rows_per_file) return CloseCurrent();
  return Status::OK();
}

Status DataFileSink::CloseCurrent() {
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

Status DataFileSink::OpenNext() {
  current_path_ = data_dir_ / (NewUuid() + "-" + std::to_string(files_.size()) + ".parquet");
  ASSIGN_OR_RETURN(file_, LocalFile::Create(current_path_));
  current_.file_path = FileUri(current_path_);
  if (row_map_) {
    current_index_ = static_cast<uint32_t>(row_map_->files.size());
    row_map_->files.push_back(current_.file_path);
  }
  // Statistics for top-level primitive columns; nested ones would count leaf values.
  stats_.clear();
  for (size_t i = 0; i < mapping_.schema.fields.size(); ++i) {
    const NestedField& f = mapping_.schema.fields[i];
    // Dictionary arrays hold indices, not values: they get no statistics.
    const bool plain =
        f.type.kind == Type::Kind::kPrimitive && mapping_.parquet_schema.fields[i].type.id != TypeId::kDictionary;
    stats_.push_back(plain ? std::make_unique<ColumnStats>(f.id, f.type.primitive) : nullptr);
  }
  LocalFile* out = file_.get();
  ASSIGN_OR_RETURN(writer_, format::ParquetWriter::Open([out](std::span<const uint8_t> b) { return out->Write(b); },
                                                        mapping_.parquet_schema, parquet_));
  return Status::OK();
}

Status WriteScanBatch(RecordBatch batch, bool with_row_id, DataFileSink* sink) {
  if (!with_row_id) return sink->Write(batch, nullptr);
  // The scan appends "_rowid" last.
  Array row_ids = std::move(batch.columns.back());
  batch.columns.pop_back();
  batch.schema.fields.pop_back();
  return sink->Write(batch, &row_ids);
}

}  // namespace lancet::catalog::iceberg
