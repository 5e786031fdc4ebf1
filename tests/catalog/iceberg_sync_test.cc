// SyncIceberg and its row map: counts of a sync, idempotence, the commit point on a
// conflict, refusals, and row maps from hostile bytes.
#include <gtest/gtest.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "catalog/iceberg_rowmap.h"
#include "lancet/catalog/iceberg.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::catalog {
namespace {

namespace fs = std::filesystem;
using iceberg::RowMap;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::span<const uint8_t> Span(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

TEST(IcebergRowMap, RoundTripsAndRefusesHostileBytes) {
  RowMap m;
  m.files = {"file:///a.parquet", "file:///b%20c.parquet"};
  for (uint64_t i = 0; i < 100; ++i) ASSERT_OK(m.Add(i * 3 + (uint64_t{1} << 40), {static_cast<uint32_t>(i % 2), i}));
  const std::string bytes = m.Serialize();
  ASSERT_OK_AND_ASSIGN(RowMap back, RowMap::Parse(Span(bytes)));
  EXPECT_EQ(back, m);
  EXPECT_EQ(back.size(), 100u);
  for (uint64_t i = 0; i < 100; ++i) {
    const auto loc = back.Find(i * 3 + (uint64_t{1} << 40));
    ASSERT_TRUE(loc.has_value());
    EXPECT_EQ(loc->file, i % 2);
    EXPECT_EQ(loc->pos, i);
    EXPECT_FALSE(back.Find(i * 3 + 1 + (uint64_t{1} << 40)).has_value());
  }
  for (size_t n = 0; n < bytes.size(); n += 5) {
    auto r = RowMap::Parse(Span(bytes.substr(0, n)));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  }
  std::string flipped = bytes;
  for (size_t i = 8; i < flipped.size(); i += 3) {
    flipped[i] = static_cast<char>(flipped[i] ^ 0x41);
    auto r = RowMap::Parse(Span(flipped));
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    }
  }
  EXPECT_LT(bytes.size(), 100 * 20 / 2);  // sorted deltas, compressed: far below 20 bytes a row
  RowMap bad;
  bad.files = {"file:///a"};
  ASSERT_OK(bad.Add(5, {1, 9}));  // file 1 of 1
  const std::string bad_bytes = bad.Serialize();
  EXPECT_TRUE(RowMap::Parse(Span(bad_bytes)).status().IsCorruption());
  EXPECT_TRUE(RowMap::Parse(Span(std::string("LRMP\3\0\0\0", 8))).status().IsNotSupported());
  EXPECT_TRUE(RowMap::Parse(Span(bad_bytes.substr(0, 8) + "garbage")).status().IsCorruption());
}

// Rows written from a scan are consecutive ids at consecutive positions: a run per file,
// so the map's size follows the table's history of changes, not its row count.
TEST(IcebergRowMap, KeepsRunsAndSplitsThemOnRemoval) {
  RowMap m;
  m.files = {"f0", "f1"};
  for (uint64_t i = 0; i < 1000000; ++i) ASSERT_OK(m.Add(i, {static_cast<uint32_t>(i / 600000), i % 600000}));
  EXPECT_EQ(m.runs(), 2u);
  EXPECT_EQ(m.size(), 1000000u);
  EXPECT_LT(m.Serialize().size(), 100u);
  EXPECT_EQ(m.Add(17, {1, 5}).code(), StatusCode::kInternal);

  // Taking from the middle, the start and the end of a run.
  auto at = m.Take(700000);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->file, 1u);
  EXPECT_EQ(at->pos, 100000u);
  EXPECT_FALSE(m.Take(700000).has_value());
  EXPECT_EQ(m.runs(), 3u);
  ASSERT_TRUE(m.Take(0).has_value());
  ASSERT_TRUE(m.Take(599999).has_value());
  EXPECT_EQ(m.Find(1)->pos, 1u);
  EXPECT_EQ(m.Find(600000)->pos, 0u);
  EXPECT_EQ(m.Find(999999)->pos, 399999u);
  EXPECT_EQ(m.size(), 999997u);
  EXPECT_EQ(m.runs(), 3u);

