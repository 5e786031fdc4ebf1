// What the video plugin refuses: bad requests, truncated or non-video sources, hostile
// stream_info/entries/request bytes (errors, never crashes), bad config; and the library
// exports only its init symbol.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

#include "util/test_macros.h"
#include "video/video_util.h"

namespace lancet::video_test {
namespace {

const char* kArgs = "-c:v libx264 -g 12 -sc_threshold 0 -pix_fmt yuv420p";

class VideoErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HasEncoder("libx264")) GTEST_SKIP() << "the ffmpeg CLI has no libx264 encoder";
    path_ = MakeVideo("25", 2, std::string(kArgs) + " -movflags +faststart", "mp4");
    ASSERT_FALSE(path_.empty());
    source_ = ReadFile(path_);
    plugin_ = LoadPlugin();
    ASSERT_NE(plugin_, nullptr);
    ASSERT_OK_AND_ASSIGN(blob_, Ingest(*plugin_, source_));
  }
  std::string path_;
  std::vector<uint8_t> source_;
  std::shared_ptr<media::MediaPlugin> plugin_;
  Blob blob_;
};

TEST_F(VideoErrorsTest, FrameIndexPastTheEndNamesTheFrameCount) {
  auto plan = plugin_->Plan(blob_.stream_info, blob_.entries, FramesRequest({3, 50}), blob_.stored.size());
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().ToString().find("50 frames"), std::string::npos) << plan.status().ToString();
  auto decoded = DecodeRanges(*plugin_, blob_, FramesRequest({50}), {{0, blob_.stored.size()}});
  EXPECT_FALSE(decoded.ok());
}

TEST_F(VideoErrorsTest, BadRequestsAreRefused) {
  const uint64_t size = blob_.stored.size();
  auto refused = [&](std::vector<uint8_t> request) {
    return !plugin_->Plan(blob_.stream_info, blob_.entries, request, size).ok();
  };
  EXPECT_TRUE(refused({}));
  EXPECT_TRUE(refused(WindowRequest(2, 1)));                       // t1 < t0
  EXPECT_TRUE(refused(WindowRequest(0, std::nan(""))));            // NaN
  EXPECT_TRUE(refused(WindowRequest(0, 1, {.pix = 9})));           // unknown pixel format
  EXPECT_TRUE(refused(WindowRequest(0, 1, {.flags = 0x80})));      // unknown flag
  EXPECT_TRUE(refused(WindowRequest(0, 1, {.width = 1u << 20})));  // absurd size
  EXPECT_TRUE(refused(FramesRequest({1}, {.flags = LANCET_VIDEO_FLAG_KEYFRAMES_ONLY})));
  EXPECT_FALSE(refused(FramesRequest({1}, {.flags = LANCET_VIDEO_FLAG_FAST_CONVERT})));
  auto fast_clip = ClipRequest(0, 1);
  fast_clip[7] = LANCET_VIDEO_FLAG_FAST_CONVERT;  // a remux converts no pixels
  EXPECT_TRUE(refused(fast_clip));
  auto clip = ClipRequest(0, 1);
  clip[6] = 9;  // unknown kind
  EXPECT_TRUE(refused(clip));
  auto huge = FramesRequest({1, 2});
  huge[24] = huge[25] = huge[26] = huge[27] = 0xFF;  // count 2^32-1 in 16 bytes
  EXPECT_TRUE(refused(huge));
  auto versioned = WindowRequest(0, 1);
  versioned[4] = 2;
  EXPECT_TRUE(refused(versioned));
  // A blob shorter than the entries describe.
  EXPECT_FALSE(plugin_->Plan(blob_.stream_info, blob_.entries, WindowRequest(0, 1), size - 1).ok());
}

