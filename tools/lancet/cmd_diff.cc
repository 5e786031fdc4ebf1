// `lancet diff`: the rows a range of versions inserted, updated and deleted (CDC).

#include "lancet/commands.h"
#include "lancet/render.h"
#include "lancet/table/changes.h"

namespace lancet::cli {
namespace {

struct DiffState {
  std::string dataset;
  uint64_t from = 0, to = 0;
  std::string columns;
  std::string format = "table";
  size_t max_width = 40;
  std::string out;
  bool old_values = false;

  int Run() const {
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    table::ChangesOptions options;
    options.columns = SplitList(columns);
    options.with_old_values = old_values;
    auto reader = table::Changes(**ds, from, to, options);
    if (!reader.ok()) {
      const Status& st = reader.status();
      if (st.IsInvalidArgument() || st.IsNotFound()) return ReportUsage(st.message());
      return ReportError(st, dataset);
    }
    RenderOptions render;
    render.format = ParseRowFormat(format);
    render.max_width = max_width;
    // Changes stream out as they are found; deletes come last, by version.
    return WriteRowStream(**reader, render, out, dataset);
  }
};

}  // namespace

Command AddDiffCommand(CLI::App& root) {
  auto state = std::make_shared<DiffState>();
  CLI::App* app = root.add_subcommand(
      "diff", "Print the rows inserted, updated and deleted after version FROM up to TO (needs stable row ids)");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("FROM", state->from, "Changes after this version")->required();
  app->add_option("TO", state->to, "Changes up to and including this version")->required();
  app->add_option("--columns,-c", state->columns, "Comma-separated columns to show (default: all of TO's)");
  app->add_flag("--old-values", state->old_values, "Also show each column's value at FROM, as old_<column>");
  app->add_option("--format,-f", state->format, "Output format")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json", "csv"}));
  app->add_option("--max-width", state->max_width, "Table cells are cut to this many characters")
      ->capture_default_str()
      ->check(CLI::Range(4, 100000));
  app->add_option("--out,-o", state->out, "Write to this file instead of stdout");
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
