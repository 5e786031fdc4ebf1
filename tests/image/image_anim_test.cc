// GIF and WebP through the image plugin: every frame, region and thumbnail equals an
// independent composition of the original (DGifSlurp's frames drawn by the test; libwebp's
// WebPAnimDecoder), a frame reads the header bytes and its frames from the restart frame
// on (one request to the store), stream_info records the canvas, loop count and background.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "image/anim_util.h"
#include "image/image_util.h"
#include "lancet/io/object_store.h"
#include "lancet/media/image.h"
#include "lancet/media_image.h"
#include "lancet/table/dataset.h"
#include "tools/cli_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using cli::ScopedTempDir;
using testing::AnimFrame;

constexpr uint32_t kW = 64, kH = 48;

// Disposal 1 keeps, 2 clears to background, 3 restores; restarts are 0 up to frame 5
// (which covers the canvas but is transparent and not the first), 6 (after 5 cleared the
// whole canvas) and 8 (covers the canvas, opaque).
std::vector<AnimFrame> GifFrames() {
  std::vector<AnimFrame> f(10);
  f[0] = {0, 0, kW, kH, 1, false};
  f[1] = {10, 8, 20, 16, 1, true};
  f[2] = {30, 20, 30, 20, 2, false};
  f[3] = {5, 5, 20, 20, 3, true};
  f[4] = {40, 0, 24, 24, 1, false};
  f[4].interlace = true;
  f[4].local_colours = true;
  f[5] = {0, 0, kW, kH, 2, true};
  f[6] = {0, 0, 10, 10, 1, false};
  f[7] = {8, 8, 20, 20, 0, true};
  f[8] = {0, 0, kW, kH, 1, false};
  f[9] = {50, 30, 14, 18, 1, true};
  for (uint32_t i = 0; i < f.size(); ++i) f[i].seed = i + 1;
  return f;
}
const uint32_t kGifRestart[] = {0, 0, 0, 0, 0, 0, 6, 6, 8, 8};

// WebP disposal 1 clears; restarts: 0; 3 (covers, no blending); 7 (after 6 cleared the
// whole canvas). Lossy frames (VP8 + ALPH) and lossless ones, blending with alpha 0, 128,
// 255 and more.
std::vector<AnimFrame> WebpFrames() {
  std::vector<AnimFrame> f(9);
  f[0] = {0, 0, kW, kH, 0, true, true, true};
  f[1] = {10, 8, 20, 16, 1, true, true, false};
  f[2] = {20, 12, 24, 20, 0, true, true, true};
  f[3] = {0, 0, kW, kH, 0, true, false, true};
  f[4] = {30, 20, 16, 16, 1, false, true, false};
  f[5] = {2, 2, 40, 30, 1, true, true, true};
  f[6] = {0, 0, kW, kH, 1, true, true, false};
  f[7] = {4, 4, 20, 20, 0, true, true, true};
  f[8] = {10, 10, 30, 20, 0, true, true, false};
  for (uint32_t i = 0; i < f.size(); ++i) f[i].seed = i + 3;
  return f;
}
const uint32_t kWebpRestart[] = {0, 0, 0, 3, 3, 3, 3, 7, 7};

