// The video wire formats from the core's side, without the plugin: request bytes, and
// the checks on decoded-frames, clip and stream_info bytes (all untrusted).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "lancet/media/video.h"
#include "lancet/media/video_stream_info.h"
#include "lancet/media_video.h"
#include "media/video_wire.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using video_wire::EncodeClipRequest;
using video_wire::EncodeFrameRequest;
using video_wire::ParseClipRecord;
using video_wire::ParseFrameRecords;
using video_wire::ParseFrames;

template <typename T>
void Put(std::vector<uint8_t>& b, size_t at, T v) {
  if (b.size() < at + sizeof(T)) b.resize(at + sizeof(T));
  std::memcpy(b.data() + at, &v, sizeof(T));
}
template <typename T>
T Get(const std::vector<uint8_t>& b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

TEST(VideoWire, WindowRequestLayout) {
  FrameRequest r = FrameRequest::Window(1.5, 2.0);
  r.keyframes_only = true;
  r.format = PixelFormat::kGray8;
  r.width = 160;
  r.threads = 2;
  ASSERT_OK_AND_ASSIGN(auto b, EncodeFrameRequest(r));
  ASSERT_EQ(b.size(), 40u);
  EXPECT_EQ(Get<uint32_t>(b, 0), LANCET_VIDEO_REQUEST_MAGIC);
  EXPECT_EQ(Get<uint16_t>(b, 4), 1);
  EXPECT_EQ(b[6], LANCET_VIDEO_REQ_WINDOW);
  EXPECT_EQ(b[7], LANCET_VIDEO_FLAG_KEYFRAMES_ONLY);
  EXPECT_EQ(b[8], LANCET_VIDEO_PIX_GRAY8);
  EXPECT_EQ(b[9] | b[10] | b[11], 0);
  EXPECT_EQ(Get<uint32_t>(b, 12), 160u);
  EXPECT_EQ(Get<uint32_t>(b, 16), 0u);
  EXPECT_EQ(Get<uint32_t>(b, 20), 2u);
  EXPECT_EQ(Get<double>(b, 24), 1.5);
  EXPECT_EQ(Get<double>(b, 32), 2.0);
  r.exact = false;
  ASSERT_OK_AND_ASSIGN(auto fast, EncodeFrameRequest(r));
  EXPECT_EQ(fast[7], LANCET_VIDEO_FLAG_KEYFRAMES_ONLY | LANCET_VIDEO_FLAG_FAST_CONVERT);
}

TEST(VideoWire, FramesTimestampsAndClipRequests) {
  ASSERT_OK_AND_ASSIGN(auto f, EncodeFrameRequest(FrameRequest::Frames({7, 3, 1ULL << 40})));
  ASSERT_EQ(f.size(), 24u + 8 + 24);
  EXPECT_EQ(f[6], LANCET_VIDEO_REQ_FRAMES);
  EXPECT_EQ(f[7], 0);
  EXPECT_EQ(f[8], LANCET_VIDEO_PIX_RGB24);
  EXPECT_EQ(Get<uint32_t>(f, 24), 3u);
  EXPECT_EQ(Get<uint32_t>(f, 28), 0u);
  EXPECT_EQ(Get<uint64_t>(f, 32), 7u);
  EXPECT_EQ(Get<uint64_t>(f, 48), 1ULL << 40);
  ASSERT_OK_AND_ASSIGN(auto t, EncodeFrameRequest(FrameRequest::Timestamps({0.25, 0})));
  ASSERT_EQ(t.size(), 24u + 8 + 16);
  EXPECT_EQ(t[6], LANCET_VIDEO_REQ_TIMESTAMPS);
  EXPECT_EQ(Get<double>(t, 32), 0.25);
  ASSERT_OK_AND_ASSIGN(auto c, EncodeClipRequest(1, 2));
  ASSERT_EQ(c.size(), 40u);
  EXPECT_EQ(c[6], LANCET_VIDEO_REQ_CLIP);
  EXPECT_EQ(Get<double>(c, 24), 1.0);
}

TEST(VideoWire, BadSelectionsAreRefused) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(EncodeFrameRequest(FrameRequest::Window(2, 1)).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeFrameRequest(FrameRequest::Window(-1, 1)).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeFrameRequest(FrameRequest::Window(0, nan)).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeFrameRequest(FrameRequest::Frames({})).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeFrameRequest(FrameRequest::Timestamps({})).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeFrameRequest(FrameRequest::Timestamps({1, nan})).status().IsInvalidArgument());
  FrameRequest bad = FrameRequest::Window(0, 1);
  bad.format = static_cast<PixelFormat>(9);
  EXPECT_TRUE(EncodeFrameRequest(bad).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeClipRequest(1, 1).status().IsInvalidArgument());   // an empty clip
  EXPECT_OK(EncodeFrameRequest(FrameRequest::Window(1, 1)).status());  // an empty window is no frame
}

