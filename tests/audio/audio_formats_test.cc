// The audio plugin on every codec the ffmpeg CLI can write here: windows extracted from the
// stored stream equal the CLI's decode of the same samples of the original file (PCM and
// FLAC bit-exact, lossy codecs sample-aligned with SNR >= 60 dB), with one range read.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "audio/audio_cases.h"
#include "util/test_macros.h"

namespace lancet::audio_test {
namespace {

class AudioFormats : public ::testing::TestWithParam<AudioCase> {
 protected:
  void SetUp() override {
    file_ = MakeCase(GetParam());
    if (file_.empty()) GTEST_SKIP() << "the ffmpeg CLI cannot encode " << GetParam().name << " here";
    plugin_ = LoadPlugin();
    ASSERT_NE(plugin_, nullptr);
    ASSERT_OK_AND_ASSIGN(blob_, Ingest(*plugin_, ReadFile(file_)));
    ref_ = DecodeWithFfmpeg(file_, GetParam().s16 ? "s16le" : "f32le");
    ASSERT_FALSE(ref_.empty());
  }

  uint32_t SampleBytes() const { return GetParam().s16 ? 2 : 4; }
  uint64_t FrameBytes() const { return SampleBytes() * static_cast<uint64_t>(GetParam().channels); }

  // Extracts [t0, t1) and compares it with samples [round(t0 r), round(t1 r)) of the CLI's decode.
  void CheckWindow(double t0, double t1) {
    SCOPED_TRACE("window [" + std::to_string(t0) + ", " + std::to_string(t1) + ")");
    const AudioCase& c = GetParam();
    const uint64_t total = ref_.size() / FrameBytes();
    const uint64_t s0 = std::min<uint64_t>(static_cast<uint64_t>(std::llround(t0 * c.rate)), total);
    const uint64_t s1 = std::min<uint64_t>(static_cast<uint64_t>(std::llround(t1 * c.rate)), total);
    const uint8_t fmt = c.s16 ? LANCET_AUDIO_FMT_S16 : LANCET_AUDIO_FMT_F32;
    ASSERT_OK_AND_ASSIGN(Extracted e, Extract(*plugin_, blob_, WindowRequest(t0, t1, fmt)));
    EXPECT_LE(e.ranges.size(), 1u);
    Segment seg;
    ASSERT_TRUE(ParseSegment(e.out.metadata, e.out.data ? e.out.data->size() : 0, &seg));
    EXPECT_EQ(seg.rate, static_cast<uint32_t>(c.rate));
    EXPECT_EQ(seg.channels, static_cast<uint32_t>(c.channels));
    if (s0 >= s1) {
      EXPECT_EQ(seg.samples, 0u);
      EXPECT_TRUE(e.ranges.empty());
      return;
    }
    EXPECT_EQ(seg.first, s0);
    ASSERT_EQ(seg.samples, s1 - s0);
    const uint8_t* want = ref_.data() + s0 * FrameBytes();
    const size_t bytes = static_cast<size_t>((s1 - s0) * FrameBytes());
    if (c.exact) {
      EXPECT_EQ(std::memcmp(e.out.data->data(), want, bytes), 0) << "not bit-exact";
    } else {
      const double snr = SnrDb(AsFloats(want, bytes), AsFloats(e.out.data->data(), bytes));
      EXPECT_GE(snr, 60.0);
      RecordProperty("snr_db_" + std::to_string(static_cast<int>(t0 * 1000)), std::to_string(snr));
    }
  }

  // s16 out of any codec is the f32 decode converted as libswresample (and so the CLI) does.
  void CheckS16Window() {
    const AudioCase& c = GetParam();
    const std::vector<uint8_t> ref = DecodeWithFfmpeg(file_, "s16le");
    const uint64_t frame = 2 * static_cast<uint64_t>(c.channels);
    const uint64_t s0 = static_cast<uint64_t>(std::llround(2.0 * c.rate)),
                   s1 = static_cast<uint64_t>(std::llround(3.0 * c.rate));
    ASSERT_OK_AND_ASSIGN(Extracted e, Extract(*plugin_, blob_, WindowRequest(2, 3, LANCET_AUDIO_FMT_S16)));
    ASSERT_EQ(e.out.data->size(), (s1 - s0) * frame);
    const auto* got = reinterpret_cast<const int16_t*>(e.out.data->data());
    const auto* want = reinterpret_cast<const int16_t*>(ref.data() + s0 * frame);
    double signal = 0, noise = 0;
    for (uint64_t i = 0; i < (s1 - s0) * c.channels; ++i) {
      signal += static_cast<double>(want[i]) * want[i];
      noise += (static_cast<double>(want[i]) - got[i]) * (static_cast<double>(want[i]) - got[i]);
    }
    if (c.exact) {
      EXPECT_EQ(noise, 0);
    } else {
      EXPECT_TRUE(noise == 0 || 10 * std::log10(signal / noise) >= 60.0);
    }
  }

