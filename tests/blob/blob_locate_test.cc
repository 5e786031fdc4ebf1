// Dataset::LocateBlobs and TakeBlobs by row id and row address, checked against the
// reference corpus (written by lance 12), plus damaged copies of it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "blob/blob_test_util.h"
#include "lancet/blob/blob_file.h"
#include "lancet/io/latency_store.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::blob {
namespace {

using table::BlobKind;
using table::BlobLocation;
using table::Dataset;
using table::RowKey;
using testing::json;
using testing::U64;

class LocateCorpusTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!testing::HasCorpusDataset(GetParam())) GTEST_SKIP() << "corpus dataset " << GetParam() << " absent";
    expected_ = testing::LoadExpected(GetParam());
  }
  json expected_;
};

// Every blob's location names the right object and range, and the bytes there are
// the blob's.
TEST_P(LocateCorpusTest, LocationsMatchDescriptors) {
  std::string root = testing::DatasetPath(GetParam());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root));
  const json& snap = expected_["snapshots"].back();
  std::vector<uint64_t> ids;
  for (const json& row : snap["rows"]) ids.push_back(U64(row["_rowid"]));
  std::set<int> kinds_seen;
  for (const json& col_json : snap["blob_columns"]) {
    std::string col = col_json.get<std::string>();
    SCOPED_TRACE(col);
    ASSERT_OK_AND_ASSIGN(auto locations, ds->LocateBlobs(col, ids));
    ASSERT_EQ(locations.size(), ids.size());
    for (size_t r = 0; r < ids.size(); ++r) {
      SCOPED_TRACE("row " + std::to_string(r));
      json value = testing::BlobValue(snap["rows"][r], col);
      if (value.is_null()) {
        EXPECT_FALSE(locations[r].has_value());
        continue;
      }
      ASSERT_TRUE(locations[r].has_value());
      const BlobLocation& loc = *locations[r];
      const json& d = value["descriptor"];
      int kind = d["kind"].get<int>();
      kinds_seen.insert(kind);
      EXPECT_EQ(static_cast<int>(loc.kind), kind);
      EXPECT_EQ(loc.offset, U64(d["position"]));
      EXPECT_EQ(loc.length, U64(d["size"]));
      // The object is one of the row's fragment's data files, or a sidecar beside it.
      uint64_t frag_id = U64(snap["rows"][r]["_rowaddr"]) >> 32;
      std::set<std::string> allowed;
      for (const table::FragmentInfo& f : ds->fragments()) {
        if (f.id != frag_id) continue;
        for (const table::DataFileInfo& file : f.files) {
          std::string path = root + "/data/" + file.path;
          if (kind == 0) {
            allowed.insert(path);
          } else {
            allowed.insert(path.substr(0, path.size() - 6) + "/" + testing::SidecarName(d["blob_id"].get<uint32_t>()));
          }
        }
      }
      EXPECT_TRUE(allowed.count(loc.object)) << loc.object;
      ASSERT_OK_AND_ASSIGN(auto file, ds->store()->OpenRead(loc.object));
      ASSERT_OK_AND_ASSIGN(auto bytes, file->ReadAt(loc.offset, loc.length));
      EXPECT_TRUE(testing::BytesMatch(bytes->view(), value["bytes"]));
    }
  }
  if (GetParam() == "blobs" || GetParam() == "blobs_custom") {
    EXPECT_EQ(kinds_seen, (std::set<int>{0, 1, 2}));
  }
}

