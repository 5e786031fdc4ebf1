// ExtractAudio end to end: sweeps the ffmpeg CLI makes, a dataset written through the audio
// plugin, segments compared with the CLI's decode of the original files, and the reads
// counted by the store: one range per row and object.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "audio/audio_cases.h"
#include "lancet/io/object_store.h"
#include "lancet/media/audio.h"
#include "lancet/media/audio_stream_info.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

namespace fs = std::filesystem;
using namespace audio_test;

class AudioExtract : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"wav_s16", "mp3", "aac_m4a"}) {
      for (const AudioCase& c : AudioCases()) {
        if (c.name != name) continue;
        cases_.push_back(c);
        files_.push_back(MakeCase(c));
        if (files_.back().empty()) GTEST_SKIP() << "the ffmpeg CLI cannot make " << c.name;
      }
    }
    dir_ = ScratchDir();
    // Rows 0, 1, 3 are the sources, row 2 is null. "ds" keeps each in a sidecar of its own;
    // "packed" puts them back to back in one pack file.
    const std::vector<std::string> rows = {files_[0], files_[1], "", files_[2]};
    ASSERT_OK(WriteAudioDataset(dir_ + "/ds", rows, 64 << 10));
    ASSERT_OK(WriteAudioDataset(dir_ + "/packed", rows, 64 << 20));
    store_ = io::LocalFileSystem();
    ASSERT_OK_AND_ASSIGN(ds_, table::Dataset::Open(store_, dir_ + "/ds"));
    ASSERT_OK_AND_ASSIGN(plugin_, MediaPlugin::Load(audio_test::PluginSpec()));
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  size_t Source(uint64_t row) const { return row == 3 ? 2 : row; }

  // The segment equals samples [round(t0 r), round(t1 r)) of the CLI's f32 decode.
  void ExpectMatches(uint64_t row, const AudioSegment& s, double t0, double t1) {
    const AudioCase& c = cases_[Source(row)];
    const std::vector<uint8_t> ref = DecodeWithFfmpeg(files_[Source(row)], "f32le");
    const uint64_t frame = 4 * static_cast<uint64_t>(c.channels);
    const uint64_t s0 = static_cast<uint64_t>(std::llround(t0 * c.rate));
    const uint64_t s1 = static_cast<uint64_t>(std::llround(t1 * c.rate));
    EXPECT_EQ(s.sample_rate, static_cast<uint32_t>(c.rate));
    EXPECT_EQ(s.channels, static_cast<uint32_t>(c.channels));
    EXPECT_EQ(s.first_sample, s0);
    EXPECT_DOUBLE_EQ(s.start_s, static_cast<double>(s0) / c.rate);
    ASSERT_EQ(s.samples, s1 - s0);
    ASSERT_EQ(s.pcm->size(), (s1 - s0) * frame);
    const uint8_t* want = ref.data() + s0 * frame;
    if (c.exact) {
      EXPECT_EQ(std::memcmp(s.pcm->data(), want, s.pcm->size()), 0) << "row " << row;
    } else {
      EXPECT_GE(SnrDb(AsFloats(want, s.pcm->size()), AsFloats(s.pcm->data(), s.pcm->size())), 60.0) << "row " << row;
    }
  }

  // What resolving alone costs, once the dataset has opened its data file.
  io::IoCounters ResolveCost(const table::Dataset& ds, std::span<const uint64_t> rows) {
    EXPECT_TRUE(ds.LocateBlobsWithInfo("audio", rows).ok());
    store_->stats().Reset();
    EXPECT_TRUE(ds.LocateBlobsWithInfo("audio", rows).ok());
    return store_->stats().Snapshot();
  }

  std::vector<AudioCase> cases_;
  std::vector<std::string> files_;
  std::string dir_;
  std::shared_ptr<io::ObjectStore> store_;
  std::unique_ptr<table::Dataset> ds_;
  std::shared_ptr<MediaPlugin> plugin_;
};

TEST_F(AudioExtract, SegmentsEqualTheCliDecode) {
  const std::vector<uint64_t> rows = {0, 1, 2, 3};
  ExtractAudioStats stats;
  ASSERT_OK_AND_ASSIGN(auto out, ExtractAudio(*ds_, "audio", rows, {1.25, 2.5}, {}, *plugin_, {}, &stats));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_FALSE(out[2].has_value());
  for (uint64_t r : {0, 1, 3}) {
    ASSERT_TRUE(out[r].has_value());
    ExpectMatches(r, *out[r], 1.25, 2.5);
  }
  EXPECT_EQ(stats.extract.rows, 3u);
  EXPECT_EQ(stats.samples, out[0]->samples + out[1]->samples + out[3]->samples);
  EXPECT_GT(stats.extract.decode_ns, 0u);
}

