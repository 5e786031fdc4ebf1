// `lancet blob get|range|locate`: the bytes of Blob V2 values and where they live.
#include <filesystem>

#include "lancet/blob/blob_file.h"
#include "lancet/commands.h"
#include "lancet/json_writer.h"

namespace lancet::cli {
namespace {

// Bytes read from a blob per call while copying it out: bounds memory for blobs of
// any size.
constexpr uint64_t kCopyChunk = 8 << 20;

const char* KindName(table::BlobKind kind) {
  switch (kind) {
    case table::BlobKind::kInline:
      return "inline";
    case table::BlobKind::kPacked:
      return "packed";
    case table::BlobKind::kDedicated:
      return "dedicated";
    case table::BlobKind::kExternal:
      return "external";
  }
  return "unknown";
}

// What every blob subcommand names: the dataset, version, column and how rows are keyed.
struct BlobTarget {
  std::string dataset;
  std::string column;
  VersionSelector selector;
  bool address = false;

  void AddOptions(CLI::App& app) {
    app.add_option("DATASET", dataset, "Dataset directory")->required();
    app.add_option("COLUMN", column, "Blob column (dotted path for a blob inside a struct)")->required();
  }
  void AddFlags(CLI::App& app) {
    app.add_flag("--address", address, "The numbers are row addresses ((fragment << 32) | offset), not row ids");
    selector.AddOptions(app);
  }
  table::RowKey key() const { return address ? table::RowKey::kRowAddress : table::RowKey::kRowId; }
  std::string RowName(uint64_t row) const { return (address ? "_rowaddr " : "_rowid ") + std::to_string(row); }
};

// Streams [begin, end) of `file` into `sink` in bounded reads.
Status CopyRange(blob::BlobFile& file, uint64_t begin, uint64_t end, OutputSink& sink) {
  for (uint64_t pos = begin; pos < end;) {
    const uint64_t stop = end - pos > kCopyChunk ? pos + kCopyChunk : end;
    ASSIGN_OR_RETURN(BufferPtr bytes, file.read_range(pos, stop));
    if (bytes->size() != stop - pos) {
      return Status::IOError(sink.name() + ": short blob read at byte " + std::to_string(pos));
    }
    sink.Append(bytes->view());
    RETURN_IF_ERROR(sink.Flush());
    pos = stop;
  }
  return Status::OK();
}

struct BlobGetState {
  BlobTarget target;
  std::vector<uint64_t> rows;
  std::string out;

  // The blobs of `some`, one after another, into `path` (a failed copy removes it).
  Status CopyTo(const table::Dataset& ds, std::span<const uint64_t> some, const std::string& path) const {
    ASSIGN_OR_RETURN(auto sink, OutputSink::Open(path));
    for (uint64_t row : some) {
      auto file = blob::BlobFile::Open(ds, target.column, row, target.key());
      Status st = file.ok() ? CopyRange(**file, 0, (*file)->size(), *sink) : file.status();
      if (!st.ok()) {
        sink->Abandon();
        return st;
      }
    }
    return sink->Close();
  }

  int Run() const {
    auto ds = OpenDataset(target.dataset, target.selector);
    if (!ds.ok()) return ReportError(ds.status());
    // Locating first checks every row (and finds null blobs) before any output.
    auto where = (*ds)->LocateBlobs(target.column, rows, target.key());
    if (!where.ok()) return ReportError(where.status(), target.dataset);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!(*where)[i]) {
        return ReportError(Status::NotFound(target.dataset + ": blob '" + target.column + "' of " +
                                            target.RowName(rows[i]) + " is null"));
      }
    }
    // Several rows into -o: a directory with one ROW.bin per row.
    const bool to_dir = rows.size() > 1 && !out.empty() && out != "-";
    if (!to_dir) {
      Status st = CopyTo(**ds, rows, out);
      return st.ok() ? kExitOk : ReportError(st, target.dataset);
    }
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) return ReportError(Status::IOError(out + ": cannot create directory: " + ec.message()));
    for (uint64_t row : rows) {
      Status st = CopyTo(**ds, {&row, 1}, out + "/" + std::to_string(row) + ".bin");
      if (!st.ok()) return ReportError(st, target.dataset);
    }
    return kExitOk;
  }
};

struct BlobRangeState {
  BlobTarget target;
  uint64_t row = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  std::string out;

  int Run() const {
    auto ds = OpenDataset(target.dataset, target.selector);
    if (!ds.ok()) return ReportError(ds.status());
    auto file = blob::BlobFile::Open(**ds, target.column, row, target.key());
    if (!file.ok()) return ReportError(file.status(), target.dataset);
    const uint64_t size = (*file)->size();
    if (offset > size || length > size - offset) {
      return ReportError(Status::InvalidArgument(target.dataset + ": blob '" + target.column + "' of " +
                                                 target.RowName(row) + " has " + std::to_string(size) +
                                                 " bytes; --offset " + std::to_string(offset) + " --length " +
                                                 std::to_string(length) + " reaches past its end"));
    }
    auto sink = OutputSink::Open(out);
    if (!sink.ok()) return ReportError(sink.status());
    Status st = CopyRange(**file, offset, offset + length, **sink);
    if (!st.ok()) {
      (*sink)->Abandon();
      return ReportError(st, target.dataset);
    }
    st = (*sink)->Close();
    return st.ok() ? kExitOk : ReportError(st);
  }
};

