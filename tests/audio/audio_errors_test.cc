// The audio plugin on bad input: corrupt or truncated sources fail ingest with a message
// saying so; hostile stream_info, entries, requests and stored bytes never crash plan or
// decode (the ASan build runs these); decode finds its packets in any covering ranges.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "audio/audio_cases.h"
#include "util/test_macros.h"

namespace lancet::audio_test {
namespace {

std::string IngestError(const std::vector<uint8_t>& bytes) {
  auto plugin = LoadPlugin();
  if (plugin == nullptr) return "no plugin";
  auto blob = Ingest(*plugin, bytes);
  return blob.ok() ? "" : blob.status().ToString();
}

std::string CaseFile(const std::string& name) {
  for (const AudioCase& c : AudioCases()) {
    if (c.name == name) return MakeCase(c);
  }
  return "";
}

std::vector<uint8_t> Cut(std::vector<uint8_t> bytes, double fraction) {
  bytes.resize(static_cast<size_t>(static_cast<double>(bytes.size()) * fraction));
  return bytes;
}

TEST(AudioIngestErrors, NotAMediaFile) {
  std::vector<uint8_t> junk(100000);
  std::mt19937 rng(7);
  for (auto& b : junk) b = static_cast<uint8_t>(rng());
  const std::string e = IngestError(junk);
  EXPECT_NE(e.find("not a container FFmpeg can read"), std::string::npos) << e;
  EXPECT_NE(IngestError({}).find("not a container"), std::string::npos);
}

TEST(AudioIngestErrors, VideoWithoutAudio) {
  if (!HasEncoder("libx264")) GTEST_SKIP() << "no libx264 encoder";
  const std::string file = MakeMedia("-f lavfi -i testsrc2=size=160x120:rate=25:duration=1", "-c:v libx264", "mp4");
  ASSERT_FALSE(file.empty());
  const std::string e = IngestError(ReadFile(file));
  EXPECT_NE(e.find("no audio stream"), std::string::npos) << e;
}

// Each truncated source fails and the message says what is wrong.
TEST(AudioIngestErrors, Truncated) {
  struct Want {
    std::string name;
    double keep;
    std::vector<std::string> any;  // one of these must be in the message
  };
  const Want wants[] = {
      {"wav_s16", 0.6, {"truncated"}},
      {"wav_s16", 0.6 + 1.0 / 300000, {"truncated"}},  // ends inside a sample
      {"flac", 0.6, {"truncated"}},
      {"mp3", 0.6, {"truncated"}},
      {"aac_m4a", 0.6, {"truncated", "not a container", "cannot read"}},
      {"opus_ogg", 0.6, {"truncated"}},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.name + " cut to " + std::to_string(w.keep));
    const std::string file = CaseFile(w.name);
    if (file.empty()) continue;
    const std::string e = IngestError(Cut(ReadFile(file), w.keep));
    ASSERT_FALSE(e.empty()) << "a truncated file was ingested";
    bool found = false;
    for (const std::string& s : w.any) found = found || e.find(s) != std::string::npos;
    EXPECT_TRUE(found) << e;
    EXPECT_NE(e.find("Corruption"), std::string::npos) << e;
  }
}

TEST(AudioIngestErrors, ConfigStreamMustBeAudio) {
  const AudioCase c = AudioCases().back();  // audio in a video file: stream 0 is video
  const std::string file = MakeCase(c);
  if (file.empty()) GTEST_SKIP() << "cannot make " << c.name;
  ASSERT_OK_AND_ASSIGN(auto plugin, media::MediaPlugin::Load({PluginPath(), {'s', 't', 'r', 'e', 'a', 'm', '=', '0'}}));
  auto blob = Ingest(*plugin, ReadFile(file));
  ASSERT_FALSE(blob.ok());
  EXPECT_NE(blob.status().message().find("not an audio stream"), std::string::npos) << blob.status().ToString();
  EXPECT_FALSE(media::MediaPlugin::Load({PluginPath(), {'x', '=', '1'}}).ok());
}

class AudioHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = CaseFile("mp3");
    if (file_.empty()) GTEST_SKIP() << "no mp3 encoder";
    plugin_ = LoadPlugin();
    ASSERT_NE(plugin_, nullptr);
    ASSERT_OK_AND_ASSIGN(blob_, Ingest(*plugin_, ReadFile(file_)));
  }

  // Plan then decode with whatever plan returned; errors are fine, crashes are not.
  void Try(const Blob& b, const std::vector<uint8_t>& request) {
    auto ranges = plugin_->Plan(b.stream_info, b.entries, request, b.stored.size());
    if (!ranges.ok()) return;
    std::vector<BufferPtr> bytes;
    for (const auto& r : *ranges) {
      ASSERT_LE(r.end(), b.stored.size());
      bytes.push_back(Buffer::Copy(std::span<const uint8_t>(b.stored.data() + r.offset, r.length)));
    }
    (void)plugin_->Decode(request, b.stream_info, b.entries, *ranges, bytes);
  }

  std::string file_;
  std::shared_ptr<media::MediaPlugin> plugin_;
  Blob blob_;
};

