// ExtractFrames and ExtractClip end to end: videos the ffmpeg CLI makes, a dataset
// written through the video plugin, frames compared with the ffmpeg CLI's own decode of
// the original files, and the reads counted by the store.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "lancet/io/latency_store.h"
#include "lancet/io/object_store.h"
#include "lancet/media/video.h"
#include "lancet/media/video_stream_info.h"
#include "lancet/media_video.h"
#include "media_video/video_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

namespace fs = std::filesystem;
using testing::VideoParams;

// Three videos with different frame rates, GOPs and B-frame depths, plus a null row.
struct Source {
  std::string file;
  VideoParams params;
  std::vector<std::string> rgb;  // the ffmpeg CLI's decode, frame by frame
};

class VideoExtract : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::VideoToolsAvailable()) return;
    dir_ = new std::string((fs::temp_directory_path() / ("lancet_video_extract_" + std::to_string(::getpid()))).string());
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    sources_ = new std::vector<Source>();
    const VideoParams params[] = {{2.4, 25, 12, 2, 320, 240}, {2.4, 30, 15, 0, 320, 240}, {2.5, 24, 24, 3, 320, 240}};
    for (const VideoParams& p : params) {
      auto file = testing::CachedVideo(p);
      ASSERT_TRUE(file.ok()) << file.status().ToString();
      Source s{*file, p, {}};
      auto rgb = testing::DecodeWithFfmpeg(s.file, "rgb24", FrameBytes(PixelFormat::kRgb24, 320, 240));
      ASSERT_TRUE(rgb.ok()) << rgb.status().ToString();
      s.rgb = std::move(*rgb);
      sources_->push_back(std::move(s));
    }
    // Rows 0, 1, 3 are the videos, row 2 is null. "ds" keeps each video in a sidecar of
    // its own; "packed" puts them back to back in one pack file.
    const std::vector<std::string> files = {(*sources_)[0].file, (*sources_)[1].file, "", (*sources_)[2].file};
    ds_root_ = new std::string(*dir_ + "/ds");
    packed_root_ = new std::string(*dir_ + "/packed");
    Status st = testing::WriteVideoDataset(*ds_root_, files, 64 << 10);
    ASSERT_TRUE(st.ok()) << st.ToString();
    st = testing::WriteVideoDataset(*packed_root_, files, 64 << 20);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  static void TearDownTestSuite() {
    if (dir_ != nullptr) fs::remove_all(*dir_);
    delete dir_;
    delete sources_;
    delete ds_root_;
    delete packed_root_;
    dir_ = ds_root_ = packed_root_ = nullptr;
    sources_ = nullptr;
  }

  void SetUp() override {
    if (!testing::VideoToolsAvailable()) GTEST_SKIP() << "no video plugin or ffmpeg CLI";
    ASSERT_NE(sources_, nullptr);
    store_ = io::LocalFileSystem();
    ASSERT_OK_AND_ASSIGN(ds_, table::Dataset::Open(store_, *ds_root_));
    ASSERT_OK_AND_ASSIGN(plugin_, MediaPlugin::Load(testing::VideoSpec()));
  }

  static const Source& Row(uint64_t row) { return (*sources_)[row == 3 ? 2 : row]; }

  // Every frame equals the independent decode byte for byte: both decode the same
  // packets and convert with the same swscale flags.
  static void ExpectFramesMatch(uint64_t row, const std::vector<Frame>& frames) {
    const Source& s = Row(row);
    for (const Frame& f : frames) {
      ASSERT_LT(f.index, s.rgb.size()) << "row " << row;
      EXPECT_EQ(f.width, 320u);
      EXPECT_EQ(f.height, 240u);
      EXPECT_EQ(f.format, PixelFormat::kRgb24);
      EXPECT_NEAR(f.time_s, static_cast<double>(f.index) / s.params.fps, 1e-6) << "row " << row;
      const std::string got(f.bytes->view());
      EXPECT_TRUE(got == s.rgb[f.index]) << "row " << row << " frame " << f.index << ": PSNR "
                                         << testing::Psnr(got, s.rgb[f.index]) << " dB";
    }
  }

  static std::vector<uint64_t> Indices(const std::vector<Frame>& frames) {
    std::vector<uint64_t> out;
    for (const Frame& f : frames) out.push_back(f.index);
    return out;
  }

  // Frame i is shown at i / fps (the sources start at pts 0).
  static std::vector<uint64_t> InWindow(uint64_t row, double t0, double t1, bool keyframes) {
    const VideoParams& p = Row(row).params;
    std::vector<uint64_t> out;
    for (uint64_t i = 0; i < Row(row).rgb.size(); ++i) {
      const double t = static_cast<double>(i) / p.fps;
      if (t + 1e-9 >= t0 && t + 1e-9 < t1 && (!keyframes || i % static_cast<uint64_t>(p.gop) == 0)) out.push_back(i);
    }
    return out;
  }

  // What resolving alone costs, once the dataset has opened (and cached) its data file,
  // so that an extraction's reads less this are its payload reads.
  io::IoCounters ResolveCost(const table::Dataset& ds, std::span<const uint64_t> rows) {
    EXPECT_TRUE(ds.LocateBlobsWithInfo("video", rows).ok());
    store_->stats().Reset();
    EXPECT_TRUE(ds.LocateBlobsWithInfo("video", rows).ok());
    return store_->stats().Snapshot();
  }

  static std::string* dir_;  // this process's scratch files
  static std::string* ds_root_;
  static std::string* packed_root_;
  static std::vector<Source>* sources_;
  std::shared_ptr<io::ObjectStore> store_;
  std::unique_ptr<table::Dataset> ds_;
  std::shared_ptr<MediaPlugin> plugin_;
};

