// The image commands as a user runs them: `lancet ingest --media image=...` on a directory
// of TIFFs, then `lancet extract-image` of a page, a region and a thumbnail to PNG, whose
// pixels equal libtiff's decode; a corrupt file fails the ingest, naming it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <tiffio.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>

#include "image/anim_util.h"
#include "image/image_util.h"
#include "lancet/cli_common.h"
#include "lancet/table/dataset.h"
#include "tools/cli_test_util.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

namespace fs = std::filesystem;
namespace mt = media::testing;

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string LancetExe() {
#ifdef LANCET_LANCET_EXE
  return LANCET_LANCET_EXE;
#else
  return {};
#endif
}

struct CliRun {
  int rc = -1;
  std::string out, err;
};
CliRun Lancet(const ScopedTempDir& tmp, const std::string& args) {
  const std::string out = tmp.Join("stdout.txt"), err = tmp.Join("stderr.txt");
  CliRun r;
  const int rc = std::system((Quote(LancetExe()) + " " + args + " >" + Quote(out) + " 2>" + Quote(err)).c_str());
  r.rc = rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
  r.out = mt::ReadWholeFile(out);
  r.err = mt::ReadWholeFile(err);
  return r;
}

uint32_t Be32(const std::string& s, size_t at) {
  return (uint32_t{static_cast<uint8_t>(s[at])} << 24) | (uint32_t{static_cast<uint8_t>(s[at + 1])} << 16) |
         (uint32_t{static_cast<uint8_t>(s[at + 2])} << 8) | static_cast<uint8_t>(s[at + 3]);
}

// The pixels of a PNG the CLI wrote (8-bit gray, RGB or RGBA, every row filtered with None
// or Sub): enough of a reader to check them.
struct Png {
  uint32_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
};
Png ReadPng(const std::string& path) {
  const std::string f = mt::ReadWholeFile(path);
  Png png;
  if (f.size() < 33 || f.compare(1, 3, "PNG") != 0) return png;
  std::string idat;
  for (size_t at = 8; at + 12 <= f.size();) {
    const uint32_t len = Be32(f, at);
    const std::string type = f.substr(at + 4, 4);
    if (type == "IHDR") {
      png.width = Be32(f, at + 8);
      png.height = Be32(f, at + 12);
      const uint8_t colour = static_cast<uint8_t>(f[at + 17]);
      png.channels = colour == 6 ? 4 : colour == 2 ? 3 : colour == 0 ? 1 : 0;
    } else if (type == "IDAT") {
      idat += f.substr(at + 8, len);
    }
    at += 12 + len;
  }
  const uint64_t row = uint64_t{png.width} * png.channels;
  std::vector<uint8_t> raw((row + 1) * png.height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK) return {};
  for (uint32_t y = 0; y < png.height; ++y) {
    const uint8_t filter = raw[y * (row + 1)];
    const uint8_t* src = &raw[y * (row + 1) + 1];
    for (uint64_t i = 0; i < row; ++i) {
      const uint8_t left = filter == 1 && i >= png.channels ? png.pixels[png.pixels.size() - png.channels] : 0;
      png.pixels.push_back(static_cast<uint8_t>(src[i] + left));
    }
  }
  return png;
}

