// Update: SET values and expressions, nulls and casts, row ids and addresses, deletion
// files, emptied fragments, blob columns, errors that leave nothing behind.
#include "lancet/table/update.h"

#include <gtest/gtest.h>

#include <map>

#include "lancet/table/write.h"
#include "table/evolution_io.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/update";

// id int64 (not null), name utf8 ("n<i>", null every 5th), x float64 = i, i32 = i,
// payload binary stored as blob: i bytes of 'a' + i%26 (so inline, packed, dedicated).
RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names, payloads;
  std::vector<double> xs;
  std::vector<int32_t> i32s;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    names.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(i)));
    xs.push_back(static_cast<double>(i));
    i32s.push_back(static_cast<int32_t>(i));
    payloads.push_back(std::string(static_cast<size_t>(i), static_cast<char>('a' + i % 26)));
  }
  RecordBatch b = *MakeRecordBatch(
      {"id", "name", "x", "i32", "payload"},
      {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names),
       *ArrayFromVector(MakeType(TypeId::kFloat64), xs), *ArrayFromVector(MakeType(TypeId::kInt32), i32s),
       *MakeBinaryArray(MakeType(TypeId::kBinary), payloads)});
  b.schema.fields[0].nullable = false;
  return b;
}

// Two fragments of 10 rows (ids 0..19).
std::shared_ptr<io::ObjectStore> MakeTable(bool stable, StorageVersion storage = StorageVersion::k2_2) {
  return testing::WriteTwoFragmentBlobTable(kRoot, Rows(0, 10), Rows(10, 10), stable, storage);
}

std::unique_ptr<Dataset> Latest(const std::shared_ptr<io::ObjectStore>& store) {
  return testing::OpenLatest(store, kRoot);
}

struct Row {
  std::optional<std::string> name;
  double x = 0;
  int32_t i32 = 0;
  uint64_t rowid = 0, rowaddr = 0;
};

std::map<int64_t, Row> ReadAll(const Dataset& ds) {
  ScanOptions opts;
  opts.columns = {"id", "name", "x", "i32"};
  opts.with_row_id = true;
  opts.with_row_addr = true;
  auto batches = ds.Scan(opts);
  EXPECT_OK(batches.status());
  std::map<int64_t, Row> out;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      int64_t id = b.columns[0].values<int64_t>()[i];
      EXPECT_FALSE(out.count(id)) << "row " << id << " twice";
      Row r;
      if (b.columns[1].IsValid(i)) r.name = std::string(b.columns[1].GetView(i));
      r.x = b.columns[2].values<double>()[i];
      r.i32 = b.columns[3].values<int32_t>()[i];
      r.rowid = b.columns[4].values<uint64_t>()[i];
      r.rowaddr = b.columns[5].values<uint64_t>()[i];
      out[id] = r;
    }
  }
  return out;
}

// The payload bytes of every row, by id.
std::map<int64_t, std::optional<std::string>> Payloads(const Dataset& ds) {
  std::map<int64_t, Row> rows = ReadAll(ds);
  std::vector<uint64_t> addrs;
  std::vector<int64_t> ids;
  for (const auto& [id, r] : rows) {
    ids.push_back(id);
    addrs.push_back(r.rowaddr);
  }
  auto blobs = ds.TakeBlobs("payload", addrs, RowKey::kRowAddress);
  EXPECT_OK(blobs.status());
  std::map<int64_t, std::optional<std::string>> out;
  for (size_t k = 0; k < ids.size(); ++k) {
    if ((*blobs)[k])
      out[ids[k]] = std::string((*(*blobs)[k])->view());
    else
      out[ids[k]] = std::nullopt;
  }
  return out;
}

size_t FilesUnder(const io::ObjectStore& store, const std::string& dir) {
  auto listed = store.List(dir);
  return listed.ok() ? listed->size() : 0;
}

