// Bad GIF and WebP input: a truncated or corrupt file fails the write that ingests it with
// an error naming the problem and leaves no new version; hostile stream_info, frame index
// and requests never crash plan or decode.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "image/anim_util.h"
#include "image/image_util.h"
#include "lancet/media/image.h"
#include "lancet/media_image.h"
#include "lancet/table/dataset.h"
#include "tools/cli_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using cli::ScopedTempDir;
using testing::AnimFrame;

std::vector<AnimFrame> Frames() {
  std::vector<AnimFrame> f(4);
  f[0] = {0, 0, 60, 40, 1, false};
  f[1] = {4, 6, 30, 20, 2, true};
  f[2] = {20, 10, 40, 30, 3, true};
  f[3] = {10, 2, 24, 24, 1, true};
  for (uint32_t i = 0; i < f.size(); ++i) f[i].seed = i + 2;
  return f;
}

class ImageAnimErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::ImagePluginPath().empty()) GTEST_SKIP() << "no image plugin";
    plugin_ = testing::LoadImagePlugin();
    ASSERT_NE(plugin_, nullptr);
    gif_ = tmp_.Join("good.gif");
    webp_ = tmp_.Join("good.webp");
    ASSERT_OK(testing::WriteGif(gif_, 60, 40, 0, Frames()));
    auto webp_frames = Frames();
    for (auto& f : webp_frames) f.x &= ~1u, f.y &= ~1u, f.disposal &= 1;
    ASSERT_OK(testing::WriteWebp(webp_, 60, 40, 2, 0xff000000u, webp_frames));
    ds_ = tmp_.Join("ds");
    ASSERT_OK(testing::WriteImageDataset(ds_, {gif_}));
  }

  // Appending `bytes` as a file fails with a message containing `want`; the dataset
  // stays at version 1 with one row.
  void ExpectRefused(const std::string& bytes, const std::string& want) {
    SCOPED_TRACE(want);
    ASSERT_GT(bytes.size(), 1024u);  // above the inline threshold: the plugin sees it
    const std::string path = tmp_.Join("bad");
    testing::WriteWholeFile(path, bytes);
    Status st = testing::WriteImageDataset(ds_, {gif_, path}, true);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find(want), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("liblancet_image.so"), std::string::npos) << st.ToString();
    ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
    EXPECT_EQ(ds->version(), 1u);
    EXPECT_EQ(ds->CountRows(), 1u);
  }

  ScopedTempDir tmp_;
  std::shared_ptr<MediaPlugin> plugin_;
  std::string gif_, webp_, ds_;
};

// The writer's layout: 13 bytes of header and screen, 768 of colour table, 19 of NETSCAPE2.0
// loop extension, then frame 0's 8-byte graphic control extension and 10-byte image
// descriptor; its LZW code size byte is at 818.
constexpr size_t kFirstFrame = 800, kFirstCodeSize = 818;

TEST_F(ImageAnimErrors, TruncatedGifFailsTheWrite) {
  const std::string all = testing::ReadWholeFile(gif_);
  ASSERT_EQ(static_cast<uint8_t>(all[kFirstCodeSize]), 8);
  ExpectRefused(all.substr(0, all.size() / 2),
                "runs past the end of the " + std::to_string(all.size() / 2) + "-byte data (truncated?)");
  // Every frame whole but no trailer.
  ExpectRefused(all.substr(0, all.size() - 1), "(no trailer)");
}

TEST_F(ImageAnimErrors, CorruptGifFailsTheWrite) {
  std::string bad = testing::ReadWholeFile(gif_);
  bad[kFirstFrame] = static_cast<char>(0x99);
  ExpectRefused(bad, "GIF byte 800 is block type 153");
  bad = testing::ReadWholeFile(gif_);
  bad[kFirstCodeSize] = 12;  // LZW codes start at 13 bits: giflib refuses the stream
  ExpectRefused(bad, "GIF frame 0 does not decode (giflib");
}