struct BlobLocateState {
  BlobTarget target;
  std::vector<uint64_t> rows;
  bool json = false;
  std::string format;

  int Run() const {
    auto ds = OpenDataset(target.dataset, target.selector);
    if (!ds.ok()) return ReportError(ds.status());
    auto where = (*ds)->LocateBlobs(target.column, rows, target.key());
    if (!where.ok()) return ReportError(where.status(), target.dataset);
    auto sink = OutputSink::Open("-");
    if (!sink.ok()) return ReportError(sink.status());
    std::string& text = (*sink)->buffer();
    auto write_row = [&](JsonWriter& w, size_t i) {
      const std::optional<table::BlobLocation>& loc = (*where)[i];
      w.BeginObject();
      w.Key("row");
      w.UInt(rows[i]);
      w.Key("kind");
      loc ? w.String(KindName(loc->kind)) : w.Null();
      w.Key("object");
      loc ? w.String(loc->object) : w.Null();
      w.Key("offset");
      loc ? w.UInt(loc->offset) : w.Null();
      w.Key("length");
      loc ? w.UInt(loc->length) : w.Null();
      w.EndObject();
    };
    if (json) {
      JsonWriter w(&text);
      w.BeginArray();
      for (size_t i = 0; i < rows.size(); ++i) write_row(w, i);
      w.EndArray();
      text += '\n';
    } else if (format == "json") {  // an object per line, as every list command prints
      for (size_t i = 0; i < rows.size(); ++i) {
        JsonWriter w(&text);
        write_row(w, i);
        text += '\n';
      }
    } else {
      for (size_t i = 0; i < rows.size(); ++i) {
        const std::optional<table::BlobLocation>& loc = (*where)[i];
        text += std::to_string(rows[i]) + '\t';
        text += loc ? std::string(KindName(loc->kind)) + '\t' + loc->object + '\t' + std::to_string(loc->offset) +
                          '\t' + std::to_string(loc->length)
                    : "null\tnull\tnull\tnull";
        text += '\n';
      }
    }
    Status st = (*sink)->Close();
    return st.ok() ? kExitOk : ReportError(st);
  }
};

}  // namespace

Command AddBlobCommand(CLI::App& root) {
  CLI::App* group = root.add_subcommand("blob", "Blob V2 columns: bytes and locations");
  group->require_subcommand(1);

  auto get = std::make_shared<BlobGetState>();
  CLI::App* get_app = group->add_subcommand("get", "Write the bytes of blobs to stdout (or -o FILE / -o DIR)");
  get_app->footer(
      "Several rows go to stdout one after another; with -o, one row is written to the\n"
      "file OUT and several rows to the directory OUT (created if missing), one file\n"
      "ROW.bin each. A null blob is an error; nothing is written then.");
  get->target.AddOptions(*get_app);
  get_app->add_option("ROWID", get->rows, "Row ids (row addresses with --address)")->required();
  get_app->add_option("--out,-o", get->out, "Output file (one row) or directory (several rows)");
  get->target.AddFlags(*get_app);

  auto range = std::make_shared<BlobRangeState>();
  CLI::App* range_app = group->add_subcommand("range", "Write bytes [offset, offset+length) of one blob");
  range->target.AddOptions(*range_app);
  range_app->add_option("ROWID", range->row, "Row id (row address with --address)")->required();
  range_app->add_option("--offset", range->offset, "First byte")->required();
  range_app->add_option("--length", range->length, "Number of bytes")->required();
  range_app->add_option("--out,-o", range->out, "Write the bytes to this file");
  range->target.AddFlags(*range_app);

  auto locate = std::make_shared<BlobLocateState>();
  CLI::App* locate_app = group->add_subcommand("locate", "Print where blobs live: kind, object, offset, length");
  locate_app->footer(
      "One line per row: ROW<TAB>KIND<TAB>OBJECT<TAB>OFFSET<TAB>LENGTH, KIND one of\n"
      "inline (in the data file), packed (in a shared sidecar), dedicated (a sidecar of its\n"
      "own) or external (a file outside the dataset); 'null' in every field for a null\n"
      "blob. --format json prints an object {row, kind, object, offset, length} per line,\n"
      "--json one array of them.");
  locate->target.AddOptions(*locate_app);
  locate_app->add_option("ROWID", locate->rows, "Row ids (row addresses with --address)")->required();
  auto* array = locate_app->add_flag("--json", locate->json, "Print one JSON array");
  AddListFormatOption(*locate_app, &locate->format);
  array->excludes("--format");
  locate->target.AddFlags(*locate_app);

  return {group, [=] {
            if (get_app->parsed()) return get->Run();
            if (range_app->parsed()) return range->Run();
            return locate->Run();
          }};
}

}  // namespace lancet::cli
