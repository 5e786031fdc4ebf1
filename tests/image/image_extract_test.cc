// ExtractImage on datasets ingested with the image plugin: every page and many regions
// equal what libtiff itself decodes from the original file, thumbnails equal a box filter
// of that decode, and a region reads fewer bytes than its page.
#include <gtest/gtest.h>

#include <tiffio.h>
#include <array>

#include "image/image_util.h"
#include "lancet/media/image.h"
#include "lancet/table/dataset.h"
#include "tools/cli_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using cli::ScopedTempDir;
using testing::PageSpec;

// Tiled and stripped, gray and RGB, every supported codec, with and without the
// horizontal predictor, edge tiles and a short last strip.
std::vector<PageSpec> Pages() {
  std::vector<PageSpec> pages;
  PageSpec p;
  p = {300, 200, 3, COMPRESSION_LZW, 2, 0, 64, 16, 1};
  pages.push_back(p);
  p = {257, 130, 1, COMPRESSION_ADOBE_DEFLATE, 1, 0, 0, 16, 2};
  pages.push_back(p);
  p = {120, 90, 3, COMPRESSION_NONE, 1, 0, 0, 7, 3};
  pages.push_back(p);
  p = {200, 150, 1, COMPRESSION_PACKBITS, 1, 0, 32, 16, 4};
  pages.push_back(p);
  p = {99, 61, 1, COMPRESSION_DEFLATE, 2, PHOTOMETRIC_MINISWHITE, 0, 10, 5};
  pages.push_back(p);
  p = {160, 96, 3, COMPRESSION_DEFLATE, 2, 0, 48, 16, 6};
  pages.push_back(p);
  // JPEG: lossy, but both sides decode the same stored bytes with the same libjpeg.
  p = {128, 96, 3, COMPRESSION_JPEG, 1, 0, 32, 16, 7};
  pages.push_back(p);
  p = {100, 50, 1, COMPRESSION_JPEG, 1, 0, 0, 16, 8};
  pages.push_back(p);
  return pages;
}

class ImageExtract : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::ImagePluginPath().empty()) GTEST_SKIP() << "no image plugin";
    plugin_ = testing::LoadImagePlugin();
    ASSERT_NE(plugin_, nullptr);
    tiff_ = tmp_.Join("pages.tif");
    ASSERT_OK(testing::WriteTiff(tiff_, Pages()));
    // A second row: one page, so rows differ; a null third row.
    other_ = tmp_.Join("one.tif");
    ASSERT_OK(testing::WriteTiff(other_, {PageSpec{64, 64, 3, COMPRESSION_LZW, 1, 0, 16, 16, 9}}));
    ds_path_ = tmp_.Join("ds");
    ASSERT_OK(testing::WriteImageDataset(ds_path_, {tiff_, other_, ""}, false, 16 << 10));
    ASSERT_OK_AND_ASSIGN(ds_, table::Dataset::Open(ds_path_));
  }

  Image Get(uint64_t row, const ImageRequest& r, ExtractImageStats* stats = nullptr) {
    auto got = ExtractImage(*ds_, "image", row, r, *plugin_, {}, stats);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : Image{};
  }

  static std::vector<uint8_t> Bytes(const Image& img) {
    return img.pixels ? std::vector<uint8_t>(img.pixels->data(), img.pixels->data() + img.pixels->size())
                      : std::vector<uint8_t>{};
  }

  ScopedTempDir tmp_;
  std::shared_ptr<MediaPlugin> plugin_;
  std::string tiff_, other_, ds_path_;
  std::unique_ptr<table::Dataset> ds_;
};

TEST_F(ImageExtract, EveryPageEqualsLibtiff) {
  const auto pages = Pages();
  for (uint32_t i = 0; i < pages.size(); ++i) {
    SCOPED_TRACE("page " + std::to_string(i));
    ASSERT_OK_AND_ASSIGN(testing::Decoded ref, testing::DecodeWithLibtiff(tiff_, i));
    Image img = Get(0, ImageRequest::Page(i));
    EXPECT_EQ(img.page, i);
    EXPECT_EQ(img.width, pages[i].width);
    EXPECT_EQ(img.height, pages[i].height);
    EXPECT_EQ(img.page_width, pages[i].width);
    EXPECT_EQ(img.format, pages[i].samples == 1 ? ImagePixels::kGray8 : ImagePixels::kRgb24);
    EXPECT_TRUE(Bytes(img) == ref.pixels);
  }
  ASSERT_OK_AND_ASSIGN(testing::Decoded ref, testing::DecodeWithLibtiff(other_, 0));
  EXPECT_TRUE(Bytes(Get(1, ImageRequest::Page(0))) == ref.pixels);
}

// BigTIFF (64-bit offsets) reads like classic TIFF.
TEST_F(ImageExtract, BigTiffPagesEqualLibtiff) {
  const std::string big = tmp_.Join("big.tif");
  const std::vector<PageSpec> pages = {PageSpec{150, 110, 3, COMPRESSION_LZW, 2, 0, 32, 16, 11},
                                       PageSpec{90, 70, 1, COMPRESSION_NONE, 1, 0, 0, 9, 12}};
  ASSERT_OK(testing::WriteTiff(big, pages, true));
  ASSERT_EQ(testing::ReadWholeFile(big).substr(0, 4), std::string("II+\0", 4));
  const std::string root = tmp_.Join("big_ds");
  ASSERT_OK(testing::WriteImageDataset(root, {big}, false, 16 << 10));
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(root));
  for (uint32_t i = 0; i < pages.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(testing::Decoded ref, testing::DecodeWithLibtiff(big, i));
    ASSERT_OK_AND_ASSIGN(Image img, ExtractImage(*ds, "image", 0, ImageRequest::Page(i), *plugin_));
    EXPECT_TRUE(Bytes(img) == ref.pixels) << "page " << i;
    ASSERT_OK_AND_ASSIGN(Image crop, ExtractImage(*ds, "image", 0, ImageRequest::Region(i, 20, 30, 40, 25), *plugin_));
    EXPECT_TRUE(Bytes(crop) == testing::Crop(ref, 20, 30, 40, 25)) << "page " << i;
  }
}

