// MergeInsert into tables with a Blob V2 column: matched rows keep or replace their
// bytes (placed by size), inserted rows store theirs, format 2.3 refuses new bytes.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lancet/record_batch_reader.h"
#include "lancet/table/dataset.h"
#include "lancet/table/merge_insert.h"
#include "lancet/table/write.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/merge-blobs";
using Bytes = std::optional<std::string>;

// i bytes of 'a' + i % 26: rows 0..3 inline, 4..11 packed, above 12 dedicated with
// WriteTwoFragmentBlobTable's thresholds.
std::string Payload(int64_t i, char base = 'a') {
  return std::string(static_cast<size_t>(i), static_cast<char>(base + i % 26));
}

RecordBatch Rows(const std::vector<int64_t>& ids, const std::vector<Bytes>& payloads, bool with_payload = true) {
  std::vector<double> xs;
  for (int64_t id : ids) xs.push_back(static_cast<double>(id));
  std::vector<std::string> names = {"id", "x"};
  std::vector<Array> cols = {*ArrayFromVector(MakeType(TypeId::kInt64), ids),
                             *ArrayFromVector(MakeType(TypeId::kFloat64), xs)};
  if (with_payload) {
    names.push_back("payload");
    cols.push_back(*MakeBinaryArray(MakeType(TypeId::kBinary), payloads));
  }
  return *MakeRecordBatch(names, cols);
}

RecordBatch FirstRows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<Bytes> payloads;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    payloads.push_back(Payload(i));
  }
  return Rows(ids, payloads);
}

// Two fragments of 20 rows (ids 0..39).
std::shared_ptr<io::ObjectStore> MakeTable(bool stable, StorageVersion storage = StorageVersion::k2_2) {
  return testing::WriteTwoFragmentBlobTable(kRoot, FirstRows(0, 20), FirstRows(20, 20), stable, storage);
}

std::unique_ptr<Dataset> Latest(const std::shared_ptr<io::ObjectStore>& store) {
  return testing::OpenLatest(store, kRoot);
}

struct Row {
  double x = 0;
  Bytes payload;
  bool operator==(const Row&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Row& r) {
  return os << "{" << r.x << "," << (r.payload ? "'" + *r.payload + "'" : "null") << "}";
}

// Every row by id, with its blob bytes read back through TakeBlobs.
std::map<int64_t, Row> ReadAll(const Dataset& ds) {
  ScanOptions opts;
  opts.columns = {"id", "x"};
  opts.with_row_addr = true;
  auto batches = ds.Scan(opts);
  EXPECT_OK(batches.status());
  std::vector<int64_t> ids;
  std::vector<uint64_t> addrs;
  std::map<int64_t, Row> out;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      const int64_t id = b.columns[0].values<int64_t>()[i];
      EXPECT_FALSE(out.count(id)) << "row " << id << " twice";
      out[id].x = b.columns[1].values<double>()[i];
      ids.push_back(id);
      addrs.push_back(b.columns[2].values<uint64_t>()[i]);
    }
  }
  auto blobs = ds.TakeBlobs("payload", addrs, RowKey::kRowAddress);
  EXPECT_OK(blobs.status());
  if (!blobs.ok()) return out;
  for (size_t k = 0; k < ids.size(); ++k) {
    if ((*blobs)[k]) out[ids[k]].payload = std::string((*(*blobs)[k])->view());
  }
  return out;
}

std::map<int64_t, Row> Expected(int64_t n) {
  std::map<int64_t, Row> out;
  for (int64_t i = 0; i < n; ++i) out[i] = Row{static_cast<double>(i), Payload(i)};
  return out;
}

Result<MergeInsertResult> Merge(const Dataset& ds, const RecordBatch& source, MergeInsertOptions o = {}) {
  o.on = {"id"};
  auto reader = MakeBatchVectorReader(source.schema, {source});
  return MergeInsert(ds, *reader, o);
}

class MergeInsertBlobs : public ::testing::TestWithParam<bool> {};

TEST_P(MergeInsertBlobs, ASourceWithoutTheBlobColumnKeepsTheBytesOfMatchedRows) {
  auto store = MakeTable(GetParam());
  // Matches in both fragments and in every placement, plus two new rows.
  RecordBatch src = Rows({2, 7, 15, 25, 39, 40, 41}, {}, false);
  src.columns[1] = *ArrayFromVector(MakeType(TypeId::kFloat64), std::vector<double>{-2, -7, -15, -25, -39, -40, -41});
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*Latest(store), src));
  EXPECT_EQ(r.rows_updated, 5u);
  EXPECT_EQ(r.rows_inserted, 2u);
  auto expected = Expected(40);
  for (int64_t id : {2, 7, 15, 25, 39}) expected[id].x = -static_cast<double>(id);
  expected[40] = Row{-40, std::nullopt};
  expected[41] = Row{-41, std::nullopt};
  EXPECT_EQ(ReadAll(*Latest(store)), expected);
}

