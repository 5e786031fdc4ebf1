// The video plugin over every test video: ingest, then window, frames, timestamps and
// keyframes-only requests whose frames must equal, pixel for pixel, the frames libavcodec
// decodes from the original file.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "util/test_macros.h"
#include "video/video_cases.h"
#include "video/video_util.h"

namespace lancet::video_test {
namespace {

class VideoFormatsTest : public ::testing::TestWithParam<VideoCase> {
 protected:
  void SetUp() override {
    const VideoCase& c = GetParam();
    if (!HasEncoder(c.encoder)) GTEST_SKIP() << "the ffmpeg CLI has no " << c.encoder << " encoder";
    path_ = MakeVideo(c.rate, c.seconds, c.args, c.ext);
    ASSERT_FALSE(path_.empty()) << "ffmpeg could not make " << c.name;
    ref_ = Reference::Open(path_);
    ASSERT_NE(ref_, nullptr);
    ASSERT_GT(ref_->size(), 10u);
    plugin_ = LoadPlugin();
    ASSERT_NE(plugin_, nullptr);
    ASSERT_OK_AND_ASSIGN(blob_, Ingest(*plugin_, ReadFile(path_)));
  }

  // Every record's pixels equal the reference frame with the same pts.
  void ExpectFrames(const Extracted& e, const std::vector<size_t>& expected, RequestOptions o = {}) {
    std::vector<FrameRecord> records;
    ASSERT_TRUE(ParseFrames(e.out.metadata, e.out.data->size(), &records));
    ASSERT_EQ(records.size(), expected.size());
    for (size_t i = 0; i < records.size(); ++i) {
      const FrameRecord& r = records[i];
      ASSERT_EQ(r.index, expected[i]);
      ASSERT_EQ(r.pts, ref_->pts(expected[i]));
      EXPECT_DOUBLE_EQ(r.time, ref_->time(expected[i]));
      EXPECT_EQ(r.pix, o.pix);
      const uint32_t w = o.width ? o.width : 320, h = o.height ? o.height : 240;
      ASSERT_EQ(r.width, w);
      ASSERT_EQ(r.height, h);
      std::vector<uint8_t> want = ref_->Pixels(expected[i], o.pix, w, h);
      ASSERT_EQ(r.size, want.size());
      ASSERT_TRUE(std::equal(want.begin(), want.end(), e.out.data->data() + r.offset))
          << GetParam().name << ": frame " << r.index << " differs from the reference";
    }
  }

  std::vector<size_t> InWindow(double t0, double t1, bool keys_only = false) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < ref_->size(); ++i) {
      if (ref_->time(i) >= t0 && ref_->time(i) < t1 && (!keys_only || ref_->key(i))) out.push_back(i);
    }
    return out;
  }

  std::string path_;
  std::unique_ptr<Reference> ref_;
  std::shared_ptr<media::MediaPlugin> plugin_;
  Blob blob_;
};

TEST_P(VideoFormatsTest, IngestDescribesTheStream) {
  StreamInfoFields si = ParseStreamInfo(blob_.stream_info);
  EXPECT_EQ(si.width, 320u);
  EXPECT_EQ(si.height, 240u);
  EXPECT_EQ(si.frame_count, ref_->size());
  EXPECT_EQ(si.start_pts, ref_->pts(0));
  EXPECT_GT(si.duration, ref_->pts(ref_->size() - 1) - ref_->pts(0));
  EXPECT_EQ((si.flags & LANCET_VIDEO_SI_B_FRAMES) != 0, GetParam().bframes);
  // x265 makes open GOPs (CRA keyframes with leading pictures) by default; x264 does not.
  const std::string name = GetParam().name;
  if (name.starts_with("hevc")) {
    EXPECT_TRUE(si.flags & LANCET_VIDEO_SI_OPEN_GOP);
  }
  if (name.starts_with("h264")) {
    EXPECT_FALSE(si.flags & LANCET_VIDEO_SI_OPEN_GOP);
  }
  size_t keys = 0;
  for (size_t i = 0; i < ref_->size(); ++i) keys += ref_->key(i);
  EXPECT_EQ(si.gop_count, keys);
  std::vector<GopFields> gops;
  std::vector<PacketFields> packets;
  ParseEntries(blob_.entries, blob_.stored, &gops, &packets);
  ASSERT_EQ(packets.size(), ref_->size());
  ASSERT_EQ(gops.size(), keys);
  // GOP after GOP, each its packet table then its packets back to back.
  uint64_t offset = 0;
  for (const auto& g : gops) {
    EXPECT_EQ(g.offset, offset);
    uint64_t at = g.offset + g.table_size;
    for (uint32_t i = g.first_packet; i < g.first_packet + g.packet_count; ++i) {
      EXPECT_EQ(packets[i].offset, at);
      EXPECT_EQ((packets[i].flags & LANCET_VIDEO_PACKET_KEY) != 0, i == g.first_packet);
      at += packets[i].size;
    }
    EXPECT_EQ(at, g.offset + g.size);
    EXPECT_EQ(g.key_size, packets[g.first_packet].size);
    offset += g.size;
  }
  EXPECT_EQ(offset, blob_.stored.size());
  // Entries hold one record per GOP, nothing per packet.
  EXPECT_EQ(blob_.entries.size(), LANCET_VIDEO_ENTRIES_HEADER_SIZE + LANCET_VIDEO_GOP_RECORD_SIZE * gops.size());
}

