// Bad input: a corrupt, truncated or foreign file fails the write that ingests it with an
// error naming the problem and leaves no new version; hostile stream_info, entries and
// requests never crash plan or decode.
#include <gtest/gtest.h>
#include <tiffio.h>

#include <cstring>
#include <random>

#include "image/image_util.h"
#include "lancet/media/image.h"
#include "lancet/media_image.h"
#include "lancet/table/dataset.h"
#include "tools/cli_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using cli::ScopedTempDir;
using testing::PageSpec;

class ImageErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::ImagePluginPath().empty()) GTEST_SKIP() << "no image plugin";
    plugin_ = testing::LoadImagePlugin();
    ASSERT_NE(plugin_, nullptr);
    good_ = tmp_.Join("good.tif");
    ASSERT_OK(testing::WriteTiff(good_, {PageSpec{200, 120, 3, COMPRESSION_LZW, 2, 0, 32, 16, 1},
                                         PageSpec{150, 100, 1, COMPRESSION_ADOBE_DEFLATE, 1, 0, 0, 8, 2}}));
    ds_ = tmp_.Join("ds");
    ASSERT_OK(testing::WriteImageDataset(ds_, {good_}));
  }

  // Appending `bytes` as a file fails with a message containing `want`; the dataset
  // stays at version 1 with one row.
  void ExpectRefused(const std::string& bytes, const std::string& want) {
    SCOPED_TRACE(want);
    const std::string path = tmp_.Join("bad.tif");
    testing::WriteWholeFile(path, bytes);
    Status st = testing::WriteImageDataset(ds_, {good_, path}, true);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find(want), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("liblancet_image.so"), std::string::npos) << st.ToString();
    ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
    EXPECT_EQ(ds->version(), 1u);
    EXPECT_EQ(ds->CountRows(), 1u);
  }

  ScopedTempDir tmp_;
  std::shared_ptr<MediaPlugin> plugin_;
  std::string good_, ds_;
};

TEST_F(ImageErrors, TruncatedFileFailsTheWrite) {
  const std::string all = testing::ReadWholeFile(good_);
  // libtiff writes each page's directory after its data: cutting inside the second page's
  // data leaves its chunks pointing past the end; cutting inside the first page's
  // directory leaves no readable first page (above the inline threshold, so the plugin sees it).
  ExpectRefused(all.substr(0, all.size() - 2000), "truncated");
  ExpectRefused(all.substr(0, 1500), "libtiff cannot open the source");
}

TEST_F(ImageErrors, CorruptTileFailsTheWrite) {
  // The first tile's LZW stream overwritten with garbage.
  TIFF* tif = TIFFOpen(good_.c_str(), "r");
  ASSERT_NE(tif, nullptr);
  const uint64_t offset = TIFFGetStrileOffset(tif, 0), size = TIFFGetStrileByteCount(tif, 0);
  TIFFClose(tif);
  std::string bytes = testing::ReadWholeFile(good_);
  ASSERT_GT(size, 16u);
  for (uint64_t i = 0; i < size; ++i) bytes[offset + i] = static_cast<char>(0xff ^ (i * 7));
  ExpectRefused(bytes, "does not decode");
}

TEST_F(ImageErrors, ForeignOrUnsupportedFilesFailTheWrite) {
  ExpectRefused(std::string(5000, 'x'), "not a TIFF, GIF, WebP or PDF file");
  const std::string sixteen = tmp_.Join("16bit.tif");
  TIFF* tif = TIFFOpen(sixteen.c_str(), "w");
  ASSERT_NE(tif, nullptr);
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, 64);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, 64);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 64);
  std::vector<uint16_t> px(64 * 64, 1000);
  ASSERT_GT(TIFFWriteEncodedStrip(tif, 0, px.data(), static_cast<tmsize_t>(px.size() * 2)), 0);
  TIFFClose(tif);
  ExpectRefused(testing::ReadWholeFile(sixteen), "16 bits per sample; only 8 is supported");
}

// Random damage to stream_info, entries and requests, and requests decoded from bytes that
// are not the stored file: every call returns (ranges inside the blob, or an error).
TEST_F(ImageErrors, HostileInputsNeverCrashPlanOrDecode) {
  auto session = plugin_->StartIngest();
  ASSERT_OK(session.status());
  std::vector<uint8_t> stored;
  auto sink = [&](std::span<const uint8_t> b) {
    stored.insert(stored.end(), b.begin(), b.end());
    return Status::OK();
  };
  const std::string source = testing::ReadWholeFile(good_);
  ASSERT_OK((*session)->Push({reinterpret_cast<const uint8_t*>(source.data()), source.size()}, sink));
  ASSERT_OK_AND_ASSIGN(IngestResult result, (*session)->Finish(sink));
  EXPECT_EQ(stored.size(), source.size());
  const std::vector<uint8_t> si(result.stream_info->data(), result.stream_info->data() + result.stream_info->size());
  const std::vector<uint8_t> en(result.entries->data(), result.entries->data() + result.entries->size());
  std::mt19937 rng(7);
  auto requests = [&] {
    std::vector<std::vector<uint8_t>> out;
    for (auto r : {ImageRequest::Page(0), ImageRequest::Region(1, 3, 5, 40, 30), ImageRequest::Thumbnail(0, 16)}) {
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
      out.push_back(bytes);
    }
    return out;
  }();
  uint64_t planned = 0;
  for (int iter = 0; iter < 3000; ++iter) {
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
      // Every other time the bytes are damaged too.
      std::vector<uint8_t> chunk(stored.begin() + static_cast<std::ptrdiff_t>(r.offset),
                                 stored.begin() + static_cast<std::ptrdiff_t>(r.offset + r.length));
      if (iter % 2 == 1 && !chunk.empty()) chunk[rng() % chunk.size()] ^= 0x5a;
      bytes.push_back(Buffer::Copy(chunk));
    }
    (void)plugin_->Decode(q, s, e, *plan, bytes);
  }
  EXPECT_GT(planned, 100u);  // the damage left many plans valid, so decode ran on them
}

}  // namespace
}  // namespace lancet::media
