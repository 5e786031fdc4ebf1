// `lancet compact`: merge small fragments and drop deleted rows.
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/progress.h"
#include "lancet/table/compaction.h"

namespace lancet::cli {
namespace {

struct CompactState {
  std::string dataset;
  table::CompactionOptions options;
  Progress progress;

  int Run() {
    if (options.target_rows_per_fragment == 0) return ReportUsage("--target-rows must be at least 1");
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    options.progress = [this](uint64_t done, uint64_t total) {
      progress.Report("compacted " + std::to_string(done) + " of " + std::to_string(total) + " rows");
    };
    auto m = table::Compact(**ds, options);
    progress.Done();
    if (!m.ok()) return ReportError(m.status(), dataset);
    if (m->version == (*ds)->version()) {
      std::printf("nothing to compact; %s stays at version %llu\n", dataset.c_str(),
                  static_cast<unsigned long long>(m->version));
      return kExitOk;
    }
    std::printf(
        "compacted %s: %llu fragments removed, %llu added, %llu files "
        "removed, %llu added: version %llu\n",
        dataset.c_str(), static_cast<unsigned long long>(m->fragments_removed),
        static_cast<unsigned long long>(m->fragments_added), static_cast<unsigned long long>(m->files_removed),
        static_cast<unsigned long long>(m->files_added), static_cast<unsigned long long>(m->version));
    return kExitOk;
  }
};

}  // namespace

Command AddCompactCommand(CLI::App& root) {
  auto state = std::make_shared<CompactState>();
  CLI::App* app = root.add_subcommand("compact", "Rewrite small fragments and fragments with many deleted rows");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--target-rows", state->options.target_rows_per_fragment,
                  "Rows per rewritten fragment (default 1048576)");
  state->progress.AddOption(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