TEST(Update, SetsValuesFromExpressionsOverOtherColumns) {
  auto store = MakeTable(false);
  auto ds = Latest(store);
  ASSERT_OK_AND_ASSIGN(
      UpdateResult r, Update(*ds, "id >= 3 AND id < 13", {{"x", "x * 2 + id"}, {"name", "upper(name)"}, {"i32", "7"}}));
  EXPECT_EQ(r.version, 3u);
  EXPECT_EQ(r.rows_updated, 10u);
  auto after = ReadAll(*Latest(store));
  ASSERT_EQ(after.size(), 20u);
  for (int64_t i = 0; i < 20; ++i) {
    SCOPED_TRACE(i);
    const bool hit = i >= 3 && i < 13;
    const Row& row = after.at(i);
    EXPECT_DOUBLE_EQ(row.x, hit ? 3.0 * static_cast<double>(i) : static_cast<double>(i));
    EXPECT_EQ(row.i32, hit ? 7 : i);
    std::optional<std::string> name;
    if (i % 5 != 0) name = (hit ? "N" : "n") + std::to_string(i);
    EXPECT_EQ(row.name, name);  // upper(NULL) stays null
  }
}

TEST(Update, NullsAndCastsToTheColumnType) {
  auto store = MakeTable(false);
  auto ds = Latest(store);
  // NULL into a nullable column; an int64 expression into int32; an integer into a double.
  ASSERT_OK(Update(*ds, "id = 4", {{"name", "NULL"}, {"i32", "id * 1000"}, {"x", "5"}}).status());
  auto after = ReadAll(*Latest(store));
  EXPECT_EQ(after.at(4).name, std::nullopt);
  EXPECT_EQ(after.at(4).i32, 4000);
  EXPECT_DOUBLE_EQ(after.at(4).x, 5.0);
}

TEST(Update, EmptyWhereUpdatesEveryRowAndRemovesTheOldFragments) {
  auto store = MakeTable(false);
  auto ds = Latest(store);
  ASSERT_OK_AND_ASSIGN(UpdateResult r, Update(*ds, "", {{"i32", "i32 + 100"}}));
  EXPECT_EQ(r.rows_updated, 20u);
  auto latest = Latest(store);
  ASSERT_EQ(latest->fragments().size(), 1u);
  EXPECT_EQ(latest->fragments()[0].id, 2u);
  EXPECT_TRUE(latest->fragments()[0].deletion_file.empty());
  auto after = ReadAll(*latest);
  ASSERT_EQ(after.size(), 20u);
  for (int64_t i = 0; i < 20; ++i) EXPECT_EQ(after.at(i).i32, i + 100);
}

TEST(Update, NoMatchCommitsNothing) {
  auto store = MakeTable(false);
  auto ds = Latest(store);
  ASSERT_OK_AND_ASSIGN(UpdateResult r, Update(*ds, "id > 1000", {{"x", "0"}}));
  EXPECT_EQ(r.version, 2u);
  EXPECT_EQ(r.rows_updated, 0u);
  EXPECT_EQ(Latest(store)->version(), 2u);
}

TEST(Update, RowIdsStayWithStableRowIdsAndAddressesMove) {
  for (bool stable : {false, true}) {
    SCOPED_TRACE(stable);
    auto store = MakeTable(stable);
    auto ds = Latest(store);
    auto before = ReadAll(*ds);
    ASSERT_OK(Update(*ds, "id IN (2, 11)", {{"x", "-1"}}).status());
    auto latest = Latest(store);
    auto after = ReadAll(*latest);
    for (int64_t id : {2, 11}) {
      EXPECT_EQ(after.at(id).rowaddr >> 32, 2u);  // the new fragment
      EXPECT_NE(after.at(id).rowaddr, before.at(id).rowaddr);
      if (stable) {
        EXPECT_EQ(after.at(id).rowid, before.at(id).rowid);
      } else {
        EXPECT_EQ(after.at(id).rowid, after.at(id).rowaddr);
      }
    }
    EXPECT_EQ(after.at(3).rowaddr, before.at(3).rowaddr);
    // One deletion file per touched fragment, holding its moved row.
    ASSERT_EQ(latest->fragments().size(), 3u);
    EXPECT_EQ(latest->fragments()[0].deleted_rows, 1u);
    EXPECT_EQ(latest->fragments()[1].deleted_rows, 1u);
    EXPECT_FALSE(latest->fragments()[0].deletion_file.empty());
    // A second update of the same fragment extends its deletion vector.
    ASSERT_OK(Update(*latest, "id = 5", {{"x", "-2"}}).status());
    auto third = Latest(store);
    EXPECT_EQ(third->fragments()[0].deleted_rows, 2u);
    EXPECT_EQ(third->CountRows(), 20u);
    if (stable) {
      ASSERT_OK_AND_ASSIGN(VersionManifest vm, ReadVersionManifest(*store, kRoot, third->version()));
      EXPECT_EQ(vm.manifest.next_row_id(), 20u);  // updates hand out no ids
    }
  }
}