  std::string file_;
  std::shared_ptr<media::MediaPlugin> plugin_;
  Blob blob_;
  std::vector<uint8_t> ref_;
};

// stream_info agrees with the CLI's decode; a short window reads part of the stored
// stream, in one range.
TEST_P(AudioFormats, StreamInfoAndPlan) {
  const StreamInfoFields si = ParseStreamInfo(blob_.stream_info);
  EXPECT_EQ(si.rate, static_cast<uint32_t>(GetParam().rate));
  EXPECT_EQ(si.channels, static_cast<uint32_t>(GetParam().channels));
  // The timeline is the CLI's: as many samples as its full decode.
  EXPECT_EQ(si.samples, ref_.size() / FrameBytes());
  EXPECT_GT(si.packets, 1u);
  // One 48-byte record per group of at most 64 packets; the packet tables (32 bytes a
  // packet) are in the stored stream.
  const uint64_t groups = (blob_.entries.size() - LANCET_AUDIO_ENTRIES_HEADER_SIZE) / LANCET_AUDIO_GROUP_RECORD_SIZE;
  EXPECT_EQ(blob_.entries.size(), LANCET_AUDIO_ENTRIES_HEADER_SIZE + groups * LANCET_AUDIO_GROUP_RECORD_SIZE);
  EXPECT_GE(groups, (si.packets + 63) / 64);
  EXPECT_LT(groups, si.packets);
  EXPECT_LT(blob_.stored.size(), ReadFile(file_).size() + si.packets * LANCET_AUDIO_PACKET_RECORD_SIZE + 4096);

  ASSERT_OK_AND_ASSIGN(auto ranges,
                       plugin_->Plan(blob_.stream_info, blob_.entries, WindowRequest(4, 4.1), blob_.stored.size()));
  ASSERT_EQ(ranges.size(), 1u);
  // Whole groups of up to 64 packets (about 1.4 s of AAC), and the pre-roll's: part of 8 s.
  EXPECT_GT(ranges[0].offset, 0u);
  EXPECT_LT(ranges[0].length * 10, blob_.stored.size() * 6);
}

TEST_P(AudioFormats, WindowsEqualTheCliDecode) {
  CheckWindow(0, 0.5);
  CheckWindow(1.2345, 2.5);
  CheckWindow(3.3, 3.31);
  CheckWindow(5.0001, 5.0002);
  CheckWindow(7.5, 9);
  CheckWindow(0, 100);
  CheckWindow(10, 11);
  CheckS16Window();
}

// Another rate and channel count: the window's length at the output rate, and the same
// sound as the CLI's resampled decode (edges aside, where the resampler's history differs).
TEST_P(AudioFormats, ResampleAndDownmix) {
  const std::vector<uint8_t> ref = DecodeWithFfmpeg(file_, "f32le", "-ar 16000 -ac 1");
  ASSERT_OK_AND_ASSIGN(Extracted e, Extract(*plugin_, blob_, WindowRequest(1.5, 2.75, LANCET_AUDIO_FMT_F32, 16000, 1)));
  Segment seg;
  ASSERT_TRUE(ParseSegment(e.out.metadata, e.out.data->size(), &seg));
  EXPECT_EQ(seg.rate, 16000u);
  EXPECT_EQ(seg.channels, 1u);
  EXPECT_EQ(seg.first, 24000u);
  ASSERT_EQ(seg.samples, 20000u);
  const std::vector<float> got = AsFloats(e.out.data->data(), e.out.data->size());
  const std::vector<float> want = AsFloats(ref.data() + 24000 * 4, 20000 * 4);
  const size_t edge = 64;
  const double snr = SnrDb(std::vector<float>(want.begin() + edge, want.end() - edge),
                           std::vector<float>(got.begin() + edge, got.end() - edge));
  EXPECT_GE(snr, 40.0);
}

INSTANTIATE_TEST_SUITE_P(Codecs, AudioFormats, ::testing::ValuesIn(AudioCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace lancet::audio_test