TEST(ImageCli, IngestThenExtractPagesRegionsAndThumbnails) {
  if (mt::ImagePluginPath().empty() || LancetExe().empty()) GTEST_SKIP() << "no image plugin";
  ScopedTempDir tmp;
  const std::string src = tmp.Join("src"), ds = tmp.Join("ds");
  fs::create_directories(src);
  ASSERT_OK(mt::WriteTiff(src + "/a.tif", {mt::PageSpec{400, 300, 3, COMPRESSION_NONE, 1, 0, 32, 16, 1},
                                           mt::PageSpec{90, 70, 1, COMPRESSION_ADOBE_DEFLATE, 1, 0, 0, 8, 2}}));
  WriteTextFile(src + "/notes.txt", "not an image");
  const std::string ingest = "ingest " + Quote(src) + " " + Quote(ds) +
                             " --column image --glob '*.tif' --media image=" + Quote(mt::ImagePluginPath());
  // Uncompressed, so above ingest's 64 KiB inline threshold: the plugin ingests it.
  CliRun r = Lancet(tmp, ingest);
  ASSERT_EQ(r.rc, 0) << r.err;

  r = Lancet(tmp, "info " + Quote(ds));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("image"), std::string::npos) << r.out;

  // The plugin the column records (found in the build's plugin directory).
  const std::string page = tmp.Join("out/page.png");
  r = Lancet(tmp, "extract-image " + Quote(ds) + " --column image --row 0 --page 1 --out " + Quote(page));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("page 1  90x70 at 0,0 of 90x70 gray8"), std::string::npos) << r.out;
  ASSERT_OK_AND_ASSIGN(mt::Decoded p1, mt::DecodeWithLibtiff(src + "/a.tif", 1));
  Png png = ReadPng(page);
  EXPECT_EQ(png.width, 90u);
  EXPECT_EQ(png.channels, 1u);
  EXPECT_TRUE(png.pixels == p1.pixels);

  const std::string crop = tmp.Join("crop.png");
  r = Lancet(
      tmp, "extract-image " + Quote(ds) + " --column image --row 0 --page 0 --region 30,20,50,40 --out " + Quote(crop));
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_OK_AND_ASSIGN(mt::Decoded p0, mt::DecodeWithLibtiff(src + "/a.tif", 0));
  png = ReadPng(crop);
  EXPECT_EQ(png.width, 50u);
  EXPECT_EQ(png.height, 40u);
  EXPECT_TRUE(png.pixels == mt::Crop(p0, 30, 20, 50, 40));

  const std::string thumb = tmp.Join("thumb.png");
  r = Lancet(tmp, "extract-image " + Quote(ds) + " --column image --row 0 --thumbnail 45 --out " + Quote(thumb));
  ASSERT_EQ(r.rc, 0) << r.err;
  png = ReadPng(thumb);
  EXPECT_EQ(png.width, 45u);
  EXPECT_EQ(png.height, 34u);
  EXPECT_TRUE(png.pixels == mt::BoxDownscale(p0, 45, 34));

  // Usage and request errors.
  r = Lancet(tmp, "extract-image " + Quote(ds) + " --column image --row 0 --region 1,2,3 --out " + Quote(crop));
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("is not X,Y,W,H"), std::string::npos) << r.err;
  r = Lancet(tmp, "extract-image " + Quote(ds) + " --column image --row 0 --page 5 --out " + Quote(crop));
  EXPECT_EQ(r.rc, kExitFailure);
  EXPECT_NE(r.err.find("page 5 does not exist"), std::string::npos) << r.err;

  // A damaged TIFF fails the whole append, naming the file; the dataset keeps version 1.
  const std::string more = tmp.Join("more");
  fs::create_directories(more);
  const std::string a = mt::ReadWholeFile(src + "/a.tif");
  WriteTextFile(more + "/cut.tif", a.substr(0, a.size() - 20000));
  r = Lancet(tmp, "ingest " + Quote(more) + " " + Quote(ds) +
                      " --column image --append --media image=" + Quote(mt::ImagePluginPath()));
  EXPECT_EQ(r.rc, kExitFailure);
  EXPECT_NE(r.err.find("cut.tif"), std::string::npos) << r.err;
  ASSERT_OK_AND_ASSIGN(auto opened, table::Dataset::Open(ds));
  EXPECT_EQ(opened->version(), 1u);
}

// GIF and WebP frames come out as RGBA PNGs (colour type 6) equal to the composition.
TEST(ImageCli, AnimatedFramesAreRgbaPngs) {
  if (mt::ImagePluginPath().empty() || LancetExe().empty()) GTEST_SKIP() << "no image plugin";
  ScopedTempDir tmp;
  const std::string src = tmp.Join("src"), ds = tmp.Join("ds");
  fs::create_directories(src);
  // Large enough (over ingest's 64 KiB inline threshold) for the plugin to ingest them.
  std::vector<mt::AnimFrame> frames(6);
  frames[0] = {0, 0, 320, 240, 1, false};
  frames[1] = {40, 30, 200, 150, 2, true};
  frames[2] = {100, 60, 220, 180, 1, true};
  frames[3] = {0, 0, 160, 120, 0, true};
  frames[4] = {0, 0, 320, 240, 1, true};
  frames[5] = {0, 0, 320, 240, 1, true};
  for (uint32_t i = 0; i < frames.size(); ++i) frames[i].seed = 3 * i + 1;
  ASSERT_OK(mt::WriteGif(src + "/a.gif", 320, 240, 0, frames));
  for (auto& f : frames) f.disposal &= 1;
  ASSERT_OK(mt::WriteWebp(src + "/b.webp", 320, 240, 0, 0, frames));
  ASSERT_GT(fs::file_size(src + "/a.gif"), 64u << 10);
  ASSERT_GT(fs::file_size(src + "/b.webp"), 64u << 10);
  CliRun r = Lancet(tmp, "ingest " + Quote(src) + " " + Quote(ds) +
                             " --column image --glob '*' --media image=" + Quote(mt::ImagePluginPath()));
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_OK_AND_ASSIGN(mt::Canvases gif, mt::ComposeGif(src + "/a.gif"));
  ASSERT_OK_AND_ASSIGN(mt::Canvases webp, mt::ComposeWebp(src + "/b.webp"));
  // Ingest orders the files by name: a.gif is row 0.
  for (auto [row, ref] : {std::pair{0, &gif}, std::pair{1, &webp}}) {
    SCOPED_TRACE("row " + std::to_string(row));
    const std::string out = tmp.Join("frame" + std::to_string(row) + ".png");
    r = Lancet(tmp, "extract-image " + Quote(ds) + " --row " + std::to_string(row) + " --page 2 --out " + Quote(out));
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("page 2  320x240 at 0,0 of 320x240 rgba32"), std::string::npos) << r.out;
    Png png = ReadPng(out);
    EXPECT_EQ(png.channels, 4u);
    EXPECT_EQ(png.width, 320u);
    EXPECT_TRUE(png.pixels == ref->frames[2]);
  }
}

}  // namespace
}  // namespace lancet::cli
