// Segments of a long audio file out of a dataset: ExtractAudio over the audio plugin's
// blob_info (one range read: the window's packets plus pre-roll) against the usual way,
// take the blob (BlobFile) and let FFmpeg's demuxer seek in the stored M4A and decode to
// the window's end.
//
//   bench_extract_audio [--quick] [--minutes N] [--windows 10] [--seed 42]
//                       [--latency-ms 10] [--mbps 200] [--cache DIR]
//
// The audio (a 48 kHz stereo sweep, AAC 128 kb/s in M4A) and its two datasets are made
// once and cached under the build dir: (A) ingested with the audio plugin, (B) the M4A as
// a plain Blob V2 value. For each of --windows random 2 s windows (fixed seed) both ways
// decode the window to f32 samples; each runs on local disk and on a simulated object
// store (--latency-ms per request plus --mbps transfer). Reads and bytes are the store's
// own counters (IoStats). Every window runs twice: resolving the row in the call, and
// on rows resolved once before the windows (media::Resolve; the baseline keeps its
// located blob and open object).
// Last line: `extract_audio vs baseline: latency xA reads xB bytes xC` (simulated store,
// rows resolved once; baseline / ExtractAudio); the line before it gives the same ratios
// when every call resolves its row.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "bench_check.h"
#include "bench_media.h"
#include "lancet/blob/blob_file.h"
#include "lancet/io/latency_store.h"
#include "lancet/media/audio.h"
#include "lancet/media/audio_stream_info.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using lancet::Status;
using lancet::table::Dataset;

using lancet::bench::Check;
using lancet::bench::Die;
using lancet::bench::Human;
using lancet::bench::ReadBlob;
using lancet::bench::SeekBlob;

constexpr double kWindow = 2.0;

struct Options {
  double minutes = 30;
  int windows = 10;
  uint64_t seed = 42;
  int latency_ms = 10;
  int mbps = 200;
  std::string cache;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--quick") {
      o.minutes = 3;
    } else if (a == "--minutes") {
      o.minutes = std::stod(next());
    } else if (a == "--windows") {
      o.windows = std::stoi(next());
    } else if (a == "--seed") {
      o.seed = std::stoull(next());
    } else if (a == "--latency-ms") {
      o.latency_ms = std::stoi(next());
    } else if (a == "--mbps") {
      o.mbps = std::stoi(next());
    } else if (a == "--cache") {
      o.cache = next();
    } else {
      Die("unknown option " + a + " (see the comment at the top of bench/bench_extract_audio.cc)");
    }
  }
  if (o.minutes <= 0.1 || o.windows <= 0) Die("--minutes and --windows must be positive");
  if (o.cache.empty()) {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    o.cache = ((ec ? fs::current_path() : exe.parent_path().parent_path()) / "bench-cache" / "extract_audio").string();
  }
  return o;
}

std::string MakeAudio(const Options& o) {
  char name[64];
  std::snprintf(name, sizeof(name), "audio_%gmin.m4a", o.minutes);
  const std::string path = o.cache + "/" + name;
  if (fs::exists(path)) return path;
  fs::create_directories(o.cache);
  std::cerr << "bench_extract_audio: encoding " << o.minutes << " minutes of audio (once, cached in " << o.cache
            << ")\n";
  const std::string tmp = path + ".tmp.m4a";
  const std::string cmd =
      "ffmpeg -nostdin -v error -y -f lavfi -i 'aevalsrc=0.5*sin(2*PI*(200+mod(t\\,10)*300)*t)|"
      "0.4*sin(2*PI*440*t):s=48000:d=" +
      std::to_string(o.minutes * 60) + "' -c:a aac -b:a 128k '" + tmp + "'";
  if (std::system(cmd.c_str()) != 0) Die("command failed: " + cmd);
  fs::rename(tmp, path);
  return path;
}

// ---- the baseline: FFmpeg's demuxer over BlobFile ------------------------------------

