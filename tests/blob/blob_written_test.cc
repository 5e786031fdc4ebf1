// The blob read side on datasets Lancet writes itself (no corpus needed): every
// placement, both local read modes (mapped and pread), and request counts.
#include <gtest/gtest.h>

#include <filesystem>

#include "blob/blob_test_util.h"
#include "common/test_stores.h"
#include "lancet/blob/blob_file.h"
#include "lancet/blob/blob_ranges.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::blob {
namespace {

using table::BlobKind;
using table::Dataset;

// Sizes per row (nullopt = null blob): inline up to 100 bytes, packed up to 2000,
// dedicated above.
const std::vector<std::optional<size_t>> kSizes = {50, 500, 600, 700, 3000, std::nullopt, 0, 4000, 800};

std::string Payload(size_t row, size_t size) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 31 + row * 17) & 0xFF);
  return s;
}

// Local disk read mapped or with pread, and S3 (skipped without a server).
enum class Where { kMapped, kPread, kS3 };
const char* WhereName(Where w) { return w == Where::kMapped ? "mapped" : w == Where::kPread ? "pread" : "S3"; }
void PrintTo(Where w, std::ostream* os) { *os << WhereName(w); }

class WrittenBlobsTest : public ::testing::TestWithParam<Where> {
 protected:
  void SetUp() override {
    const auto kind =
        GetParam() == Where::kS3 ? ::lancet::testing::StoreKind::kS3 : ::lancet::testing::StoreKind::kLocal;
    LANCET_SKIP_WITHOUT_STORE(kind);
    place_ = std::make_unique<::lancet::testing::TestRoot>(kind, ::lancet::testing::CurrentTestName());
    table::BlobThresholds thresholds;
    thresholds.inline_max = 100;
    thresholds.dedicated_min = 2000;
    Field field = table::MakeBlobField("b", true, thresholds);
    std::vector<std::optional<std::string>> data;
    std::vector<bool> validity;
    for (size_t r = 0; r < kSizes.size(); ++r) {
      data.push_back(kSizes[r] ? std::optional<std::string>(Payload(r, *kSizes[r])) : std::nullopt);
      validity.push_back(kSizes[r].has_value());
    }
    ASSERT_OK_AND_ASSIGN(Array data_arr, MakeBinaryArray(field.type.children[0].type, data));
    ASSERT_OK_AND_ASSIGN(Array uri_arr,
                         MakeBinaryArray(field.type.children[1].type,
                                         std::vector<std::optional<std::string>>(kSizes.size(), std::nullopt)));
    int64_t n = static_cast<int64_t>(kSizes.size());
    ASSERT_OK_AND_ASSIGN(Array blobs, MakeStructArray(field.type, n, {data_arr, uri_arr}, validity));
    Schema schema;
    schema.fields = {field};
    // Written through the URI overload (local path or s3://), read through a counting store.
    ASSERT_OK(table::WriteDataset(place_->uri() + "/w.lance", schema, {RecordBatch{schema, n, {blobs}}}).status());
    // Local reads map the file (cheap, serial) or pread (parallel).
    std::shared_ptr<io::ObjectStore> base =
        GetParam() == Where::kS3 ? place_->store() : io::LocalFileSystem(GetParam() == Where::kMapped);
    store_ = std::make_shared<testing::CountingStore>(base);
    ASSERT_OK_AND_ASSIGN(ds_, Dataset::Open(store_, place_->root() + "/w.lance"));
    for (size_t r = 0; r < kSizes.size(); ++r) ids_.push_back(r);
  }
  std::unique_ptr<::lancet::testing::TestRoot> place_;
  std::shared_ptr<testing::CountingStore> store_;
  std::unique_ptr<Dataset> ds_;
  std::vector<uint64_t> ids_;
};

TEST_P(WrittenBlobsTest, LocateAndTakeEveryPlacement) {
  ASSERT_OK_AND_ASSIGN(auto locations, ds_->LocateBlobs("b", ids_));
  ASSERT_OK_AND_ASSIGN(auto blobs, ds_->TakeBlobs("b", ids_));
  ASSERT_OK_AND_ASSIGN(auto by_addr, ds_->TakeBlobs("b", ids_, table::RowKey::kRowAddress));
  const BlobKind want_kinds[] = {BlobKind::kInline, BlobKind::kPacked,    BlobKind::kPacked,
                                 BlobKind::kPacked, BlobKind::kDedicated, BlobKind::kInline,
                                 BlobKind::kInline, BlobKind::kDedicated, BlobKind::kPacked};
  for (size_t r = 0; r < kSizes.size(); ++r) {
    SCOPED_TRACE("row " + std::to_string(r));
    ASSERT_EQ(locations[r].has_value(), kSizes[r].has_value());
    ASSERT_EQ(blobs[r].has_value(), kSizes[r].has_value());
    if (!kSizes[r]) continue;
    EXPECT_EQ(locations[r]->kind, want_kinds[r]);
    EXPECT_EQ(locations[r]->length, *kSizes[r]);
    EXPECT_EQ((*blobs[r])->view(), Payload(r, *kSizes[r]));
    EXPECT_EQ((*by_addr[r])->view(), (*blobs[r])->view());
  }
  // The packed rows share one pack, back to back; dedicated rows have their own object.
  EXPECT_EQ(locations[1]->object, locations[2]->object);
  EXPECT_EQ(locations[2]->offset, locations[1]->offset + 500);
  EXPECT_NE(locations[4]->object, locations[7]->object);
  EXPECT_TRUE(locations[1]->object.ends_with(".blob"));
  EXPECT_TRUE(locations[0]->object.ends_with(".lance"));
}

