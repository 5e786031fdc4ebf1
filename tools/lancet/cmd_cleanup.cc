// `lancet cleanup`: remove old versions and the files only they used.
#include <cstdio>
#include <string>
#include <string_view>

#include "lancet/commands.h"
#include "lancet/progress.h"
#include "lancet/table/cleanup.h"

namespace lancet::cli {
namespace {

struct CleanupState {
  std::string dataset;
  std::string older_than = "14d";
  bool delete_unverified = false;
  Progress progress;

  int Run() {
    table::CleanupOptions options;
    auto age = ParseDuration(older_than);
    if (!age.ok()) return ReportUsage("--older-than: " + age.status().message());
    options.older_than = *age;
    options.delete_unverified = delete_unverified;
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    options.progress = [this](std::string_view phase, uint64_t done, uint64_t total) {
      progress.Report(std::string(phase) + ": " + std::to_string(done) + " of " + std::to_string(total));
    };
    auto stats = table::Cleanup(**ds, options);
    progress.Done();
    if (!stats.ok()) return ReportError(stats.status(), dataset);
    std::printf("removed %llu old versions and %llu files (%llu bytes) from %s\n",
                static_cast<unsigned long long>(stats->old_versions),
                static_cast<unsigned long long>(stats->files_removed),
                static_cast<unsigned long long>(stats->bytes_removed), dataset.c_str());
    if (stats->uploads_aborted > 0) {
      std::printf("aborted %llu stale multipart uploads\n", static_cast<unsigned long long>(stats->uploads_aborted));
    }
    return kExitOk;
  }
};

}  // namespace

Command AddCleanupCommand(CLI::App& root) {
  auto state = std::make_shared<CleanupState>();
  CLI::App* app = root.add_subcommand("cleanup", "Delete old versions and files no kept version uses");
  app->footer("The latest version and tagged versions are always kept.");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--older-than", state->older_than,
                  "Remove versions older than this: a number with unit d, h, m "
                  "or s (default 14d; 0s = all)");
  app->add_flag("--delete-unverified", state->delete_unverified,
                "Also remove unreferenced files younger than 7 days (may break "
                "an in-progress commit)");
  state->progress.AddOption(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
