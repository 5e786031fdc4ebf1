// `lancet export`: a version of a dataset as an Arrow IPC stream or file, or as Parquet.
#include <cstdio>
#include <functional>
#include <memory>
#include <span>

#include "format/ipc_writer.h"
#include "lancet/commands.h"
#include "lancet/export_blobs.h"
#include "lancet/format/parquet.h"
#include "lancet/io/object_store.h"
#include "lancet/progress.h"
#include "lancet/value_json.h"

namespace lancet::cli {
namespace {

// Where the IPC bytes go as they are encoded: stdout, or a temporary file renamed
// over `path` at the end, so a failed export never leaves a partial file behind.
class Output {
 public:
  Status Open(const std::string& path) {
    if (path == "-") return Status::OK();
    auto writer = io::LocalFileSystem()->OpenWrite(path);
    if (!writer.ok()) return writer.status();
    file_ = std::move(*writer);
    return Status::OK();
  }
  Status Append(std::span<const uint8_t> bytes) {
    if (file_) return file_->Append(bytes);
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) {
      return Status::IOError("write to stdout failed");
    }
    return Status::OK();
  }
  Status Close() {
    if (file_) return file_->Close();
    if (std::fflush(stdout) != 0) return Status::IOError("write to stdout failed");
    return Status::OK();
  }

 private:
  std::unique_ptr<io::ObjectWriter> file_;  // unset for stdout; dropped unclosed, it removes its temporary
};

struct ExportState {
  std::string dataset;
  std::string out;
  VersionSelector selector;
  std::string columns;
  std::string where;
  std::string format;
  std::string compression;
  uint64_t row_group_rows = uint64_t{1} << 20;
  bool skip_blobs = false;
  bool blob_bytes = false;
  bool dictionary = true;
  Progress progress;

  // The IPC and Parquet writers behind one Write/Finish pair.
  struct BatchSink {
    std::function<Status(const RecordBatch&)> write;
    std::function<Status()> finish;
  };
  using ByteSink = std::function<Status(std::span<const uint8_t>)>;

  Result<BatchSink> OpenIpc(ByteSink sink, const Schema& schema) const {
    if (compression == "snappy" || compression == "gzip") {
      return Status::InvalidArgument("--compression " + compression + " is for Parquet; IPC takes none, lz4 or zstd");
    }
    format::IpcWriteOptions options;
    options.compression = compression == "lz4"    ? format::IpcCompression::kLz4Frame
                          : compression == "zstd" ? format::IpcCompression::kZstd
                                                  : format::IpcCompression::kNone;
    const bool as_file = format == "file" || (format.empty() && out.size() > 6 && out.ends_with(".arrow"));
    ASSIGN_OR_RETURN(auto writer, format::IpcBatchWriter::Open(std::move(sink), schema, options, as_file));
    std::shared_ptr<format::IpcBatchWriter> w = std::move(writer);
    return BatchSink{[w](const RecordBatch& b) { return w->Write(b); }, [w] { return w->Finish(); }};
  }

  Result<BatchSink> OpenParquet(ByteSink sink, const Schema& schema) const {
    format::ParquetWriteOptions options;
    options.compression = compression == "none"   ? format::ParquetCompression::kNone
                          : compression == "gzip" ? format::ParquetCompression::kGzip
                          : compression == "zstd" ? format::ParquetCompression::kZstd
                          : compression == "lz4"  ? format::ParquetCompression::kLz4Raw
                                                  : format::ParquetCompression::kSnappy;
    options.row_group_rows = row_group_rows;
    options.dictionary = dictionary;
    ASSIGN_OR_RETURN(auto writer, format::ParquetWriter::Open(std::move(sink), schema, options));
    std::shared_ptr<format::ParquetWriter> w = std::move(writer);
    return BatchSink{[w](const RecordBatch& b) { return w->Write(b); }, [w] { return w->Finish(); }};
  }

