// Frames of a long video out of a dataset: ExtractFrames over the video plugin's
// blob_info (one range read per needed GOP) against the usual way, a demuxer on the
// stored MP4 through BlobFile (seek to the keyframe before the window, decode to its end).
//
//   bench_extract_frame [--quick] [--minutes N] [--windows 10] [--seed 42]
//                       [--latency-ms 10] [--mbps 200] [--cache DIR] [--store s3://bucket/prefix]
//
// The video (testsrc2 640x360, 25 fps, H.264 veryfast at 450 kb/s, x264's default GOP)
// and its two datasets are made once and cached under the build dir: (A) ingested with
// the video plugin (format 2.3 blob_info), (B) the MP4 as a plain Blob V2 value. For each
// of --windows random 500 ms windows (fixed seed) both ways produce the same frames, as
// RGB24: "keyframes" = the keyframes shown during the window (the one at or before its
// start, plus any inside), "all frames" = every frame in it. Each runs on local disk and
// on a simulated object store (--latency-ms per request plus --mbps transfer), or with
// --store on S3: both datasets are copied under that prefix (storage options from the
// AWS_* environment) and removed at the end. Reads and
// bytes are the store's own counters (IoStats), so they include resolving the row; "blob
// reads" are the requests to the blob's own object alone (counted by a wrapping store).
// Every window runs twice: resolving the row in the call, and on rows resolved once
// before the windows (media::Resolve; the baseline keeps its located blob and open
// object), as a caller extracting many windows of the same videos would.
// Last line: `extract_frame vs baseline: latency xA reads xB bytes xC` (simulated store,
// keyframes figure, rows resolved once; baseline / ExtractFrames); the line before it
// gives the same ratios when every call resolves its row.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "bench_check.h"
#include "bench_media.h"
#include "bench_s3_util.h"
#include "lancet/blob/blob_file.h"
#include "lancet/io/latency_store.h"
#include "lancet/media/video.h"
#include "lancet/media/video_stream_info.h"
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

struct Options {
  double minutes = 40;
  int windows = 10;
  uint64_t seed = 42;
  int latency_ms = 10;
  int mbps = 200;
  std::string cache;
  std::string store;  // s3://bucket/prefix, or empty for the simulated store
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
    } else if (a == "--store") {
      o.store = next();
      if (!lancet::io::IsRemoteUri(o.store)) Die("--store takes an s3:// URI");
    } else {
      Die("unknown option " + a + " (see the comment at the top of bench/bench_extract_frame.cc)");
    }
  }
  if (o.minutes <= 0.1 || o.windows <= 0) Die("--minutes and --windows must be positive");
  if (o.cache.empty()) {
    // Next to the binary's directory: build/bench-cache/extract_frame.
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    o.cache = ((ec ? fs::current_path() : exe.parent_path().parent_path()) / "bench-cache" / "extract_frame").string();
  }
  return o;
}

std::string Shell(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) Die("command failed: " + cmd);
  return {};
}

// ---- the cached inputs ---------------------------------------------------------------

std::string MakeVideo(const Options& o) {
  char name[64];
  std::snprintf(name, sizeof(name), "video_%gmin.mp4", o.minutes);
  const std::string path = o.cache + "/" + name;
  if (fs::exists(path)) return path;
  fs::create_directories(o.cache);
  std::cerr << "bench_extract_frame: encoding a " << o.minutes << "-minute video (once, cached in " << o.cache << ")\n";
  const std::string tmp = path + ".tmp.mp4";
  Shell("ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=640x360:rate=25:duration=" +
        std::to_string(o.minutes * 60) + " -c:v libx264 -preset veryfast -b:v 450k -pix_fmt yuv420p '" + tmp + "'");
  fs::rename(tmp, path);
  return path;
}

// ---- the baseline: FFmpeg's demuxer over BlobFile ------------------------------------

