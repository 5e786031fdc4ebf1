// PDF through the image plugin: ingest renders every page with poppler at the column's DPI
// into a tiled TIFF; each page, region and thumbnail equals poppler's own rendering of the
// original at that DPI, a region reads only its tiles, and a damaged PDF or a bad config
// fails the write.
#include <gtest/gtest.h>
#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-page-renderer.h>
#include <poppler/cpp/poppler-page.h>

#include <cstring>
#include <memory>

#include "image/image_util.h"
#include "lancet/media/image.h"
#include "lancet/media_image.h"
#include "lancet/table/dataset.h"
#include "tools/cli_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using cli::ScopedTempDir;

// A PDF of one page per (width, height) in points, each with filled rectangles in three
// colours and a stroked diagonal (anti-aliased edges), written object by object with its
// cross-reference table.
std::string MakePdf(const std::vector<std::pair<int, int>>& pages) {
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  auto object = [&](const std::string& body) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(offsets.size()) + " 0 obj\n" + body + "\nendobj\n";
  };
  object("<< /Type /Catalog /Pages 2 0 R >>");
  std::string kids;
  for (size_t i = 0; i < pages.size(); ++i) kids += std::to_string(3 + 2 * i) + " 0 R ";
  object("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages.size()) + " >>");
  for (size_t i = 0; i < pages.size(); ++i) {
    const auto [w, h] = pages[i];
    object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 " + std::to_string(w) + " " + std::to_string(h) +
           "] /Contents " + std::to_string(4 + 2 * i) + " 0 R >>");
    const std::string content = "1 0 0 rg 10 10 " + std::to_string(w / 3) + " " + std::to_string(h / 4) +
                                " re f\n0 0.5 1 rg " + std::to_string(w / 2) + " " + std::to_string(h / 3) +
                                " 77 55 re f\n0.2 0.8 0.1 rg 33 " + std::to_string(h / 2) + " 41 " +
                                std::to_string(h / 3 + static_cast<int>(i) * 7) + " re f\n0 0 0 RG 3 w 0 0 m " +
                                std::to_string(w) + " " + std::to_string(h) + " l S\n";
    object("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "endstream");
  }
  const size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(offsets.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char line[32];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(offsets.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

// Poppler's rendering of page `i` at `dpi`, as RGB rows.
testing::Decoded Render(const std::string& path, int i, double dpi) {
  std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path));
  std::unique_ptr<poppler::page> page(doc->create_page(i));
  poppler::page_renderer r;
  r.set_image_format(poppler::image::format_argb32);
  r.set_render_hint(poppler::page_renderer::antialiasing, true);
  r.set_render_hint(poppler::page_renderer::text_antialiasing, true);
  const poppler::image img = r.render_page(page.get(), dpi, dpi);
  testing::Decoded d{static_cast<uint32_t>(img.width()), static_cast<uint32_t>(img.height()), 3, {}};
  for (int y = 0; y < img.height(); ++y) {
    const auto* row = reinterpret_cast<const uint8_t*>(img.const_data()) + static_cast<size_t>(y) * img.bytes_per_row();
    for (int x = 0; x < img.width(); ++x) {
      // 0xAARRGGBB words, little-endian.
      d.pixels.push_back(row[4 * x + 2]);
      d.pixels.push_back(row[4 * x + 1]);
      d.pixels.push_back(row[4 * x]);
    }
  }
  return d;
}

class ImagePdf : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::ImagePluginPath().empty()) GTEST_SKIP() << "no image plugin";
    plugin_ = testing::LoadImagePlugin();
    ASSERT_NE(plugin_, nullptr);
    pdf_ = tmp_.Join("doc.pdf");
    testing::WriteWholeFile(pdf_, MakePdf({{600, 400}, {300, 500}, {120, 90}}));
    ds_ = tmp_.Join("ds");
    ASSERT_OK(testing::WriteImageDataset(ds_, {pdf_}, false, 1 << 20, "# rasters for the viewer\npdf_dpi=100\n"));
  }

  static std::vector<uint8_t> Bytes(const Image& img) {
    return std::vector<uint8_t>(img.pixels->data(), img.pixels->data() + img.pixels->size());
  }

  ScopedTempDir tmp_;
  std::shared_ptr<MediaPlugin> plugin_;
  std::string pdf_, ds_;
};