  int Run() {
    auto ds = OpenDataset(dataset, selector);
    if (!ds.ok()) return ReportError(ds.status());
    std::vector<std::string> blob_columns;
    Schema schema;
    // --columns picks top-level columns in the order given; the schema keeps their metadata.
    std::vector<Field> picked;
    if (columns.empty()) {
      picked = (*ds)->schema().fields;
    } else {
      for (const std::string& name : SplitList(columns)) {
        const int index = (*ds)->schema().FieldIndex(name);
        if (index < 0) {
          return ReportError(Status::InvalidArgument("--columns: no top-level column '" + name + "'"), dataset);
        }
        picked.push_back((*ds)->schema().fields[static_cast<size_t>(index)]);
      }
    }
    for (const Field& f : picked) {
      if (BlobFieldPaths(Schema{{f}, {}}).empty() || blob_bytes) {
        schema.fields.push_back(f);
      } else {
        blob_columns.push_back(f.name);
      }
    }
    schema.metadata = (*ds)->schema().metadata;
    if (!blob_columns.empty() && !skip_blobs) {
      return ReportError(Status::NotSupported("column '" + blob_columns.front() +
                                              "' holds Blob V2 values: --blob-bytes exports them (with "
                                              "their bytes), --skip-blobs leaves such columns out"),
                         dataset);
    }
    if (!blob_columns.empty()) {
      std::string names;
      for (const auto& c : blob_columns) names += (names.empty() ? "" : ", ") + c;
      std::fprintf(stderr, "lancet: %s: leaving out blob columns: %s\n", dataset.c_str(), names.c_str());
    }
    if (schema.fields.empty()) return ReportError(Status::InvalidArgument("no columns left to export"), dataset);
    const bool with_blobs = blob_bytes && !BlobFieldPaths(schema).empty();
    if (with_blobs) {
      auto exported = BlobExportSchema(schema);
      if (!exported.ok()) return ReportError(exported.status(), dataset);
      schema = std::move(*exported);
    }
    table::ScanOptions scan;
    for (const Field& f : schema.fields) scan.columns.push_back(f.name);
    scan.with_row_addr = with_blobs;
    scan.filter = where;
    // Memory is the scan's window of batches; capping them in rows and bytes keeps wide rows bounded.
    scan.batch_size = 8192;
    scan.batch_bytes = 32ull << 20;
    const bool parquet = format == "parquet" || (format.empty() && out.ends_with(".parquet"));
    Output output;
    Status st = output.Open(out);
    if (!st.ok()) return ReportError(st);
    auto sink = [&output](std::span<const uint8_t> bytes) { return output.Append(bytes); };
    auto writer = parquet ? OpenParquet(sink, schema) : OpenIpc(sink, schema);
    if (!writer.ok()) return ReportError(writer.status(), dataset);
    // Batches are scanned, converted and written one at a time.
    auto scanned = (*ds)->NewScan(scan);
    if (!scanned.ok()) return ReportError(scanned.status(), dataset);
    std::unique_ptr<RecordBatchReader> batches = std::move(*scanned);
    uint64_t rows = 0;
    // With a filter the total is unknown up front; progress then counts rows only.
    const uint64_t total = where.empty() ? (*ds)->CountRows() : 0;
    while (true) {
      auto next = batches->Next();
      if (!next.ok()) return ReportError(next.status(), dataset);
      if (!*next) break;
      // Scan batches carry the read schema; the export names the logical one.
      auto write = [&](RecordBatch part) -> Status {
        part.schema = schema;
        rows += static_cast<uint64_t>(part.num_rows);
        return writer->write(part);
      };
      st =
          with_blobs ? ExportBlobRows(**ds, schema, **next, kExportBlobBytesPerBatch, write) : write(std::move(**next));
      if (!st.ok()) return ReportError(st, dataset);
      progress.Report("exported " + std::to_string(rows) + (total != 0 ? " of " + std::to_string(total) : "") +
                      " rows");
    }
    st = writer->finish();
    if (st.ok()) st = output.Close();
    progress.Done();
    if (!st.ok()) return ReportError(st, out == "-" ? dataset : out);
    if (out != "-") {
      std::printf("exported %llu rows of %s version %llu to %s\n", static_cast<unsigned long long>(rows),
                  dataset.c_str(), static_cast<unsigned long long>((*ds)->version()), out.c_str());
    }
    return kExitOk;
  }
};

}  // namespace

Command AddExportCommand(CLI::App& root) {
  auto state = std::make_shared<ExportState>();
  CLI::App* app =
      root.add_subcommand("export", "Write a version of a dataset as Arrow IPC (stream or file) or Parquet");
  app->footer(
      "The schema keeps field and schema metadata, so `lancet import` "
      "of the output\n"
      "reproduces the rows exactly. Blob V2 columns are refused "
      "(NotSupported) unless\n"
      "--blob-bytes writes them as struct<data: large_binary, uri: utf8> with their bytes\n"
      "(an external blob of a whole file as its uri), which `lancet import` stores as\n"
      "blobs again, or --skip-blobs leaves them out. OUT '-' writes to stdout.\n"
      "Parquet (--format parquet, or an OUT ending in .parquet) is written a row group at\n"
      "a time, with the Arrow schema in its footer (ARROW:schema) so the exact types return.");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("OUT", state->out, "Output file (.arrows/.arrow/.parquet), or - for stdout")->required();
  state->selector.AddOptions(*app);
  app->add_option("--columns,-c", state->columns, "Comma-separated top-level columns to export (default: all)");
  app->add_option("--where,-w", state->where, "Only rows for which this filter is true (docs/cli.md, Filters)");
  app->add_option("--format", state->format,
                  "stream, file or parquet (default: file for *.arrow, parquet for *.parquet, else stream)")
      ->check(CLI::IsMember({"stream", "file", "parquet"}));
  app->add_option("--compression", state->compression,
                  "IPC body compression: none (default), lz4 or zstd; Parquet pages: snappy (default), gzip, "
                  "zstd, lz4 (LZ4_RAW) or none")
      ->check(CLI::IsMember({"none", "lz4", "zstd", "snappy", "gzip"}));
  app->add_option("--row-group-rows", state->row_group_rows, "Parquet: rows per row group (default 1048576)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{INT32_MAX}));
  app->add_flag("!--no-dictionary", state->dictionary, "Parquet: PLAIN pages only, no dictionary encoding");
  auto* skip = app->add_flag("--skip-blobs", state->skip_blobs, "Leave Blob V2 columns out instead of failing");
  app->add_flag("--blob-bytes", state->blob_bytes, "Export Blob V2 columns with their bytes, in the form import reads")
      ->excludes(skip);
  state->progress.AddOption(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
