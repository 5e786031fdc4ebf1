// ReadBlobRanges: byte ranges of many blobs, merged per object.
#include "lancet/blob/blob_ranges.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "blob/blob_test_util.h"
#include "util/test_macros.h"

namespace lancet::blob {
namespace {

using table::Dataset;
using table::RowKey;
using testing::json;
using testing::U64;

class BlobRangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HasCorpusDataset("blobs_custom")) GTEST_SKIP() << "corpus dataset blobs_custom absent";
    expected_ = testing::LoadExpected("blobs_custom");
    store_ = std::make_shared<testing::CountingStore>(io::LocalFileSystem());
    ASSERT_OK_AND_ASSIGN(ds_, Dataset::Open(store_, testing::DatasetPath("blobs_custom")));
    for (const json& row : expected_["snapshots"].back()["rows"]) ids_.push_back(U64(row["_rowid"]));
  }
  // Two consecutive rows whose img blobs are adjacent in one pack.
  std::pair<uint64_t, uint64_t> AdjacentPackedRows() const {
    const json& rows = expected_["snapshots"].back()["rows"];
    for (size_t r = 0; r + 1 < rows.size(); ++r) {
      json a = testing::BlobValue(rows[r], "img"), b = testing::BlobValue(rows[r + 1], "img");
      if (a.is_null() || b.is_null()) continue;
      const json &da = a["descriptor"], &db = b["descriptor"];
      if (da["kind"] == 1 && db["kind"] == 1 && da["blob_id"] == db["blob_id"] &&
          U64(da["position"]) + U64(da["size"]) == U64(db["position"])) {
        return {U64(rows[r]["_rowid"]), U64(rows[r + 1]["_rowid"])};
      }
    }
    return {0, 0};
  }
  std::string Whole(const std::string& column, uint64_t id) const {
    auto blobs = ds_->TakeBlobs(column, std::vector<uint64_t>{id});
    EXPECT_TRUE(blobs.ok());
    return blobs.ok() && (*blobs)[0] ? std::string((*(*blobs)[0])->view()) : std::string();
  }

  json expected_;
  std::shared_ptr<testing::CountingStore> store_;
  std::unique_ptr<Dataset> ds_;
  std::vector<uint64_t> ids_;
};

// Random ranges of every non-null blob equal the same slices of TakeBlobs.
TEST_F(BlobRangesTest, MatchesTakeBlobs) {
  for (const char* column : {"img", "doc"}) {
    SCOPED_TRACE(column);
    ASSERT_OK_AND_ASSIGN(auto whole, ds_->TakeBlobs(column, ids_));
    std::mt19937_64 rng(7);
    std::vector<BlobRange> ranges;
    for (int k = 0; k < 200; ++k) {
      size_t r = rng() % ids_.size();
      if (!whole[r]) continue;
      uint64_t size = (*whole[r])->size();
      uint64_t a = size == 0 ? 0 : rng() % (size + 1);
      uint64_t b = a + (size == a ? 0 : rng() % (size - a + 1));
      ranges.push_back({ids_[r], a, b - a});
    }
    ASSERT_GT(ranges.size(), 50u);
    ASSERT_OK_AND_ASSIGN(auto got, ReadBlobRanges(*ds_, column, ranges));
    ASSERT_EQ(got.size(), ranges.size());
    for (size_t k = 0; k < ranges.size(); ++k) {
      size_t r = std::find(ids_.begin(), ids_.end(), ranges[k].row) - ids_.begin();
      EXPECT_EQ(got[k]->view(), (*whole[r])->view().substr(ranges[k].offset, ranges[k].length)) << k;
    }
  }
}

TEST_F(BlobRangesTest, OverlappingAndAdjacentRangesShareOneRequest) {
  auto [first, second] = AdjacentPackedRows();
  ASSERT_NE(first, second);
  ASSERT_OK_AND_ASSIGN(auto locations, ds_->LocateBlobs("img", std::vector<uint64_t>{first, second}));
  std::string sidecar = locations[0]->object;
  ASSERT_EQ(locations[1]->object, sidecar);
  uint64_t len_a = locations[0]->length, len_b = locations[1]->length;
  ASSERT_GE(len_a, 20u);
  std::string a = Whole("img", first), b = Whole("img", second);

  // Two overlapping ranges of one row.
  std::vector<BlobRange> overlapping = {{first, 0, len_a / 2 + 5}, {first, len_a / 2, len_a - len_a / 2}};
  store_->Reset();
  ASSERT_OK_AND_ASSIGN(auto got, ReadBlobRanges(*ds_, "img", overlapping));
  EXPECT_EQ(store_->ReadsOf(sidecar).requests, 1u);
  EXPECT_EQ(store_->ReadsOf(sidecar).bytes, len_a);
  EXPECT_EQ(got[0]->view(), a.substr(0, len_a / 2 + 5));
  EXPECT_EQ(got[1]->view(), a.substr(len_a / 2));

  // The tail of one row and the head of the next, adjacent in the pack (given in
  // reverse order: output keeps input order).
  std::vector<BlobRange> adjacent = {{second, 0, len_b}, {first, len_a - 10, 10}};
  store_->Reset();
  ASSERT_OK_AND_ASSIGN(got, ReadBlobRanges(*ds_, "img", adjacent));
  EXPECT_EQ(store_->ReadsOf(sidecar).requests, 1u);
  EXPECT_EQ(store_->ReadsOf(sidecar).bytes, len_b + 10);
  EXPECT_EQ(got[0]->view(), b);
  EXPECT_EQ(got[1]->view(), a.substr(len_a - 10));

  // Without merging, each range is its own request.
  BlobReadOptions apart;
  apart.io.coalesce_gap = 0;
  apart.io.max_request_size = 1;
  store_->Reset();
  ASSERT_OK_AND_ASSIGN(got, ReadBlobRanges(*ds_, "img", adjacent, apart));
  EXPECT_EQ(store_->ReadsOf(sidecar).requests, 2u);
}