// Row addresses and row ids name the same rows, also where they differ (stable ids).
TEST_P(LocateCorpusTest, RowAddressesAgreeWithRowIds) {
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(testing::DatasetPath(GetParam())));
  size_t differing = 0;
  for (const json& snap : expected_["snapshots"]) {
    if (!snap.contains("blob_columns") || snap["blob_columns"].empty()) continue;
    ASSERT_OK_AND_ASSIGN(auto ds, latest->Checkout(snap["version"].get<uint64_t>()));
    std::vector<uint64_t> ids, addrs;
    for (const json& row : snap["rows"]) {
      ids.push_back(U64(row["_rowid"]));
      addrs.push_back(U64(row["_rowaddr"]));
      differing += ids.back() != addrs.back();
    }
    for (const json& col_json : snap["blob_columns"]) {
      std::string col = col_json.get<std::string>();
      ASSERT_OK_AND_ASSIGN(auto by_id, ds->LocateBlobs(col, ids, RowKey::kRowId));
      ASSERT_OK_AND_ASSIGN(auto by_addr, ds->LocateBlobs(col, addrs, RowKey::kRowAddress));
      ASSERT_EQ(by_id.size(), by_addr.size());
      for (size_t r = 0; r < by_id.size(); ++r) {
        ASSERT_EQ(by_id[r].has_value(), by_addr[r].has_value()) << r;
        if (!by_id[r]) continue;
        EXPECT_EQ(by_id[r]->object, by_addr[r]->object) << r;
        EXPECT_EQ(by_id[r]->offset, by_addr[r]->offset) << r;
        EXPECT_EQ(by_id[r]->length, by_addr[r]->length) << r;
      }
      ASSERT_OK_AND_ASSIGN(auto take_id, ds->TakeBlobs(col, ids));
      ASSERT_OK_AND_ASSIGN(auto take_addr, ds->TakeBlobs(col, addrs, RowKey::kRowAddress));
      ASSERT_EQ(take_id.size(), take_addr.size());
      for (size_t r = 0; r < take_id.size(); ++r) {
        ASSERT_EQ(take_id[r].has_value(), take_addr[r].has_value()) << r;
        json value = testing::BlobValue(snap["rows"][r], col);
        ASSERT_EQ(take_id[r].has_value(), !value.is_null()) << r;
        if (!take_id[r]) continue;
        EXPECT_EQ((*take_id[r])->view(), (*take_addr[r])->view()) << r;
        EXPECT_TRUE(testing::BytesMatch((*take_id[r])->view(), value["bytes"])) << r;
      }
    }
  }
  if (GetParam() == "stable_row_ids") {
    EXPECT_GT(differing, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, LocateCorpusTest,
                         ::testing::Values("blobs", "blobs_custom", "nested_blob", "stable_row_ids"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(LocateBlobs, RowKeysAreNotInterchangeable) {
  if (!testing::HasCorpusDataset("stable_row_ids")) GTEST_SKIP() << "corpus absent";
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(testing::DatasetPath("stable_row_ids")));
  // Row id 500 lives at address 1 << 32 in the later versions; as an address, 500
  // is past fragment 0's rows or names another row.
  json expected = testing::LoadExpected("stable_row_ids");
  const json& rows = expected["snapshots"].back()["rows"];
  const json* moved = nullptr;
  for (const json& row : rows) {
    if (row["_rowid"] != row["_rowaddr"]) moved = &row;
  }
  ASSERT_NE(moved, nullptr);
  std::vector<uint64_t> addr = {U64((*moved)["_rowaddr"])};
  EXPECT_TRUE(ds->LocateBlobs("b", addr, RowKey::kRowId).status().IsNotFound());
  ASSERT_OK_AND_ASSIGN(auto got, ds->LocateBlobs("b", addr, RowKey::kRowAddress));
  ASSERT_EQ(got.size(), 1u);
}

TEST(LocateBlobs, TakeOfAdjacentPackedBlobsIsOneRequest) {
  if (!testing::HasCorpusDataset("blobs_custom")) GTEST_SKIP() << "corpus absent";
  json expected = testing::LoadExpected("blobs_custom");
  const json& rows = expected["snapshots"].back()["rows"];
  // The longest run of consecutive rows whose img blobs are contiguous in one pack.
  std::vector<uint64_t> best, run;
  uint32_t run_id = 0;
  uint64_t run_end = 0;
  for (const json& row : rows) {
    json v = testing::BlobValue(row, "img");
    bool packed = !v.is_null() && v["descriptor"]["kind"].get<int>() == 1;
    uint32_t id = packed ? v["descriptor"]["blob_id"].get<uint32_t>() : 0;
    uint64_t pos = packed ? U64(v["descriptor"]["position"]) : 0;
    if (packed && !run.empty() && id == run_id && pos == run_end) {
      run.push_back(U64(row["_rowid"]));
    } else {
      run = packed ? std::vector<uint64_t>{U64(row["_rowid"])} : std::vector<uint64_t>{};
    }
    if (packed) {
      run_id = id;
      run_end = pos + U64(v["descriptor"]["size"]);
    }
    if (run.size() > best.size()) best = run;
  }
  ASSERT_GE(best.size(), 3u);
  auto store = std::make_shared<testing::CountingStore>(io::LocalFileSystem());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, testing::DatasetPath("blobs_custom")));
  ASSERT_OK_AND_ASSIGN(auto locations, ds->LocateBlobs("img", best));
  std::string sidecar = locations[0]->object;
  store->Reset();
  ASSERT_OK_AND_ASSIGN(auto blobs, ds->TakeBlobs("img", best));
  ASSERT_EQ(blobs.size(), best.size());
  uint64_t total = 0;
  for (size_t k = 0; k < best.size(); ++k) {
    EXPECT_EQ(locations[k]->object, sidecar);
    ASSERT_TRUE(blobs[k].has_value());
    EXPECT_EQ((*blobs[k])->size(), locations[k]->length);
    total += locations[k]->length;
  }
  auto reads = store->ReadsOf(sidecar);
  EXPECT_EQ(reads.requests, 1u);
  EXPECT_EQ(reads.bytes, total);
}

