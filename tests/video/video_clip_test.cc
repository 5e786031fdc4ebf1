// Clip requests: the GOPs covering a window, remuxed without re-encoding into an MP4 that
// ffprobe accepts and whose frames are the original's frames.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "util/test_macros.h"
#include "video/video_cases.h"
#include "video/video_util.h"

namespace lancet::video_test {
namespace {

struct ClipHeader {
  uint64_t frames = 0;
  double start = 0, end = 0;
};

bool ParseClip(const std::string& metadata, ClipHeader* out) {
  if (metadata.size() != LANCET_VIDEO_CLIP_HEADER_SIZE) return false;
  uint32_t magic;
  uint16_t version, header;
  std::memcpy(&magic, metadata.data(), 4);
  std::memcpy(&version, metadata.data() + 4, 2);
  std::memcpy(&header, metadata.data() + 6, 2);
  std::memcpy(&out->frames, metadata.data() + 8, 8);
  std::memcpy(&out->start, metadata.data() + 16, 8);
  std::memcpy(&out->end, metadata.data() + 24, 8);
  return magic == LANCET_VIDEO_CLIP_MAGIC && version == 1 && header == LANCET_VIDEO_CLIP_HEADER_SIZE;
}

class VideoClipTest : public ::testing::TestWithParam<VideoCase> {
 protected:
  void SetUp() override {
    const VideoCase& c = GetParam();
    if (!HasEncoder(c.encoder)) GTEST_SKIP() << "the ffmpeg CLI has no " << c.encoder << " encoder";
    path_ = MakeVideo(c.rate, c.seconds, c.args, c.ext);
    ASSERT_FALSE(path_.empty());
    ref_ = Reference::Open(path_);
    ASSERT_NE(ref_, nullptr);
    plugin_ = LoadPlugin();
    ASSERT_NE(plugin_, nullptr);
    ASSERT_OK_AND_ASSIGN(blob_, Ingest(*plugin_, ReadFile(path_)));
  }
  std::string path_;
  std::unique_ptr<Reference> ref_;
  std::shared_ptr<media::MediaPlugin> plugin_;
  Blob blob_;
};

TEST_P(VideoClipTest, ClipIsAPlayableMp4OfTheOriginalFrames) {
  const double t0 = ref_->time(0) + 0.7, t1 = ref_->time(0) + 1.3;
  ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, ClipRequest(t0, t1)));
  // Whole GOPs: each range starts at a GOP and ends where one ends.
  std::vector<GopFields> gops;
  std::vector<PacketFields> packets;
  ParseEntries(blob_.entries, blob_.stored, &gops, &packets);
  for (const auto& r : e.ranges) {
    bool whole = false;
    for (const auto& g : gops) whole |= g.offset == r.offset && g.size == r.length;
    EXPECT_TRUE(whole) << "range at " << r.offset << " is not one whole GOP";
  }
  ClipHeader clip;
  ASSERT_TRUE(ParseClip(e.out.metadata, &clip));
  ASSERT_GT(e.out.data->size(), 0u);
  const std::string out = ScratchPath(std::string(GetParam().name) + "-clip.mp4");
  {
    std::ofstream f(out, std::ios::binary);
    f.write(reinterpret_cast<const char*>(e.out.data->data()), static_cast<std::streamsize>(e.out.data->size()));
  }
  EXPECT_EQ(RunCommand("ffprobe -v error -show_streams '" + out + "' > /dev/null"), 0);
  auto decoded = Reference::Open(out);
  std::remove(out.c_str());
  ASSERT_NE(decoded, nullptr);
  ASSERT_EQ(decoded->size(), clip.frames);
  // The clip starts at a frame of the original and holds every frame of the window.
  int64_t first = -1;
  for (size_t i = 0; i < ref_->size(); ++i) {
    if (ref_->time(i) == clip.start) first = static_cast<int64_t>(i);
  }
  ASSERT_GE(first, 0) << "the clip's start " << clip.start << " is no frame's time";
  for (size_t i = 0; i < ref_->size(); ++i) {
    if (ref_->time(i) >= t0 && ref_->time(i) < t1) {
      EXPECT_GE(static_cast<int64_t>(i), first);
      EXPECT_LT(i, first + clip.frames);
    }
  }
  EXPECT_GT(clip.end, clip.start);
  for (size_t i = 0; i < decoded->size(); ++i) {
    ASSERT_EQ(decoded->Pixels(i), ref_->Pixels(first + i)) << "clip frame " << i;
  }
}

TEST_P(VideoClipTest, ClipPastTheEndIsEmpty) {
  ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, ClipRequest(1e6, 1e7)));
  EXPECT_TRUE(e.ranges.empty());
  ClipHeader clip;
  ASSERT_TRUE(ParseClip(e.out.metadata, &clip));
  EXPECT_EQ(clip.frames, 0u);
  EXPECT_EQ(e.out.data->size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Videos, VideoClipTest, ::testing::ValuesIn(kVideoCases),
                         [](const auto& info) { return CaseName(info.param); });

}  // namespace
}  // namespace lancet::video_test
