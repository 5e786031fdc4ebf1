// `lancet extract-frame`: video frames of one row as PNG files, through the video plugin.
#include <cstdio>
#include <filesystem>

#include "lancet/column_plugin.h"
#include "lancet/commands.h"
#include "lancet/frame_path.h"
#include "lancet/media/video.h"
#include "lancet/png_write.h"
#include "lancet/video_args.h"

namespace lancet::cli {
namespace {

struct ExtractFrameState {
  std::string dataset;
  std::string column = "video";
  uint64_t row = 0;
  std::string at, window, frames;
  bool keyframes = false;
  bool fast = false;
  std::string format = "rgb24";
  uint32_t width = 0, height = 0, threads = 0;
  std::string plugin;
  std::string out;
  bool quiet = false;
  VersionSelector version;

  Result<media::FrameRequest> Request() const {
    media::FrameRequest r;
    if (!at.empty()) {
      ASSIGN_OR_RETURN(double t, ParseSeconds(at, "--at"));
      r = media::FrameRequest::Timestamps({t});
    } else if (!window.empty()) {
      ASSIGN_OR_RETURN(auto w, ParseWindow(window));
      r = media::FrameRequest::Window(w.first, w.second);
    } else {
      auto list = ParseU64List(frames);
      if (!list.ok() || list->empty()) {
        return Status::InvalidArgument("--frames '" + frames + "' is not a list of frame indices (e.g. 0,12,24)");
      }
      r = media::FrameRequest::Frames(std::move(*list));
    }
    r.keyframes_only = keyframes;
    if (format == "gray8" || format == "gray") {
      r.format = media::PixelFormat::kGray8;
    } else if (format != "rgb24" && format != "rgb") {
      return Status::InvalidArgument("--format '" + format + "': PNG output takes rgb24 or gray8");
    }
    r.width = width;
    r.height = height;
    r.threads = threads;
    r.exact = !fast;
    return r;
  }

  int Run() const {
    if (static_cast<int>(!at.empty()) + static_cast<int>(!window.empty()) + static_cast<int>(!frames.empty()) != 1) {
      return ReportUsage("extract-frame needs exactly one of --at SECONDS, --window T0:T1, --frames I,J,...");
    }
    auto request = Request();
    if (!request.ok()) return ReportUsage(request.status().message());
    auto pattern = HasFramePattern(out);
    if (!pattern.ok()) return ReportUsage(pattern.status().message());
    auto ds = OpenDataset(dataset, version);
    if (!ds.ok()) return ReportError(ds.status());
    auto loaded = LoadColumnPlugin(**ds, column, plugin);
    if (!loaded.ok()) return ReportError(loaded.status(), dataset);
    const uint64_t rows[] = {row};
    media::ExtractFramesStats stats;
    auto got = media::ExtractFrames(**ds, column, rows, *request, **loaded, {}, &stats);
    if (!got.ok()) return ReportError(got.status(), dataset);
    if (!(*got)[0]) return ReportError(Status::NotFound("row " + std::to_string(row) + " of '" + column + "' is null"));
    const std::vector<media::Frame>& list = *(*got)[0];
    if (list.empty()) {
      return ReportError(Status::NotFound("the request selects no frame of row " + std::to_string(row) +
                                          " (a window past the end, or no keyframe in it)"));
    }
    if (list.size() > 1 && !*pattern) {
      return ReportUsage(std::to_string(list.size()) + " frames selected but --out '" + out +
                         "' has no pattern; use one such as frames/%04d.png (formatted with the frame index)");
    }
    for (const media::Frame& f : list) {
      const std::string path = *pattern ? FormatFramePath(out, f.index) : out;
      const int channels = f.format == media::PixelFormat::kGray8 ? 1 : 3;
      std::error_code ec;
      const auto parent = std::filesystem::path(path).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent, ec);
      Status st = WritePng(path, f.bytes->span(), f.width, f.height, channels);
      if (!st.ok()) return ReportError(st);
      std::printf("frame %llu  t=%.3f s  %ux%u %s  -> %s\n", static_cast<unsigned long long>(f.index), f.time_s,
                  f.width, f.height, media::PixelFormatName(f.format), path.c_str());
    }
    if (!quiet) {
      std::fflush(stdout);  // the file lines first when both go to one terminal or log
      const auto& e = stats.extract;
      std::fprintf(stderr,
                   "%llu frames; %llu ranges planned (%llu bytes) from %llu objects; resolve %.2f ms, plan %.2f ms, "
                   "read %.2f ms, decode %.2f ms\n",
                   static_cast<unsigned long long>(stats.frames), static_cast<unsigned long long>(e.planned_ranges),
                   static_cast<unsigned long long>(e.bytes_planned), static_cast<unsigned long long>(e.objects),
                   e.resolve_ns / 1e6, e.plan_ns / 1e6, e.read_ns / 1e6, e.decode_ns / 1e6);
    }
    return kExitOk;
  }
};

}  // namespace

Command AddExtractFrameCommand(CLI::App& root) {
  auto state = std::make_shared<ExtractFrameState>();
  CLI::App* app = root.add_subcommand("extract-frame", "Decode video frames of one row to PNG files (video plugin)");
  app->footer(
      "Reads only the GOPs the frames need (one range read per GOP run). --out may hold a\n"
      "pattern such as frames/%04d.png, formatted with each frame's index; without one,\n"
      "exactly one frame must be selected. The plugin defaults to the one the column was\n"
      "ingested with, loaded only from this install's plugin directory. Examples:\n"
      "  lancet extract-frame ds.lance --row 2 --at 1.5 --out frame.png\n"
      "  lancet extract-frame ds.lance --row 0 --window 1:2 --keyframes --out 'k/%04d.png'");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--column", state->column, "Video blob column (default: video)");
  app->add_option("--row", state->row, "Row id")->required();
  auto* at = app->add_option("--at", state->at, "The frame shown at this time (seconds)");
  auto* window = app->add_option("--window", state->window, "Every frame in [T0, T1) seconds, as T0:T1");
  auto* frames = app->add_option("--frames", state->frames, "Frame indices (presentation order from 0): I,J,...");
  at->excludes(window)->excludes(frames);
  window->excludes(frames);
  app->add_flag("--keyframes", state->keyframes, "Only the keyframes among the selected frames");
  app->add_option("--format", state->format, "rgb24 (default) or gray8");
  app->add_option("--width", state->width, "Output width (0: source; one of width/height 0 keeps the aspect)");
  app->add_option("--height", state->height, "Output height");
  app->add_option("--threads", state->threads, "Decoder threads (0: the plugin's default)");
  app->add_flag("--fast", state->fast,
                "Convert pixels with libswscale's fast path (~3x cheaper; not bit-exact across CPUs)");
  app->add_option("--plugin,-p", state->plugin, "LIBRARY[:CONFIG_FILE]: the video plugin to use");
  app->add_option("--out,-o", state->out, "PNG path, or a pattern with %d (e.g. frames/%04d.png)")->required();
  app->add_flag("--quiet,-q", state->quiet, "No statistics line on stderr");
  state->version.AddOptions(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
