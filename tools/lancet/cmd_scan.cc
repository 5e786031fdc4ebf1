// `lancet scan` and `lancet take`: rows of a dataset as a table, JSON Lines or CSV.

#include "lancet/commands.h"
#include "lancet/io_stats_line.h"
#include "lancet/render.h"
#include "lancet/scan/scanner.h"

namespace lancet::cli {
namespace {

struct RowOutputOptions {
  std::string columns;
  std::string format = "table";
  size_t max_width = 40;
  std::string out;

  void AddOptions(CLI::App& app) {
    app.add_option("--columns,-c", columns,
                   "Comma-separated columns (default: all), nested paths a.b.c, and _rowid, _rowaddr, "
                   "_row_created_at_version, _row_last_updated_at_version");
    app.add_option("--format,-f", format, "Output format")
        ->capture_default_str()
        ->check(CLI::IsMember({"table", "json", "csv"}));
    app.add_option("--max-width", max_width, "Table cells are cut to this many characters")
        ->capture_default_str()
        ->check(CLI::Range(4, 100000));
    app.add_option("--out,-o", out, "Write to this file instead of stdout");
  }

  RenderOptions Render() const {
    RenderOptions r;
    r.format = ParseRowFormat(format);
    r.max_width = max_width;
    return r;
  }
};

// The header an empty take still shows: the requested columns (all by default).
std::vector<std::string> HeaderFor(const Schema& schema, const std::vector<std::string>& columns) {
  std::vector<std::string> names = columns;
  if (names.empty()) {
    for (const Field& f : schema.fields) names.push_back(f.name);
  }
  return names;
}

// Like CheckColumns, for what scan and take accept besides top-level names: the row
// meta columns and nested paths (whose top-level part is checked here, their members by the scan).
Status CheckScanColumns(const Schema& schema, const std::vector<std::string>& columns) {
  std::vector<std::string> tops;
  for (const std::string& c : columns) {
    if (c == "_rowid" || c == "_rowaddr" || c == "_row_created_at_version" || c == "_row_last_updated_at_version" ||
        schema.FieldIndex(c) >= 0) {
      continue;
    }
    tops.push_back(c.substr(0, c.find('.')));
  }
  return CheckColumns(schema, tops);
}

int WriteRows(const std::vector<RecordBatch>& batches, const RowOutputOptions& o, std::vector<std::string> header) {
  auto sink = OutputSink::Open(o.out);
  if (!sink.ok()) return ReportError(sink.status());
  RenderOptions render = o.Render();
  render.empty_header = std::move(header);
  Status st = RenderRows(batches, render, **sink);
  if (!st.ok()) {
    (*sink)->Abandon();
    return ReportError(st);
  }
  st = (*sink)->Close();
  return st.ok() ? kExitOk : ReportError(st);
}

// Past the column check, InvalidArgument from scan or take is about the request
// (e.g. a row id out of range): the user's mistake, reported like one.
bool IsUserError(const Status& st) { return st.IsInvalidArgument(); }

struct ScanState {
  std::string dataset;
  VersionSelector selector;
  RowOutputOptions output;
  std::string where;
  uint64_t offset = 0;
  std::optional<uint64_t> limit;
  bool row_ids = false;
  bool io_stats = false;
  bool explain = false;
  uint64_t batch_size = 65536;

  int Run() const {
    auto ds = OpenDataset(dataset, selector);
    if (!ds.ok()) return ReportError(ds.status());
    table::ScanOptions scan;
    scan.columns = SplitList(output.columns);
    if (Status st = CheckScanColumns((*ds)->schema(), scan.columns); !st.ok()) {
      return ReportUsage(dataset + ": " + st.message());
    }
    scan.filter = where;
    scan.offset = offset;
    scan.limit = limit;
    scan.with_row_id = row_ids;
    scan.with_row_addr = row_ids;
    scan.batch_size = batch_size;
    if (explain) {
      auto plan = scan::Explain(**ds, scan);
      if (!plan.ok()) return ReportError(plan.status(), dataset);
      std::fputs(plan->ToString().c_str(), stdout);
      if (io_stats) PrintIoStats(**ds);
      return kExitOk;
    }
    auto reader = scan::NewScan(**ds, scan);
    if (!reader.ok()) {
      const Status& st = reader.status();
      if (IsUserError(st) || st.IsNotFound()) return ReportUsage(st.message());
      return ReportError(st, dataset);
    }
    // Rows are written as batches arrive: the scan is never held whole.
    return WriteRowStream(**reader, output.Render(), output.out, dataset, [&] {
      if (io_stats) PrintIoStats(**ds);
    });
  }
};

struct TakeState {
  std::string dataset;
  VersionSelector selector;
  RowOutputOptions output;
  std::string rows;
  bool addresses = false;
  bool io_stats = false;

  int Run() const {
    auto ids = ParseU64List(rows);
    if (!ids.ok()) return ReportUsage("--rows: " + ids.status().message());
    if (ids->empty()) return ReportUsage("--rows: no row ids given");
    auto ds = OpenDataset(dataset, selector);
    if (!ds.ok()) return ReportError(ds.status());
    const auto columns = SplitList(output.columns);
    if (Status st = CheckScanColumns((*ds)->schema(), columns); !st.ok()) {
      return ReportUsage(dataset + ": " + st.message());
    }
    auto batch = addresses ? (*ds)->TakeRowAddresses(*ids, columns) : (*ds)->TakeRowIds(*ids, columns);
    if (!batch.ok()) {
      if (IsUserError(batch.status())) return ReportUsage(dataset + ": " + batch.status().message());
      return ReportError(batch.status(), dataset);
    }
    std::vector<RecordBatch> batches;
    batches.push_back(batch.MoveValue());
    const int rc = WriteRows(batches, output, HeaderFor((*ds)->schema(), columns));
    if (io_stats) PrintIoStats(**ds);
    return rc;
  }
};

}  // namespace

Command AddScanCommand(CLI::App& root) {
  auto state = std::make_shared<ScanState>();
  CLI::App* app = root.add_subcommand("scan", "Print rows of a dataset");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  state->selector.AddOptions(*app);
  state->output.AddOptions(*app);
  app->add_option("--where,-w", state->where, "Only rows for which this filter is true (docs/cli.md, Filters)");
  app->add_option("--offset", state->offset, "Skip this many rows (after the filter) first");
  app->add_option("--limit,-n", state->limit, "Stop after this many rows");
  app->add_option("--batch-size", state->batch_size, "Rows per scan batch")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app->add_flag("--row-ids", state->row_ids, "Add the _rowid and _rowaddr columns");
  app->add_flag("--explain", state->explain,
                "Print which index answered each part of --where and how many rows it kept, not the rows");
  AddIoStatsFlag(*app, &state->io_stats);
  return {app, [state] { return state->Run(); }};
}

Command AddTakeCommand(CLI::App& root) {
  auto state = std::make_shared<TakeState>();
  CLI::App* app = root.add_subcommand("take", "Print rows of a dataset by row id");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--rows,-r", state->rows, "Comma-separated row ids (or addresses with --addresses)")->required();
  app->add_flag("--addresses", state->addresses, "--rows are row addresses ((fragment << 32) | offset)");
  state->selector.AddOptions(*app);
  state->output.AddOptions(*app);
  AddIoStatsFlag(*app, &state->io_stats);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