// Each row's segment is one range; rows in their own sidecars are one read each, rows
// packed into one file at most one read each.
TEST_F(AudioExtract, OneRangePerRowAndObject) {
  const std::vector<uint64_t> rows = {0, 1, 3};
  const io::IoCounters resolve = ResolveCost(*ds_, rows);
  store_->stats().Reset();
  ExtractAudioStats stats;
  ASSERT_OK_AND_ASSIGN(auto out, ExtractAudio(*ds_, "audio", rows, {3, 3.5}, {}, *plugin_, {}, &stats));
  const io::IoCounters all = store_->stats().Snapshot();
  EXPECT_EQ(stats.extract.objects, 3u);
  EXPECT_EQ(stats.extract.planned_ranges, 3u);
  EXPECT_EQ(all.read_requests - resolve.read_requests, 3u);
  // A short window reads a small part of each blob.
  uint64_t stored = 0;
  ASSERT_OK_AND_ASSIGN(auto located, ds_->LocateBlobsWithInfo("audio", rows));
  for (const auto& b : located) stored += b ? b->location.length : 0;
  EXPECT_LT(stats.extract.bytes_planned * 5, stored);
  for (size_t i = 0; i < rows.size(); ++i) ExpectMatches(rows[i], *out[i], 3, 3.5);

  ASSERT_OK_AND_ASSIGN(auto packed, table::Dataset::Open(store_, dir_ + "/packed"));
  const io::IoCounters packed_resolve = ResolveCost(*packed, rows);
  store_->stats().Reset();
  ASSERT_OK_AND_ASSIGN(auto again, ExtractAudio(*packed, "audio", rows, {3, 3.5}, {}, *plugin_, {}, &stats));
  EXPECT_EQ(stats.extract.objects, 1u);
  EXPECT_LE(store_->stats().Snapshot().read_requests - packed_resolve.read_requests, 3u);
  for (size_t i = 0; i < rows.size(); ++i) ExpectMatches(rows[i], *again[i], 3, 3.5);
}

// Rows resolved once: each later window costs its one range per object and nothing else,
// and gives what a resolving call gives.
TEST_F(AudioExtract, ResolvedOnceCostsOnlyTheRanges) {
  const std::vector<uint64_t> rows = {0, 1, 3};
  ASSERT_OK_AND_ASSIGN(ResolvedBlobs resolved, Resolve(*ds_, "audio", rows));
  for (double t0 : {0.5, 2.0, 4.25}) {
    store_->stats().Reset();
    ExtractAudioStats stats;
    ASSERT_OK_AND_ASSIGN(auto held, ExtractAudio(resolved, {t0, t0 + 0.5}, {}, *plugin_, {}, &stats));
    EXPECT_EQ(store_->stats().Snapshot().read_requests, 3u) << "window at " << t0;
    EXPECT_EQ(stats.extract.resolve_ns, 0u);
    for (size_t i = 0; i < rows.size(); ++i) ExpectMatches(rows[i], *held[i], t0, t0 + 0.5);
  }
}

TEST_F(AudioExtract, WindowsAndFormats) {
  const std::vector<uint64_t> rows = {1};
  ASSERT_OK_AND_ASSIGN(auto past, ExtractAudio(*ds_, "audio", rows, {20, 21}, {}, *plugin_));
  EXPECT_EQ(past[0]->samples, 0u);
  EXPECT_TRUE(ExtractAudio(*ds_, "audio", rows, {2, 1}, {}, *plugin_).status().IsInvalidArgument());
  EXPECT_TRUE(ExtractAudio(*ds_, "audio", rows, {1, 1}, {}, *plugin_).status().IsInvalidArgument());
  AudioFormat mono16k{SampleFormat::kS16, 16000, 1};
  ASSERT_OK_AND_ASSIGN(auto out, ExtractAudio(*ds_, "audio", rows, {0.5, 1}, mono16k, *plugin_));
  EXPECT_EQ(out[0]->samples, 8000u);
  EXPECT_EQ(out[0]->pcm->size(), 16000u);
  EXPECT_EQ(out[0]->channels, 1u);
  const std::vector<uint8_t> wav = WavBytes(*out[0]);
  ASSERT_EQ(wav.size(), 44u + 16000u);
  EXPECT_EQ(std::memcmp(wav.data(), "RIFF", 4), 0);
  EXPECT_EQ(std::memcmp(wav.data() + 8, "WAVEfmt ", 8), 0);
}

// A source the plugin rejects fails the whole write, naming the problem, and the dataset
// keeps its version; a new dataset is not created at all.
TEST_F(AudioExtract, CorruptSourceWritesNoVersion) {
  const std::string cut = dir_ + "/cut.wav";
  std::vector<uint8_t> bytes = ReadFile(files_[0]);
  bytes.resize(bytes.size() / 2);
  WriteFile(cut, bytes);
  ASSERT_OK_AND_ASSIGN(auto before, ds_->ListVersions());
  Status st = WriteAudioDataset(dir_ + "/ds", {files_[1], cut}, 64 << 10, table::WriteMode::kAppend);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("truncated"), std::string::npos) << st.ToString();
  ASSERT_OK_AND_ASSIGN(auto reopened, table::Dataset::Open(store_, dir_ + "/ds"));
  ASSERT_OK_AND_ASSIGN(auto after, reopened->ListVersions());
  EXPECT_EQ(after.size(), before.size());
  EXPECT_EQ(reopened->CountRows(), 4u);

  EXPECT_FALSE(WriteAudioDataset(dir_ + "/fresh", {cut}, 64 << 10).ok());
  EXPECT_FALSE(table::Dataset::Open(store_, dir_ + "/fresh").ok());
}

TEST_F(AudioExtract, StreamInfoWithoutThePlugin) {
  const std::vector<uint64_t> rows = {1};
  ASSERT_OK_AND_ASSIGN(auto located, ds_->LocateBlobsWithInfo("audio", rows));
  ASSERT_TRUE(located[0].has_value() && located[0]->info.has_value());
  const auto& bytes = located[0]->info->stream_info;
  ASSERT_TRUE(IsAudioStreamInfo(bytes->span()));
  ASSERT_OK_AND_ASSIGN(AudioStreamInfo si, ParseAudioStreamInfo(bytes->span()));
  EXPECT_EQ(si.codec, "mp3");
  EXPECT_EQ(si.sample_rate, 44100u);
  EXPECT_EQ(si.channels, 2u);
  EXPECT_NEAR(si.duration_s, 8.0, 0.1);
  EXPECT_FALSE(ParseAudioStreamInfo(bytes->span().subspan(0, 100)).ok());
}

}  // namespace
}  // namespace lancet::media