  // An updated row comes back elsewhere; putting it back where it was rejoins the runs.
  ASSERT_OK(m.Add(700000, {0, 123}));
  EXPECT_EQ(m.runs(), 4u);
  ASSERT_TRUE(m.Take(700000).has_value());
  ASSERT_OK(m.Add(700000, {1, 100000}));
  EXPECT_EQ(m.runs(), 2u);
  EXPECT_EQ(m.Add(UINT64_MAX, {0, 0}).code(), StatusCode::kInternal);
  ASSERT_OK(m.Add(UINT64_MAX - 1, {0, 0}));
  EXPECT_EQ(m.Find(UINT64_MAX - 1)->pos, 0u);

  ASSERT_OK_AND_ASSIGN(RowMap back, RowMap::Parse(Span(m.Serialize())));
  EXPECT_EQ(back, m);
}

// Tables synced before runs have version 1 maps, an entry per row; they still load.
TEST(IcebergRowMap, ReadsVersionOneMaps) {
  std::string body;
  auto put32 = [&](uint32_t v) { body.append(reinterpret_cast<const char*>(&v), 4); };
  put32(1);
  put32(2);
  body += "f0";
  const uint64_t n = 4;
  body.append(reinterpret_cast<const char*>(&n), 8);
  // (id delta, file, pos): ids 10, 11, 12 at positions 0, 1, 2, then id 20 at 7.
  for (uint8_t b : {10, 0, 0, 1, 0, 1, 1, 0, 2, 8, 0, 7}) body.push_back(static_cast<char>(b));
  std::string bytes("LRMP\1\0\0\0", 8);
  std::string frame(ZSTD_compressBound(body.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), body.data(), body.size(), 1));
  ASSERT_OK_AND_ASSIGN(RowMap m, RowMap::Parse(Span(bytes + frame)));
  EXPECT_EQ(m.size(), 4u);
  EXPECT_EQ(m.runs(), 2u);
  EXPECT_EQ(m.Find(12)->pos, 2u);
  EXPECT_EQ(m.Find(20)->pos, 7u);
  EXPECT_FALSE(m.Find(13).has_value());
  body[body.size() - 3] = 0;  // id delta 0: id 12 twice
  frame.assign(ZSTD_compressBound(body.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), body.data(), body.size(), 1));
  EXPECT_TRUE(RowMap::Parse(Span(bytes + frame)).status().IsCorruption());
}

class IcebergSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("lancet_iceberg_sync_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    ds_ = (root_ / "ds").string();
    tbl_ = (root_ / "tbl").string();
    std::vector<int64_t> ids;
    for (int64_t i = 0; i < 100; ++i) ids.push_back(i);
    ASSERT_OK_AND_ASSIGN(Array id, ArrayFromVector(MakeType(TypeId::kInt64), ids));
    ASSERT_OK_AND_ASSIGN(RecordBatch batch, MakeRecordBatch({"id"}, {id}));
    table::WriteParams params;
    params.enable_stable_row_ids = true;
    params.max_rows_per_file = 30;
    ASSERT_OK(table::WriteDataset(ds_, batch.schema, {batch}, params).status());
    ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
    ASSERT_OK(ExportIceberg(*ds, ds_, tbl_).status());
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
  std::string ds_, tbl_;
};