// Frames of the plain MP4 blob, decoded to RGB24: with `keyframes`, the keyframe at or
// before t0 and those inside [t0, t1) (other packets are demuxed but not decoded), else
// every frame in [t0, t1).
size_t BaselineFrames(std::unique_ptr<lancet::blob::BlobFile> blob, double t0, double t1, bool keyframes) {
  constexpr int kBuffer = 64 * 1024;
  auto* buffer = static_cast<uint8_t*>(av_malloc(kBuffer));
  AVIOContext* avio = avio_alloc_context(buffer, kBuffer, 0, blob.get(), ReadBlob, nullptr, SeekBlob);
  AVFormatContext* fmt = avformat_alloc_context();
  fmt->pb = avio;
  if (avformat_open_input(&fmt, nullptr, nullptr, nullptr) < 0) Die("baseline: cannot open the MP4");
  if (avformat_find_stream_info(fmt, nullptr) < 0) Die("baseline: no stream info");
  const int si = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  AVStream* st = fmt->streams[si];
  const AVCodec* codec = avcodec_find_decoder(st->codecpar->codec_id);
  AVCodecContext* dec = avcodec_alloc_context3(codec);
  avcodec_parameters_to_context(dec, st->codecpar);
  dec->thread_count = 1;
  if (avcodec_open2(dec, codec, nullptr) < 0) Die("baseline: cannot open the decoder");
  const double tb = av_q2d(st->time_base);
  const auto ts = static_cast<int64_t>(t0 / tb);
  if (av_seek_frame(fmt, si, ts, AVSEEK_FLAG_BACKWARD) < 0) Die("baseline: seek failed");
  SwsContext* sws = nullptr;
  std::vector<uint8_t> rgb;
  AVPacket* pkt = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  size_t kept = 0;
  bool past_end = false;
  auto drain = [&] {
    while (avcodec_receive_frame(dec, frame) == 0) {
      const double t = frame->best_effort_timestamp * tb;
      const bool want = keyframes ? (t < t1) : (t + 1e-9 >= t0 && t < t1);
      if (want) {
        sws = sws_getCachedContext(sws, frame->width, frame->height, static_cast<AVPixelFormat>(frame->format),
                                   frame->width, frame->height, AV_PIX_FMT_RGB24,
                                   SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, nullptr, nullptr, nullptr);
        rgb.resize(static_cast<size_t>(frame->width) * frame->height * 3);
        uint8_t* planes[4] = {rgb.data(), nullptr, nullptr, nullptr};
        int lines[4] = {frame->width * 3, 0, 0, 0};
        sws_scale(sws, frame->data, frame->linesize, 0, frame->height, planes, lines);
        ++kept;
      }
      if (t >= t1) past_end = true;
      av_frame_unref(frame);
    }
  };
  while (!past_end && av_read_frame(fmt, pkt) >= 0) {
    if (pkt->stream_index == si) {
      const bool key = (pkt->flags & AV_PKT_FLAG_KEY) != 0;
      // A keyframe is shown no earlier than it is decoded, so once packets decode at or
      // after t1 no keyframe of the window is left.
      if (keyframes && pkt->dts != AV_NOPTS_VALUE && pkt->dts * tb >= t1) past_end = true;
      // A keyframe-only player never decodes the packets between keyframes.
      if (!past_end && (!keyframes || key)) {
        avcodec_send_packet(dec, pkt);
        drain();
      }
      // Frames come out in presentation order a few packets late: past the end once a
      // packet of decode order starts well after t1 and the reorder depth has drained.
      if (!keyframes && pkt->dts != AV_NOPTS_VALUE && pkt->dts * tb >= t1 + 0.5) past_end = true;
    }
    av_packet_unref(pkt);
  }
  avcodec_send_packet(dec, nullptr);
  drain();
  av_packet_free(&pkt);
  av_frame_free(&frame);
  sws_freeContext(sws);
  avcodec_free_context(&dec);
  avformat_close_input(&fmt);
  av_freep(&avio->buffer);
  avio_context_free(&avio);
  return kept;
}

// ---- measurement ---------------------------------------------------------------------

