#include "lancet/import_source.h"

#include <filesystem>
#include <fstream>

#include "format/ipc_reader.h"
#include "lancet/format/parquet.h"
#include "lancet/io/input_stream.h"
#include "lancet/ndjson.h"
#include "lancet/schema_json.h"

namespace lancet::cli {
namespace {

// Length of the valid UTF-8 sequence at `s`, or 0 (overlongs, surrogates and
// code points past U+10FFFF are invalid).
size_t Utf8SequenceLength(const uint8_t* s, size_t n) {
  const uint8_t c = s[0];
  if (c < 0x80) return 1;
  size_t len = 0;
  uint8_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
  }
  return len;
}

bool IsValidUtf8(std::string_view text) {
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  size_t i = 0;
  while (i < text.size()) {
    const size_t len = Utf8SequenceLength(p + i, text.size() - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

bool HasUtf8(const DataType& t) {
  if (t.id == TypeId::kUtf8 || t.id == TypeId::kLargeUtf8) return true;
  if (t.id == TypeId::kDictionary) return t.value_type && HasUtf8(*t.value_type);
  for (const Field& c : t.children) {
    if (HasUtf8(c.type)) return true;
  }
  return false;
}

// Checks value `index` of `a` (offset applied by the accessors) and what it
// contains.
Status CheckValue(const Array& a, int64_t index, const std::string& path) {
  if (a.IsNull(index)) return Status::OK();
  switch (a.type.id) {
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      if (!IsValidUtf8(a.GetView(index))) return Status::InvalidArgument("column '" + path + "': invalid UTF-8");
      return Status::OK();
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      const auto [begin, end] = a.ListRange(index);
      for (int64_t j = begin; j < end; ++j) RETURN_IF_ERROR(CheckValue(a.children[0], j, path));
      return Status::OK();
    }
    case TypeId::kFixedSizeList: {
      const int64_t n = a.type.list_size;
      for (int64_t j = (a.offset + index) * n; j < (a.offset + index + 1) * n; ++j) {
        RETURN_IF_ERROR(CheckValue(a.children[0], j, path));
      }
      return Status::OK();
    }
    case TypeId::kStruct:
      for (size_t k = 0; k < a.children.size(); ++k) {
        if (!HasUtf8(a.children[k].type)) continue;
        RETURN_IF_ERROR(CheckValue(a.children[k], a.offset + index, path + "." + a.type.children[k].name));
      }
      return Status::OK();
    default:
      return Status::OK();
  }
}

Status CheckDictionaryValues(const Array& a, const std::string& path) {
  if (a.type.id == TypeId::kDictionary && a.dictionary) {
    for (int64_t i = 0; i < a.dictionary->length; ++i) {
      Status st = CheckValue(*a.dictionary, i, path);
      if (!st.ok()) return st.WithContext("dictionary value " + std::to_string(i));
    }
  }
  for (size_t k = 0; k < a.children.size(); ++k) {
    const std::string child = a.type.id == TypeId::kStruct ? path + "." + a.type.children[k].name : path;
    RETURN_IF_ERROR(CheckDictionaryValues(a.children[k], child));
  }
  return Status::OK();
}

bool SameFields(const std::vector<Field>& a, const std::vector<Field>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type.id != b[i].type.id || !SameFields(a[i].type.children, b[i].type.children)) {
      return false;
    }
  }
  return true;
}

// Bytes DetectFormat looks at.
constexpr uint64_t kDetectBytes = 64;

class NdjsonBatches final : public RecordBatchReader {
 public:
  NdjsonBatches(std::unique_ptr<NdjsonReader> in, Schema schema) : in_(std::move(in)), schema_(std::move(schema)) {}
  const Schema& schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override { return in_->Next(); }

 private:
  std::unique_ptr<NdjsonReader> in_;
  Schema schema_;
};

// Names the source (and its format) in the errors of an IPC reader.
class ContextReader final : public RecordBatchReader {
 public:
  ContextReader(std::unique_ptr<RecordBatchReader> in, std::string what) : in_(std::move(in)), what_(std::move(what)) {}
  const Schema& schema() const override { return in_->schema(); }
  Result<std::optional<RecordBatch>> Next() override {
    auto next = in_->Next();
    if (!next.ok()) return next.status().WithContext(what_);
    return next;
  }

 private:
  std::unique_ptr<RecordBatchReader> in_;
  std::string what_;
};

class CheckedReader final : public ImportReader {
 public:
  CheckedReader(std::unique_ptr<RecordBatchReader> in, std::string path, std::function<void(uint64_t)> on_batch)
      : in_(std::move(in)), path_(std::move(path)), on_batch_(std::move(on_batch)) {}
  const Schema& schema() const override { return in_->schema(); }
  uint64_t rows_read() const override { return rows_; }
  Result<std::optional<RecordBatch>> Next() override {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, in_->Next());
    if (!batch) return batch;
    Status st = CheckUtf8(*batch, rows_);
    if (!st.ok()) return st.WithContext(path_);
    rows_ += static_cast<uint64_t>(batch->num_rows);
    if (on_batch_) on_batch_(rows_);
    return batch;
  }

 private:
  std::unique_ptr<RecordBatchReader> in_;
  std::string path_;
  std::function<void(uint64_t)> on_batch_;
  uint64_t rows_ = 0;
};

}  // namespace