class ImageAnim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::ImagePluginPath().empty()) GTEST_SKIP() << "no image plugin";
    plugin_ = testing::LoadImagePlugin();
    ASSERT_NE(plugin_, nullptr);
    gif_ = tmp_.Join("anim.gif");
    webp_ = tmp_.Join("anim.webp");
    still_ = tmp_.Join("still.webp");
    ASSERT_OK(testing::WriteGif(gif_, kW, kH, 3, GifFrames()));
    ASSERT_OK(testing::WriteWebp(webp_, kW, kH, 0, 0x11223344u, WebpFrames()));
    ASSERT_OK(testing::WriteStillWebp(still_, 97, 61));
    ds_path_ = tmp_.Join("ds");
    ASSERT_OK(testing::WriteImageDataset(ds_path_, {gif_, webp_, still_}));
    store_ = io::LocalFileSystem();
    ASSERT_OK_AND_ASSIGN(ds_, table::Dataset::Open(store_, ds_path_));
  }

  static std::vector<uint8_t> Bytes(const Image& img) {
    return std::vector<uint8_t>(img.pixels->data(), img.pixels->data() + img.pixels->size());
  }

  // Every frame of `row` equals the reference; each reads with one store request.
  void ExpectFrames(uint64_t row, const testing::Canvases& ref, const uint32_t* restarts) {
    ASSERT_OK_AND_ASSIGN(auto located, ds_->LocateBlobsWithInfo("image", std::vector<uint64_t>{row}));
    const uint64_t blob = located[0]->location.length;
    for (uint32_t k = 0; k < ref.frames.size(); ++k) {
      SCOPED_TRACE("frame " + std::to_string(k));
      store_->stats().Reset();
      ExtractImageStats stats;
      ASSERT_OK_AND_ASSIGN(Image img, ExtractImage(*ds_, "image", row, ImageRequest::Page(k), *plugin_, {}, &stats));
      const io::IoCounters all = store_->stats().Snapshot();
      store_->stats().Reset();
      ASSERT_OK(ds_->LocateBlobsWithInfo("image", std::vector<uint64_t>{row}).status());
      const io::IoCounters resolve = store_->stats().Snapshot();
      EXPECT_EQ(img.format, ImagePixels::kRgba32);
      EXPECT_EQ(img.page, k);
      EXPECT_EQ(img.width, ref.width);
      EXPECT_EQ(img.height, ref.height);
      EXPECT_EQ(img.page_width, ref.width);
      EXPECT_TRUE(Bytes(img) == ref.frames[k]);
      // Frames restart..k, stored back to back: one range, one request to the store (the
      // GIF header bytes come with the index).
      EXPECT_EQ(stats.extract.planned_ranges, 1u);
      EXPECT_EQ(all.read_requests - resolve.read_requests, 1u);
      if (restarts[k] > 0) {
        EXPECT_LT(stats.extract.bytes_planned, blob);
      }
      if (k > 0 && restarts[k] == k) {
        EXPECT_LT(stats.extract.bytes_planned * 2, blob);
      }
    }
  }

  ScopedTempDir tmp_;
  std::shared_ptr<MediaPlugin> plugin_;
  std::string gif_, webp_, still_, ds_path_;
  std::shared_ptr<io::ObjectStore> store_;
  std::unique_ptr<table::Dataset> ds_;
};

TEST_F(ImageAnim, GifFramesEqualTheirComposition) {
  ASSERT_OK_AND_ASSIGN(testing::Canvases ref, testing::ComposeGif(gif_));
  ASSERT_EQ(ref.frames.size(), GifFrames().size());
  ExpectFrames(0, ref, kGifRestart);
}

TEST_F(ImageAnim, WebpFramesEqualWebPAnimDecoder) {
  ASSERT_OK_AND_ASSIGN(testing::Canvases ref, testing::ComposeWebp(webp_));
  ASSERT_EQ(ref.frames.size(), WebpFrames().size());
  ExpectFrames(1, ref, kWebpRestart);
}

TEST_F(ImageAnim, StillWebpIsOneFrame) {
  ASSERT_OK_AND_ASSIGN(testing::Canvases ref, testing::ComposeWebp(still_));
  ASSERT_EQ(ref.frames.size(), 1u);
  const uint32_t restarts[] = {0};
  ExpectFrames(2, ref, restarts);
  auto past = ExtractImage(*ds_, "image", 2, ImageRequest::Page(1), *plugin_);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("page 1 does not exist; the image has 1 page(s)"), std::string::npos)
      << past.status().ToString();
}

TEST_F(ImageAnim, RegionsAndThumbnailsOfComposedFrames) {
  ASSERT_OK_AND_ASSIGN(testing::Canvases gif, testing::ComposeGif(gif_));
  ASSERT_OK_AND_ASSIGN(testing::Canvases webp, testing::ComposeWebp(webp_));
  for (auto [row, frame, ref] : {std::tuple{0u, 7u, &gif}, std::tuple{1u, 5u, &webp}}) {
    SCOPED_TRACE("row " + std::to_string(row));
    const testing::Decoded d{kW, kH, 4, ref->frames[frame]};
    ASSERT_OK_AND_ASSIGN(Image crop,
                         ExtractImage(*ds_, "image", row, ImageRequest::Region(frame, 9, 7, 30, 21), *plugin_));
    EXPECT_EQ(crop.x, 9u);
    EXPECT_EQ(crop.y, 7u);
    EXPECT_TRUE(Bytes(crop) == testing::Crop(d, 9, 7, 30, 21));
    ASSERT_OK_AND_ASSIGN(Image thumb, ExtractImage(*ds_, "image", row, ImageRequest::Thumbnail(frame, 16), *plugin_));
    EXPECT_EQ(thumb.width, 16u);
    EXPECT_EQ(thumb.height, 12u);
    EXPECT_TRUE(Bytes(thumb) == testing::BoxDownscale(d, 16, 12));
    auto outside = ExtractImage(*ds_, "image", row, ImageRequest::Region(frame, 60, 0, 10, 10), *plugin_);
    ASSERT_FALSE(outside.ok());
    EXPECT_NE(outside.status().message().find("of 64x48"), std::string::npos) << outside.status().ToString();
  }
}