// Samples of [t0, t1) decoded from the plain M4A blob: seek to t0, decode until a frame
// starts at or after t1, count the samples whose time lies in the window.
uint64_t BaselineSamples(std::unique_ptr<lancet::blob::BlobFile> blob, double t0, double t1) {
  constexpr int kBuffer = 64 * 1024;
  auto* buffer = static_cast<uint8_t*>(av_malloc(kBuffer));
  AVIOContext* avio = avio_alloc_context(buffer, kBuffer, 0, blob.get(), ReadBlob, nullptr, SeekBlob);
  AVFormatContext* fmt = avformat_alloc_context();
  fmt->pb = avio;
  if (avformat_open_input(&fmt, nullptr, nullptr, nullptr) < 0) Die("baseline: cannot open the M4A");
  if (avformat_find_stream_info(fmt, nullptr) < 0) Die("baseline: no stream info");
  const int si = av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
  AVStream* st = fmt->streams[si];
  const AVCodec* codec = avcodec_find_decoder(st->codecpar->codec_id);
  AVCodecContext* dec = avcodec_alloc_context3(codec);
  avcodec_parameters_to_context(dec, st->codecpar);
  if (avcodec_open2(dec, codec, nullptr) < 0) Die("baseline: cannot open the decoder");
  const double tb = av_q2d(st->time_base);
  if (av_seek_frame(fmt, si, static_cast<int64_t>(t0 / tb), AVSEEK_FLAG_BACKWARD) < 0) Die("baseline: seek failed");
  AVPacket* pkt = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  uint64_t kept = 0;
  bool past_end = false;
  std::vector<float> out;
  auto drain = [&] {
    while (avcodec_receive_frame(dec, frame) == 0) {
      const double t = frame->best_effort_timestamp * tb;
      const double rate = frame->sample_rate;
      for (int i = 0; i < frame->nb_samples; ++i) {
        const double ts = t + i / rate;
        if (ts + 1e-9 < t0 || ts >= t1) continue;
        ++kept;
      }
      if (t >= t1) past_end = true;
      av_frame_unref(frame);
    }
  };
  while (!past_end && av_read_frame(fmt, pkt) >= 0) {
    if (pkt->stream_index == si) {
      avcodec_send_packet(dec, pkt);
      drain();
    }
    av_packet_unref(pkt);
  }
  av_packet_free(&pkt);
  av_frame_free(&frame);
  avcodec_free_context(&dec);
  avformat_close_input(&fmt);
  av_freep(&avio->buffer);
  avio_context_free(&avio);
  return kept;
}

// ---- measurement ---------------------------------------------------------------------

struct Sample {
  double ms = 0;
  uint64_t reads = 0, bytes = 0, samples = 0;
};

struct Totals {
  double ms = 0, reads = 0, bytes = 0, samples = 0;
  int n = 0;
  void Add(const Sample& s) {
    ms += s.ms;
    reads += static_cast<double>(s.reads);
    bytes += static_cast<double>(s.bytes);
    samples += static_cast<double>(s.samples);
    ++n;
  }
  double Avg(double v) const { return n == 0 ? 0 : v / n; }
};