// Decoded-frames metadata with `n` records of 4x2 RGB24 frames laid out back to back.
std::vector<uint8_t> FramesMeta(uint32_t n) {
  std::vector<uint8_t> m;
  Put<uint32_t>(m, 0, LANCET_VIDEO_FRAMES_MAGIC);
  Put<uint16_t>(m, 4, 1);
  Put<uint16_t>(m, 6, 16);
  Put<uint32_t>(m, 8, n);
  Put<uint32_t>(m, 12, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t r = 16 + i * 56;
    Put<uint64_t>(m, r, 10 + 2 * i);
    Put<int64_t>(m, r + 8, 512 * (10 + 2 * i));
    Put<double>(m, r + 16, 0.04 * (10 + 2 * i));
    Put<uint32_t>(m, r + 24, 4);
    Put<uint32_t>(m, r + 28, 2);
    m.resize(r + 40, 0);  // format rgb24 and zero padding
    Put<uint64_t>(m, r + 40, 24ULL * i);
    Put<uint64_t>(m, r + 48, 24);
  }
  return m;
}

TEST(VideoWire, FramesParseAndViewTheOutput) {
  std::vector<uint8_t> pixels(48);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i);
  BufferPtr data = Buffer::FromVector(pixels);
  const auto m = FramesMeta(2);
  ASSERT_OK_AND_ASSIGN(auto frames, ParseFrames(m, data));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].index, 12u);
  EXPECT_EQ(frames[1].pts, 512 * 12);
  EXPECT_DOUBLE_EQ(frames[1].time_s, 0.48);
  EXPECT_EQ(frames[1].width, 4u);
  EXPECT_EQ(frames[1].format, PixelFormat::kRgb24);
  ASSERT_EQ(frames[1].bytes->size(), 24u);
  EXPECT_EQ(frames[1].bytes->data()[0], 24);
  ASSERT_OK_AND_ASSIGN(auto none, ParseFrames(FramesMeta(0), nullptr));
  EXPECT_TRUE(none.empty());
}

TEST(VideoWire, BadFrameRecordsAreCorruption) {
  auto expect_bad = [](std::vector<uint8_t> m, uint64_t size, const std::string& words) {
    Status st = ParseFrameRecords(m, size).status();
    EXPECT_TRUE(st.IsCorruption()) << words << ": " << st.ToString();
    EXPECT_NE(st.message().find(words), std::string::npos) << st.ToString();
  };
  expect_bad({}, 48, "LVFM");
  auto m = FramesMeta(2);
  m[0] ^= 1;
  expect_bad(m, 48, "LVFM");
  m = FramesMeta(2);
  Put<uint16_t>(m, 4, 2);
  expect_bad(m, 48, "version 2");
  m = FramesMeta(2);
  Put<uint32_t>(m, 8, 3);  // one record more than the bytes hold
  expect_bad(m, 72, "does not fit");
  m = FramesMeta(2);
  Put<uint32_t>(m, 8, 0xFFFFFFFFu);
  expect_bad(m, 48, "does not fit");
  m = FramesMeta(2);
  Put<uint16_t>(m, 6, 8);
  expect_bad(m, 48, "does not fit");
  expect_bad(FramesMeta(2), 47, "past the 47-byte output");
  m = FramesMeta(2);
  Put<uint64_t>(m, 16 + 56 + 40, ~0ULL - 4);  // offset + size overflows
  expect_bad(m, 48, "past the");
  m = FramesMeta(2);
  Put<uint64_t>(m, 16 + 56 + 48, 23);
  expect_bad(m, 48, "needs 24");
  m = FramesMeta(2);
  m[16 + 32] = 7;
  expect_bad(m, 48, "pixel format 7");
  m = FramesMeta(2);
  Put<uint32_t>(m, 16 + 24, 0);
  expect_bad(m, 48, "0x2");
  m = FramesMeta(2);
  Put<uint64_t>(m, 16 + 56, 10);  // the second record repeats frame 10
  expect_bad(m, 48, "ascend");
  m = FramesMeta(2);
  Put<double>(m, 16 + 16, std::numeric_limits<double>::infinity());
  expect_bad(m, 48, "non-finite");
}