// Files as FFmpeg's encoders write them (their own frame rectangles, transparency and
// disposal): every frame equals the reference composition too.
TEST_F(ImageAnim, FfmpegEncodedFramesEqualTheirComposition) {
  if (std::system("command -v ffmpeg >/dev/null 2>&1") != 0) GTEST_SKIP() << "no ffmpeg CLI";
  const std::string gif = tmp_.Join("ff.gif"), webp = tmp_.Join("ff.webp");
  // A bounded source (duration): palettegen needs the end of its input.
  const std::string src = "ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc=size=160x120:rate=8:duration=2 ";
  ASSERT_EQ(
      std::system(
          (src + "-vf 'split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse' -y '" + gif + "'").c_str()),
      0);
  ASSERT_EQ(std::system((src + "-c:v libwebp_anim -lossless 0 -loop 0 -y '" + webp + "'").c_str()), 0);
  ASSERT_OK(testing::WriteImageDataset(tmp_.Join("ff"), {gif, webp}));
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(store_, tmp_.Join("ff")));
  ASSERT_OK_AND_ASSIGN(testing::Canvases gif_ref, testing::ComposeGif(gif));
  ASSERT_OK_AND_ASSIGN(testing::Canvases webp_ref, testing::ComposeWebp(webp));
  for (auto [row, ref] : {std::pair{0, &gif_ref}, std::pair{1, &webp_ref}}) {
    ASSERT_EQ(ref->frames.size(), 16u);
    for (uint32_t k = 0; k < ref->frames.size(); ++k) {
      ASSERT_OK_AND_ASSIGN(Image img, ExtractImage(*ds, "image", row, ImageRequest::Page(k), *plugin_));
      EXPECT_TRUE(Bytes(img) == ref->frames[k]) << "row " << row << " frame " << k;
    }
  }
}

// A long GIF, a full opaque frame every 10: frame 95 reads frames 90..95 only.
TEST_F(ImageAnim, LateFrameReadsOnlyFromItsRestart) {
  std::vector<AnimFrame> frames(100);
  for (uint32_t i = 0; i < frames.size(); ++i) {
    frames[i] = i % 10 == 0 ? AnimFrame{0, 0, 160, 120, 1, false} : AnimFrame{i % 7 * 10, i % 5 * 10, 60, 50, 1, true};
    frames[i].seed = i;
  }
  const std::string path = tmp_.Join("long.gif");
  ASSERT_OK(testing::WriteGif(path, 160, 120, 0, frames));
  ASSERT_OK(testing::WriteImageDataset(tmp_.Join("long"), {path}));
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(store_, tmp_.Join("long")));
  ASSERT_OK_AND_ASSIGN(testing::Canvases ref, testing::ComposeGif(path));
  const uint64_t file = testing::ReadWholeFile(path).size();
  store_->stats().Reset();
  ExtractImageStats stats;
  ASSERT_OK_AND_ASSIGN(Image img, ExtractImage(*ds, "image", 0, ImageRequest::Page(95), *plugin_, {}, &stats));
  const io::IoCounters all = store_->stats().Snapshot();
  EXPECT_TRUE(Bytes(img) == ref.frames[95]);
  EXPECT_EQ(stats.extract.planned_ranges, 1u);
  std::printf("frame 95 of a %llu-byte 100-frame GIF: %llu bytes planned (%.1f %%), %llu read in all\n",
              static_cast<unsigned long long>(file), static_cast<unsigned long long>(stats.extract.bytes_planned),
              100.0 * static_cast<double>(stats.extract.bytes_planned) / static_cast<double>(file),
              static_cast<unsigned long long>(all.read_bytes));
  // Frames 90..95: one full frame and five partial ones of the hundred.
  EXPECT_LT(stats.extract.bytes_planned * 10, file);
}