TEST_F(VideoErrorsTest, TruncatedOrForeignSourcesFailAtIngest) {
  const std::string moov_last = MakeVideo("25", 2, kArgs, "mp4");
  ASSERT_FALSE(moov_last.empty());
  const std::vector<uint8_t> last = ReadFile(moov_last);
  const std::vector<std::vector<uint8_t>> bad = {
      {},
      std::vector<uint8_t>(source_.begin(), source_.begin() + static_cast<std::ptrdiff_t>(source_.size() * 6 / 10)),
      std::vector<uint8_t>(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(last.size() * 6 / 10)),
      std::vector<uint8_t>(4000, 0x47),
      {'h', 'e', 'l', 'l', 'o'},
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    auto r = Ingest(*plugin_, bad[i]);
    EXPECT_FALSE(r.ok()) << "input " << i << " was accepted";
  }
  const std::string audio = ScratchPath("audio.m4a");
  ASSERT_EQ(RunCommand("ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i sine=duration=1 -c:a aac '" +
                       audio + "'"),
            0);
  auto r = Ingest(*plugin_, ReadFile(audio));
  std::remove(audio.c_str());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("no video stream"), std::string::npos) << r.status().ToString();
}

TEST_F(VideoErrorsTest, ConfigKeys) {
  auto spec = [](std::string text) { return media::PluginSpec{PluginPath(), {text.begin(), text.end()}}; };
  EXPECT_FALSE(media::MediaPlugin::Load(spec("colour=red")).ok());
  EXPECT_FALSE(media::MediaPlugin::Load(spec("threads=many")).ok());
  EXPECT_FALSE(media::MediaPlugin::Load(spec("threads")).ok());
  ASSERT_OK_AND_ASSIGN(auto threaded, media::MediaPlugin::Load(spec("threads=2, stream=0")));
  EXPECT_EQ(threaded->blob_type(), 1);  // LANCET_MEDIA_BLOB_VIDEO
  EXPECT_EQ(threaded->name(), "video_ffmpeg");
  ASSERT_OK_AND_ASSIGN(auto again, Ingest(*threaded, source_, 1 << 20));
  EXPECT_EQ(again.stored, blob_.stored);
  EXPECT_EQ(again.entries, blob_.entries);
  // stream=N must name a video stream.
  const std::string av = MakeVideo("25", 1, "-f lavfi -i sine=duration=1 " + std::string(kArgs) + " -c:a aac", "mkv");
  ASSERT_FALSE(av.empty());
  // The default keeps the video stream and says which streams stay behind.
  ::testing::internal::CaptureStderr();
  auto kept = Ingest(*threaded, ReadFile(av));
  const std::string warning = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_NE(warning.find("kept video stream 0, dropped 1 other stream(s) (audio)"), std::string::npos) << warning;
  ASSERT_OK_AND_ASSIGN(auto audio_stream, media::MediaPlugin::Load(spec("stream=1")));
  EXPECT_FALSE(Ingest(*audio_stream, ReadFile(av)).ok());
  ASSERT_OK_AND_ASSIGN(auto missing, media::MediaPlugin::Load(spec("stream=7")));
  EXPECT_FALSE(Ingest(*missing, ReadFile(av)).ok());
}

// Plan, then decode what plan returned: either may fail, neither may crash.
void Exercise(const media::MediaPlugin& plugin, const Blob& blob, const std::vector<uint8_t>& si,
              const std::vector<uint8_t>& en, const std::vector<uint8_t>& request) {
  auto plan = plugin.Plan(si, en, request, blob.stored.size());
  if (!plan.ok()) return;
  Blob hostile{blob.stored, si, en};
  (void)DecodeRanges(plugin, hostile, request, *plan);
}