TEST_P(VideoFormatsTest, WholeWindowIsPixelIdentical) {
  const double t0 = ref_->time(0), t1 = ref_->time(ref_->size() - 1) + 1;
  ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, WindowRequest(t0, t1)));
  ExpectFrames(e, InWindow(t0, t1));
}

TEST_P(VideoFormatsTest, MidWindowIsPixelIdentical) {
  const double t0 = ref_->time(0) + 0.9, t1 = ref_->time(0) + 1.45;
  ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, WindowRequest(t0, t1, {.threads = 2})));
  std::vector<size_t> want = InWindow(t0, t1);
  ASSERT_FALSE(want.empty());
  ExpectFrames(e, want);
  // Ranges start at GOP starts and end inside the blob.
  std::vector<GopFields> gops;
  std::vector<PacketFields> packets;
  ParseEntries(blob_.entries, blob_.stored, &gops, &packets);
  for (const auto& r : e.ranges) {
    EXPECT_TRUE(std::any_of(gops.begin(), gops.end(), [&](const GopFields& g) { return g.offset == r.offset; }));
  }
}

// A frame reads its GOP from the packet table through no less than the packets it needs
// (all of them up to its own in decode order), and over all frames much less than whole
// GOPs: plan stops at the entries' checkpoint past the frame.
TEST_P(VideoFormatsTest, FramesReadTheirGopOnlyThroughWhatTheyNeed) {
  std::vector<GopFields> gops;
  std::vector<PacketFields> packets;
  ParseEntries(blob_.entries, blob_.stored, &gops, &packets);
  uint64_t planned = 0, whole = 0;
  for (size_t f = 0; f < ref_->size(); f += 2) {
    SCOPED_TRACE("frame " + std::to_string(f));
    ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, FramesRequest({f})));
    ExpectFrames(e, {f});
    // The frame's own packet: the one with its pts.
    const auto it =
        std::find_if(packets.begin(), packets.end(), [&](const PacketFields& p) { return p.pts == ref_->pts(f); });
    ASSERT_NE(it, packets.end());
    const auto g = std::find_if(gops.begin(), gops.end(), [&](const GopFields& x) {
      return x.offset <= it->offset && it->offset < x.offset + x.size;
    });
    ASSERT_NE(g, gops.end());
    const auto own =
        std::find_if(e.ranges.begin(), e.ranges.end(), [&](const io::ByteRange& r) { return r.offset == g->offset; });
    ASSERT_NE(own, e.ranges.end());
    EXPECT_GE(own->end(), it->offset + it->size);
    EXPECT_LE(own->end(), g->offset + g->size);
    planned += own->length;
    whole += g->size;
  }
  // How much less depends on the codec's reordering (an HEVC B-pyramid needs late packets
  // for early frames), but never whole GOPs for every frame.
  if (gops.size() < ref_->size() / 4) {
    EXPECT_LT(planned, whole) << "frames early in a GOP should not read it whole";
  }
}

TEST_P(VideoFormatsTest, ListedFramesInAnyOrderComeOutAscending) {
  const size_t n = ref_->size();
  ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, FramesRequest({n - 1, 0, 7, 7, 13, n / 2})));
  std::set<size_t> want{n - 1, 0, 7, 13, n / 2};
  ExpectFrames(e, std::vector<size_t>(want.begin(), want.end()));
}