TEST_P(WrittenBlobsTest, AdjacentPackedBlobsAreOneRequest) {
  ASSERT_OK_AND_ASSIGN(auto locations, ds_->LocateBlobs("b", ids_));
  std::string pack = locations[1]->object;
  std::vector<uint64_t> packed = {3, 1, 2};
  store_->Reset();
  ASSERT_OK_AND_ASSIGN(auto blobs, ds_->TakeBlobs("b", packed));
  EXPECT_EQ(store_->ReadsOf(pack).requests, 1u);
  EXPECT_EQ(store_->ReadsOf(pack).bytes, 1800u);
  EXPECT_EQ((*blobs[0])->view(), Payload(3, 700));

  // Ranges: overlapping ones of row 1, then the tail of row 1 with the head of row 2.
  std::vector<BlobRange> ranges = {{1, 0, 300}, {1, 200, 300}, {2, 0, 10}, {1, 490, 10}};
  store_->Reset();
  ASSERT_OK_AND_ASSIGN(auto got, ReadBlobRanges(*ds_, "b", ranges));
  EXPECT_EQ(store_->ReadsOf(pack).requests, 1u);
  EXPECT_EQ(store_->ReadsOf(pack).bytes, 510u);
  for (size_t k = 0; k < ranges.size(); ++k) {
    EXPECT_EQ(got[k]->view(),
              Payload(ranges[k].row, *kSizes[ranges[k].row]).substr(ranges[k].offset, ranges[k].length));
  }

  // Ranges of several objects at once, in parallel.
  std::vector<BlobRange> spread = {{7, 3990, 10}, {0, 1, 2}, {4, 0, 3000}, {8, 100, 100}};
  store_->Reset();
  ASSERT_OK_AND_ASSIGN(got, ReadBlobRanges(*ds_, "b", spread));
  for (size_t k = 0; k < spread.size(); ++k) {
    EXPECT_EQ(got[k]->view(),
              Payload(spread[k].row, *kSizes[spread[k].row]).substr(spread[k].offset, spread[k].length));
  }
  for (size_t r : {7, 4, 8}) EXPECT_EQ(store_->ReadsOf(locations[r]->object).requests, 1u) << r;
}

TEST_P(WrittenBlobsTest, BlobFileWindow) {
  BlobFileOptions options;
  options.read_ahead = 1024;
  ASSERT_OK_AND_ASSIGN(auto file, BlobFile::Open(*ds_, "b", 7, table::RowKey::kRowId, options));
  ASSERT_EQ(file->size(), 4000u);
  std::string want = Payload(7, 4000);
  store_->Reset();
  ASSERT_OK_AND_ASSIGN(auto a, file->read_range(100, 200));
  EXPECT_EQ(a->view(), want.substr(100, 100));
  EXPECT_EQ(store_->ReadsOf(file->location().object).requests, 1u);
  EXPECT_EQ(store_->ReadsOf(file->location().object).bytes, 1024u);
  ASSERT_OK(file->seek(300));
  ASSERT_OK_AND_ASSIGN(auto b, file->read(824));
  EXPECT_EQ(b->view(), want.substr(300, 824));
  EXPECT_EQ(store_->ReadsOf(file->location().object).requests, 1u);
  ASSERT_OK_AND_ASSIGN(auto c, file->read(10));
  EXPECT_EQ(c->view(), want.substr(1124, 10));
  EXPECT_EQ(store_->ReadsOf(file->location().object).requests, 2u);
  EXPECT_TRUE(file->seek(4001).IsInvalidArgument());
}

INSTANTIATE_TEST_SUITE_P(Stores, WrittenBlobsTest, ::testing::Values(Where::kMapped, Where::kPread, Where::kS3),
                         [](const ::testing::TestParamInfo<Where>& info) { return WhereName(info.param); });

}  // namespace
}  // namespace lancet::blob
