// `lancet blob get`: the bytes of one blob v2 value.
#include "lancet/commands.h"
#include "lancet/json_writer.h"

namespace lancet::cli {
namespace {

struct BlobGetState {
  std::string dataset;
  std::string column;
  uint64_t row_id = 0;
  VersionSelector selector;
  std::string out;

  int Run() const {
    auto ds = OpenDataset(dataset, selector);
    if (!ds.ok()) return ReportError(ds.status());
    const uint64_t ids[] = {row_id};
    auto blobs = (*ds)->TakeBlobs(column, ids);
    if (!blobs.ok()) {
      return ReportError(blobs.status(), dataset);
    }
    if (blobs->size() != 1 || !(*blobs)[0].has_value()) {
      return ReportError(Status::NotFound(dataset + ": blob '" + column + "' of _rowid " + std::to_string(row_id) +
                                          " is null"));
    }
    auto sink = OutputSink::Open(out);
    if (!sink.ok()) return ReportError(sink.status());
    const BufferPtr& bytes = *(*blobs)[0];
    if (bytes) (*sink)->Append(bytes->view());
    Status st = (*sink)->Close();
    return st.ok() ? kExitOk : ReportError(st);
  }
};

}  // namespace

Command AddBlobGetCommand(CLI::App& root) {
  CLI::App* group = root.add_subcommand("blob", "Blob v2 columns");
  group->require_subcommand(1);
  auto state = std::make_shared<BlobGetState>();
  CLI::App* app = group->add_subcommand("get", "Write the bytes of one blob to stdout (or -o FILE)");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("COLUMN", state->column, "Blob column (dotted path for a blob inside a struct)")->required();
  app->add_option("ROWID", state->row_id, "Row id")->required();
  app->add_option("--out,-o", state->out, "Write the bytes to this file");
  state->selector.AddOptions(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
