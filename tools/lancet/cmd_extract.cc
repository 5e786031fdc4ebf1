// `lancet extract`: part of a blob (frames, segments, chunks) through its media plugin.
#include <cstdio>
#include <fstream>

#include "lancet/commands.h"
#include "lancet/media/extract.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/media_option.h"

namespace lancet::cli {
namespace {

struct ExtractState {
  std::string dataset;
  std::string column;
  std::vector<uint64_t> rows;
  std::string request;
  std::string plugin;
  std::string out;
  bool address = false;
  bool quiet = false;
  VersionSelector version;

  int Run() const {
    auto ds = OpenDataset(dataset, version);
    if (!ds.ok()) return ReportError(ds.status());
    if (plugin.empty()) {
      // Plugins are only loaded from a path the user gives; the dataset names its plugin.
      std::string hint;
      for (const Field& f : (*ds)->schema().fields) {
        auto it = f.metadata.find(media::kMediaPluginKey);
        if (f.name == column && it != f.metadata.end())
          hint = " (column '" + column + "' was ingested by '" + it->second + "')";
      }
      return ReportUsage("extract needs --plugin LIBRARY[:CONFIG_FILE]" + hint);
    }
    auto spec = ParsePluginSpec(plugin);
    if (!spec.ok()) return ReportUsage(spec.status().message());
    auto loaded = media::MediaPlugin::Load(*spec);
    if (!loaded.ok()) return ReportError(loaded.status());
    media::ExtractOptions options;
    options.key = address ? table::RowKey::kRowAddress : table::RowKey::kRowId;
    std::vector<uint8_t> req(request.begin(), request.end());
    media::ExtractStats stats;
    auto outputs = media::Extract(**ds, column, rows, req, **loaded, options, &stats);
    if (!outputs.ok()) return ReportError(outputs.status(), dataset);
    std::FILE* sink = stdout;
    if (!out.empty()) {
      sink = std::fopen(out.c_str(), "wb");
      if (sink == nullptr) return ReportError(Status::IOError(out + ": cannot create"));
    }
    bool ok = true;
    for (size_t i = 0; i < outputs->size(); ++i) {
      const auto& o = (*outputs)[i];
      if (!o) {
        if (!quiet) std::fprintf(stderr, "row %llu: null blob\n", static_cast<unsigned long long>(rows[i]));
        continue;
      }
      if (o->data && o->data->size() > 0) {
        ok = ok && std::fwrite(o->data->data(), 1, static_cast<size_t>(o->data->size()), sink) ==
                       static_cast<size_t>(o->data->size());
      }
      if (!quiet) {
        std::fprintf(stderr, "row %llu: %llu bytes %s\n", static_cast<unsigned long long>(rows[i]),
                     static_cast<unsigned long long>(o->data ? o->data->size() : 0), o->metadata.c_str());
      }
    }
    if (sink != stdout) ok = std::fclose(sink) == 0 && ok;
    if (!ok) return ReportError(Status::IOError((out.empty() ? "stdout" : out) + ": write failed"));
    if (!quiet) {
      std::fprintf(stderr, "%llu rows, %llu ranges planned (%llu bytes) from %llu objects\n",
                   static_cast<unsigned long long>(stats.rows), static_cast<unsigned long long>(stats.planned_ranges),
                   static_cast<unsigned long long>(stats.bytes_planned),
                   static_cast<unsigned long long>(stats.objects));
    }
    return kExitOk;
  }
};

}  // namespace

Command AddExtractCommand(CLI::App& root) {
  auto state = std::make_shared<ExtractState>();
  CLI::App* app = root.add_subcommand(
      "extract", "Decode part of blobs (a frame, a segment, chunks) through their media plugin (format 2.3)");
  app->footer(
      "Reads only the byte ranges the plugin plans for the request, merged across rows.\n"
      "Decoded bytes go to stdout (or -o FILE), one row after another; per-row metadata\n"
      "goes to stderr. Example with the chunks test plugin:\n"
      "  lancet extract ds.lance video 3 --plugin build/plugins/liblancet_chunks.so:chunks.conf \\\n"
      "      --request chunks=0-2 -o part.bin");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("COLUMN", state->column, "Blob column (dotted path inside structs)")->required();
  app->add_option("ROWID", state->rows, "Row ids (or addresses with --address)")->required();
  app->add_option("--request,-r", state->request, "The request, in the plugin's own syntax (often JSON)")->required();
  app->add_option("--plugin,-p", state->plugin, "LIBRARY[:CONFIG_FILE]: the plugin's path and config file");
  app->add_option("--out,-o", state->out, "Write the decoded bytes here instead of stdout");
  app->add_flag("--address", state->address, "ROWIDs are row addresses ((fragment << 32) | offset)");
  app->add_flag("--quiet,-q", state->quiet, "No per-row lines on stderr");
  state->version.AddOptions(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