TEST_P(VideoFormatsTest, OtherPixelFormatsAndSizes) {
  RequestOptions yuv{.pix = LANCET_VIDEO_PIX_YUV420P};
  ASSERT_OK_AND_ASSIGN(auto a, Extract(*plugin_, blob_, FramesRequest({3, 11}, yuv)));
  ExpectFrames(a, {3, 11}, yuv);
  // One size 0 keeps the aspect ratio: 161 wide -> round(161 * 240 / 320) = 121 high.
  RequestOptions gray{.pix = LANCET_VIDEO_PIX_GRAY8, .width = 161};
  ASSERT_OK_AND_ASSIGN(auto b, Extract(*plugin_, blob_, FramesRequest({5}, gray)));
  gray.height = 121;
  ExpectFrames(b, {5}, gray);
  RequestOptions odd{.pix = LANCET_VIDEO_PIX_YUV420P, .width = 77, .height = 33};
  ASSERT_OK_AND_ASSIGN(auto c, Extract(*plugin_, blob_, FramesRequest({9}, odd)));
  ExpectFrames(c, {9}, odd);
  std::vector<FrameRecord> records;
  ASSERT_TRUE(ParseFrames(c.out.metadata, c.out.data->size(), &records));
  EXPECT_EQ(records[0].size, 77u * 33 + 2 * 39 * 17);
}

TEST_P(VideoFormatsTest, TimestampsPickTheFrameShown) {
  const double t = ref_->time(0);
  const double step = ref_->time(1) - ref_->time(0);
  ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_,
                                       TimestampsRequest({ref_->time(5) + step / 2, t, ref_->time(20) - step / 4, t - 1,
                                                          t + 1000, ref_->time(5)})));
  ExpectFrames(e, {0, 5, 19});
}

TEST_P(VideoFormatsTest, KeyframesOnlyIsExactlyTheTablesAndKeyPackets) {
  const double t0 = ref_->time(0), t1 = ref_->time(ref_->size() - 1) + 1;
  ASSERT_OK_AND_ASSIGN(auto e,
                       Extract(*plugin_, blob_, WindowRequest(t0, t1, {.flags = LANCET_VIDEO_FLAG_KEYFRAMES_ONLY})));
  ExpectFrames(e, InWindow(t0, t1, true));
  std::vector<GopFields> gops;
  std::vector<PacketFields> packets;
  ParseEntries(blob_.entries, blob_.stored, &gops, &packets);
  std::vector<io::ByteRange> want;
  for (const auto& g : gops) want.push_back({g.offset, uint64_t{g.table_size} + g.key_size});
  EXPECT_EQ(e.ranges, want);
}

TEST_P(VideoFormatsTest, CoveringRangesDecodeTheSame) {
  const auto request = WindowRequest(ref_->time(0) + 0.5, ref_->time(0) + 1.1);
  ASSERT_OK_AND_ASSIGN(auto planned, Extract(*plugin_, blob_, request));
  const uint64_t size = blob_.stored.size();
  ASSERT_OK_AND_ASSIGN(auto whole, DecodeRanges(*plugin_, blob_, request, {{0, size}}));
  EXPECT_EQ(whole.metadata, planned.out.metadata);
  EXPECT_EQ(whole.data->view(), planned.out.data->view());
  // Overlapping pieces, out of order.
  ASSERT_OK_AND_ASSIGN(auto pieces,
                       DecodeRanges(*plugin_, blob_, request, {{size / 4, size - size / 4}, {0, size / 2}}));
  EXPECT_EQ(pieces.data->view(), planned.out.data->view());
  // Missing bytes are an error, not garbage.
  EXPECT_FALSE(DecodeRanges(*plugin_, blob_, request, {{0, size / 3}}).ok());
}