TEST_F(VideoErrorsTest, HostileBytesAreErrorsNotCrashes) {
  // A short window on one thread keeps each decode cheap; the fuzzer goes further.
  const std::vector<uint8_t> request = WindowRequest(0.3, 0.5, {.threads = 1});
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<uint8_t> si = blob_.stream_info, en = blob_.entries, rq = request;
    std::vector<uint8_t>* target = round % 3 == 0 ? &si : round % 3 == 1 ? &en : &rq;
    // The first 200 bytes hold every header and the first records.
    const size_t span = std::min<size_t>(target->size(), 200);
    for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips) {
      const size_t at = rng() % span;
      // A flipped output size is valid and merely slow (frames scaled to 8192 wide).
      if (target == &rq && at >= 12 && at < 20) continue;
      (*target)[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    Exercise(*plugin_, blob_, si, en, rq);
  }
  // Every truncation of stream_info and of the request, and a sample of the entries'.
  for (size_t n = 0; n < blob_.stream_info.size(); ++n) {
    Exercise(*plugin_, blob_, {blob_.stream_info.begin(), blob_.stream_info.begin() + static_cast<std::ptrdiff_t>(n)},
             blob_.entries, request);
  }
  for (size_t n = 0; n < request.size(); ++n) {
    Exercise(*plugin_, blob_, blob_.stream_info, blob_.entries,
             {request.begin(), request.begin() + static_cast<std::ptrdiff_t>(n)});
  }
  for (size_t n = 0; n < blob_.entries.size(); n += 37) {
    auto en = std::vector<uint8_t>(blob_.entries.begin(), blob_.entries.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(plugin_->Plan(blob_.stream_info, en, request, blob_.stored.size()).ok());
  }
  // Huge counts in the entries header.
  auto en = blob_.entries;
  en[16 + 5] = 0x01;  // packet count + 2^40
  EXPECT_FALSE(plugin_->Plan(blob_.stream_info, en, request, blob_.stored.size()).ok());
  en = blob_.entries;
  en[8 + 3] = 0x7F;  // GOP count ~2^31
  EXPECT_FALSE(plugin_->Plan(blob_.stream_info, en, request, blob_.stored.size()).ok());
  // A huge extradata size in stream_info.
  auto si = blob_.stream_info;
  si[160 + 3] = 0x40;
  EXPECT_FALSE(plugin_->Plan(si, blob_.entries, request, blob_.stored.size()).ok());
}

TEST_F(VideoErrorsTest, DamagedStoredBytesAreErrorsNotCrashes) {
  const std::vector<uint8_t> request = WindowRequest(0, 2, {.threads = 1});
  std::mt19937 rng(11);
  for (int round = 0; round < 8; ++round) {
    Blob damaged = blob_;
    for (int i = 0; i < 40; ++i) damaged.stored[rng() % damaged.stored.size()] ^= static_cast<uint8_t>(rng());
    auto plan = plugin_->Plan(damaged.stream_info, damaged.entries, request, damaged.stored.size());
    ASSERT_TRUE(plan.ok());
    (void)DecodeRanges(*plugin_, damaged, request, *plan);
  }
}

TEST_F(VideoErrorsTest, EntriesVersion1IsRejected) {
  auto en = blob_.entries;
  en[4] = 1;
  auto plan = plugin_->Plan(blob_.stream_info, en, WindowRequest(0, 1), blob_.stored.size());
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(plan.status().IsCorruption()) << plan.status().ToString();
  EXPECT_NE(plan.status().message().find("entries version 1 not supported"), std::string::npos)
      << plan.status().ToString();
}

// Entries of version 2 (no checkpoints) are still read: their GOPs are read whole.
TEST_F(VideoErrorsTest, EntriesVersion2ReadWholeGops) {
  std::vector<uint8_t> v2(blob_.entries.begin(), blob_.entries.begin() + LANCET_VIDEO_ENTRIES_HEADER_SIZE);
  v2[4] = 2;
  const size_t gops = (blob_.entries.size() - LANCET_VIDEO_ENTRIES_HEADER_SIZE) / LANCET_VIDEO_GOP_RECORD_SIZE;
  for (size_t g = 0; g < gops; ++g) {
    const auto* r = blob_.entries.data() + LANCET_VIDEO_ENTRIES_HEADER_SIZE + g * LANCET_VIDEO_GOP_RECORD_SIZE;
    v2.insert(v2.end(), r, r + LANCET_VIDEO_GOP_RECORD_SIZE_V2);
  }
  Blob old = blob_;
  old.entries = v2;
  const auto request = FramesRequest({1});
  ASSERT_OK_AND_ASSIGN(auto now, Extract(*plugin_, blob_, request));
  ASSERT_OK_AND_ASSIGN(auto then, Extract(*plugin_, old, request));
  EXPECT_EQ(then.out.data->view(), now.out.data->view());
  ASSERT_EQ(then.ranges.size(), 1u);
  uint64_t size = 0;
  std::memcpy(&size, v2.data() + LANCET_VIDEO_ENTRIES_HEADER_SIZE + 8, 8);
  EXPECT_EQ(then.ranges[0].length, size);
  EXPECT_LT(now.ranges[0].length, size);
}

// Checkpoints that understate what a frame needs are refused as corrupt, never decoded
// from missing bytes.
TEST_F(VideoErrorsTest, UnderstatedCheckpointsAreCorrupt) {
  auto en = blob_.entries;
  uint8_t* r = en.data() + LANCET_VIDEO_ENTRIES_HEADER_SIZE;
  uint32_t table = 0, key = 0;
  std::memcpy(&table, r + 64, 4);
  std::memcpy(&key, r + 68, 4);
  const uint32_t least = table + key;
  for (uint32_t c = 0; c + 1 < LANCET_VIDEO_GOP_CHECKPOINTS; ++c) {
    std::memcpy(r + 80 + 4 * c, &least, 4);
    std::memcpy(r + 144 + 4 * c, &least, 4);
  }
  Blob bad = blob_;
  bad.entries = en;
  auto e = Extract(*plugin_, bad, FramesRequest({5}));
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(e.status().IsCorruption()) << e.status().ToString();
  EXPECT_NE(e.status().message().find("checkpoints"), std::string::npos) << e.status().ToString();
  // Not rising, or not ending at the GOP's size: refused when the entries are read.
  std::memcpy(r + 80, &table, 4);
  bad.entries = en;
  EXPECT_TRUE(Extract(*plugin_, bad, FramesRequest({0})).status().IsCorruption());
}

// The packet tables at each GOP's head are read by decode only: damage there is an error
// (or, for a field decode does not check, a different picture), never a crash.
TEST_F(VideoErrorsTest, DamagedPacketTablesAreErrorsNotCrashes) {
  std::vector<GopFields> gops;
  std::vector<PacketFields> packets;
  ParseEntries(blob_.entries, blob_.stored, &gops, &packets);
  const std::vector<uint8_t> request = FramesRequest({0, 3}, {.threads = 1});
  ASSERT_OK_AND_ASSIGN(auto want, Extract(*plugin_, blob_, request));
  std::mt19937 rng(13);
  for (int round = 0; round < 64; ++round) {
    Blob damaged = blob_;
    const uint64_t at = gops[0].offset + rng() % gops[0].table_size;
    damaged.stored[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
    (void)DecodeRanges(*plugin_, damaged, request, want.ranges);
  }
  // A table that cannot be in the range given is a missing-bytes error.
  EXPECT_FALSE(DecodeRanges(*plugin_, blob_, request, {{gops[0].offset, gops[0].table_size - 1}}).ok());
}

TEST_F(VideoErrorsTest, ConcurrentDecodesAgreeAndTinyPushesIngestTheSame) {
  const auto request = WindowRequest(0.2, 1.1, {.threads = 1});
  ASSERT_OK_AND_ASSIGN(auto want, Extract(*plugin_, blob_, request));
  std::vector<std::thread> threads;
  std::vector<int> same(4, 0);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto got = Extract(*plugin_, blob_, request);
      same[i] = got.ok() && got->out.metadata == want.out.metadata && got->out.data->view() == want.out.data->view();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(same, std::vector<int>(4, 1));
  ASSERT_OK_AND_ASSIGN(auto bytewise, Ingest(*plugin_, source_, 1));
  EXPECT_EQ(bytewise.stored, blob_.stored);
  EXPECT_EQ(bytewise.stream_info, blob_.stream_info);
  EXPECT_EQ(bytewise.entries, blob_.entries);
}

TEST(VideoPluginLibrary, ExportsOnlyTheInitSymbol) {
  FILE* p = popen(("nm -D --defined-only '" + PluginPath() + "' 2>/dev/null").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  if (pclose(p) != 0) GTEST_SKIP() << "no nm";
  std::vector<std::string> symbols;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.size() > 19 && line[17] != 'A') symbols.push_back(line.substr(19));
  }
  EXPECT_EQ(symbols, std::vector<std::string>{"lancet_media_plugin_init"}) << text;
}

}  // namespace
}  // namespace lancet::video_test
