// The reference (lance 12 through the node peer) reads what schema evolution and
// compaction commit, on tables we wrote and on tables the reference wrote. Skips
// without node or an installed peer (and the corpus parts without the corpus).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/peer.h"
#include "lancet/table/compaction.h"
#include "lancet/table/evolution.h"
#include "lancet/table/write.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

namespace fs = std::filesystem;

class EvolutionPeer : public ::testing::Test {
 protected:
  void SetUp() override {
    scripts_ = lancet::testing::PeerHarnessDir();
    peer_ = lancet::testing::PeerInstallDir();
    if (std::system("node --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "node not found";
    if (!fs::exists(scripts_ + "/dump.mjs")) GTEST_SKIP() << "no peer scripts at " << scripts_;
    if (!fs::exists(peer_ + "/node_modules")) GTEST_SKIP() << "peer not installed at " << peer_;
    tmp_ = ::testing::TempDir() + "lancet_evolution_peer_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override {
    if (!tmp_.empty()) fs::remove_all(tmp_);
  }

  // The reference's reading of every version of `dir` (the dump.mjs contract).
  nlohmann::json Dump(const std::string& dir) {
    std::string out = tmp_ + "/dump.json";
    std::string cmd = "LANCE_PEER_DIR='" + peer_ + "' node '" + scripts_ + "/dump.mjs' '" + dir +
                      "' --all-versions --out '" + out + "' 2>&1";
    int rc = std::system(cmd.c_str());
    EXPECT_EQ(rc, 0) << cmd;
    std::ifstream in(out);
    return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  }

  std::string scripts_, peer_, tmp_;
};

int64_t AsInt(const nlohmann::json& j) { return j.is_string() ? std::stoll(j.get<std::string>()) : j.get<int64_t>(); }

RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<double> xs;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    xs.push_back(static_cast<double>(i) / 4);
    names.push_back(i % 7 == 0 ? std::nullopt : std::optional<std::string>("r" + std::to_string(i)));
  }
  return *MakeRecordBatch({"id", "name", "x"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names),
                                                *ArrayFromVector(MakeType(TypeId::kFloat64), xs)});
}

std::vector<std::string> FieldNames(const nlohmann::json& snapshot) {
  std::vector<std::string> out;
  for (const auto& f : snapshot["schema"]["fields"]) out.push_back(f["name"]);
  return out;
}

std::unique_ptr<Dataset> OpenOrDie(const std::string& dir) {
  auto ds = Dataset::Open(dir);
  EXPECT_OK(ds.status());
  return std::move(*ds);
}