TEST(Update, BlobColumnsAreCarriedAndCanBeSet) {
  auto store = MakeTable(true);
  auto ds = Latest(store);
  auto before = Payloads(*ds);
  // Rows of every placement (inline 0..4, packed 5..12, dedicated above) move.
  ASSERT_OK(Update(*ds, "id % 3 = 0", {{"x", "0"}}).status());
  auto moved = Latest(store);
  EXPECT_EQ(Payloads(*moved), before);
  // Setting the blob column stores the new bytes; NULL makes a null blob.
  ASSERT_OK(Update(*moved, "id = 1 OR id = 15", {{"payload", "'replaced bytes, long enough to pack'"}}).status());
  ASSERT_OK(Update(*Latest(store), "id = 18", {{"payload", "NULL"}}).status());
  auto latest = Latest(store);
  auto after = Payloads(*latest);
  auto expected = before;
  expected[1] = expected[15] = "replaced bytes, long enough to pack";
  expected[18] = std::nullopt;
  EXPECT_EQ(after, expected);
}

TEST(Update, Format23KeepsBlobBytesAndRefusesSettingTheBlobColumn) {
  auto store = MakeTable(false, StorageVersion::k2_3);
  auto ds = Latest(store);
  auto before = Payloads(*ds);
  ASSERT_OK(Update(*ds, "id >= 8 AND id < 14", {{"name", "'moved'"}}).status());
  auto latest = Latest(store);
  EXPECT_EQ(Payloads(*latest), before);
  EXPECT_EQ(ReadAll(*latest).at(9).name, "moved");
  auto refused = Update(*latest, "id = 1", {{"payload", "'x'"}});
  EXPECT_TRUE(refused.status().IsInvalidArgument()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("blob_info"), std::string::npos) << refused.status().ToString();
}

TEST(Update, ErrorsNameTheProblemAndLeaveNothingBehind) {
  auto store = MakeTable(false);
  auto ds = Latest(store);
  const size_t data_files = FilesUnder(*store, std::string(kRoot) + "/data");
  const size_t deletion_files = FilesUnder(*store, std::string(kRoot) + "/_deletions");
  struct Case {
    std::vector<std::pair<std::string, std::string>> set;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{}, "sets no column"},
      {{{"nope", "1"}}, "'nope': no such column"},
      {{{"_rowid", "1"}}, "'_rowid'"},
      {{{"x", "1"}, {"x", "2"}}, "set twice"},
      {{{"x", "1 +"}}, "SET x"},
      {{{"x", "missing_col * 2"}}, "missing_col"},
      {{{"x", "DATE '2024-01-01'"}}, "cannot be stored in column 'x'"},
      {{{"id", "NULL"}}, "not nullable"},
      {{{"i32", "id + 3000000000"}}, "i32"},  // does not fit int32: fails while writing
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.needle);
    auto r = Update(*ds, "id > 2", c.set);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().ToString();
  }
  EXPECT_EQ(Latest(store)->version(), 2u);
  EXPECT_EQ(FilesUnder(*store, std::string(kRoot) + "/data"), data_files);
  EXPECT_EQ(FilesUnder(*store, std::string(kRoot) + "/_deletions"), deletion_files);
  // A bad predicate fails the scan.
  EXPECT_FALSE(Update(*ds, "id >", {{"x", "1"}}).ok());
}

}  // namespace
}  // namespace lancet::table
