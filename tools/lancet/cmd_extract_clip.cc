// `lancet extract-clip`: a time window of one video row as an MP4 file, remuxed by the
// video plugin from the GOPs that cover it (no re-encode).
#include <cstdio>

#include "lancet/column_plugin.h"
#include "lancet/commands.h"
#include "lancet/media/video.h"
#include "lancet/video_args.h"

namespace lancet::cli {
namespace {

struct ExtractClipState {
  std::string dataset;
  std::string column = "video";
  uint64_t row = 0;
  std::string window;
  std::string plugin;
  std::string out;
  VersionSelector version;

  int Run() const {
    auto w = ParseWindow(window);
    if (!w.ok()) return ReportUsage(w.status().message());
    auto ds = OpenDataset(dataset, version);
    if (!ds.ok()) return ReportError(ds.status());
    auto loaded = LoadColumnPlugin(**ds, column, plugin);
    if (!loaded.ok()) return ReportError(loaded.status(), dataset);
    auto clip = media::ExtractClipToFile(**ds, column, row, w->first, w->second, **loaded, out);
    if (!clip.ok()) return ReportError(clip.status(), dataset);
    std::printf("clip of row %llu: %llu frames, %.3f s to %.3f s, %llu bytes -> %s\n",
                static_cast<unsigned long long>(row), static_cast<unsigned long long>(clip->frames), clip->start_s,
                clip->end_s, static_cast<unsigned long long>(clip->mp4->size()), out.c_str());
    return kExitOk;
  }
};

}  // namespace

Command AddExtractClipCommand(CLI::App& root) {
  auto state = std::make_shared<ExtractClipState>();
  CLI::App* app = root.add_subcommand("extract-clip", "Write a time window of one video row as MP4 (video plugin)");
  app->footer(
      "Copies the packets of the GOPs covering [T0, T1) into a new MP4 without re-encoding,\n"
      "so the clip starts at the keyframe at or before T0. Reads only those GOPs. The\n"
      "plugin defaults to the one the column was ingested with, loaded only from this\n"
      "install's plugin directory. Example:\n"
      "  lancet extract-clip ds.lance --row 1 --window 2:4.5 --out clip.mp4");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--column", state->column, "Video blob column (default: video)");
  app->add_option("--row", state->row, "Row id")->required();
  app->add_option("--window", state->window, "The time window T0:T1 in seconds")->required();
  app->add_option("--plugin,-p", state->plugin, "LIBRARY[:CONFIG_FILE]: the video plugin to use");
  app->add_option("--out,-o", state->out, "MP4 file to write")->required();
  state->version.AddOptions(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
