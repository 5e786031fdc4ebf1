// DeleteWhere: deleting the rows a filter matches, and leaving the dataset untouched for a
// filter that does not bind.
#include <gtest/gtest.h>

#include "lancet/io/object_store.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/pred";

RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    names.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(i % 3)));
  }
  return *MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names)});
}

std::vector<int64_t> Ids(const Dataset& ds) {
  ScanOptions scan;
  scan.columns = {"id"};
  auto batches = ds.Scan(scan);
  EXPECT_TRUE(batches.ok());
  std::vector<int64_t> ids;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) ids.push_back(b.columns[0].values<int64_t>()[i]);
  }
  return ids;
}

// Every object under `root` in `store`, recursively.
std::vector<std::string> AllFiles(const io::ObjectStore& store, const std::string& dir) {
  std::vector<std::string> out;
  auto listed = store.List(dir);
  if (!listed.ok()) return out;
  for (const io::ObjectInfo& info : *listed) {
    std::string p = dir + "/" + info.path;
    if (info.is_dir) {
      for (std::string& f : AllFiles(store, p)) out.push_back(std::move(f));
    } else {
      out.push_back(p);
    }
  }
  return out;
}

TEST(DeleteWhere, DeletesMatchingRowsAcrossFragments) {
  auto store = io::NewMemoryStore();
  WriteParams params;
  params.max_rows_per_file = 10;
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 30).schema, {Rows(0, 30)}, params));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  ASSERT_OK_AND_ASSIGN(uint64_t v,
                       DeleteWhere(*ds, "id < 3 OR (id >= 20 AND name IS NULL) OR name = 'n2' AND id > 25"));
  EXPECT_EQ(v, 2u);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(store, kRoot));
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 30; ++i) {
    bool null_name = i % 5 == 0;
    if (i < 3 || (i >= 20 && null_name) || (!null_name && i % 3 == 2 && i > 25)) continue;
    expected.push_back(i);
  }
  EXPECT_EQ(Ids(*after), expected);

  // Deleting every row of a fragment drops it; no match makes no version.
  ASSERT_OK_AND_ASSIGN(v, DeleteWhere(*after, "id >= 10 AND id < 20"));
  EXPECT_EQ(v, 3u);
  ASSERT_OK_AND_ASSIGN(auto third, Dataset::Open(store, kRoot));
  EXPECT_EQ(third->fragments().size(), 2u);
  ASSERT_OK_AND_ASSIGN(v, DeleteWhere(*third, "id = 12345"));
  EXPECT_EQ(v, 3u);
  ASSERT_OK_AND_ASSIGN(auto versions, third->ListVersions());
  EXPECT_EQ(versions.size(), 3u);
}

TEST(DeleteWhere, BadPredicateLeavesDatasetUntouched) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 10).schema, {Rows(0, 10)}));
  std::vector<std::string> before = AllFiles(*store, kRoot);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  for (const char* bad : {"missing = 1", "id = 'one'", "id =", "name.x IS NULL", "id = 99999999999999999999"}) {
    auto r = DeleteWhere(*ds, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(kRoot), std::string::npos) << r.status().ToString();
  }
  auto r = DeleteWhere(*ds, "missing = 1");
  EXPECT_NE(r.status().message().find("column 'missing' not found"), std::string::npos);
  EXPECT_EQ(AllFiles(*store, kRoot), before);
  ASSERT_OK_AND_ASSIGN(auto again, Dataset::Open(store, kRoot));
  EXPECT_EQ(again->version(), 1u);
  EXPECT_EQ(again->CountRows(), 10u);
}

}  // namespace
}  // namespace lancet::table