TEST_P(VideoFormatsTest, OpenGopLeadingFramesDecodeFromTheGopBefore) {
  std::vector<GopFields> gops;
  std::vector<PacketFields> packets;
  ParseEntries(blob_.entries, blob_.stored, &gops, &packets);
  size_t tested = 0;
  for (size_t g = 1; g < gops.size(); ++g) {
    if (!(gops[g].flags & LANCET_VIDEO_GOP_OPEN)) continue;
    const int64_t key_pts = packets[gops[g].first_packet].pts;
    for (uint32_t i = gops[g].first_packet; i < gops[g].first_packet + gops[g].packet_count; ++i) {
      if (packets[i].pts >= key_pts) continue;
      const int64_t frame = ref_->IndexOf(packets[i].pts);
      ASSERT_GE(frame, 0);
      ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, FramesRequest({static_cast<uint64_t>(frame)})));
      ASSERT_EQ(e.ranges.size(), 2u);
      EXPECT_EQ(e.ranges[0], (io::ByteRange{gops[g - 1].offset, gops[g - 1].size}));
      ExpectFrames(e, {static_cast<size_t>(frame)});
      ++tested;
      break;
    }
  }
  if (GetParam().name == std::string("hevc_gop12_open_mp4")) {
    EXPECT_GT(tested, 0u);
  }
}

TEST_P(VideoFormatsTest, WindowPastTheEndIsEmpty) {
  ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, WindowRequest(1e6, 2e6)));
  EXPECT_TRUE(e.ranges.empty());
  ExpectFrames(e, {});
  EXPECT_EQ(e.out.data->size(), 0u);
}

TEST_P(VideoFormatsTest, OneFrameMatchesTheFfmpegCli) {
  const size_t k = std::min<size_t>(10, ref_->size() - 1);
  const std::string out = ScratchPath(std::string(GetParam().name) + ".ppm");
  // The CLI's own demuxer, decoder and filter graph, converting with the flags the plugin
  // documents (the CLI's default fast YUV->RGB path rounds chroma differently, ~34 dB).
  ASSERT_EQ(RunCommand("ffmpeg -nostdin -hide_banner -loglevel error -y -i '" + path_ + "' -vf 'select=eq(n\\," +
                       std::to_string(k) + "),scale=flags=bicubic+accurate_rnd+bitexact' -vsync 0 -frames:v 1 " +
                       "-f image2 -vcodec ppm '" + out + "'"),
            0);
  uint32_t w = 0, h = 0;
  std::vector<uint8_t> cli;
  ASSERT_TRUE(ReadPpm(out, &w, &h, &cli));
  std::remove(out.c_str());
  ASSERT_EQ(w, 320u);
  ASSERT_EQ(h, 240u);
  ASSERT_OK_AND_ASSIGN(auto e, Extract(*plugin_, blob_, FramesRequest({k})));
  std::vector<uint8_t> ours(e.out.data->data(), e.out.data->data() + e.out.data->size());
  EXPECT_GE(Psnr(ours, cli), 40.0);
}

TEST_P(VideoFormatsTest, FastConversionIsCloseToTheExactOne) {
  const size_t k = std::min<size_t>(10, ref_->size() - 1);
  ASSERT_OK_AND_ASSIGN(auto exact, Extract(*plugin_, blob_, FramesRequest({k})));
  ASSERT_OK_AND_ASSIGN(auto fast,
                       Extract(*plugin_, blob_, FramesRequest({k}, {.flags = LANCET_VIDEO_FLAG_FAST_CONVERT})));
  EXPECT_EQ(fast.ranges, exact.ranges);
  std::vector<FrameRecord> a, b;
  ASSERT_TRUE(ParseFrames(exact.out.metadata, exact.out.data->size(), &a));
  ASSERT_TRUE(ParseFrames(fast.out.metadata, fast.out.data->size(), &b));
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].index, a[0].index);
  EXPECT_EQ(b[0].pts, a[0].pts);
  EXPECT_EQ(b[0].size, a[0].size);
  const std::vector<uint8_t> x(exact.out.data->data(), exact.out.data->data() + exact.out.data->size());
  const std::vector<uint8_t> y(fast.out.data->data(), fast.out.data->data() + fast.out.data->size());
  // The same picture, rounded differently (bilinear chroma, SIMD yuv2rgb): far above
  // the ~10 dB of a wrong frame, below the exact path's bit-for-bit.
  EXPECT_GE(Psnr(x, y), 30.0);
}

INSTANTIATE_TEST_SUITE_P(Videos, VideoFormatsTest, ::testing::ValuesIn(kVideoCases),
                         [](const auto& info) { return CaseName(info.param); });

}  // namespace
}  // namespace lancet::video_test
