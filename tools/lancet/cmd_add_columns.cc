// `lancet add-columns`: new columns from an IPC/NDJSON source, one value per
// visible row.
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/import_source.h"
#include "lancet/progress.h"
#include "lancet/table/evolution.h"

namespace lancet::cli {
namespace {

struct AddColumnsState {
  std::string dataset;
  std::string source;
  std::optional<std::string> schema;
  Progress progress;

  int Run() {
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    auto src = ReadImportSource(source, schema, [this](uint64_t rows) {
      progress.Report("read " + std::to_string(rows) + " rows from " + source);
    });
    progress.Done();
    if (!src.ok()) return ReportError(src.status(), source);
    const uint64_t rows = (*ds)->CountRows();
    if (src->num_rows != rows) {
      return ReportError(
          Status::InvalidArgument(source + " has " + std::to_string(src->num_rows) + " rows but the dataset has " +
                                  std::to_string(rows) + " visible rows; add-columns needs one row per dataset row"),
          dataset);
    }
    auto version = table::AddColumns(**ds, src->schema, std::move(src->batches));
    if (!version.ok()) return ReportError(version.status(), dataset);
    std::printf("added %zu columns to %s: version %llu\n", src->schema.fields.size(), dataset.c_str(),
                static_cast<unsigned long long>(*version));
    return kExitOk;
  }
};

}  // namespace

Command AddAddColumnsCommand(CLI::App& root) {
  auto state = std::make_shared<AddColumnsState>();
  CLI::App* app = root.add_subcommand("add-columns", "Add columns whose values come from an IPC or NDJSON file");
  app->footer(
      "SRC holds only the new columns, one row per visible dataset row "
      "in scan order\n"
      "(`lancet scan` order). Formats as for `lancet import`; NDJSON "
      "needs --schema.");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("SRC", state->source, "Arrow IPC file or stream, or NDJSON file")->required();
  app->add_option("--schema", state->schema, "Schema JSON of the new columns (required for NDJSON)");
  state->progress.AddOption(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