TEST_F(ImageExtract, RegionsEqualLibtiffCrops) {
  const auto pages = Pages();
  for (uint32_t i = 0; i < pages.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(testing::Decoded ref, testing::DecodeWithLibtiff(tiff_, i));
    const uint32_t w = ref.width, h = ref.height;
    // Inside one chunk, across chunk borders, the bottom-right corner, one pixel, whole rows.
    const std::vector<std::array<uint32_t, 4>> regions = {
        {1, 2, 10, 5}, {w / 3, h / 3, w / 2, h / 2}, {w - 17, h - 9, 17, 9}, {w - 1, h - 1, 1, 1}, {0, 5, w, 3}};
    for (const auto& [x, y, rw, rh] : regions) {
      SCOPED_TRACE("page " + std::to_string(i) + " region " + std::to_string(x) + "," + std::to_string(y) + "," +
                   std::to_string(rw) + "," + std::to_string(rh));
      Image img = Get(0, ImageRequest::Region(i, x, y, rw, rh));
      EXPECT_EQ(img.width, rw);
      EXPECT_EQ(img.height, rh);
      EXPECT_EQ(img.x, x);
      EXPECT_EQ(img.y, y);
      EXPECT_TRUE(Bytes(img) == testing::Crop(ref, x, y, rw, rh));
    }
  }
}

TEST_F(ImageExtract, RegionPlansOnlyItsTiles) {
  ExtractImageStats page, region;
  Get(0, ImageRequest::Page(0), &page);
  // Page 0 has 64x64 tiles: this region lies in one.
  Get(0, ImageRequest::Region(0, 70, 70, 20, 20), &region);
  EXPECT_GT(region.extract.bytes_planned, 0u);
  EXPECT_LT(region.extract.bytes_planned * 10, page.extract.bytes_planned);
}

TEST_F(ImageExtract, ThumbnailsAreBoxFilteredPages) {
  // Page 0 is 300x200: longer side 40 -> 40x27; page 4 is 99x61 -> 16x10.
  for (auto [page, size, ow, oh] :
       std::vector<std::array<uint32_t, 4>>{{0, 40, 40, 27}, {4, 16, 16, 10}, {1, 1, 1, 1}}) {
    SCOPED_TRACE("page " + std::to_string(page));
    ASSERT_OK_AND_ASSIGN(testing::Decoded ref, testing::DecodeWithLibtiff(tiff_, page));
    Image img = Get(0, ImageRequest::Thumbnail(page, size));
    EXPECT_EQ(img.width, ow);
    EXPECT_EQ(img.height, oh);
    EXPECT_TRUE(Bytes(img) == testing::BoxDownscale(ref, ow, oh));
  }
  // Never enlarged: a size above the page returns the page.
  ASSERT_OK_AND_ASSIGN(testing::Decoded ref, testing::DecodeWithLibtiff(tiff_, 2));
  Image img = Get(0, ImageRequest::Thumbnail(2, 500));
  EXPECT_EQ(img.width, 120u);
  EXPECT_TRUE(Bytes(img) == ref.pixels);
}

TEST_F(ImageExtract, BadRequestsAreClearErrors) {
  auto page = ExtractImage(*ds_, "image", 0, ImageRequest::Page(8), *plugin_);
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.status().message().find("page 8 does not exist; the image has 8 page(s)"), std::string::npos)
      << page.status().ToString();
  auto region = ExtractImage(*ds_, "image", 0, ImageRequest::Region(0, 290, 0, 20, 10), *plugin_);
  ASSERT_FALSE(region.ok());
  EXPECT_NE(region.status().message().find("inside page 0 of 300x200"), std::string::npos)
      << region.status().ToString();
  EXPECT_TRUE(
      ExtractImage(*ds_, "image", 0, ImageRequest::Region(0, 0, 0, 0, 10), *plugin_).status().IsInvalidArgument());
  EXPECT_TRUE(ExtractImage(*ds_, "image", 0, ImageRequest::Thumbnail(0, 0), *plugin_).status().IsInvalidArgument());
  EXPECT_TRUE(ExtractImage(*ds_, "image", 2, ImageRequest::Page(0), *plugin_).status().IsNotFound());
  // Several rows in one call: the null row is nullopt.
  const uint64_t rows[] = {1, 2, 0};
  ASSERT_OK_AND_ASSIGN(auto many, ExtractImages(*ds_, "image", rows, ImageRequest::Page(0), *plugin_));
  ASSERT_EQ(many.size(), 3u);
  EXPECT_TRUE(many[0].has_value());
  EXPECT_FALSE(many[1].has_value());
  ASSERT_TRUE(many[2].has_value());
  EXPECT_EQ(many[2]->width, 300u);
}

}  // namespace
}  // namespace lancet::media
