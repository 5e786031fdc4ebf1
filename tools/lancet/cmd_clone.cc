// `lancet clone SRC DST`: a new dataset from one version of another.
#include <chrono>
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/table/clone.h"

namespace lancet::cli {
namespace {

struct CloneState {
  std::string source;
  std::string target;
  VersionSelector selector;
  bool deep = false;

  int Run() const {
    auto ds = OpenDataset(source, selector);
    if (!ds.ok()) return ReportError(ds.status());
    table::CloneOptions options;
    options.deep = deep;
    const auto start = std::chrono::steady_clock::now();
    auto stats = table::CloneDataset(**ds, target, options);
    if (!stats.ok()) return ReportError(stats.status(), target);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s clone of version %llu: %llu files, %s written in %.3f s\n", deep ? "deep" : "shallow",
                static_cast<unsigned long long>(stats->version), static_cast<unsigned long long>(stats->files_written),
                HumanBytes(stats->bytes_written).c_str(), secs);
    return kExitOk;
  }
};

}  // namespace

Command AddCloneCommand(CLI::App& root) {
  auto state = std::make_shared<CloneState>();
  CLI::App* app = root.add_subcommand(
      "clone", "Make a new dataset from a version of SRC (shallow: it reads SRC's files; --deep copies them)");
  app->add_option("SRC", state->source, "Source dataset directory")->required();
  app->add_option("DST", state->target, "Directory of the new dataset")->required();
  state->selector.AddOptions(*app);
  app->add_flag("--deep", state->deep, "Copy every file the version uses instead of referring to them");
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
