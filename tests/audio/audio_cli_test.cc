// The audio commands end to end: `lancet ingest --media audio=...` over a directory of
// sweeps, `lancet info` listing the audio rows, and `lancet extract-audio` writing WAV
// files whose samples equal the ffmpeg CLI's decode of the originals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "audio/audio_cases.h"

namespace lancet::audio_test {
namespace {

namespace fs = std::filesystem;

std::string Lancet() { return LANCET_LANCET_EXE; }

std::string Capture(const std::string& command, int* rc) {
  const std::string out = ScratchDir() + "/out.txt";
  *rc = RunCommand(command + " > '" + out + "' 2>&1");
  const std::vector<uint8_t> bytes = ReadFile(out);
  return std::string(bytes.begin(), bytes.end());
}

class AudioCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir() + "/cli";
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/in");
    // Sorted names: row 0 is the WAV, row 1 the FLAC.
    for (const auto& [name, as] : {std::pair{"wav_s16", "a.wav"}, std::pair{"flac", "b.flac"}}) {
      for (const AudioCase& c : AudioCases()) {
        if (c.name != name) continue;
        const std::string file = MakeCase(c);
        if (file.empty()) GTEST_SKIP() << "cannot make " << c.name;
        fs::copy_file(file, dir_ + "/in/" + as);
        sources_.push_back(file);
      }
    }
    int rc = 0;
    const std::string log = Capture(
        Lancet() + " ingest '" + dir_ + "/in' '" + dir_ + "/ds.lance' --column audio --media audio=" + PluginPath(),
        &rc);
    ASSERT_EQ(rc, 0) << log;
  }
  void TearDown() override { fs::remove_all(ScratchDir()); }

  std::string dir_;
  std::vector<std::string> sources_;
};

TEST_F(AudioCli, InfoListsAudioRows) {
  int rc = 0;
  const std::string out = Capture(Lancet() + " info '" + dir_ + "/ds.lance' --no-encodings", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("Audio rows of 'audio' (2):"), std::string::npos) << out;
  EXPECT_NE(out.find("row 0: 8.000 s, 44100 Hz, 2 ch, pcm_s16le"), std::string::npos) << out;
  EXPECT_NE(out.find("row 1: 8.000 s, 44100 Hz, 2 ch, flac"), std::string::npos) << out;
}

// The WAV holds exactly the CLI's s16 decode of the window, for PCM and FLAC alike.
TEST_F(AudioCli, ExtractAudioWritesTheWindow) {
  for (uint64_t row : {0, 1}) {
    const std::string wav = dir_ + "/seg" + std::to_string(row) + ".wav";
    int rc = 0;
    const std::string out = Capture(Lancet() + " extract-audio '" + dir_ + "/ds.lance' --column audio --row " +
                                        std::to_string(row) + " --window 2.5:4 --out '" + wav + "'",
                                    &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("1 ranges planned"), std::string::npos) << out;
    const std::vector<uint8_t> got = ReadFile(wav);
    const std::vector<uint8_t> ref = DecodeWithFfmpeg(sources_[row], "s16le");
    const size_t s0 = 110250, s1 = 176400, frame = 4;
    ASSERT_EQ(got.size(), 44 + (s1 - s0) * frame);
    EXPECT_EQ(std::memcmp(got.data(), "RIFF", 4), 0);
    EXPECT_EQ(std::memcmp(got.data() + 44, ref.data() + s0 * frame, (s1 - s0) * frame), 0) << "row " << row;
    // ffmpeg reads the WAV back as the same samples.
    EXPECT_EQ(DecodeWithFfmpeg(wav, "s16le"), std::vector<uint8_t>(got.begin() + 44, got.end()));
  }
}

// A file with two audio tracks stores the first; the user is told the other stays behind.
TEST_F(AudioCli, DroppedAudioStreamsAreReported) {
  const std::string two = MakeMedia("-f lavfi -i sine=frequency=440:duration=1 -f lavfi -i sine=frequency=880:duration=1",
                                    "-map 0 -map 1 -c:a pcm_s16le", "mkv");
  if (two.empty()) GTEST_SKIP() << "ffmpeg cannot make a two-track file";
  fs::create_directories(dir_ + "/two");
  fs::copy_file(two, dir_ + "/two/t.mkv");
  int rc = 0;
  const std::string out = Capture(
      Lancet() + " ingest '" + dir_ + "/two' '" + dir_ + "/two.lance' --column audio --media audio=" + PluginPath(), &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("warning: kept audio stream 0, dropped 1 other audio stream(s)"), std::string::npos) << out;
  // One track alone draws no warning.
  EXPECT_EQ(Capture(Lancet() + " ingest '" + dir_ + "/in' '" + dir_ + "/one.lance' --column audio --media audio=" +
                        PluginPath(),
                    &rc)
                .find("warning"),
            std::string::npos);
}

TEST_F(AudioCli, Errors) {
  int rc = 0;
  std::string out = Capture(Lancet() + " extract-audio '" + dir_ + "/ds.lance' --row 0 --window 3:2 --out x.wav", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("does not end after it starts"), std::string::npos) << out;
  out = Capture(Lancet() + " extract-audio '" + dir_ + "/ds.lance' --row 0 --window 30:40 --out '" + dir_ + "/x.wav'",
                &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("past the end"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir_ + "/x.wav"));
  // A truncated file among the inputs: the ingest fails naming it, no dataset appears.
  std::vector<uint8_t> bytes = ReadFile(sources_[0]);
  bytes.resize(bytes.size() / 3);
  WriteFile(dir_ + "/in/c.wav", bytes);
  out = Capture(
      Lancet() + " ingest '" + dir_ + "/in' '" + dir_ + "/bad.lance' --column audio --media audio=" + PluginPath(),
      &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("truncated"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir_ + "/bad.lance/_versions"));
}

}  // namespace
}  // namespace lancet::audio_test
