// `lancet restore`: make an old version the latest again.
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/table/write.h"

namespace lancet::cli {
namespace {

struct RestoreState {
  std::string dataset;
  uint64_t version = 0;

  int Run() const {
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    auto v = table::Restore(**ds, version);
    if (!v.ok()) return ReportError(v.status(), dataset);
    std::printf("restored %s to version %llu: version %llu\n", dataset.c_str(),
                static_cast<unsigned long long>(version), static_cast<unsigned long long>(*v));
    return kExitOk;
  }
};

}  // namespace

Command AddRestoreCommand(CLI::App& root) {
  auto state = std::make_shared<RestoreState>();
  CLI::App* app = root.add_subcommand("restore", "Commit a new version with the content of an older one");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("VERSION", state->version, "Version to restore")->required();
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
