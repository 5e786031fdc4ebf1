// `lancet dump`: the dataset as a lance-peer-dump/1 document (same options as dump.mjs).
#include "lancet/commands.h"
#include "lancet/dump.h"

namespace lancet::cli {
namespace {

struct DumpState {
  std::string dataset;
  std::vector<uint64_t> versions;
  std::vector<std::string> tags;
  bool all_versions = false;
  bool no_history = false;
  std::string out;

  int Run() const {
    // Always open the latest version: the document's history and latest_version
    // describe the whole dataset whichever snapshots are asked for.
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    DumpOptions options;
    options.versions = versions;
    options.tags = tags;
    options.all_versions = all_versions;
    options.history = !no_history;
    auto sink = OutputSink::Open(out);
    if (!sink.ok()) return ReportError(sink.status());
    Status st = WriteDump(**ds, options, **sink);
    if (!st.ok()) {
      (*sink)->Abandon();
      return ReportError(st, dataset);
    }
    st = (*sink)->Close();
    return st.ok() ? kExitOk : ReportError(st);
  }
};

}  // namespace

Command AddDumpCommand(CLI::App& root) {
  auto state = std::make_shared<DumpState>();
  CLI::App* app = root.add_subcommand(
      "dump", "Print the dataset as a lance-peer-dump/1 JSON document (default: latest snapshot)");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--version", state->versions, "Include a snapshot of this version (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--tag", state->tags, "Include a snapshot of the version this tag points at (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_flag("--all-versions", state->all_versions, "Include one snapshot per version");
  app->add_flag("--no-history", state->no_history, "Leave out versions[] and tags{}");
  app->add_option("--out,-o", state->out, "Write the document to this file instead of stdout");
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