uint32_t U32(const BufferPtr& b, size_t at) {
  uint32_t v = 0;
  std::memcpy(&v, b->data() + at, 4);
  return v;
}

TEST_F(ImageAnim, StreamInfoRecordsCanvasLoopsAndBackground) {
  ASSERT_OK_AND_ASSIGN(auto located, ds_->LocateBlobsWithInfo("image", std::vector<uint64_t>{0, 1, 2}));
  const std::string webp = testing::ReadWholeFile(webp_);
  const size_t anim = webp.find("ANIM");
  ASSERT_NE(anim, std::string::npos);
  // [format, frames, loops, background as stored in the file]
  struct Want {
    uint8_t format;
    uint32_t frames, loops;
    uint8_t background[4];
  };
  const Want want[] = {
      // GIF: background index 3 of the global table (colour i is i*37, i*91, i*53).
      {LANCET_IMAGE_FORMAT_GIF, 10, 3, {111, 17, 159, 255}},
      // WebP's ANIM chunk stores blue, green, red, alpha.
      {LANCET_IMAGE_FORMAT_WEBP,
       9,
       0,
       {static_cast<uint8_t>(webp[anim + 10]), static_cast<uint8_t>(webp[anim + 9]),
        static_cast<uint8_t>(webp[anim + 8]), static_cast<uint8_t>(webp[anim + 11])}},
      {LANCET_IMAGE_FORMAT_WEBP, 1, 1, {0, 0, 0, 0}},
  };
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    const BufferPtr& si = located[i]->info->stream_info;
    ASSERT_EQ(si->size(), LANCET_IMAGE_STREAM_INFO_V2_SIZE);
    EXPECT_EQ(U32(si, 0), LANCET_IMAGE_STREAM_INFO_MAGIC);
    EXPECT_EQ(si->data()[4], 2);
    EXPECT_EQ(si->data()[8], want[i].format);
    EXPECT_EQ(U32(si, 12), want[i].frames);
    EXPECT_EQ(U32(si, 16), located[i]->location.length);
    EXPECT_EQ(U32(si, 24), i == 2 ? 97u : kW);
    EXPECT_EQ(U32(si, 28), i == 2 ? 61u : kH);
    EXPECT_EQ(U32(si, 32), want[i].loops);
    EXPECT_EQ(std::memcmp(si->data() + 36, want[i].background, 4), 0);
    const BufferPtr& en = located[i]->info->entries;
    EXPECT_EQ(U32(en, 0), LANCET_IMAGE_FRAMES_MAGIC);
    // GIF: its 13 + 768 bytes of header, screen descriptor and global colour table follow.
    ASSERT_EQ(en->size(),
              LANCET_IMAGE_FRAMES_HEADER_SIZE + want[i].frames * LANCET_IMAGE_FRAME_RECORD_SIZE + (i == 0 ? 781 : 0));
  }
  // The frame records of the GIF carry its rectangles and disposals.
  const BufferPtr& en = located[0]->info->entries;
  const auto frames = GifFrames();
  const uint8_t disposal[] = {LANCET_IMAGE_DISPOSE_NONE, LANCET_IMAGE_DISPOSE_NONE, LANCET_IMAGE_DISPOSE_BACKGROUND,
                              LANCET_IMAGE_DISPOSE_PREVIOUS};
  for (uint32_t k = 0; k < frames.size(); ++k) {
    const size_t rec = LANCET_IMAGE_FRAMES_HEADER_SIZE + size_t{k} * LANCET_IMAGE_FRAME_RECORD_SIZE;
    EXPECT_EQ(U32(en, rec + 20), kGifRestart[k]) << k;
    EXPECT_EQ(U32(en, rec + 32), frames[k].x) << k;
    EXPECT_EQ(U32(en, rec + 44), frames[k].h) << k;
    EXPECT_EQ(U32(en, rec + 48), 40u) << k;
    EXPECT_EQ(en->data()[rec + 52], disposal[frames[k].disposal]) << k;
    EXPECT_EQ(en->data()[rec + 54], frames[k].transparent ? LANCET_IMAGE_FRAME_ALPHA : 0u) << k;
  }
}

}  // namespace
}  // namespace lancet::media