TEST_F(EvolutionPeer, ReferenceReadsEvolvedAndCompactedTable) {
  std::string dir = tmp_ + "/t.lance";
  WriteParams create;
  create.max_rows_per_file = 100;
  ASSERT_OK(WriteDataset(dir, Rows(0, 0).schema, {Rows(0, 250)}, create).status());  // v1
  std::vector<uint64_t> del = {3, 4, (uint64_t{1} << 32) | 50};
  ASSERT_OK(DeleteRows(*OpenOrDie(dir), del).status());  // v2: 247 rows
  auto ds = OpenOrDie(dir);
  {
    ScanOptions opts;
    opts.columns = {"id"};
    ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
    std::vector<RecordBatch> doubled;
    for (const RecordBatch& b : batches) {
      std::vector<int64_t> v;
      for (int64_t i = 0; i < b.num_rows; ++i) v.push_back(2 * b.columns[0].values<int64_t>()[i]);
      doubled.push_back(*MakeRecordBatch({"doubled"}, {*ArrayFromVector(MakeType(TypeId::kInt64), v)}));
    }
    ASSERT_OK(AddColumns(*ds, doubled[0].schema, doubled).status());  // v3
  }
  ASSERT_OK(AddNullColumns(*OpenOrDie(dir), {MakeField("note", MakeType(TypeId::kUtf8))}).status());  // v4
  ASSERT_OK(RenameColumn(*OpenOrDie(dir), "name", "label").status());                                 // v5
  ASSERT_OK(DropColumns(*OpenOrDie(dir), {"x"}).status());                                            // v6
  ASSERT_OK(AlterColumnType(*OpenOrDie(dir), "id", MakeType(TypeId::kInt32)).status());               // v7
  {
    ds = OpenOrDie(dir);
    RecordBatch more = *MakeRecordBatch(
        {"id", "label", "doubled", "note"},
        {*ArrayFromVector(MakeType(TypeId::kInt32), std::vector<int32_t>{1000, 1001}), StringArray({"a", std::nullopt}),
         *ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{2000, 2002}), StringArray({"n", "m"})});
    WriteParams append;
    append.mode = WriteMode::kAppend;
    ASSERT_OK(WriteDataset(dir, ds->schema(), {more}, append).status());  // v8: fragment 3
  }
  CompactionOptions copts;
  copts.target_rows_per_fragment = 1000;
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*OpenOrDie(dir), copts));  // v9
  EXPECT_EQ(m.version, 9u);
  EXPECT_EQ(m.fragments_removed, 4u);
  EXPECT_EQ(m.fragments_added, 1u);

  nlohmann::json doc = Dump(dir);
  ASSERT_EQ(doc["snapshots"].size(), 9u) << doc.dump().substr(0, 2000);
  std::vector<int64_t> counts;
  for (const auto& v : doc["versions"]) counts.push_back(AsInt(v["num_rows"]));
  EXPECT_EQ(counts, (std::vector<int64_t>{250, 247, 247, 247, 247, 247, 247, 249, 249}));
  const auto& snaps = doc["snapshots"];
  EXPECT_EQ(FieldNames(snaps[2]), (std::vector<std::string>{"id", "name", "x", "doubled"}));
  EXPECT_EQ(FieldNames(snaps[3]), (std::vector<std::string>{"id", "name", "x", "doubled", "note"}));
  EXPECT_EQ(FieldNames(snaps[4]), (std::vector<std::string>{"id", "label", "x", "doubled", "note"}));
  EXPECT_EQ(FieldNames(snaps[5]), (std::vector<std::string>{"id", "label", "doubled", "note"}));
  EXPECT_EQ(snaps[6]["schema"]["fields"][0]["type"], "int32");
  EXPECT_EQ(snaps[8]["num_fragments"], 1);
  // Every version's rows carry the values the operations gave them.
  for (size_t s = 2; s < 9; ++s) {
    const auto& rows = snaps[s]["rows"];
    for (const auto& row : rows) {
      int64_t id = AsInt(row["id"]);
      if (id >= 1000) {
        EXPECT_EQ(AsInt(row["doubled"]), 2 * id);
        continue;
      }
      EXPECT_EQ(AsInt(row["doubled"]), 2 * id) << "v" << s + 1 << " id " << id;
      if (s >= 3) {
        EXPECT_TRUE(row["note"].is_null());
      }
      const auto& name = row[s < 4 ? "name" : "label"];
      if (id % 7 == 0) {
        EXPECT_TRUE(name.is_null()) << "v" << s + 1 << " id " << id;
      } else {
        EXPECT_EQ(name, "r" + std::to_string(id)) << "v" << s + 1 << " id " << id;
      }
      if (s < 5) {
        EXPECT_DOUBLE_EQ(row["x"].is_string() ? std::stod(row["x"].get<std::string>()) : row["x"].get<double>(),
                         static_cast<double>(id) / 4);
      }
    }
  }
  const auto& last = snaps[8]["rows"];
  ASSERT_EQ(last.size(), 249u);
  std::vector<int64_t> ids;
  for (const auto& r : last) ids.push_back(AsInt(r["id"]));
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 250; ++i) {
    if (i != 3 && i != 4 && i != 150) expected.push_back(i);
  }
  expected.push_back(1000);
  expected.push_back(1001);
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(last[247]["note"], "n");
}

// Ours on top of the reference's: the corpus `evolution` table (add/rename/drop/cast by
// the reference) gets a column from us, loses one, and is compacted.
TEST_F(EvolutionPeer, OurChangesOnTheReferenceEvolutionTable) {
  if (!testing::HasCorpusDataset("evolution")) GTEST_SKIP() << "no corpus at " << testing::CorpusDir();
  std::string dir = tmp_ + "/evolution.lance";
  fs::copy(testing::CorpusDir() + "/data/evolution.lance", dir, fs::copy_options::recursive);
  auto ds = OpenOrDie(dir);
  uint64_t base = ds->version();
  const uint64_t rows = ds->CountRows();
  std::vector<int64_t> neg(rows);
  ScanOptions opts;
  opts.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
  size_t k = 0;
  for (const RecordBatch& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) neg[k++] = -b.columns[0].values<int64_t>()[i];
  }
  RecordBatch add = *MakeRecordBatch({"neg"}, {*ArrayFromVector(MakeType(TypeId::kInt64), neg)});
  ASSERT_OK(AddColumns(*ds, add.schema, {add}).status());
  ASSERT_OK(DropColumns(*OpenOrDie(dir), {"a2"}).status());
  CompactionOptions copts;
  copts.target_rows_per_fragment = 10000;
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*OpenOrDie(dir), copts));
  EXPECT_EQ(m.version, base + 3);

  nlohmann::json doc = Dump(dir);
  ASSERT_EQ(doc["snapshots"].size(), base + 3);
  std::ifstream in(testing::CorpusDir() + "/expected/evolution.json");
  nlohmann::json expected = nlohmann::json::parse(in);
  const auto& before = expected["snapshots"][base - 1]["rows"];
  const auto& after = doc["snapshots"][base + 2];
  EXPECT_EQ(FieldNames(after), (std::vector<std::string>{"id", "alpha", "s", "score", "neg"}));
  EXPECT_EQ(after["num_fragments"], 1);
  ASSERT_EQ(after["rows"].size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    const auto& want = before[i];
    const auto& got = after["rows"][i];
    EXPECT_EQ(AsInt(got["id"]), AsInt(want["id"])) << i;
    EXPECT_EQ(AsInt(got["neg"]), -AsInt(want["id"])) << i;
    EXPECT_EQ(got["alpha"], want["alpha"]) << i;
    EXPECT_EQ(got["s"], want["s"]) << i;
    EXPECT_EQ(got["score"], want["score"]) << i;
  }
}