// Counts ReadAt requests per object path on the way to `inner` (whose IoStats keep counting
// everything), so the tables can show the requests to the blob's own object apart from
// the manifest, index and data file reads that resolve a row.
class PathCounts {
 public:
  void Add(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_[path];
  }
  // Requests to paths ending in `suffix` since the last Reset.
  uint64_t Of(const std::string& suffix) const {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t n = 0;
    for (const auto& [path, count] : counts_) {
      if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
        n += count;
      }
    }
    return n;
  }
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    counts_.clear();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> counts_;
};

class CountingFile final : public lancet::io::RandomAccessFile {
 public:
  CountingFile(std::unique_ptr<lancet::io::RandomAccessFile> inner, PathCounts* counts)
      : inner_(std::move(inner)), counts_(counts) {}
  const std::string& path() const override { return inner_->path(); }
  lancet::Result<uint64_t> Size() const override { return inner_->Size(); }
  lancet::Result<lancet::BufferPtr> ReadAt(uint64_t offset, uint64_t length) const override {
    counts_->Add(inner_->path());
    return inner_->ReadAt(offset, length);
  }
  bool cheap_reads() const override { return inner_->cheap_reads(); }
  lancet::io::IoStats* stats() const override { return inner_->stats(); }

 private:
  std::unique_ptr<lancet::io::RandomAccessFile> inner_;
  PathCounts* counts_;
};

class CountingStore final : public lancet::io::ObjectStore {
 public:
  explicit CountingStore(std::shared_ptr<lancet::io::ObjectStore> inner) : inner_(std::move(inner)) {}
  lancet::Result<std::unique_ptr<lancet::io::RandomAccessFile>> OpenRead(const std::string& path) const override {
    auto file = inner_->OpenRead(path);
    if (!file.ok()) return file.status();
    return std::unique_ptr<lancet::io::RandomAccessFile>(std::make_unique<CountingFile>(std::move(*file), &counts_));
  }
  lancet::Result<uint64_t> Size(const std::string& path) const override { return inner_->Size(path); }
  lancet::Result<bool> Exists(const std::string& path) const override { return inner_->Exists(path); }
  lancet::Result<std::vector<lancet::io::ObjectInfo>> List(const std::string& dir) const override {
    return inner_->List(dir);
  }
  Status Put(const std::string& path, std::span<const uint8_t> bytes) override { return inner_->Put(path, bytes); }
  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> bytes) override {
    return inner_->PutIfAbsent(path, bytes);
  }
  lancet::Result<std::unique_ptr<lancet::io::ObjectWriter>> OpenWrite(const std::string& path) override {
    return inner_->OpenWrite(path);
  }
  Status Delete(const std::string& path) override { return inner_->Delete(path); }
  PathCounts& counts() const { return counts_; }

 private:
  std::shared_ptr<lancet::io::ObjectStore> inner_;
  mutable PathCounts counts_;
};

struct Sample {
  double ms = 0;
  uint64_t reads = 0, blob_reads = 0, heads = 0, bytes = 0, frames = 0;
};

struct Totals {
  double ms = 0, reads = 0, blob_reads = 0, heads = 0, bytes = 0, frames = 0;
  int n = 0;
  void Add(const Sample& s) {
    ms += s.ms;
    reads += static_cast<double>(s.reads);
    blob_reads += static_cast<double>(s.blob_reads);
    heads += static_cast<double>(s.heads);
    bytes += static_cast<double>(s.bytes);
    frames += static_cast<double>(s.frames);
    ++n;
  }
  double Avg(double v) const { return n == 0 ? 0 : v / n; }
};

// HEAD and LIST requests a simulated store charged so far (0 for local disk).
uint64_t Heads(const lancet::io::ObjectStore& store) {
  const auto* remote = dynamic_cast<const lancet::io::LatencyStore*>(&store);
  return remote == nullptr ? 0 : remote->metadata_requests();
}

// `counting` wraps `store`; `blob` is the blob's object (a path suffix) or empty.
template <typename F>
Sample Measure(lancet::io::ObjectStore& store, F&& run, const CountingStore* counting = nullptr,
               const std::string& blob = "") {
  store.stats().Reset();
  if (counting != nullptr) counting->counts().Reset();
  const uint64_t heads = Heads(store);
  const auto start = Clock::now();
  const size_t frames = run();
  Sample s;
  s.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const auto c = store.stats().Snapshot();
  s.reads = c.read_requests;
  s.blob_reads = counting != nullptr && !blob.empty() ? counting->counts().Of(blob) : 0;
  s.heads = Heads(store) - heads;
  s.bytes = c.read_bytes;
  s.frames = frames;
  return s;
}