template <typename F>
Sample Measure(lancet::io::ObjectStore& store, F&& run) {
  store.stats().Reset();
  const auto start = Clock::now();
  const uint64_t samples = run();
  Sample s;
  s.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const auto c = store.stats().Snapshot();
  s.reads = c.read_requests;
  s.bytes = c.read_bytes;
  s.samples = samples;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lancet;
  const Options o = ParseArgs(argc, argv);
  const std::string audio = MakeAudio(o);
  char stem[64];
  std::snprintf(stem, sizeof(stem), "%gmin", o.minutes);
  const std::string root_a = o.cache + "/blob_info_" + stem, root_b = o.cache + "/plain_" + stem;
  const media::PluginSpec spec{LANCET_AUDIO_PLUGIN, {}};
  if (!fs::exists(root_a) || !fs::exists(root_b)) {
    const std::string bytes = lancet::bench::ReadFile(audio);
    const media::MediaOptions media = {{"audio", spec}};
    if (!fs::exists(root_a)) lancet::bench::WriteOne(root_a, "audio", bytes, &media);
    if (!fs::exists(root_b)) lancet::bench::WriteOne(root_b, "audio", bytes, nullptr);
  }
  auto plugin = Check(media::MediaPlugin::Load(spec), "load the audio plugin");

  auto local = io::LocalFileSystem(false);
  auto remote = io::WithLatency(io::LocalFileSystem(false), std::chrono::milliseconds(o.latency_ms),
                                static_cast<uint64_t>(o.mbps) * 1000 * 1000);
  struct Store {
    std::string name;
    std::shared_ptr<io::ObjectStore> store;
    std::unique_ptr<Dataset> a, b;
  };
  std::vector<Store> stores;
  stores.push_back({"local disk", local, nullptr, nullptr});
  stores.push_back({"object store (" + std::to_string(o.latency_ms) + " ms + " + std::to_string(o.mbps) + " MB/s)",
                    remote, nullptr, nullptr});
  for (Store& s : stores) {
    s.a = Check(Dataset::Open(s.store, root_a), "open " + root_a);
    s.b = Check(Dataset::Open(s.store, root_b), "open " + root_b);
  }
  const uint64_t rows[] = {0};
  auto located = Check(stores[0].a->LocateBlobsWithInfo("audio", rows), "locate");
  const auto si = Check(media::ParseAudioStreamInfo((*located[0]).info->stream_info->span()), "stream_info");
  std::printf("audio: %.1f min, %s %u Hz %u ch, %llu packets, M4A %s, stored stream %s, entries %s\n",
              si.duration_s / 60, si.codec.c_str(), si.sample_rate, si.channels,
              static_cast<unsigned long long>(si.packets), Human(static_cast<double>(fs::file_size(audio))).c_str(),
              Human(static_cast<double>(located[0]->location.length)).c_str(),
              Human(static_cast<double>(located[0]->info->entries->size())).c_str());

  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> start(0, std::max(0.0, si.duration_s - kWindow));
  std::vector<double> windows;
  for (int i = 0; i < o.windows; ++i) windows.push_back(start(rng));

  auto run_new = [&](const Dataset& ds, double t0) {
    auto out = Check(media::ExtractAudio(ds, "audio", rows, {t0, t0 + kWindow}, {}, *plugin), "ExtractAudio");
    return out[0]->samples;
  };
  for (Store& s : stores) {  // warm-up: data file footers, the decoders
    run_new(*s.a, windows[0]);
    BaselineSamples(Check(blob::BlobFile::Open(*s.b, "audio", 0), "BlobFile::Open"), windows[0], windows[0] + kWindow);
  }

  // Each window twice: resolving the row in the call, and on rows resolved once before
  // the windows (media::Resolve; the baseline keeps its located blob and open object).
  struct Held {
    media::ResolvedBlobs a;
    table::BlobLocation b;
    std::shared_ptr<io::RandomAccessFile> b_file;
  };
  std::vector<Held> held;
  for (Store& s : stores) {
    Held h;
    h.a = Check(media::Resolve(*s.a, "audio", rows), "resolve");
    h.b = *Check(s.b->LocateBlobs("audio", rows), "locate")[0];
    h.b_file = Check(s.store->OpenRead(h.b.object), "open the M4A blob's object");
    held.push_back(std::move(h));
  }
  std::vector<Totals> totals(8);  // [once * 4 + store * 2 + baseline]
  for (double t0 : windows) {
    for (size_t s = 0; s < stores.size(); ++s) {
      for (int once = 0; once < 2; ++once) {
        Sample n = Measure(*stores[s].store, [&] {
          if (!once) return run_new(*stores[s].a, t0);
          auto out = Check(media::ExtractAudio(held[s].a, {t0, t0 + kWindow}, {}, *plugin), "ExtractAudio (resolved)");
          return out[0]->samples;
        });
        Sample b = Measure(*stores[s].store, [&] {
          auto file = once ? Check(blob::BlobFile::Open(held[s].b, held[s].b_file), "BlobFile::Open (held)")
                           : Check(blob::BlobFile::Open(*stores[s].b, "audio", 0), "BlobFile::Open");
          return BaselineSamples(std::move(file), t0, t0 + kWindow);
        });
        // Both cover the window; the baseline's count is by frame timestamps, so it may be
        // off by the rounding of the window's ends.
        if (std::llabs(static_cast<long long>(n.samples) - static_cast<long long>(b.samples)) > 2) {
          Die("window at " + std::to_string(t0) + " s: ExtractAudio gave " + std::to_string(n.samples) +
              " samples, the baseline " + std::to_string(b.samples));
        }
        totals[once * 4 + s * 2].Add(n);
        totals[once * 4 + s * 2 + 1].Add(b);
      }
    }
  }

  for (int once = 0; once < 2; ++once) {
    std::printf("\n%d random %.0f s windows (seed %llu), %s, averages per window:\n", o.windows, kWindow,
                static_cast<unsigned long long>(o.seed),
                once ? "rows resolved once before the windows" : "resolving the row in every call");
    std::printf("%-32s %-14s %10s %8s %12s %10s\n", "store", "method", "latency", "reads", "bytes", "samples");
    for (size_t s = 0; s < stores.size(); ++s) {
      for (int base = 0; base < 2; ++base) {
        const Totals& t = totals[once * 4 + s * 2 + base];
        std::printf("%-32s %-14s %8.1f ms %8.1f %12s %10.0f\n", stores[s].name.c_str(),
                    base ? "baseline" : "ExtractAudio", t.Avg(t.ms), t.Avg(t.reads), Human(t.Avg(t.bytes)).c_str(),
                    t.Avg(t.samples));
      }
    }
  }
  auto ratio = [](double base, double ours) { return ours > 0 ? base / ours : 0; };
  auto line = [&](const char* label, int once) {
    const Totals& n = totals[once * 4 + 2];
    const Totals& b = totals[once * 4 + 3];
    std::printf("%s: latency x%.1f reads x%.1f bytes x%.1f\n", label, ratio(b.ms, n.ms), ratio(b.reads, n.reads),
                ratio(b.bytes, n.bytes));
  };
  std::printf("\n");
  line("resolving the row in every call", 0);
  line("extract_audio vs baseline", 1);
  return 0;
}
