// WriteDataset over a RecordBatchReader: data files are written while the reader is
// still producing, the commit comes once at the end, and a reader that fails leaves
// the dataset at its version with no data files behind.
#include <gtest/gtest.h>

#include <functional>

#include "lancet/record_batch_reader.h"
#include "lancet/table/write.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

// Yields `count` batches of `rows` rows (ids continue across batches), calls
// `before_batch(i)` before producing batch i, and fails instead of yielding batch
// `fail_at` when set.
class CountingReader final : public RecordBatchReader {
 public:
  CountingReader(int count, int64_t rows, std::optional<int> fail_at = std::nullopt)
      : count_(count), rows_(rows), fail_at_(fail_at), schema_(testing::IdNameXRows(0, 1).schema) {}
  const Schema& schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    if (next_ == fail_at_) return Status::IOError("source broke at batch " + std::to_string(next_));
    if (next_ >= count_) return std::optional<RecordBatch>();
    if (before_batch) before_batch(next_);
    RecordBatch b = testing::IdNameXRows(next_ * rows_, rows_);
    ++next_;
    return std::optional<RecordBatch>(std::move(b));
  }
  std::function<void(int)> before_batch;

 private:
  int count_;
  int64_t rows_;
  std::optional<int> fail_at_;
  Schema schema_;
  int next_ = 0;
};

size_t CountDataFiles(io::ObjectStore& store, const std::string& root) {
  auto list = store.List(root + "/data");
  if (!list.ok()) return 0;
  size_t n = 0;
  for (const io::ObjectInfo& e : *list) n += e.is_dir ? 0 : 1;
  return n;
}

TEST(StreamWrite, RollsFilesWhileTheReaderProduces) {
  auto store = io::NewMemoryStore();
  const std::string root = "/ds.lance";
  CountingReader reader(10, 100);
  std::vector<size_t> files_seen;
  reader.before_batch = [&](int) { files_seen.push_back(CountDataFiles(*store, root)); };
  WriteParams params;
  params.max_rows_per_file = 250;
  ASSERT_OK_AND_ASSIGN(uint64_t version, WriteDataset(store, root, reader, params));
  EXPECT_EQ(version, 1u);
  // Batch 3 (rows 300-399) is pulled after rows 0-249 went to a finished file, and the
  // last batch after three files: the writer does not hold the input back.
  ASSERT_EQ(files_seen.size(), 10u);
  EXPECT_EQ(files_seen[3], 1u);
  EXPECT_EQ(files_seen[9], 3u);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root));
  EXPECT_EQ(ds->CountRows(), 1000u);
  ASSERT_EQ(ds->fragments().size(), 4u);
  for (const FragmentInfo& f : ds->fragments()) EXPECT_EQ(f.physical_rows, 250u);
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan());
  int64_t expect = 0;
  for (const RecordBatch& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) ASSERT_EQ(b.columns[0].values<int64_t>()[i], expect++);
  }
  EXPECT_EQ(expect, 1000);
}

TEST(StreamWrite, FailingReaderCommitsNothing) {
  auto store = io::NewMemoryStore();
  const std::string root = "/ds.lance";
  ASSERT_OK(WriteDataset(store, root, testing::IdNameXRows(0, 1).schema, {testing::IdNameXRows(0, 10)}).status());
  const size_t files_before = CountDataFiles(*store, root);
  ASSERT_EQ(files_before, 1u);

  // Fails after four batches, by which time two data files were finished.
  CountingReader reader(10, 100, /*fail_at=*/4);
  WriteParams params;
  params.mode = WriteMode::kAppend;
  params.max_rows_per_file = 150;
  auto r = WriteDataset(store, root, reader, params);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIOError);
  EXPECT_EQ(r.status().message(), "source broke at batch 4");
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(ds->CountRows(), 10u);
  EXPECT_EQ(CountDataFiles(*store, root), files_before);

  // Creating a dataset from a failing reader leaves no dataset at all.
  CountingReader fresh(5, 100, /*fail_at=*/2);
  ASSERT_FALSE(WriteDataset(store, "/new.lance", fresh, {}).ok());
  EXPECT_TRUE(Dataset::Open(store, "/new.lance").status().IsNotFound());
  EXPECT_EQ(CountDataFiles(*store, "/new.lance"), 0u);
}

TEST(StreamWrite, BinaryAsBlobConvertsEachBatch) {
  auto store = io::NewMemoryStore();
  Schema schema{{MakeField("id", MakeType(TypeId::kInt64)), MakeField("b", MakeType(TypeId::kBinary))}, {}};
  std::vector<RecordBatch> batches;
  for (int64_t k = 0; k < 3; ++k) {
    ASSERT_OK_AND_ASSIGN(Array id, ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{k * 2, k * 2 + 1}));
    ASSERT_OK_AND_ASSIGN(Array b, MakeBinaryArray(MakeType(TypeId::kBinary),
                                                  {std::string(static_cast<size_t>(k + 1), 'x'), std::nullopt}));
    batches.push_back(RecordBatch{schema, 2, {id, b}});
  }
  auto reader = MakeBatchVectorReader(schema, std::move(batches));
  WriteParams params;
  params.blobs.binary_as_blob["b"] = BlobThresholds{};
  ASSERT_OK(WriteDataset(store, "/blobs.lance", *reader, params).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "/blobs.lance"));
  EXPECT_EQ(ds->CountRows(), 6u);
  ASSERT_OK_AND_ASSIGN(auto bytes, ds->TakeBlobs("b", std::vector<uint64_t>{0, 1, 4}));
  ASSERT_EQ(bytes.size(), 3u);
  ASSERT_TRUE(bytes[0].has_value() && *bytes[0]);
  EXPECT_EQ((*bytes[0])->view(), "x");
  EXPECT_FALSE(bytes[1].has_value());
  ASSERT_TRUE(bytes[2].has_value() && *bytes[2]);
  EXPECT_EQ((*bytes[2])->view(), "xxx");
}

}  // namespace
}  // namespace lancet::table