TEST_F(ImagePdf, PagesRegionsAndThumbnailsEqualPopplersRendering) {
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("page " + std::to_string(i));
    const testing::Decoded ref = Render(pdf_, i, 100);
    ASSERT_OK_AND_ASSIGN(Image page, ExtractImage(*ds, "image", 0, ImageRequest::Page(i), *plugin_));
    EXPECT_EQ(page.format, ImagePixels::kRgb24);
    ASSERT_EQ(page.width, ref.width);
    ASSERT_EQ(page.height, ref.height);
    EXPECT_TRUE(Bytes(page) == ref.pixels);
    ASSERT_OK_AND_ASSIGN(Image crop, ExtractImage(*ds, "image", 0, ImageRequest::Region(i, 5, 7, 100, 60), *plugin_));
    EXPECT_TRUE(Bytes(crop) == testing::Crop(ref, 5, 7, 100, 60));
    ASSERT_OK_AND_ASSIGN(Image thumb, ExtractImage(*ds, "image", 0, ImageRequest::Thumbnail(i, 64), *plugin_));
    EXPECT_TRUE(Bytes(thumb) == testing::BoxDownscale(ref, thumb.width, thumb.height));
  }
  // 600 x 400 points at 100 dpi: 833.3 x 555.6 pixels, as poppler sizes them.
  ASSERT_OK_AND_ASSIGN(Image first, ExtractImage(*ds, "image", 0, ImageRequest::Page(0), *plugin_));
  EXPECT_EQ(first.width, 833u);
  EXPECT_EQ(first.height, 556u);
}

TEST_F(ImagePdf, StoredAsTiledTiffAndARegionReadsItsTiles) {
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
  ASSERT_OK_AND_ASSIGN(auto located, ds->LocateBlobsWithInfo("image", std::vector<uint64_t>{0}));
  const BufferPtr& si = located[0]->info->stream_info;
  ASSERT_EQ(si->size(), LANCET_IMAGE_STREAM_INFO_SIZE);
  EXPECT_EQ(si->data()[4], 1);
  EXPECT_EQ(si->data()[8], LANCET_IMAGE_FORMAT_PDF);
  uint32_t pages = 0;
  std::memcpy(&pages, si->data() + 12, 4);
  EXPECT_EQ(pages, 3u);
  ExtractImageStats page, region;
  ASSERT_OK(ExtractImage(*ds, "image", 0, ImageRequest::Page(0), *plugin_, {}, &page).status());
  // Inside one 256x256 tile of the 4 x 3.
  ASSERT_OK(ExtractImage(*ds, "image", 0, ImageRequest::Region(0, 300, 300, 40, 40), *plugin_, {}, &region).status());
  EXPECT_EQ(region.extract.planned_ranges, 1u);
  EXPECT_LT(region.extract.bytes_planned * 6, page.extract.bytes_planned);
}

TEST_F(ImagePdf, DamagedPdfOrBadConfigFailsTheWrite) {
  std::string bad = "%PDF-1.4\n";
  for (int i = 0; i < 400; ++i) bad += "garbage " + std::to_string(i * 7919 % 1000) + "\n";
  const std::string path = tmp_.Join("bad.pdf");
  testing::WriteWholeFile(path, bad);
  Status st = testing::WriteImageDataset(ds_, {pdf_, path}, true, 1 << 20, "pdf_dpi=100");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("poppler cannot load the PDF"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("liblancet_image.so"), std::string::npos) << st.ToString();
  st = testing::WriteImageDataset(tmp_.Join("ds2"), {pdf_}, false, 1 << 20, "pdf_dpi=0");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("pdf_dpi '0' is not 1 to 1200"), std::string::npos) << st.ToString();
  st = testing::WriteImageDataset(tmp_.Join("ds3"), {pdf_}, false, 1 << 20, "dpi=72");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("unknown setting 'dpi'"), std::string::npos) << st.ToString();
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
  EXPECT_EQ(ds->version(), 1u);
}

}  // namespace
}  // namespace lancet::media