Result<SourceFormat> DetectFormat(std::string_view head) {
  if (head.substr(0, 6) == "ARROW1") return SourceFormat::kIpcFile;
  if (head.substr(0, 4) == "PAR1") return SourceFormat::kParquet;
  if (head.size() >= 4 && head.substr(0, 4) == std::string_view("\xFF\xFF\xFF\xFF", 4)) return SourceFormat::kIpcStream;
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{') return SourceFormat::kNdjson;
  // Pre-1.0 streams start with the metadata length, a small positive int32.
  if (head.size() >= 8) {
    const auto* p = reinterpret_cast<const uint8_t*>(head.data());
    const uint32_t len = p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24);
    if (len > 0 && len < (1u << 24) && len % 8 == 0) return SourceFormat::kIpcStream;
  }
  return Status::InvalidArgument(
      "not an Arrow IPC file or stream, a Parquet file, nor NDJSON (one JSON object per line)");
}

Status CheckUtf8(const RecordBatch& batch, uint64_t first_row) {
  for (size_t c = 0; c < batch.columns.size() && c < batch.schema.fields.size(); ++c) {
    const Array& col = batch.columns[c];
    const std::string& name = batch.schema.fields[c].name;
    if (!HasUtf8(col.type)) continue;
    RETURN_IF_ERROR(CheckDictionaryValues(col, name));
    for (int64_t i = 0; i < col.length; ++i) {
      Status st = CheckValue(col, i, name);
      if (!st.ok()) return st.WithContext("row " + std::to_string(first_row + static_cast<uint64_t>(i)));
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<ImportReader>> OpenImportSource(const std::string& path,
                                                       const std::optional<std::string>& schema_path,
                                                       std::function<void(uint64_t)> on_batch) {
  std::optional<Schema> given;
  if (schema_path) {
    ASSIGN_OR_RETURN(given, ReadSchemaFile(*schema_path));
  }
  std::error_code ec;
  if (path != "-" && !std::filesystem::is_regular_file(path, ec)) {
    // Pipes and fifos stream like standard input.
    if (!std::filesystem::exists(path, ec)) return Status::NotFound(path + ": no such file");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<io::InputStream> in, io::OpenInputStream(path));
  ASSIGN_OR_RETURN(BufferPtr head, in->Read(kDetectBytes));
  auto format = DetectFormat(head->view());
  if (!format.ok()) return format.status().WithContext(path);
  const bool seekable = path != "-" && std::filesystem::is_regular_file(path, ec);
  std::unique_ptr<RecordBatchReader> inner;
  if (*format == SourceFormat::kNdjson) {
    if (!given) return Status::InvalidArgument(path + ": NDJSON input needs --schema SCHEMA.json");
    if (!seekable) return Status::NotSupported(path + ": NDJSON must come from a file; pipe an Arrow IPC stream");
    ASSIGN_OR_RETURN(auto ndjson, NdjsonReader::Open(path, *given, kNdjsonBatchRows));
    inner = std::make_unique<NdjsonBatches>(std::move(ndjson), *given);
  } else {
    // Arrow IPC and Parquet: a reader that knows its schema, checked against --schema.
    const bool parquet = *format == SourceFormat::kParquet;
    const bool file = *format == SourceFormat::kIpcFile;
    const std::string what = path + (parquet ? " (Parquet)" : file ? " (Arrow IPC file)" : " (Arrow IPC stream)");
    Result<std::unique_ptr<RecordBatchReader>> opened = Status::Internal("unreachable");
    if (parquet || file) {
      if (!seekable) {
        return Status::NotSupported(path + (parquet ? ": a Parquet file needs its footer, so it must be a regular file"
                                                    : ": an Arrow IPC file needs its footer, so it must be a regular "
                                                      "file; pipe an Arrow IPC stream instead"));
      }
      in.reset();
      // Copies rather than maps, so the resident set holds one batch (a Parquet row
      // group), not the file.
      auto opened_file = io::LocalFileSystem(/*map_reads=*/false)->OpenRead(path);
      if (!opened_file.ok()) return opened_file.status();
      if (parquet) {
        format::ParquetReadOptions options;
        options.batch_rows = kNdjsonBatchRows;
        opened = format::OpenParquetReader(std::move(*opened_file), options);
      } else {
        opened = format::OpenIpcFileReader(std::move(*opened_file));
      }
    } else {
      opened = format::OpenIpcStreamReader(io::PrependToStream(std::move(head), std::move(in)));
    }
    if (!opened.ok()) return opened.status().WithContext(what);
    inner = std::move(*opened);
    if (given && !SameFields(given->fields, inner->schema().fields)) {
      return Status::InvalidArgument(path + ": its schema " + inner->schema().ToString() + " differs from --schema " +
                                     given->ToString());
    }
    inner = std::make_unique<ContextReader>(std::move(inner), what);
  }
  return std::unique_ptr<ImportReader>(std::make_unique<CheckedReader>(std::move(inner), path, std::move(on_batch)));
}

Result<ImportSource> ReadImportSource(const std::string& path, const std::optional<std::string>& schema_path,
                                      const std::function<void(uint64_t)>& on_batch) {
  ASSIGN_OR_RETURN(auto reader, OpenImportSource(path, schema_path, on_batch));
  ImportSource out;
  out.schema = reader->schema();
  ASSIGN_OR_RETURN(out.batches, ReadAllBatches(*reader));
  out.num_rows = reader->rows_read();
  return out;
}

}  // namespace lancet::cli