TEST_F(AudioHostile, FlippedStreamInfoAndEntries) {
  const auto request = WindowRequest(2, 2.2);
  std::mt19937 rng(11);
  for (int i = 0; i < 300; ++i) {
    Blob b = blob_;
    std::vector<uint8_t>& target = i % 2 == 0 ? b.stream_info : b.entries;
    // Header fields first, then anywhere.
    const size_t at = i < 200 ? static_cast<size_t>(i / 2) % std::min<size_t>(target.size(), 160)
                              : static_cast<size_t>(rng() % target.size());
    target[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
    Try(b, request);
  }
  // Truncated and emptied layouts.
  for (size_t n : {size_t{0}, size_t{4}, size_t{15}, size_t{100}}) {
    Blob b = blob_;
    b.stream_info.resize(std::min(n, b.stream_info.size()));
    Try(b, request);
    b = blob_;
    b.entries.resize(std::min(n, b.entries.size()));
    Try(b, request);
  }
}

TEST_F(AudioHostile, DamagedStoredBytes) {
  std::mt19937 rng(3);
  for (int i = 0; i < 20; ++i) {
    Blob b = blob_;
    for (int k = 0; k < 50; ++k) b.stored[rng() % b.stored.size()] = static_cast<uint8_t>(rng());
    Try(b, WindowRequest(1, 3));
  }
}

TEST_F(AudioHostile, Requests) {
  std::vector<uint8_t> r = WindowRequest(1, 2);
  EXPECT_FALSE(plugin_->Plan(blob_.stream_info, blob_.entries, {r.data(), 31}, blob_.stored.size()).ok());
  for (size_t at = 0; at < r.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = r;
      bad[at] ^= static_cast<uint8_t>(1u << bit);
      Try(blob_, bad);
    }
  }
  auto nan = WindowRequest(std::nan(""), 2);
  EXPECT_TRUE(plugin_->Plan(blob_.stream_info, blob_.entries, nan, blob_.stored.size()).status().IsInvalidArgument());
  auto huge = WindowRequest(0, 1e9, LANCET_AUDIO_FMT_F32, 1u << 20, 64);
  Try(blob_, huge);
  // A blob shorter than the entries say.
  EXPECT_TRUE(plugin_->Plan(blob_.stream_info, blob_.entries, r, blob_.stored.size() - 1).status().IsCorruption());
}

// decode takes any ranges that cover plan's, and refuses ranges that miss a packet.
TEST_F(AudioHostile, DecodeRanges) {
  const auto request = WindowRequest(2, 3);
  ASSERT_OK_AND_ASSIGN(Extracted planned, Extract(*plugin_, blob_, request));
  const std::vector<io::ByteRange> whole = {{0, blob_.stored.size()}};
  std::vector<BufferPtr> bytes = {Buffer::Copy(std::span<const uint8_t>(blob_.stored))};
  ASSERT_OK_AND_ASSIGN(auto out, plugin_->Decode(request, blob_.stream_info, blob_.entries, whole, bytes));
  ASSERT_EQ(out.data->size(), planned.out.data->size());
  EXPECT_EQ(std::memcmp(out.data->data(), planned.out.data->data(), out.data->size()), 0);

  ASSERT_EQ(planned.ranges.size(), 1u);
  io::ByteRange short_range = planned.ranges[0];
  short_range.length -= 1;
  std::vector<BufferPtr> cut = {
      Buffer::Copy(std::span<const uint8_t>(blob_.stored.data() + short_range.offset, short_range.length))};
  const std::vector<io::ByteRange> ranges = {short_range};
  auto missing = plugin_->Decode(request, blob_.stream_info, blob_.entries, ranges, cut);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("not given the bytes of packet"), std::string::npos)
      << missing.status().ToString();
}

}  // namespace
}  // namespace lancet::audio_test
