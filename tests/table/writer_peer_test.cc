// The reference (lance 12 through the node peer) reads what the table writer writes.
// Skips without node or an installed peer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "common/peer.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

namespace fs = std::filesystem;

RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    names.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(i)));
  }
  return *MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names)});
}

int64_t AsInt(const nlohmann::json& j) {
  return j.is_string() ? std::stoll(j.get<std::string>()) : j.get<int64_t>();
}

TEST(WriterPeer, ReferenceReadsOurVersions) {
  std::string peer_scripts = lancet::testing::PeerHarnessDir();
  std::string peer_dir = lancet::testing::PeerInstallDir();
  if (std::system("node --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "node not found";
  if (!fs::exists(peer_scripts + "/dump.mjs")) GTEST_SKIP() << "no peer scripts at " << peer_scripts;
  if (!fs::exists(peer_dir + "/node_modules")) GTEST_SKIP() << "peer not installed at " << peer_dir;

  std::string dir = ::testing::TempDir() + "lancet_writer_peer_" + std::to_string(::getpid()) + "/t.lance";
  fs::remove_all(fs::path(dir).parent_path());
  WriteParams create;
  create.max_rows_per_file = 100;
  ASSERT_OK(WriteDataset(dir, Rows(0, 0).schema, {Rows(0, 250)}, create).status());   // v1: 250 rows
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(WriteDataset(dir, Rows(0, 0).schema, {Rows(250, 50)}, append).status());  // v2: 300 rows
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir));
  std::vector<uint64_t> del = {0, 1, (uint64_t{2} << 32) | 10};
  for (uint64_t i = 0; i < 50; ++i) del.push_back((uint64_t{3} << 32) | i);  // all of fragment 3
  ASSERT_OK(DeleteRows(*ds, del).status());                                    // v3: 247 rows
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(dir));
  ASSERT_OK(CreateTag(*ds, "before_restore", 3));
  ASSERT_OK(Restore(*ds, 1).status());  // v4: 250 rows

  std::string out = fs::path(dir).parent_path().string() + "/dump.json";
  std::string cmd = "LANCE_PEER_DIR='" + peer_dir + "' node '" + peer_scripts + "/dump.mjs' '" + dir +
                    "' --all-versions --out '" + out + "' 2>&1";
  int rc = std::system(cmd.c_str());
  ASSERT_EQ(rc, 0) << cmd;
  std::ifstream in(out);
  nlohmann::json doc = nlohmann::json::parse(in);

  ASSERT_EQ(doc["versions"].size(), 4u) << doc["versions"].dump();
  std::vector<int64_t> counts;
  for (const auto& v : doc["versions"]) counts.push_back(AsInt(v["num_rows"]));
  EXPECT_EQ(counts, (std::vector<int64_t>{250, 300, 247, 250}));
  EXPECT_EQ(AsInt(doc["tags"]["before_restore"]), 3);

  ASSERT_EQ(doc["snapshots"].size(), 4u);
  const auto& v3 = doc["snapshots"][2];
  EXPECT_EQ(AsInt(v3["version"]), 3);
  ASSERT_EQ(v3["rows"].size(), 247u);
  // Rows are in row-address order: 0 and 1 are deleted, so the first is id 2.
  EXPECT_EQ(AsInt(v3["rows"][0]["id"]), 2);
  EXPECT_EQ(v3["rows"][0]["name"], "n2");
  EXPECT_EQ(AsInt(v3["rows"][3]["id"]), 5);
  EXPECT_TRUE(v3["rows"][3]["name"].is_null());
  // Fragment 2 lost offset 10 (id 210); fragment 3 is gone.
  std::set<int64_t> ids;
  for (const auto& r : v3["rows"]) ids.insert(AsInt(r["id"]));
  EXPECT_EQ(ids.count(210), 0u);
  EXPECT_EQ(ids.count(209), 1u);
  EXPECT_EQ(ids.count(260), 0u);
  EXPECT_EQ(*ids.rbegin(), 249);
  const auto& v4 = doc["snapshots"][3];
  ASSERT_EQ(v4["rows"].size(), 250u);
  EXPECT_EQ(AsInt(v4["rows"][249]["id"]), 249);
  EXPECT_EQ(v4["rows"][249]["name"], "n249");
  fs::remove_all(fs::path(dir).parent_path());
}

}  // namespace
}  // namespace lancet::table