std::string* VideoExtract::dir_ = nullptr;
std::string* VideoExtract::ds_root_ = nullptr;
std::string* VideoExtract::packed_root_ = nullptr;
std::vector<Source>* VideoExtract::sources_ = nullptr;

TEST_F(VideoExtract, WindowOnSeveralRowsMatchesTheOriginals) {
  const std::vector<uint64_t> rows = {0, 1, 2, 3};
  ExtractFramesStats stats;
  ASSERT_OK_AND_ASSIGN(auto out, ExtractFrames(*ds_, "video", rows, FrameRequest::Window(0.5, 1.3), *plugin_, {},
                                               &stats));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_FALSE(out[2].has_value());  // the null row
  uint64_t frames = 0;
  for (uint64_t row : {0, 1, 3}) {
    ASSERT_TRUE(out[row].has_value()) << row;
    EXPECT_EQ(Indices(*out[row]), InWindow(row, 0.5, 1.3, false)) << "row " << row;
    ExpectFramesMatch(row, *out[row]);
    frames += out[row]->size();
  }
  EXPECT_EQ(stats.frames, frames);
  EXPECT_EQ(stats.extract.rows, 3u);
  EXPECT_GT(stats.extract.decode_ns, 0u);
  EXPECT_GT(stats.extract.resolve_ns, 0u);
}

TEST_F(VideoExtract, FrameIndicesAndTimestamps) {
  const std::vector<uint64_t> rows = {0, 3};
  ASSERT_OK_AND_ASSIGN(auto by_index,
                       ExtractFrames(*ds_, "video", rows, FrameRequest::Frames({30, 0, 7, 59}), *plugin_));
  for (uint64_t r : {0, 1}) {
    EXPECT_EQ(Indices(*by_index[r]), (std::vector<uint64_t>{0, 7, 30, 59})) << r;
    ExpectFramesMatch(rows[r], *by_index[r]);
  }
  // The frame shown at t: the last one starting at or before it.
  ASSERT_OK_AND_ASSIGN(auto by_time,
                       ExtractFrames(*ds_, "video", rows, FrameRequest::Timestamps({0.0, 1.01, 2.3}), *plugin_));
  EXPECT_EQ(Indices(*by_time[0]), (std::vector<uint64_t>{0, 25, 57}));
  EXPECT_EQ(Indices(*by_time[1]), (std::vector<uint64_t>{0, 24, 55}));
  ExpectFramesMatch(0, *by_time[0]);
  ExpectFramesMatch(3, *by_time[1]);
}

TEST_F(VideoExtract, KeyframesOnly) {
  FrameRequest r = FrameRequest::Window(0, 10);
  r.keyframes_only = true;
  const std::vector<uint64_t> rows = {0, 1, 3};
  ASSERT_OK_AND_ASSIGN(auto out, ExtractFrames(*ds_, "video", rows, r, *plugin_));
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(Indices(*out[i]), InWindow(rows[i], 0, 10, true)) << "row " << rows[i];
    ExpectFramesMatch(rows[i], *out[i]);
  }
}

TEST_F(VideoExtract, ScaledAndGray) {
  FrameRequest r = FrameRequest::Frames({13});
  r.format = PixelFormat::kGray8;
  r.width = 160;  // height follows the aspect ratio
  const std::vector<uint64_t> rows = {0};
  ASSERT_OK_AND_ASSIGN(auto out, ExtractFrames(*ds_, "video", rows, r, *plugin_));
  ASSERT_EQ(out[0]->size(), 1u);
  const Frame& f = (*out[0])[0];
  EXPECT_EQ(f.width, 160u);
  EXPECT_EQ(f.height, 120u);
  EXPECT_EQ(f.format, PixelFormat::kGray8);
  ASSERT_OK_AND_ASSIGN(auto gray, testing::DecodeWithFfmpeg(Row(0).file, "gray", 160 * 120, 160, 120));
  // Scaling and the gray conversion may round differently in one pass (the plugin) and
  // in the CLI's filter chain; the picture must still be the same.
  EXPECT_GE(testing::Psnr(std::string(f.bytes->view()), gray[13]), 40.0);
}