// Row ids survive compaction as the reference sees them: the corpus table with stable
// row ids (moved rows, deletions, appends) loses its blob column and is compacted.
TEST_F(EvolutionPeer, CompactionKeepsTheReferencesStableRowIds) {
  if (!testing::HasCorpusDataset("stable_row_ids")) GTEST_SKIP() << "no corpus at " << testing::CorpusDir();
  std::string dir = tmp_ + "/stable_row_ids.lance";
  fs::copy(testing::CorpusDir() + "/data/stable_row_ids.lance", dir, fs::copy_options::recursive);
  uint64_t base = OpenOrDie(dir)->version();
  ASSERT_OK(DropColumns(*OpenOrDie(dir), {"b"}).status());
  CompactionOptions copts;
  copts.target_rows_per_fragment = 10000;
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*OpenOrDie(dir), copts));
  EXPECT_EQ(m.fragments_added, 1u);

  nlohmann::json doc = Dump(dir);
  ASSERT_EQ(doc["snapshots"].size(), base + 2);
  std::ifstream in(testing::CorpusDir() + "/expected/stable_row_ids.json");
  nlohmann::json expected = nlohmann::json::parse(in);
  std::map<int64_t, std::pair<int64_t, nlohmann::json>> want;  // _rowid -> (id, v)
  for (const auto& r : expected["snapshots"][base - 1]["rows"]) want[AsInt(r["_rowid"])] = {AsInt(r["id"]), r["v"]};
  const auto& rows = doc["snapshots"][base + 1]["rows"];
  ASSERT_EQ(rows.size(), want.size());
  size_t moved = 0;
  for (const auto& r : rows) {
    int64_t rowid = AsInt(r["_rowid"]);
    auto it = want.find(rowid);
    ASSERT_NE(it, want.end()) << "row id " << rowid;
    EXPECT_EQ(AsInt(r["id"]), it->second.first) << "row id " << rowid;
    EXPECT_EQ(r["v"], it->second.second) << "row id " << rowid;
    moved += AsInt(r["_rowaddr"]) != rowid;
  }
  EXPECT_GT(moved, 0u);
}

// Compaction moves blob bytes into the new data file; the reference must find every
// blob (inline, packed, dedicated, empty, null) with the same bytes.
TEST_F(EvolutionPeer, CompactedBlobsReadByReference) {
  for (const std::string name : {"blobs", "blobs_custom"}) {
    if (!testing::HasCorpusDataset(name)) GTEST_SKIP() << "no corpus at " << testing::CorpusDir();
    std::string dir = tmp_ + "/" + name + ".lance";
    fs::copy(testing::CorpusDir() + "/data/" + name + ".lance", dir, fs::copy_options::recursive);
    uint64_t base = OpenOrDie(dir)->version();
    ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*OpenOrDie(dir), {}));
    EXPECT_EQ(m.version, base + 1);

    nlohmann::json doc = Dump(dir);
    ASSERT_EQ(doc["snapshots"].size(), base + 1) << name;
    std::ifstream in(testing::CorpusDir() + "/expected/" + name + ".json");
    nlohmann::json expected = nlohmann::json::parse(in);
    const auto& want = expected["snapshots"][base - 1];
    const auto& got = doc["snapshots"][base];
    EXPECT_EQ(got["blob_columns"], want["blob_columns"]) << name;
    EXPECT_EQ(got["num_fragments"], 1) << name;
    std::map<int64_t, nlohmann::json> by_id;
    for (const auto& r : want["rows"]) by_id[AsInt(r["id"])] = r;
    ASSERT_EQ(got["rows"].size(), by_id.size()) << name;
    for (const auto& r : got["rows"]) {
      int64_t id = AsInt(r["id"]);
      ASSERT_TRUE(by_id.count(id)) << name << " id " << id;
      const auto& w = by_id[id];
      for (const auto& [col, value] : w.items()) {
        if (col == "_rowid" || col == "_rowaddr") continue;
        bool blob = value.is_object() && value.contains("bytes");
        if (blob) {
          EXPECT_EQ(r[col]["bytes"], value["bytes"]) << name << " id " << id << " " << col;
        } else {
          EXPECT_EQ(r[col], value) << name << " id " << id << " " << col;
        }
      }
    }
  }
}

}  // namespace
}  // namespace lancet::table