// Damaged copies on the local file system: sidecar cut short, then removed.
TEST(LocateBlobs, TruncatedAndMissingSidecar) {
  if (!testing::HasCorpusDataset("blobs")) GTEST_SKIP() << "corpus absent";
  std::string root = testing::CopyDatasetToTemp("blobs");
  json expected = testing::LoadExpected("blobs");
  std::vector<uint64_t> ids;
  for (const json& row : expected["snapshots"].back()["rows"]) {
    json v = testing::BlobValue(row, "video");
    if (!v.is_null() && v["descriptor"]["kind"].get<int>() == 2) ids.push_back(U64(row["_rowid"]));
  }
  ASSERT_FALSE(ids.empty());
  ids.resize(1);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root));
  ASSERT_OK_AND_ASSIGN(auto locations, ds->LocateBlobs("video", ids));
  std::string sidecar = locations[0]->object;
  ASSERT_TRUE(sidecar.ends_with(".blob")) << sidecar;
  std::filesystem::resize_file(sidecar, locations[0]->length - 1);
  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE(pass == 0 ? "truncated" : "missing");
    // A dataset keeps the objects it opened (they never change); a new one sees the damage.
    ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(root));
    auto located = ds->LocateBlobs("video", ids);
    ASSERT_FALSE(located.ok());
    EXPECT_TRUE(pass == 0 ? located.status().IsCorruption() : located.status().IsNotFound())
        << located.status().ToString();
    EXPECT_NE(located.status().message().find(sidecar), std::string::npos) << located.status().ToString();
    auto taken = ds->TakeBlobs("video", ids);
    ASSERT_FALSE(taken.ok());
    EXPECT_EQ(taken.status().code(), located.status().code());
    EXPECT_NE(taken.status().message().find(sidecar), std::string::npos) << taken.status().ToString();
    std::filesystem::remove(sidecar);
  }
  std::filesystem::remove_all(std::filesystem::path(root).parent_path());
}

TEST(LocateBlobs, EmptyAndNullBlobsOpenNothing) {
  if (!testing::HasCorpusDataset("blobs")) GTEST_SKIP() << "corpus absent";
  json expected = testing::LoadExpected("blobs");
  std::vector<uint64_t> ids;
  for (const json& row : expected["snapshots"].back()["rows"]) {
    json v = testing::BlobValue(row, "video");
    if (v.is_null() || U64(v["descriptor"]["size"]) == 0) ids.push_back(U64(row["_rowid"]));
  }
  ASSERT_GE(ids.size(), 2u);
  auto store = std::make_shared<testing::CountingStore>(io::LocalFileSystem());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, testing::DatasetPath("blobs")));
  ASSERT_OK_AND_ASSIGN(auto warm, ds->LocateBlobs("video", ids));  // loads descriptor pages
  store->Reset();
  ASSERT_OK_AND_ASSIGN(auto taken, ds->TakeBlobs("video", ids));
  for (size_t k = 0; k < ids.size(); ++k) {
    EXPECT_EQ(taken[k].has_value(), warm[k].has_value());
    if (taken[k]) {
      EXPECT_EQ((*taken[k])->size(), 0u);
    }
  }
  for (const auto& [path, reads] : store->AllReads()) EXPECT_FALSE(path.ends_with(".blob")) << path;
}

// Data files and sidecars never change once written, so a dataset opens each blob object
// once: locating or taking the same rows again costs no open (no HEAD on object stores).
TEST(LocateBlobs, OwnObjectsStayOpenAcrossCalls) {
  if (!testing::HasCorpusDataset("blobs")) GTEST_SKIP() << "corpus absent";
  json expected = testing::LoadExpected("blobs");
  std::vector<uint64_t> ids;
  for (const json& row : expected["snapshots"].back()["rows"]) {
    json v = testing::BlobValue(row, "video");
    if (!v.is_null() && U64(v["descriptor"]["size"]) > 0 && U64(v["descriptor"]["kind"]) != 3) {
      ids.push_back(U64(row["_rowid"]));
    }
  }
  ASSERT_GE(ids.size(), 2u);
  auto store = io::WithLatency(io::LocalFileSystem(), std::chrono::microseconds(0));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, testing::DatasetPath("blobs")));
  ASSERT_OK_AND_ASSIGN(auto first, ds->TakeBlobs("video", ids));
  const uint64_t opened = store->metadata_requests();
  ASSERT_GT(opened, 0u);
  ASSERT_OK_AND_ASSIGN(auto again, ds->TakeBlobs("video", ids));
  ASSERT_OK_AND_ASSIGN(auto located, ds->LocateBlobs("video", ids));
  EXPECT_EQ(store->metadata_requests(), opened);
  for (size_t k = 0; k < ids.size(); ++k) {
    ASSERT_TRUE(first[k] && again[k]);
    EXPECT_EQ((*first[k])->view(), (*again[k])->view()) << "row id " << ids[k];
  }

  // A BlobFile on a location held by the caller reads through the object it is given.
  ASSERT_OK_AND_ASSIGN(auto object, store->OpenRead(located[0]->object));
  std::shared_ptr<io::RandomAccessFile> shared(std::move(object));
  ASSERT_OK_AND_ASSIGN(auto file, BlobFile::Open(*located[0], shared));
  ASSERT_OK_AND_ASSIGN(auto bytes, file->read_range(0, file->size()));
  EXPECT_EQ(bytes->view(), (*first[0])->view());
  EXPECT_EQ(BlobFile::Open(*located[0], nullptr).status().code(), StatusCode::kInvalidArgument);
}