TEST_F(ImageAnimErrors, TruncatedOrCorruptWebpFailsTheWrite) {
  const std::string all = testing::ReadWholeFile(webp_);
  ExpectRefused(all.substr(0, all.size() - 100), "libwebp's demuxer rejects the WebP file");
  // The second frame's VP8L stream overwritten past its header: the demuxer still lists
  // the frame, its decode fails.
  std::string bad = all;
  const size_t second = bad.find("VP8L", bad.find("VP8L") + 4);
  ASSERT_NE(second, std::string::npos);
  for (size_t i = second + 16; i < second + 48; ++i) bad[i] = static_cast<char>(0xff);
  ExpectRefused(bad, "WebP frame 1 does not decode (libwebp status");
}

TEST_F(ImageAnimErrors, ForeignFileFailsTheWrite) {
  std::string png = "\x89PNG\r\n\x1a\n";
  png.resize(2000, 'x');
  ExpectRefused(png, "not a TIFF, GIF, WebP or PDF file");
}

std::vector<uint8_t> RequestBytes(const ImageRequest& r) {
  std::vector<uint8_t> bytes(LANCET_IMAGE_REQUEST_SIZE, 0);
  const uint32_t fields[] = {LANCET_IMAGE_REQUEST_MAGIC,
                             1u | (uint32_t{static_cast<uint8_t>(r.kind)} << 16),
                             r.page,
                             r.x,
                             r.y,
                             r.width,
                             r.height,
                             r.thumbnail};
  for (int i = 0; i < 8; ++i) std::memcpy(&bytes[4 * i], &fields[i], 4);
  return bytes;
}

// Random damage to stream_info, the frame index, the request and the planned bytes of an
// ingested GIF and WebP: every call returns (ranges inside the blob, or an error).
TEST_F(ImageAnimErrors, HostileInputsNeverCrashPlanOrDecode) {
  const std::vector<std::vector<uint8_t>> requests = {RequestBytes(ImageRequest::Page(3)),
                                                      RequestBytes(ImageRequest::Region(2, 3, 5, 40, 30)),
                                                      RequestBytes(ImageRequest::Thumbnail(1, 16))};
  for (const std::string& file : {gif_, webp_}) {
    SCOPED_TRACE(file);
    auto session = plugin_->StartIngest();
    ASSERT_OK(session.status());
    std::vector<uint8_t> stored;
    auto sink = [&](std::span<const uint8_t> b) {
      stored.insert(stored.end(), b.begin(), b.end());
      return Status::OK();
    };
    const std::string source = testing::ReadWholeFile(file);
    ASSERT_OK((*session)->Push({reinterpret_cast<const uint8_t*>(source.data()), source.size()}, sink));
    ASSERT_OK_AND_ASSIGN(IngestResult result, (*session)->Finish(sink));
    const std::vector<uint8_t> si(result.stream_info->data(), result.stream_info->data() + result.stream_info->size());
    const std::vector<uint8_t> en(result.entries->data(), result.entries->data() + result.entries->size());
    std::mt19937 rng(11);
    uint64_t planned = 0, decoded = 0;
    for (int iter = 0; iter < 2000; ++iter) {
      std::vector<uint8_t> s = si, e = en, q = requests[iter % requests.size()];
      std::vector<uint8_t>* target = iter % 5 == 0 ? &s : iter % 5 == 4 ? &q : &e;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) (*target)[rng() % target->size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      if (iter % 97 == 0) target->resize(rng() % (target->size() + 1));
      auto plan = plugin_->Plan(s, e, q, stored.size());
      if (!plan.ok()) continue;
      ++planned;
      std::vector<BufferPtr> bytes;
      for (const auto& r : *plan) {
        ASSERT_LE(r.offset + r.length, stored.size());
        std::vector<uint8_t> chunk(stored.begin() + static_cast<std::ptrdiff_t>(r.offset),
                                   stored.begin() + static_cast<std::ptrdiff_t>(r.offset + r.length));
        if (iter % 2 == 1 && !chunk.empty()) chunk[rng() % chunk.size()] ^= 0x5a;
        bytes.push_back(Buffer::Copy(chunk));
      }
      decoded += plugin_->Decode(q, s, e, *plan, bytes).ok() ? 1 : 0;
    }
    EXPECT_GT(planned, 100u);
    EXPECT_GT(decoded, 10u);  // damage that leaves a decodable request decodes
  }
}

}  // namespace
}  // namespace lancet::media