TEST(VideoWire, ClipRecord) {
  std::vector<uint8_t> m;
  Put<uint32_t>(m, 0, LANCET_VIDEO_CLIP_MAGIC);
  Put<uint16_t>(m, 4, 1);
  Put<uint16_t>(m, 6, 32);
  Put<uint64_t>(m, 8, 25);
  Put<double>(m, 16, 0.96);
  Put<double>(m, 24, 1.96);
  ASSERT_OK_AND_ASSIGN(auto c, ParseClipRecord(m));
  EXPECT_EQ(c.frames, 25u);
  EXPECT_DOUBLE_EQ(c.start_s, 0.96);
  EXPECT_DOUBLE_EQ(c.end_s, 1.96);
  EXPECT_TRUE(ParseClipRecord(std::span<const uint8_t>(m).first(31)).status().IsCorruption());
  Put<uint16_t>(m, 6, 40);
  EXPECT_TRUE(ParseClipRecord(m).status().IsCorruption());
}

std::vector<uint8_t> StreamInfo() {
  std::vector<uint8_t> b(160 + 4, 0);
  Put<uint32_t>(b, 0, LANCET_VIDEO_STREAM_INFO_MAGIC);
  Put<uint16_t>(b, 4, 1);
  Put<uint16_t>(b, 6, 160);
  Put<uint32_t>(b, 8, 27);
  Put<uint32_t>(b, 20, 320);
  Put<uint32_t>(b, 24, 240);
  Put<int32_t>(b, 32, 1);
  Put<int32_t>(b, 36, 12800);
  Put<int32_t>(b, 40, 25);
  Put<int32_t>(b, 44, 1);
  Put<int64_t>(b, 56, 12800 * 3);
  Put<uint64_t>(b, 64, 75);
  Put<uint64_t>(b, 72, 7);
  Put<uint32_t>(b, 92, LANCET_VIDEO_SI_B_FRAMES);
  Put<int64_t>(b, 120, 450000);
  std::memcpy(b.data() + 128, "h264", 4);
  std::memcpy(b.data() + 144, "yuv420p", 7);
  return b;
}

TEST(VideoStreamInfo, Parses) {
  const auto b = StreamInfo();
  EXPECT_TRUE(IsVideoStreamInfo(b));
  ASSERT_OK_AND_ASSIGN(VideoStreamInfo si, ParseVideoStreamInfo(b));
  EXPECT_EQ(si.codec, "h264");
  EXPECT_EQ(si.pixel_format, "yuv420p");
  EXPECT_EQ(si.width, 320u);
  EXPECT_EQ(si.height, 240u);
  EXPECT_DOUBLE_EQ(si.fps, 25);
  EXPECT_DOUBLE_EQ(si.duration_s, 3);
  EXPECT_EQ(si.frame_count, 75u);
  EXPECT_EQ(si.gop_count, 7u);
  EXPECT_TRUE(si.b_frames);
  EXPECT_FALSE(si.open_gop);
  EXPECT_EQ(si.bit_rate, 450000);
}

TEST(VideoStreamInfo, BadBytesAreCorruption) {
  auto bad = [](std::vector<uint8_t> b) { return ParseVideoStreamInfo(b).status().IsCorruption(); };
  EXPECT_TRUE(bad({}));
  auto b = StreamInfo();
  EXPECT_FALSE(IsVideoStreamInfo(std::vector<uint8_t>{'L', 'V'}));
  b[1] = 'X';
  EXPECT_TRUE(bad(b));
  b = StreamInfo();
  b.resize(100);
  EXPECT_TRUE(bad(b));
  b = StreamInfo();
  Put<uint16_t>(b, 6, 200);  // header past the bytes
  EXPECT_TRUE(bad(b));
  b = StreamInfo();
  Put<uint16_t>(b, 4, 2);
  EXPECT_TRUE(bad(b));
  b = StreamInfo();
  Put<int32_t>(b, 36, 0);
  EXPECT_TRUE(bad(b));
  b = StreamInfo();
  b[128 + 6] = 'x';  // text after the NUL
  EXPECT_TRUE(bad(b));
  b = StreamInfo();
  b[144] = 0x01;
  EXPECT_TRUE(bad(b));
}

TEST(VideoFormats, FrameBytes) {
  EXPECT_EQ(FrameBytes(PixelFormat::kRgb24, 320, 240), 320u * 240 * 3);
  EXPECT_EQ(FrameBytes(PixelFormat::kGray8, 5, 3), 15u);
  EXPECT_EQ(FrameBytes(PixelFormat::kYuv420p, 5, 3), 15u + 2 * 3 * 2);
  EXPECT_STREQ(PixelFormatName(PixelFormat::kYuv420p), "yuv420p");
}

}  // namespace
}  // namespace lancet::media