TEST_P(MergeInsertBlobs, NewBytesArePlacedBySizeForMatchedAndInsertedRows) {
  auto store = MakeTable(GetParam());
  const std::string big(5000, 'Z');  // past the dedicated threshold
  RecordBatch src = Rows({1, 9, 30, 33, 50, 51, 52},
                         {"replaced, packed size", "x", big, std::nullopt, "new", "inserted, packed", big + "!"});
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*Latest(store), src));
  EXPECT_EQ(r.rows_updated, 4u);
  EXPECT_EQ(r.rows_inserted, 3u);
  auto expected = Expected(40);
  expected[1].payload = "replaced, packed size";
  expected[9].payload = "x";
  expected[30].payload = big;
  expected[33].payload = std::nullopt;
  expected[50] = Row{50, "new"};
  expected[51] = Row{51, "inserted, packed"};
  expected[52] = Row{52, big + "!"};
  EXPECT_EQ(ReadAll(*Latest(store)), expected);
}

TEST_P(MergeInsertBlobs, TheInputStructShapeAndASpilledSourceWorkToo) {
  auto store = MakeTable(GetParam());
  std::vector<int64_t> ids;
  std::vector<Bytes> payloads;
  auto expected = Expected(40);
  for (int64_t i = 10; i < 60; ++i) {
    ids.push_back(i);
    payloads.push_back(Payload(i, 'A'));
    expected[i] = Row{static_cast<double>(i), Payload(i, 'A')};
  }
  RecordBatch src = Rows(ids, payloads);
  // struct<data, uri>, as a write takes it.
  Array& col = src.columns[2];
  ASSERT_OK_AND_ASSIGN(Array uri, MakeNullArray(MakeType(TypeId::kUtf8), col.length));
  DataType shape = StructOf({MakeField("data", col.type), MakeField("uri", uri.type)});
  ASSERT_OK_AND_ASSIGN(col, MakeStructArray(shape, col.length, {col, uri}, std::vector<bool>(50, true)));
  src.schema.fields[2].type = shape;
  MergeInsertOptions o;
  o.memory_budget_bytes = 256;  // every row spills
  o.spill_partitions = 4;
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*Latest(store), src, o));
  EXPECT_GT(r.spilled_bytes, 0u);
  EXPECT_EQ(r.rows_updated, 30u);
  EXPECT_EQ(r.rows_inserted, 20u);
  EXPECT_EQ(ReadAll(*Latest(store)), expected);
}

TEST_P(MergeInsertBlobs, AConditionOnTheTargetSeesTheOldRows) {
  auto store = MakeTable(GetParam());
  RecordBatch src = Rows({3, 4, 5, 6}, {"p3", "p4", "p5", "p6"});
  MergeInsertOptions o;
  o.when_matched_condition = "target.x >= 5";
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, Merge(*Latest(store), src, o));
  EXPECT_EQ(r.rows_updated, 2u);
  auto expected = Expected(40);
  expected[5].payload = "p5";
  expected[6].payload = "p6";
  EXPECT_EQ(ReadAll(*Latest(store)), expected);
}

INSTANTIATE_TEST_SUITE_P(StableRowIds, MergeInsertBlobs, ::testing::Bool());

TEST(MergeInsertBlobs23, NewBytesAreRefusedAndMatchedRowsKeepTheirBlobs) {
  auto store = MakeTable(false, StorageVersion::k2_3);
  auto refused = Merge(*Latest(store), Rows({1, 50}, {"a", "b"}));
  EXPECT_TRUE(refused.status().IsInvalidArgument()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("blob_info"), std::string::npos) << refused.status().ToString();
  EXPECT_EQ(Latest(store)->version(), 2u) << "nothing committed";

  RecordBatch src = Rows({8, 20, 45}, {}, false);
  ASSERT_OK(Merge(*Latest(store), src).status());
  auto expected = Expected(40);
  expected[45] = Row{45, std::nullopt};
  EXPECT_EQ(ReadAll(*Latest(store)), expected);
}

TEST(MergeInsertBlobErrors, ASourceColumnThatIsNotBytesIsAClearError) {
  auto store = MakeTable(false);
  RecordBatch src = Rows({1}, {}, false);
  src.schema.fields.push_back(MakeField("payload", MakeType(TypeId::kInt64)));
  src.columns.push_back(*ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{7}));
  auto refused = Merge(*Latest(store), src);
  EXPECT_TRUE(refused.status().IsInvalidArgument()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("payload"), std::string::npos) << refused.status().ToString();
}

}  // namespace
}  // namespace lancet::table
