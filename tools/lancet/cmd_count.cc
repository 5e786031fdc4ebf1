// `lancet count`: visible rows, or those a filter keeps (read column by column, only
// the filter's columns).
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/scan/scanner.h"
#include "lancet/io_stats_line.h"

namespace lancet::cli {
namespace {

struct CountState {
  std::string dataset;
  VersionSelector selector;
  std::string where;
  bool io_stats = false;

  int Run() const {
    auto ds = OpenDataset(dataset, selector);
    if (!ds.ok()) return ReportError(ds.status());
    uint64_t rows = 0;
    if (where.empty()) {
      rows = (*ds)->CountRows();  // from the manifest: nothing to read
    } else {
      table::ScanOptions scan;
      scan.columns = {"_rowaddr"};  // costs no read: the filter's columns are all it reads
      scan.filter = where;
      auto reader = scan::NewScan(**ds, scan);
      if (!reader.ok()) {
        if (reader.status().IsInvalidArgument()) return ReportUsage(reader.status().message());
        return ReportError(reader.status(), dataset);
      }
      while (true) {
        auto batch = (*reader)->Next();
        if (!batch.ok()) return ReportError(batch.status(), dataset);
        if (!*batch) break;
        rows += static_cast<uint64_t>((*batch)->num_rows);
      }
    }
    std::printf("%llu\n", static_cast<unsigned long long>(rows));
    if (io_stats) PrintIoStats(**ds);
    return kExitOk;
  }
};

}  // namespace

Command AddCountCommand(CLI::App& root) {
  auto state = std::make_shared<CountState>();
  CLI::App* app = root.add_subcommand("count", "Print how many rows a dataset (or a filter) has");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--where,-w", state->where, "Count only rows for which this filter is true");
  state->selector.AddOptions(*app);
  AddIoStatsFlag(*app, &state->io_stats);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