lancet::media::FrameRequest Request(double t0, double t1, bool keyframes, double fps) {
  using lancet::media::FrameRequest;
  if (!keyframes) {
    FrameRequest r = FrameRequest::Window(t0, t1);
    r.threads = 1;
    return r;
  }
  // The keyframe a keyframe-only player shows at each frame time of the window.
  std::vector<double> times;
  for (double t = t0; t < t1; t += 1 / fps) times.push_back(t);
  FrameRequest r = FrameRequest::Timestamps(std::move(times));
  r.keyframes_only = true;
  r.threads = 1;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lancet;
  const Options o = ParseArgs(argc, argv);
  const std::string video = MakeVideo(o);
  char stem[64];
  std::snprintf(stem, sizeof(stem), "%gmin", o.minutes);
  const std::string root_a = o.cache + "/blob_info_" + stem, root_b = o.cache + "/plain_" + stem;
  const media::PluginSpec spec{LANCET_VIDEO_PLUGIN, {}};
  if (!fs::exists(root_a) || !fs::exists(root_b)) {
    const std::string bytes = lancet::bench::ReadFile(video);
    const media::MediaOptions media = {{"video", spec}};
    if (!fs::exists(root_a)) lancet::bench::WriteOne(root_a, "video", bytes, &media);
    if (!fs::exists(root_b)) lancet::bench::WriteOne(root_b, "video", bytes, nullptr);
  }
  auto plugin = Check(media::MediaPlugin::Load(spec), "load the video plugin");

  auto local = io::LocalFileSystem(false);
  std::shared_ptr<io::ObjectStore> remote;
  std::string remote_a = root_a, remote_b = root_b, s3_prefix;
  char remote_name[64];
  if (o.store.empty()) {
    remote = io::WithLatency(io::LocalFileSystem(false), std::chrono::milliseconds(o.latency_ms),
                             static_cast<uint64_t>(o.mbps) * 1000 * 1000);
    std::snprintf(remote_name, sizeof(remote_name), "object store (%d ms + %d MB/s)", o.latency_ms, o.mbps);
  } else {
    // The same bytes on S3, under a prefix of this run.
    auto where = Check(io::ResolveUri(o.store), "resolve --store");
    remote = where.store;
    s3_prefix = where.root + "/extract_frame-" + std::to_string(::getpid());
    remote_a = s3_prefix + "/" + fs::path(root_a).filename().string();
    remote_b = s3_prefix + "/" + fs::path(root_b).filename().string();
    lancet::bench::CopyTree(root_a, *remote, remote_a);
    lancet::bench::CopyTree(root_b, *remote, remote_b);
    std::snprintf(remote_name, sizeof(remote_name), "S3");
  }
  // Datasets open through a CountingStore so each side's requests to the blob's own
  // object ("blob reads") show next to all its reads; IoStats stay on the inner store.
  struct Store {
    const char* name;
    std::shared_ptr<io::ObjectStore> store;
    std::shared_ptr<CountingStore> counting;
    std::string root_a, root_b;
    std::unique_ptr<Dataset> a, b;
  };
  std::vector<Store> stores;
  stores.push_back({"local disk", local, std::make_shared<CountingStore>(local), root_a, root_b, nullptr, nullptr});
  stores.push_back(
      {remote_name, remote, std::make_shared<CountingStore>(remote), remote_a, remote_b, nullptr, nullptr});
  for (Store& s : stores) {
    s.a = Check(Dataset::Open(s.counting, s.root_a), "open " + s.root_a);
    s.b = Check(Dataset::Open(s.counting, s.root_b), "open " + s.root_b);
  }
  const uint64_t rows[] = {0};
  auto located = Check(stores[0].a->LocateBlobsWithInfo("video", rows), "locate");
  const auto si = Check(media::ParseVideoStreamInfo((*located[0]).info->stream_info->span()), "stream_info");
  // The blob objects as path suffixes below the dataset roots, the same on every store.
  const std::string blob_a = located[0]->location.object.substr(root_a.size());
  const std::string blob_b = Check(stores[0].b->LocateBlobs("video", rows), "locate")[0]->object.substr(root_b.size());
  std::printf("video: %.1f min, %ux%u %s, %.0f fps, %llu frames, %llu GOPs, MP4 %s, stored stream %s\n",
              si.duration_s / 60, si.width, si.height, si.codec.c_str(), si.fps,
              static_cast<unsigned long long>(si.frame_count), static_cast<unsigned long long>(si.gop_count),
              Human(static_cast<double>(fs::file_size(video))).c_str(),
              Human(static_cast<double>(located[0]->location.length)).c_str());

  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> start(0, std::max(0.0, si.duration_s - 0.5));
  std::vector<double> windows;
  for (int i = 0; i < o.windows; ++i) windows.push_back(start(rng));

  auto run_new = [&](const Dataset& ds, double t0, bool keys) {
    auto out =
        Check(media::ExtractFrames(ds, "video", rows, Request(t0, t0 + 0.5, keys, si.fps), *plugin), "ExtractFrames");
    return out[0]->size();
  };
  // Warm-up: data file footers and the plugin's first decoder, on every store.
  for (Store& s : stores) {
    run_new(*s.a, windows[0], true);
    BaselineFrames(Check(blob::BlobFile::Open(*s.b, "video", 0), "BlobFile::Open"), windows[0], windows[0] + 0.5, true);
  }

  // What resolving the row alone costs on each store (the descriptor with its blob_info,
  // or the descriptor alone), so the tables below can be read step by step.
  for (Store& s : stores) {
    Sample a = Measure(*s.store, [&] { return Check(s.a->LocateBlobsWithInfo("video", rows), "resolve").size(); });
    Sample b = Measure(*s.store, [&] { return Check(s.b->LocateBlobs("video", rows), "resolve").size(); });
    std::printf(
        "resolve alone on %s: blob_info %.1f ms, %llu reads + %llu HEADs, %s; plain descriptor %.1f ms, "
        "%llu reads + %llu HEADs, %s\n",
        s.name, a.ms, static_cast<unsigned long long>(a.reads), static_cast<unsigned long long>(a.heads),
        Human(static_cast<double>(a.bytes)).c_str(), b.ms, static_cast<unsigned long long>(b.reads),
        static_cast<unsigned long long>(b.heads), Human(static_cast<double>(b.bytes)).c_str());
  }

  // Each window twice: resolving the row in the call (descriptor read, then the blob), and
  // on rows resolved once before the loop, as a caller extracting many windows of the
  // same videos does (media::Resolve; the baseline keeps its located blob and open object).
  struct Held {
    media::ResolvedBlobs a;
    table::BlobLocation b;
    std::shared_ptr<io::RandomAccessFile> b_file;
  };
  std::vector<Held> held;
  for (Store& s : stores) {
    Held h;
    h.a = Check(media::Resolve(*s.a, "video", rows), "resolve");
    h.b = *Check(s.b->LocateBlobs("video", rows), "locate")[0];
    h.b_file = Check(s.counting->OpenRead(h.b.object), "open the MP4 blob's object");
    held.push_back(std::move(h));
  }
  // [mode][store][figure][method]
  std::map<std::string, Totals> totals;
  auto key = [](bool once, size_t s, bool keys, bool base) {
    return std::string(once ? "h" : "c") + std::to_string(s) + (keys ? "k" : "a") + (base ? "b" : "n");
  };
  for (double t0 : windows) {
    for (size_t s = 0; s < stores.size(); ++s) {
      for (bool keys : {true, false}) {
        for (bool once : {false, true}) {
          Sample n = Measure(
              *stores[s].store,
              [&] {
                if (!once) return run_new(*stores[s].a, t0, keys);
                auto out = Check(media::ExtractFrames(held[s].a, Request(t0, t0 + 0.5, keys, si.fps), *plugin),
                                 "ExtractFrames (resolved)");
                return out[0]->size();
              },
              stores[s].counting.get(), blob_a);
          Sample b = Measure(
              *stores[s].store,
              [&] {
                auto file = once ? Check(blob::BlobFile::Open(held[s].b, held[s].b_file), "BlobFile::Open (held)")
                                 : Check(blob::BlobFile::Open(*stores[s].b, "video", 0), "BlobFile::Open");
                return BaselineFrames(std::move(file), t0, t0 + 0.5, keys);
              },
              stores[s].counting.get(), blob_b);
          if (n.frames != b.frames) {
            Die("window at " + std::to_string(t0) + " s: ExtractFrames gave " + std::to_string(n.frames) +
                " frames, the baseline " + std::to_string(b.frames));
          }
          totals[key(once, s, keys, false)].Add(n);
          totals[key(once, s, keys, true)].Add(b);
        }
      }
    }
  }

  for (bool once : {false, true}) {
    std::printf("\n%d random 500 ms windows (seed %llu), %s, averages per window:\n", o.windows,
                static_cast<unsigned long long>(o.seed),
                once ? "rows resolved once before the windows" : "resolving the row in every call");
    std::printf("%-32s %-10s %-14s %10s %8s %10s %6s %12s %8s\n", "store", "figure", "method", "latency", "reads",
                "blob reads", "HEADs", "bytes", "frames");
    for (size_t s = 0; s < stores.size(); ++s) {
      for (bool keys : {true, false}) {
        for (bool base : {false, true}) {
          const Totals& t = totals[key(once, s, keys, base)];
          std::printf("%-32s %-10s %-14s %8.1f ms %8.1f %10.1f %6.1f %12s %8.1f\n", stores[s].name,
                      keys ? "keyframes" : "all frames", base ? "baseline" : "ExtractFrames", t.Avg(t.ms),
                      t.Avg(t.reads), t.Avg(t.blob_reads), t.Avg(t.heads), Human(t.Avg(t.bytes)).c_str(),
                      t.Avg(t.frames));
        }
      }
    }
  }

  // One frame on local disk, step by step.
  std::uniform_int_distribution<uint64_t> pick(0, si.frame_count - 1);
  double resolve = 0, plan = 0, read = 0, decode = 0, wall = 0;
  constexpr int kSingles = 10;
  for (int i = 0; i < kSingles; ++i) {
    media::FrameRequest r = media::FrameRequest::Frames({pick(rng)});
    r.threads = 1;
    media::ExtractFramesStats st;
    const auto begin = Clock::now();
    Check(media::ExtractFrames(*stores[0].a, "video", rows, r, *plugin, {}, &st), "single frame");
    wall += std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
    resolve += st.extract.resolve_ns / 1e6;
    plan += st.extract.plan_ns / 1e6;
    read += st.extract.read_ns / 1e6;
    decode += st.extract.decode_ns / 1e6;
  }
  const double steps = resolve + plan + read + decode;
  std::printf(
      "\none frame on local disk (%d random frames, averages): resolve %.3f ms, plan %.3f ms, read %.3f ms, "
      "decode %.3f ms (total %.3f ms, wall %.3f ms); resolve+plan %.1f%%\n",
      kSingles, resolve / kSingles, plan / kSingles, read / kSingles, decode / kSingles, steps / kSingles,
      wall / kSingles, steps > 0 ? 100 * (resolve + plan) / steps : 0);

  auto ratio = [](double base, double ours) { return ours > 0 ? base / ours : 0; };
  auto line = [&](const char* label, bool once) {
    const Totals& n = totals[key(once, 1, true, false)];
    const Totals& b = totals[key(once, 1, true, true)];
    std::printf("%s: latency x%.1f reads x%.1f bytes x%.1f\n", label, ratio(b.ms, n.ms), ratio(b.reads, n.reads),
                ratio(b.bytes, n.bytes));
  };
  std::printf("\n");
  line("resolving the row in every call", false);
  line("extract_frame vs baseline", true);
  if (!s3_prefix.empty()) lancet::bench::RemoveTree(*remote, s3_prefix);
  return 0;
}
