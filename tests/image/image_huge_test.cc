// A 20000x20000 tiled page: ingest indexes it without decoding it, and a region reads only
// the tiles it touches, well under 5 % of the page's bytes, counted by the store's IoStats;
// the pixels equal libtiff's decode of the same tiles from the original file.
#include <gtest/gtest.h>
#include <tiffio.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "image/image_util.h"
#include "lancet/io/object_store.h"
#include "lancet/media/image.h"
#include "lancet/table/dataset.h"
#include "tools/cli_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

constexpr uint32_t kSide = 20000, kTile = 256;

// Gray, Deflate at level 1: rows of one value per tile row, eight varying bytes at the
// start of each, so each tile stores about 2 KiB and is distinct from its neighbours.
Status WriteHugeTiff(const std::string& path) {
  TIFF* tif = TIFFOpen(path.c_str(), "w");
  if (tif == nullptr) return Status::IOError("libtiff cannot create " + path);
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, kSide);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, kSide);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(tif, TIFFTAG_ZIPQUALITY, 1);
  TIFFSetField(tif, TIFFTAG_TILEWIDTH, kTile);
  TIFFSetField(tif, TIFFTAG_TILELENGTH, kTile);
  std::vector<uint8_t> tile(kTile * kTile);
  uint32_t lcg = 12345;
  for (uint32_t ty = 0; ty < kSide; ty += kTile) {
    for (uint32_t tx = 0; tx < kSide; tx += kTile) {
      for (uint32_t y = 0; y < kTile; ++y) {
        uint8_t* row = tile.data() + y * kTile;
        std::memset(row, static_cast<int>((tx / kTile * 31 + ty / kTile * 17 + y) & 0xff), kTile);
        for (int i = 0; i < 8; ++i) {
          lcg = lcg * 1103515245u + 12345u;
          row[i * 29] = static_cast<uint8_t>(lcg >> 24);
        }
      }
      if (TIFFWriteEncodedTile(tif, TIFFComputeTile(tif, tx, ty, 0, 0), tile.data(),
                               static_cast<tmsize_t>(tile.size())) < 0) {
        TIFFClose(tif);
        return Status::IOError("libtiff cannot write a tile of " + path);
      }
    }
  }
  TIFFClose(tif);
  return Status::OK();
}

// The x, y, w, h area of page 0 of `path`, from libtiff's reads of just those tiles.
std::vector<uint8_t> LibtiffRegion(const std::string& path, uint32_t x, uint32_t y, uint32_t w, uint32_t h) {
  TIFF* tif = TIFFOpen(path.c_str(), "r");
  std::vector<uint8_t> out(uint64_t{w} * h), tile(kTile * kTile);
  for (uint32_t ty = y / kTile * kTile; ty < y + h; ty += kTile) {
    for (uint32_t tx = x / kTile * kTile; tx < x + w; tx += kTile) {
      if (TIFFReadTile(tif, tile.data(), tx, ty, 0, 0) < 0) ADD_FAILURE() << "libtiff cannot read a tile";
      for (uint32_t py = std::max(y, ty); py < std::min(y + h, ty + kTile); ++py) {
        for (uint32_t px = std::max(x, tx); px < std::min(x + w, tx + kTile); ++px) {
          out[uint64_t{py - y} * w + (px - x)] = tile[(py - ty) * kTile + (px - tx)];
        }
      }
    }
  }
  TIFFClose(tif);
  return out;
}

TEST(ImageHuge, RegionOfA20000PageReadsUnderFivePercent) {
  if (testing::ImagePluginPath().empty()) GTEST_SKIP() << "no image plugin";
  cli::ScopedTempDir tmp;
  const std::string tiff = tmp.Join("huge.tif");
  ASSERT_OK(WriteHugeTiff(tiff));
  const std::string ds_path = tmp.Join("ds");
  ASSERT_OK(testing::WriteImageDataset(ds_path, {tiff}));
  auto plugin = testing::LoadImagePlugin();
  ASSERT_NE(plugin, nullptr);
  auto store = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(store, ds_path));
  ASSERT_OK_AND_ASSIGN(auto located, ds->LocateBlobsWithInfo("image", std::vector<uint64_t>{0}));
  ASSERT_TRUE(located[0].has_value());
  const uint64_t page_bytes = located[0]->location.length;  // the stored file: one page
  EXPECT_GT(page_bytes, 8u << 20);

  // Across a tile corner: 2 x 2 tiles of the 79 x 79.
  const uint32_t x = 10000, y = 9900, w = 300, h = 300;
  store->stats().Reset();
  ExtractImageStats stats;
  ASSERT_OK_AND_ASSIGN(Image img,
                       ExtractImage(*ds, "image", 0, ImageRequest::Region(0, x, y, w, h), *plugin, {}, &stats));
  const io::IoCounters all = store->stats().Snapshot();
  store->stats().Reset();
  ASSERT_OK(ds->LocateBlobsWithInfo("image", std::vector<uint64_t>{0}).status());
  const io::IoCounters resolve = store->stats().Snapshot();
  ASSERT_EQ(img.width, w);
  ASSERT_EQ(img.height, h);
  EXPECT_TRUE(std::vector<uint8_t>(img.pixels->data(), img.pixels->data() + img.pixels->size()) ==
              LibtiffRegion(tiff, x, y, w, h));
  // Everything the extract read, descriptors and index included, and the tile bytes alone.
  const uint64_t tile_bytes = all.read_bytes - resolve.read_bytes;
  std::printf("page %llu bytes; region read %llu bytes in all (%.3f %%), %llu of them tile data (%.3f %%)\n",
              static_cast<unsigned long long>(page_bytes), static_cast<unsigned long long>(all.read_bytes),
              100.0 * static_cast<double>(all.read_bytes) / static_cast<double>(page_bytes),
              static_cast<unsigned long long>(tile_bytes),
              100.0 * static_cast<double>(tile_bytes) / static_cast<double>(page_bytes));
  EXPECT_LT(all.read_bytes * 20, page_bytes);
  EXPECT_GE(all.read_bytes, stats.extract.bytes_planned);    // the planned tile ranges were read
  EXPECT_LT(stats.extract.bytes_planned * 500, page_bytes);  // 4 tiles of 6241

  // A thumbnail decodes every tile, one at a time, into 200x200 box sums: each output pixel
  // is the mean of a 100x100 block.
  ASSERT_OK_AND_ASSIGN(Image thumb, ExtractImage(*ds, "image", 0, ImageRequest::Thumbnail(0, 200), *plugin));
  ASSERT_EQ(thumb.width, 200u);
  ASSERT_EQ(thumb.height, 200u);
  for (auto [ox, oy] : std::vector<std::pair<uint32_t, uint32_t>>{{0, 0}, {101, 57}, {199, 199}}) {
    const std::vector<uint8_t> block = LibtiffRegion(tiff, ox * 100, oy * 100, 100, 100);
    uint64_t sum = 0;
    for (uint8_t v : block) sum += v;
    EXPECT_EQ(thumb.pixels->data()[oy * 200 + ox], (sum + 5000) / 10000) << ox << "," << oy;
  }
}

}  // namespace
}  // namespace lancet::media