TEST_F(BlobRangesTest, ManyObjectsReadInParallelKeepOrder) {
  // One range from every non-null blob of both kinds of object, in reverse row order.
  ASSERT_OK_AND_ASSIGN(auto whole, ds_->TakeBlobs("img", ids_));
  std::vector<BlobRange> ranges;
  std::vector<std::string> want;
  for (size_t r = ids_.size(); r-- > 0;) {
    if (!whole[r] || (*whole[r])->size() < 2) continue;
    ranges.push_back({ids_[r], 1, (*whole[r])->size() - 1});
    want.push_back(std::string((*whole[r])->view().substr(1)));
  }
  for (int parallel : {1, 3, 8}) {
    BlobReadOptions options;
    options.parallel_objects = parallel;
    ASSERT_OK_AND_ASSIGN(auto got, ReadBlobRanges(*ds_, "img", ranges, options));
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(got[k]->view(), want[k]) << parallel << " " << k;
  }
}

TEST_F(BlobRangesTest, RowAddresses) {
  const json* found = nullptr;
  for (const json& row : expected_["snapshots"].back()["rows"]) {
    json v = testing::BlobValue(row, "doc");
    if (!v.is_null() && U64(v["descriptor"]["size"]) >= 8) found = &row;
  }
  ASSERT_NE(found, nullptr);
  const json& row = *found;
  BlobReadOptions options;
  options.key = RowKey::kRowAddress;
  std::vector<BlobRange> ranges = {{U64(row["_rowaddr"]), 3, 4}};
  ASSERT_OK_AND_ASSIGN(auto got, ReadBlobRanges(*ds_, "doc", ranges, options));
  EXPECT_EQ(got[0]->view(), Whole("doc", U64(row["_rowid"])).substr(3, 4));
}

TEST_F(BlobRangesTest, BadRanges) {
  uint64_t null_id = 0;
  bool found = false;
  for (const json& row : expected_["snapshots"].back()["rows"]) {
    if (testing::BlobValue(row, "img").is_null()) {
      null_id = U64(row["_rowid"]);
      found = true;
    }
  }
  ASSERT_TRUE(found);
  std::vector<BlobRange> null_range = {{null_id, 0, 1}};
  auto r = ReadBlobRanges(*ds_, "img", null_range);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("row id " + std::to_string(null_id)), std::string::npos) << r.status().ToString();

  auto [id, unused] = AdjacentPackedRows();
  uint64_t size = Whole("img", id).size();
  std::vector<BlobRange> past = {{id, size - 1, 2}};
  r = ReadBlobRanges(*ds_, "img", past);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("row id " + std::to_string(id)), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("[" + std::to_string(size - 1) + ", "), std::string::npos)
      << r.status().ToString();

  std::vector<BlobRange> overflow = {{id, 2, UINT64_MAX}};
  r = ReadBlobRanges(*ds_, "img", overflow);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("overflows"), std::string::npos) << r.status().ToString();

  std::vector<BlobRange> fine = {{id, size, 0}};
  ASSERT_OK_AND_ASSIGN(auto empty, ReadBlobRanges(*ds_, "img", fine));
  EXPECT_EQ(empty[0]->size(), 0u);

  BlobReadOptions zero;
  zero.parallel_objects = 0;
  EXPECT_TRUE(ReadBlobRanges(*ds_, "img", fine, zero).status().IsInvalidArgument());
  EXPECT_TRUE(ReadBlobRanges(*ds_, "id", fine).status().IsInvalidArgument());
  std::vector<BlobRange> unknown = {{uint64_t{99} << 32, 0, 1}};
  EXPECT_TRUE(ReadBlobRanges(*ds_, "img", unknown).status().IsNotFound());
  ASSERT_OK_AND_ASSIGN(auto none, ReadBlobRanges(*ds_, "img", {}));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace lancet::blob
