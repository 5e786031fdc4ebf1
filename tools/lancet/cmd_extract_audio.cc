// `lancet extract-audio`: a time window of one row's audio as a WAV file, through the
// audio plugin.
#include <cstdio>

#include "lancet/column_plugin.h"
#include "lancet/commands.h"
#include "lancet/media/audio.h"
#include "lancet/video_args.h"

namespace lancet::cli {
namespace {

struct ExtractAudioState {
  std::string dataset;
  std::string column = "audio";
  uint64_t row = 0;
  std::string window;
  std::string format = "s16";
  uint32_t rate = 0, channels = 0;
  std::string plugin;
  std::string out;
  bool quiet = false;
  VersionSelector version;

  int Run() const {
    auto w = ParseWindow(window);
    if (!w.ok()) return ReportUsage(w.status().message());
    media::AudioFormat fmt;
    if (format == "s16") {
      fmt.sample_format = media::SampleFormat::kS16;
    } else if (format != "f32") {
      return ReportUsage("--format '" + format + "': WAV output takes s16 or f32");
    }
    fmt.sample_rate = rate;
    fmt.channels = channels;
    auto ds = OpenDataset(dataset, version);
    if (!ds.ok()) return ReportError(ds.status());
    auto loaded = LoadColumnPlugin(**ds, column, plugin);
    if (!loaded.ok()) return ReportError(loaded.status(), dataset);
    const uint64_t rows[] = {row};
    media::ExtractAudioStats stats;
    auto got = media::ExtractAudio(**ds, column, rows, {w->first, w->second}, fmt, **loaded, {}, &stats);
    if (!got.ok()) return ReportError(got.status(), dataset);
    if (!(*got)[0]) return ReportError(Status::NotFound("row " + std::to_string(row) + " of '" + column + "' is null"));
    const media::AudioSegment& s = *(*got)[0];
    if (s.samples == 0) {
      return ReportError(Status::NotFound("the window " + window + " holds no audio of row " + std::to_string(row) +
                                          " (it lies past the end)"));
    }
    const std::vector<uint8_t> wav = media::WavBytes(s);
    std::FILE* f = std::fopen(out.c_str(), "wb");
    if (f == nullptr) return ReportError(Status::IOError(out + ": cannot create"));
    bool ok = std::fwrite(wav.data(), 1, wav.size(), f) == wav.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok) {
      std::remove(out.c_str());  // no truncated WAV left behind
      return ReportError(Status::IOError(out + ": write failed"));
    }
    std::printf("row %llu  %.3f s + %llu samples  %u Hz  %u ch  %s  -> %s\n", static_cast<unsigned long long>(row),
                s.start_s, static_cast<unsigned long long>(s.samples), s.sample_rate, s.channels,
                media::SampleFormatName(s.format), out.c_str());
    if (!quiet) {
      std::fflush(stdout);
      const auto& e = stats.extract;
      std::fprintf(stderr,
                   "%llu ranges planned (%llu bytes) from %llu objects; resolve %.2f ms, plan %.2f ms, "
                   "read %.2f ms, decode %.2f ms\n",
                   static_cast<unsigned long long>(e.planned_ranges), static_cast<unsigned long long>(e.bytes_planned),
                   static_cast<unsigned long long>(e.objects), e.resolve_ns / 1e6, e.plan_ns / 1e6, e.read_ns / 1e6,
                   e.decode_ns / 1e6);
    }
    return kExitOk;
  }
};

}  // namespace

Command AddExtractAudioCommand(CLI::App& root) {
  auto state = std::make_shared<ExtractAudioState>();
  CLI::App* app =
      root.add_subcommand("extract-audio", "Decode a time window of one row's audio to a WAV file (audio plugin)");
  app->footer(
      "Reads one range of the stored stream: the packets covering the window plus the\n"
      "codec's pre-roll. The samples are those FFmpeg's full decode of the source gives at\n"
      "[round(T0 x rate), round(T1 x rate)). The plugin defaults to the one the column was\n"
      "ingested with, loaded only from this install's plugin directory. Example:\n"
      "  lancet extract-audio ds.lance --column audio --row 3 --window 1.5:4 --out seg.wav");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--column", state->column, "Audio blob column (default: audio)");
  app->add_option("--row", state->row, "Row id")->required();
  app->add_option("--window", state->window, "The window [T0, T1) in seconds, as T0:T1")->required();
  app->add_option("--format", state->format, "s16 (default) or f32");
  app->add_option("--rate", state->rate, "Output sample rate (0: the source's)");
  app->add_option("--channels", state->channels, "Output channels (0: the source's; others down/upmix)");
  app->add_option("--plugin,-p", state->plugin, "LIBRARY[:CONFIG_FILE]: the audio plugin to use");
  app->add_option("--out,-o", state->out, "WAV file to write")->required();
  app->add_flag("--quiet,-q", state->quiet, "No statistics line on stderr");
  state->version.AddOptions(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