TEST_F(VideoExtract, PastTheEnd) {
  const std::vector<uint64_t> rows = {0};
  ASSERT_OK_AND_ASSIGN(auto out, ExtractFrames(*ds_, "video", rows, FrameRequest::Window(5, 6), *plugin_));
  ASSERT_TRUE(out[0].has_value());
  EXPECT_TRUE(out[0]->empty());
  Status st = ExtractFrames(*ds_, "video", rows, FrameRequest::Frames({60}), *plugin_).status();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("60 frames"), std::string::npos) << st.ToString();
  EXPECT_TRUE(ExtractFrames(*ds_, "video", rows, FrameRequest::Window(2, 1), *plugin_).status().IsInvalidArgument());
}

// Several rows, each needing several GOPs: every object is read with one request, the
// adjacent GOP ranges of a row merged.
TEST_F(VideoExtract, OneRequestPerObject) {
  const std::vector<uint64_t> rows = {0, 1, 3};
  const io::IoCounters resolve = ResolveCost(*ds_, rows);
  store_->stats().Reset();
  ExtractFramesStats stats;
  ASSERT_OK_AND_ASSIGN(auto out, ExtractFrames(*ds_, "video", rows, FrameRequest::Window(0.3, 1.7), *plugin_, {},
                                               &stats));
  const io::IoCounters all = store_->stats().Snapshot();
  EXPECT_EQ(stats.extract.objects, 3u);
  EXPECT_GT(stats.extract.planned_ranges, 3u);  // more than one GOP per row
  EXPECT_EQ(all.read_requests - resolve.read_requests, 3u);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(Indices(*out[i]), InWindow(rows[i], 0.3, 1.7, false));

  // Packed back to back in one pack file, whole videos of two rows are one request.
  ASSERT_OK_AND_ASSIGN(auto packed, table::Dataset::Open(store_, *packed_root_));
  const std::vector<uint64_t> two = {0, 1};
  const io::IoCounters packed_resolve = ResolveCost(*packed, two);
  store_->stats().Reset();
  ASSERT_OK_AND_ASSIGN(auto both, ExtractFrames(*packed, "video", two, FrameRequest::Window(0, 10), *plugin_, {},
                                                &stats));
  EXPECT_EQ(stats.extract.objects, 1u);
  EXPECT_EQ(store_->stats().Snapshot().read_requests - packed_resolve.read_requests, 1u);
  EXPECT_EQ(both[0]->size(), Row(0).rgb.size());
  EXPECT_EQ(both[1]->size(), Row(1).rgb.size());
}

// One frame costs about one GOP of reads, not the blob.
TEST_F(VideoExtract, OneFrameReadsOneGop) {
  const std::vector<uint64_t> rows = {0};
  ASSERT_OK_AND_ASSIGN(auto located, ds_->LocateBlobsWithInfo("video", rows));
  const auto& info = *located[0]->info;
  const auto entries = info.entries->span();
  ASSERT_GE(entries.size(), LANCET_VIDEO_ENTRIES_HEADER_SIZE);
  uint32_t gops = 0;
  std::memcpy(&gops, entries.data() + 8, 4);
  ASSERT_GE(gops, 4u);
  ASSERT_GE(entries.size(), LANCET_VIDEO_ENTRIES_HEADER_SIZE + uint64_t{gops} * LANCET_VIDEO_GOP_RECORD_SIZE);
  uint64_t largest = 0;
  for (uint32_t g = 0; g < gops; ++g) {
    uint64_t size = 0;
    std::memcpy(&size, entries.data() + LANCET_VIDEO_ENTRIES_HEADER_SIZE + g * LANCET_VIDEO_GOP_RECORD_SIZE + 8, 8);
    largest = std::max(largest, size);
  }
  const io::IoCounters resolve = ResolveCost(*ds_, rows);
  store_->stats().Reset();
  ASSERT_OK_AND_ASSIGN(auto out, ExtractFrames(*ds_, "video", rows, FrameRequest::Frames({40}), *plugin_));
  const io::IoCounters all = store_->stats().Snapshot();
  ASSERT_EQ(out[0]->size(), 1u);
  ExpectFramesMatch(0, *out[0]);
  const uint64_t payload = all.read_bytes - resolve.read_bytes;
  EXPECT_EQ(all.read_requests - resolve.read_requests, 1u);
  EXPECT_LE(payload, largest + 4096);
  EXPECT_LT(payload, located[0]->location.length / 2);
}