TEST(LocateBlobs, UnknownRowsAndColumns) {
  if (!testing::HasCorpusDataset("blobs")) GTEST_SKIP() << "corpus absent";
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(testing::DatasetPath("blobs")));
  std::vector<uint64_t> far = {uint64_t{77} << 32};
  EXPECT_TRUE(ds->LocateBlobs("video", far).status().IsNotFound());
  EXPECT_TRUE(ds->LocateBlobs("video", far, RowKey::kRowAddress).status().IsNotFound());
  EXPECT_TRUE(ds->LocateBlobs("id", std::vector<uint64_t>{0}).status().IsInvalidArgument());
  EXPECT_TRUE(ds->LocateBlobs("nope", std::vector<uint64_t>{0}).status().IsNotFound());
  ASSERT_OK_AND_ASSIGN(auto none, ds->LocateBlobs("video", {}));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace lancet::blob

namespace lancet::blob {
namespace {

// External blobs written by Lancet: a whole-object reference gets the object's size.
TEST(LocateBlobs, ExternalBlobs) {
  std::string dir = testing::TestTempDir();
  std::string object = dir + "/outside.bin";
  std::string payload(5000, 'x');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7);
  {
    std::ofstream out(object, std::ios::binary);
    out << payload;
  }
  Field field = table::MakeBlobField("b");
  ASSERT_OK_AND_ASSIGN(Array data, MakeBinaryArray(field.type.children[0].type,
                                                   {std::nullopt, std::string("inline bytes"), std::nullopt}));
  ASSERT_OK_AND_ASSIGN(Array uri,
                       MakeBinaryArray(field.type.children[1].type, {"file://" + object, std::nullopt, std::nullopt}));
  ASSERT_OK_AND_ASSIGN(Array blobs, MakeStructArray(field.type, 3, {data, uri}, {true, true, false}));
  Schema schema;
  schema.fields = {field};
  RecordBatch batch{schema, 3, {blobs}};
  table::WriteParams params;
  params.blobs.allow_external_outside_bases = true;
  std::string root = dir + "/ext.lance";
  ASSERT_OK(table::WriteDataset(root, schema, {batch}, params).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root));
  std::vector<uint64_t> ids = {0, 1, 2};
  ASSERT_OK_AND_ASSIGN(auto locations, ds->LocateBlobs("b", ids));
  ASSERT_TRUE(locations[0].has_value());
  EXPECT_EQ(locations[0]->kind, BlobKind::kExternal);
  EXPECT_EQ(locations[0]->object, object);
  EXPECT_EQ(locations[0]->offset, 0u);
  EXPECT_EQ(locations[0]->length, payload.size());
  ASSERT_TRUE(locations[1].has_value());
  EXPECT_EQ(locations[1]->kind, BlobKind::kInline);
  EXPECT_EQ(locations[1]->length, 12u);
  EXPECT_FALSE(locations[2].has_value());
  ASSERT_OK_AND_ASSIGN(auto taken, ds->TakeBlobs("b", ids));
  ASSERT_TRUE(taken[0].has_value());
  EXPECT_EQ((*taken[0])->view(), payload);
  EXPECT_EQ((*taken[1])->view(), "inline bytes");

  std::filesystem::resize_file(object, 0);
  ASSERT_OK_AND_ASSIGN(auto empty, ds->LocateBlobs("b", ids));
  EXPECT_EQ(empty[0]->length, 0u);  // whole object: still a valid (empty) range
  std::filesystem::remove(object);
  auto gone = ds->LocateBlobs("b", ids);
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.status().IsNotFound()) << gone.status().ToString();
  EXPECT_NE(gone.status().message().find(object), std::string::npos) << gone.status().ToString();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lancet::blob
