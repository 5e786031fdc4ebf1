// BlobFile: lazy, seekable reads of one blob with a read-ahead window.
#include "lancet/blob/blob_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include "blob/blob_test_util.h"
#include "util/test_macros.h"

namespace lancet::blob {
namespace {

using table::Dataset;
using table::RowKey;
using testing::json;
using testing::U64;

class BlobFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HasCorpusDataset("blobs")) GTEST_SKIP() << "corpus dataset blobs absent";
    expected_ = testing::LoadExpected("blobs");
    // A fresh store, so its counters see only this test's requests.
    ASSERT_OK_AND_ASSIGN(ds_, Dataset::Open(io::LocalFileSystem(), testing::DatasetPath("blobs")));
  }
  // The first row of the latest snapshot whose blob has `kind` and at least `min_size` bytes.
  const json* RowOfKind(int kind, uint64_t min_size = 0) const {
    for (const json& row : expected_["snapshots"].back()["rows"]) {
      json v = testing::BlobValue(row, "video");
      if (!v.is_null() && v["descriptor"]["kind"].get<int>() == kind && U64(v["descriptor"]["size"]) >= min_size) {
        return &row;
      }
    }
    return nullptr;
  }
  std::string Whole(uint64_t row_id) const {
    auto blobs = ds_->TakeBlobs("video", std::vector<uint64_t>{row_id});
    EXPECT_TRUE(blobs.ok());
    return blobs.ok() && (*blobs)[0] ? std::string((*(*blobs)[0])->view()) : std::string();
  }
  io::IoCounters Counters() const { return ds_->store()->stats().Snapshot(); }

  json expected_;
  std::unique_ptr<Dataset> ds_;
};

TEST_F(BlobFileTest, ReadRangeReadsAheadInOneRequest) {
  const json* row = RowOfKind(1, 1 << 20);
  ASSERT_NE(row, nullptr);
  uint64_t id = U64((*row)["_rowid"]);
  std::string whole = Whole(id);
  BlobFileOptions options;
  options.read_ahead = 4096;
  ASSERT_OK_AND_ASSIGN(auto file, BlobFile::Open(*ds_, "video", id, RowKey::kRowId, options));
  ASSERT_EQ(file->size(), whole.size());
  EXPECT_EQ(file->location().kind, table::BlobKind::kPacked);
  EXPECT_EQ(file->location().offset, U64((*row)["video"]["descriptor"]["position"]));

  io::IoCounters before = Counters();
  ASSERT_OK_AND_ASSIGN(auto bytes, file->read_range(1000, 1100));
  io::IoCounters after = Counters();
  EXPECT_EQ(bytes->view(), whole.substr(1000, 100));
  EXPECT_EQ(after.read_requests - before.read_requests, 1u);
  EXPECT_EQ(after.read_bytes - before.read_bytes, 4096u);  // [a, a + max(b - a, read_ahead))
  EXPECT_EQ(file->tell(), 0u);

  // Inside the window: no request.
  ASSERT_OK_AND_ASSIGN(auto inside, file->read_range(2000, 5096));
  EXPECT_EQ(inside->view(), whole.substr(2000, 3096));
  ASSERT_OK(file->seek(1500));
  ASSERT_OK_AND_ASSIGN(auto seq, file->read(10));
  EXPECT_EQ(seq->view(), whole.substr(1500, 10));
  EXPECT_EQ(file->tell(), 1510u);
  EXPECT_EQ(Counters().read_requests, after.read_requests);

  // A request larger than read_ahead is fetched as asked, in one request.
  before = Counters();
  ASSERT_OK_AND_ASSIGN(auto big, file->read_range(10000, 30000));
  EXPECT_EQ(big->view(), whole.substr(10000, 20000));
  EXPECT_EQ(Counters().read_requests - before.read_requests, 1u);
  EXPECT_EQ(Counters().read_bytes - before.read_bytes, 20000u);

  // Read-ahead stops at the end of the blob, not of the pack holding it.
  before = Counters();
  ASSERT_OK_AND_ASSIGN(auto tail, file->read_range(whole.size() - 10, whole.size()));
  EXPECT_EQ(tail->view(), whole.substr(whole.size() - 10));
  EXPECT_EQ(Counters().read_bytes - before.read_bytes, 10u);
}

TEST_F(BlobFileTest, SequentialReadsCoverTheBlob) {
  for (int kind : {0, 1, 2}) {
    SCOPED_TRACE("kind " + std::to_string(kind));
    const json* row = RowOfKind(kind, 1000);
    ASSERT_NE(row, nullptr);
    uint64_t id = U64((*row)["_rowid"]);
    std::string whole = Whole(id);
    BlobFileOptions options;
    options.read_ahead = 64 * 1024;
    ASSERT_OK_AND_ASSIGN(auto file, BlobFile::Open(*ds_, "video", id, RowKey::kRowId, options));
    io::IoCounters before = Counters();
    std::string got;
    while (true) {
      ASSERT_OK_AND_ASSIGN(auto chunk, file->read(1000));
      if (chunk->size() == 0) break;
      got += chunk->view();
    }
    EXPECT_EQ(got, whole);
    EXPECT_EQ(file->tell(), file->size());
    io::IoCounters after = Counters();
    uint64_t windows = (whole.size() + options.read_ahead - 1) / options.read_ahead;
    // Each window's misses line up on 1000-byte reads, so at most one extra request each.
    EXPECT_LE(after.read_requests - before.read_requests, 2 * windows);
    EXPECT_LE(after.read_bytes - before.read_bytes, whole.size() + windows * 1000);
    EXPECT_TRUE(testing::BytesMatch(got, (*row)["video"]["bytes"]));
  }
}