// Rows resolved once: each later extraction costs its GOP reads alone (one request per
// object, no descriptor read, no open or HEAD) and returns what a resolving call returns.
TEST_F(VideoExtract, ResolvedOnceCostsOnlyTheGopReads) {
  auto remote = io::WithLatency(store_, std::chrono::microseconds(0));
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(remote, *ds_root_));
  const std::vector<uint64_t> rows = {0, 3};
  ASSERT_OK_AND_ASSIGN(ResolvedBlobs resolved, Resolve(*ds, "video", rows));
  ASSERT_EQ(resolved.blobs.size(), 2u);
  ASSERT_TRUE(resolved.blobs[0] && resolved.blobs[0]->object);
  for (double t0 : {0.2, 1.1, 2.3}) {
    const FrameRequest request = FrameRequest::Window(t0, t0 + 0.5);
    remote->stats().Reset();
    const uint64_t heads = remote->metadata_requests();
    ExtractFramesStats stats;
    ASSERT_OK_AND_ASSIGN(auto held, ExtractFrames(resolved, request, *plugin_, {}, &stats));
    EXPECT_EQ(remote->stats().Snapshot().read_requests, stats.extract.objects) << "window at " << t0;
    EXPECT_EQ(remote->metadata_requests(), heads) << "window at " << t0;
    EXPECT_EQ(stats.extract.resolve_ns, 0u);
    ASSERT_OK_AND_ASSIGN(auto fresh, ExtractFrames(*ds, "video", rows, request, *plugin_));
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(Indices(*held[i]), InWindow(rows[i], t0, t0 + 0.5, false));
      EXPECT_EQ(Indices(*held[i]), Indices(*fresh[i]));
      ExpectFramesMatch(rows[i], *held[i]);
    }
  }
  // A dataset keeps its own blob objects open: resolving again needs no HEAD.
  const uint64_t heads = remote->metadata_requests();
  ASSERT_OK(Resolve(*ds, "video", rows).status());
  EXPECT_EQ(remote->metadata_requests(), heads);
}

TEST_F(VideoExtract, ClipIsPlayableAndHoldsTheWindowFrames) {
  const std::string path = *dir_ + "/clip_" + std::to_string(::getpid()) + ".mp4";
  ASSERT_OK_AND_ASSIGN(Clip clip, ExtractClipToFile(*ds_, "video", 0, 1.0, 1.5, *plugin_, path));
  // GOPs of 12 frames at 25 fps: the window [1.0, 1.5) lies in the GOPs from 0.96 s to 1.92 s.
  EXPECT_NEAR(clip.start_s, 0.96, 1e-6);
  EXPECT_EQ(clip.frames, 24u);
  EXPECT_EQ(testing::ReadWholeFile(path).size(), clip.mp4->size());
  EXPECT_EQ(testing::Shell("ffprobe -v error -show_streams '" + path + "' >/dev/null"), 0);
  ASSERT_OK_AND_ASSIGN(auto frames, testing::DecodeWithFfmpeg(path, "rgb24", 320 * 240 * 3));
  ASSERT_EQ(frames.size(), clip.frames);
  for (size_t k = 0; k < frames.size(); ++k) EXPECT_EQ(frames[k], Row(0).rgb[24 + k]) << "clip frame " << k;
  fs::remove(path);
  EXPECT_TRUE(ExtractClip(*ds_, "video", 2, 0, 1, *plugin_).status().IsNotFound());  // null row
  EXPECT_TRUE(ExtractClip(*ds_, "video", 0, 1, 1, *plugin_).status().IsInvalidArgument());
}

TEST_F(VideoExtract, StreamInfoOfIngestedRows) {
  const std::vector<uint64_t> rows = {0, 1, 3};
  ASSERT_OK_AND_ASSIGN(auto located, ds_->LocateBlobsWithInfo("video", rows));
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(VideoStreamInfo si, ParseVideoStreamInfo(located[i]->info->stream_info->span()));
    const Source& s = Row(rows[i]);
    EXPECT_EQ(si.codec, "h264");
    EXPECT_EQ(si.width, 320u);
    EXPECT_EQ(si.height, 240u);
    EXPECT_DOUBLE_EQ(si.fps, s.params.fps);
    EXPECT_EQ(si.frame_count, s.rgb.size());
    EXPECT_EQ(si.gop_count, (s.rgb.size() + s.params.gop - 1) / s.params.gop);
    EXPECT_NEAR(si.duration_s, static_cast<double>(s.rgb.size()) / s.params.fps, 0.05);
    EXPECT_EQ(si.b_frames, s.params.b_frames > 0);
  }
}

}  // namespace
}  // namespace lancet::media
