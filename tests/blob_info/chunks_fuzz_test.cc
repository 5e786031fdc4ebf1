// Random and mutated stream_info, entries, requests and range bytes through the chunks
// plugin's plan and decode: the plugin validates its inputs, so nothing crashes, every
// answer is a Status, and whatever the host accepts lies inside the blob.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "lancet/media/plugin_host.h"
#include "blob_info/media_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using testing::Bytes;

class ChunksFuzzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(plugin_, MediaPlugin::Load(testing::ChunksSpec("chunk_size=64")));
    payload_ = testing::Payload(5000, 11);
    const size_t pushes[] = {333};
    ASSERT_OK_AND_ASSIGN(blob_, testing::IngestAll(*plugin_, payload_, pushes));
  }
  void TearDown() override {
    plugin_.reset();
    blob_ = testing::Ingested{};
    EXPECT_EQ(testing::ChunksLiveObjects(), 0);
  }

  std::vector<uint8_t> Mutate(std::span<const uint8_t> bytes) {
    std::vector<uint8_t> out(bytes.begin(), bytes.end());
    switch (rng_() % 4) {
      case 0:  // random bytes of a random length
        out.resize(rng_() % 48);
        for (uint8_t& b : out) b = static_cast<uint8_t>(rng_());
        break;
      case 1:  // truncated or extended
        out.resize(rng_() % (out.size() + 16));
        break;
      default:  // a few flipped bits
        for (int i = 0, n = 1 + static_cast<int>(rng_() % 4); i < n && !out.empty(); ++i) {
          out[rng_() % out.size()] ^= static_cast<uint8_t>(1u << (rng_() % 8));
        }
        break;
    }
    return out;
  }

  // Half grammar-shaped (chunk numbers near the real range, random separators), half noise.
  std::string RandomRequest() {
    static const char kNoise[] = "chunks=0123456789,-;x";
    static const char* kSeparators[] = {",", ",", "-", ";", ""};
    std::string request = rng_() % 8 == 0 ? "" : "chunks=";
    if (rng_() % 2 == 0) {
      for (size_t i = 0, n = 1 + rng_() % 4; i < n; ++i) {
        if (i > 0) request += kSeparators[rng_() % 5];
        request += std::to_string(rng_() % 16 == 0 ? rng_() : rng_() % 100);
      }
      return request;
    }
    for (size_t i = 0, n = rng_() % 24; i < n; ++i) request += kNoise[rng_() % (sizeof(kNoise) - 1)];
    return request;
  }

  std::shared_ptr<MediaPlugin> plugin_;
  std::vector<uint8_t> payload_;
  testing::Ingested blob_;
  std::mt19937_64 rng_{20261129};
};

TEST_F(ChunksFuzzTest, RandomInputsGiveStatusesNeverCrashes) {
  int planned = 0;
  int decoded = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    // One input at a time is broken, so plenty of calls get past the first check.
    const auto target = rng_() % 3;
    std::span<const uint8_t> good_info = blob_.result.stream_info->span();
    std::span<const uint8_t> good_entries = blob_.result.entries->span();
    std::vector<uint8_t> info =
        target == 0 ? Mutate(good_info) : std::vector<uint8_t>(good_info.begin(), good_info.end());
    std::vector<uint8_t> entries =
        target == 1 ? Mutate(good_entries) : std::vector<uint8_t>(good_entries.begin(), good_entries.end());
    std::string request = RandomRequest();
    uint64_t blob_size = rng_() % 8 == 0 ? rng_() : payload_.size();
    auto ranges = plugin_->Plan(info, entries, Bytes(request), blob_size);
    if (ranges.ok()) {
      ++planned;
      for (const io::ByteRange& r : *ranges) ASSERT_LE(r.end(), blob_size);
    }
    // Decode with the stored bytes of random ranges (or the plan's when it fits the payload).
    std::vector<io::ByteRange> given;
    if (ranges.ok() && blob_size == payload_.size()) {
      given = *ranges;
    } else {
      for (size_t i = 0, n = rng_() % 5; i < n; ++i) {
        uint64_t offset = rng_() % payload_.size();
        given.push_back({offset, rng_() % (payload_.size() - offset + 1)});
      }
    }
    auto bytes = testing::ReadRanges(blob_.stored, given);
    auto out = plugin_->Decode(Bytes(request), info, entries, given, bytes);
    if (out.ok()) {
      ++decoded;
      ASSERT_LE(out->data->size(), payload_.size());
    }
  }
  // The mutations leave some inputs valid, so both paths were exercised.
  EXPECT_GT(planned, 1000);
  EXPECT_GT(decoded, 1000);
}

TEST_F(ChunksFuzzTest, DecodedChunksMatchTheSourceWhateverRangesCoverThem) {
  for (int iter = 0; iter < 2000; ++iter) {
    uint64_t first = rng_() % 79;
    uint64_t last = first + rng_() % (79 - first);
    std::string request = "chunks=" + std::to_string(first) + "-" + std::to_string(last);
    // Covering ranges: the needed span cut at random points, each piece widened a little.
    uint64_t begin = first * 64;
    uint64_t end = std::min<uint64_t>((last + 1) * 64, payload_.size());
    std::vector<io::ByteRange> given;
    for (uint64_t pos = begin; pos < end;) {
      uint64_t next = std::min<uint64_t>(end, (pos / 64 + 1 + rng_() % 4) * 64);
      uint64_t lo = pos - std::min<uint64_t>(pos, rng_() % 100);
      uint64_t hi = std::min<uint64_t>(payload_.size(), next + rng_() % 100);
      given.push_back({lo, hi - lo});
      pos = next;
    }
    std::shuffle(given.begin(), given.end(), rng_);
    auto bytes = testing::ReadRanges(blob_.stored, given);
    ASSERT_OK_AND_ASSIGN(auto out, plugin_->Decode(Bytes(request), blob_.result.stream_info->span(),
                                                   blob_.result.entries->span(), given, bytes));
    ASSERT_EQ(out.data->view(), std::string_view(reinterpret_cast<const char*>(payload_.data()) + begin, end - begin))
        << request;
  }
}

}  // namespace
}  // namespace lancet::media