TEST_F(BlobFileTest, ByRowAddress) {
  const json* row = RowOfKind(2);
  ASSERT_NE(row, nullptr);
  ASSERT_OK_AND_ASSIGN(auto file, BlobFile::Open(*ds_, "video", U64((*row)["_rowaddr"]), RowKey::kRowAddress));
  EXPECT_EQ(file->location().kind, table::BlobKind::kDedicated);
  EXPECT_TRUE(file->location().object.ends_with(testing::SidecarName((*row)["video"]["descriptor"]["blob_id"])));
  ASSERT_OK_AND_ASSIGN(auto head, file->read_range(0, 64));
  EXPECT_EQ(head->view(), Whole(U64((*row)["_rowid"])).substr(0, 64));
}

TEST_F(BlobFileTest, BoundsAndSeek) {
  const json* row = RowOfKind(0, 10);
  ASSERT_NE(row, nullptr);
  ASSERT_OK_AND_ASSIGN(auto file, BlobFile::Open(*ds_, "video", U64((*row)["_rowid"])));
  uint64_t size = file->size();
  EXPECT_TRUE(file->seek(size + 1).IsInvalidArgument());
  ASSERT_OK(file->seek(size));
  ASSERT_OK_AND_ASSIGN(auto end, file->read(100));
  EXPECT_EQ(end->size(), 0u);
  ASSERT_OK(file->seek(size - 3));
  ASSERT_OK_AND_ASSIGN(auto last, file->read(100));
  EXPECT_EQ(last->size(), 3u);
  EXPECT_TRUE(file->read_range(5, 4).status().IsInvalidArgument());
  EXPECT_TRUE(file->read_range(0, size + 1).status().IsInvalidArgument());
  auto huge = file->read_range(1, UINT64_MAX);
  EXPECT_TRUE(huge.status().IsInvalidArgument());
  ASSERT_OK_AND_ASSIGN(auto none, file->read_range(size, size));
  EXPECT_EQ(none->size(), 0u);
  // Reading to the end with a huge n does not overflow.
  ASSERT_OK(file->seek(1));
  ASSERT_OK_AND_ASSIGN(auto rest, file->read(UINT64_MAX));
  EXPECT_EQ(rest->size(), size - 1);
}

TEST_F(BlobFileTest, NullAndEmptyBlobs) {
  const json* null_row = nullptr;
  const json* empty_row = nullptr;
  for (const json& row : expected_["snapshots"].back()["rows"]) {
    json v = testing::BlobValue(row, "video");
    if (v.is_null() && null_row == nullptr) null_row = &row;
    if (!v.is_null() && U64(v["descriptor"]["size"]) == 0 && empty_row == nullptr) empty_row = &row;
  }
  ASSERT_NE(null_row, nullptr);
  ASSERT_NE(empty_row, nullptr);
  std::string id = std::to_string(U64((*null_row)["_rowid"]));
  auto null_file = BlobFile::Open(*ds_, "video", U64((*null_row)["_rowid"]));
  ASSERT_FALSE(null_file.ok());
  EXPECT_TRUE(null_file.status().IsNotFound()) << null_file.status().ToString();
  EXPECT_NE(null_file.status().message().find("'video'"), std::string::npos) << null_file.status().ToString();
  EXPECT_NE(null_file.status().message().find("row id " + id), std::string::npos) << null_file.status().ToString();

  ASSERT_OK_AND_ASSIGN(auto empty, BlobFile::Open(*ds_, "video", U64((*empty_row)["_rowid"])));
  EXPECT_EQ(empty->size(), 0u);
  ASSERT_OK_AND_ASSIGN(auto bytes, empty->read(10));
  EXPECT_EQ(bytes->size(), 0u);
  EXPECT_TRUE(empty->seek(1).IsInvalidArgument());
}

TEST_F(BlobFileTest, DamagedSidecar) {
  const json* row = RowOfKind(1);
  ASSERT_NE(row, nullptr);
  std::string root = testing::CopyDatasetToTemp("blobs");
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root));
  uint64_t id = U64((*row)["_rowid"]);
  ASSERT_OK_AND_ASSIGN(auto file, BlobFile::Open(*ds, "video", id));
  std::string sidecar = file->location().object;
  std::filesystem::resize_file(sidecar, file->location().offset + file->size() - 1);
  // A dataset keeps the objects it opened (they never change); a new one sees the damage.
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(root));
  auto cut = BlobFile::Open(*ds, "video", id);
  ASSERT_FALSE(cut.ok());
  EXPECT_TRUE(cut.status().IsCorruption()) << cut.status().ToString();
  EXPECT_NE(cut.status().message().find(sidecar), std::string::npos) << cut.status().ToString();
  std::filesystem::remove(sidecar);
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(root));
  auto gone = BlobFile::Open(*ds, "video", id);
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.status().IsNotFound()) << gone.status().ToString();
  EXPECT_NE(gone.status().message().find(sidecar), std::string::npos) << gone.status().ToString();
  std::filesystem::remove_all(std::filesystem::path(root).parent_path());
}

}  // namespace
}  // namespace lancet::blob