TEST_F(IcebergSyncTest, DeletesBecomePositionDeletesAndASecondSyncIsANoOp) {
  ASSERT_OK_AND_ASSIGN(auto v1, table::Dataset::Open(ds_));
  ASSERT_OK_AND_ASSIGN(IcebergSyncResult none, SyncIceberg(*v1, tbl_));
  EXPECT_FALSE(none.committed);
  ASSERT_OK(table::DeleteWhere(*v1, "id % 10 = 0").status());
  ASSERT_OK_AND_ASSIGN(auto v2, table::Dataset::Open(ds_));
  ASSERT_OK_AND_ASSIGN(IcebergSyncResult r, SyncIceberg(*v2, tbl_));
  EXPECT_TRUE(r.committed);
  EXPECT_EQ(r.from_version, v1->version());
  EXPECT_EQ(r.to_version, v2->version());
  EXPECT_EQ(r.deleted_rows, 10u);
  EXPECT_EQ(r.added_rows, 0u);
  EXPECT_EQ(Slurp(root_ / "tbl/metadata/version-hint.text"), "2");
  auto md = nlohmann::json::parse(Slurp(root_ / "tbl/metadata/v2.metadata.json"));
  EXPECT_EQ(md["current-snapshot-id"], r.snapshot_id);
  EXPECT_EQ(md["snapshots"].size(), 2u);
  EXPECT_EQ(md["snapshots"][1]["parent-snapshot-id"], md["snapshots"][0]["snapshot-id"]);
  EXPECT_EQ(md["snapshots"][1]["summary"]["total-records"], "90");
  EXPECT_EQ(md["metadata-log"].size(), 1u);
  ASSERT_OK_AND_ASSIGN(IcebergSyncResult again, SyncIceberg(*v2, tbl_));
  EXPECT_FALSE(again.committed);
  EXPECT_EQ(again.snapshot_id, r.snapshot_id);
}

TEST_F(IcebergSyncTest, ACrashBetweenCommitAndHintIsRepairedByTheNextSync) {
  ASSERT_OK_AND_ASSIGN(auto v1, table::Dataset::Open(ds_));
  ASSERT_OK(table::DeleteWhere(*v1, "id = 5").status());
  ASSERT_OK_AND_ASSIGN(auto v2, table::Dataset::Open(ds_));
  ASSERT_OK(SyncIceberg(*v2, tbl_).status());
  // As if the process died after renaming v2.metadata.json, before the hint.
  std::ofstream(root_ / "tbl/metadata/version-hint.text", std::ios::trunc) << "1";
  ASSERT_OK_AND_ASSIGN(IcebergSyncResult same, SyncIceberg(*v2, tbl_));
  EXPECT_FALSE(same.committed);  // v2 already holds the dataset's version
  EXPECT_EQ(Slurp(root_ / "tbl/metadata/version-hint.text"), "2");
  ASSERT_OK(table::DeleteWhere(*v2, "id = 6").status());
  ASSERT_OK_AND_ASSIGN(auto v3, table::Dataset::Open(ds_));
  fs::remove(root_ / "tbl/metadata/version-hint.text");  // and after an export that died before it
  ASSERT_OK_AND_ASSIGN(IcebergSyncResult next, SyncIceberg(*v3, tbl_));
  EXPECT_TRUE(next.committed);
  EXPECT_EQ(next.from_version, v2->version());
  EXPECT_EQ(next.deleted_rows, 1u);
  EXPECT_EQ(Slurp(root_ / "tbl/metadata/version-hint.text"), "3");
}

TEST_F(IcebergSyncTest, RefusesMissingOrMalformedTables) {
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
  EXPECT_TRUE(SyncIceberg(*ds, (root_ / "nowhere").string()).status().IsNotFound());
  std::ofstream(root_ / "tbl/metadata/version-hint.text", std::ios::trunc) << "x";
  EXPECT_TRUE(SyncIceberg(*ds, tbl_).status().IsCorruption());
  std::ofstream(root_ / "tbl/metadata/version-hint.text", std::ios::trunc) << "1";
  std::ofstream(root_ / "tbl/metadata/v1.metadata.json", std::ios::trunc) << R"({"snapshots": 3})";
  EXPECT_TRUE(SyncIceberg(*ds, tbl_).status().IsCorruption());
}

}  // namespace
}  // namespace lancet::catalog
