// Table writer: write then read back with Dataset, versions, tags, deletes, restore.
#include "lancet/table/write.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <utility>

#include "common/test_stores.h"
#include "lance_proto/transaction.pb.h"
#include "table/commit.h"
#include "table/manifest.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

RecordBatch MakeRows(int64_t begin, int64_t n) { return testing::IdNameXRows(begin, n); }

Schema RowSchema() { return MakeRows(0, 1).schema; }

// All visible rows of `ds` as one batch.
RecordBatch ReadAll(const Dataset& ds) {
  auto batches = ds.Scan();
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  RecordBatch out{ds.read_schema(), 0, {}};
  for (size_t c = 0; c < ds.read_schema().fields.size(); ++c) {
    std::vector<Array> parts;
    for (const RecordBatch& b : *batches) parts.push_back(b.columns[c]);
    if (parts.empty()) {
      out.columns.push_back(*MakeNullArray(ds.read_schema().fields[c].type, 0));
    } else {
      out.columns.push_back(*Concatenate(parts));
    }
  }
  out.num_rows = out.columns.empty() ? 0 : out.columns[0].length;
  return out;
}

std::vector<int64_t> Ids(const Dataset& ds) {
  RecordBatch all = ReadAll(ds);
  std::vector<int64_t> ids(all.columns[0].values<int64_t>(), all.columns[0].values<int64_t>() + all.num_rows);
  return ids;
}

// The writer suite runs on every store: memory, local disk and S3 (skipped without a
// server; tests/common/test_stores.h).
class WriterTest : public ::testing::TestWithParam<::lancet::testing::StoreKind> {
 protected:
  void SetUp() override {
    LANCET_SKIP_WITHOUT_STORE(GetParam());
    place_ = std::make_unique<::lancet::testing::TestRoot>(GetParam(), ::lancet::testing::CurrentTestName());
    store_ = place_->store();
    ASSERT_TRUE(store_);
    root_ = place_->root() + "/ds.lance";
  }
  std::unique_ptr<::lancet::testing::TestRoot> place_;
  std::shared_ptr<io::ObjectStore> store_;
  std::string root_;
};

TEST_P(WriterTest, UriRoundTrip) {
  // The path-taking overloads resolve the URI (local path or s3://bucket/prefix).
  const std::string uri = place_->uri() + "/by_uri.lance";
  if (GetParam() == ::lancet::testing::StoreKind::kMemory) GTEST_SKIP() << "a memory store has no URI";
  ASSERT_OK(WriteDataset(uri, RowSchema(), {MakeRows(0, 20)}, {}).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->CountRows(), 20u);
  EXPECT_EQ(Ids(*ds).back(), 19);
}

TEST_P(WriterTest, CreateThenReadBack) {
  auto store = store_;
  RecordBatch rows = MakeRows(0, 250);
  WriteParams p;
  p.max_rows_per_file = 100;
  ASSERT_OK_AND_ASSIGN(uint64_t v, WriteDataset(store, root_, rows.schema, {MakeRows(0, 120), MakeRows(120, 130)}, p));
  EXPECT_EQ(v, 1u);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root_));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(ds->CountRows(), 250u);
  ASSERT_EQ(ds->fragments().size(), 3u);  // 100 + 100 + 50
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ds->fragments()[i].id, i);
    ASSERT_EQ(ds->fragments()[i].files.size(), 1u);
    const DataFileInfo& f = ds->fragments()[i].files[0];
    EXPECT_EQ(f.path.size(), 50u + 6u);
    // 24 binary digits then 26 hex digits; a hex digit may itself be 0 or 1.
    EXPECT_EQ(f.path.substr(0, 24).find_first_not_of("01"), std::string::npos) << f.path;
    EXPECT_EQ(f.path.substr(24, 26).find_first_not_of("0123456789abcdef"), std::string::npos) << f.path;
    EXPECT_EQ(f.major, 2u);
    EXPECT_EQ(f.minor, 2u);
    ASSERT_OK_AND_ASSIGN(uint64_t size, store->Size(root_ + "/data/" + f.path));
    EXPECT_EQ(f.size_bytes, size);
  }
  RecordBatch all = ReadAll(*ds);
  ASSERT_EQ(all.num_rows, 250);
  for (size_t c = 0; c < 3; ++c) EXPECT_TRUE(ArraysEqual(all.columns[c], rows.columns[c])) << c;

  // The manifest and transaction file are where the format puts them.
  ASSERT_OK_AND_ASSIGN(bool exists, store->Exists(root_ + "/_versions/18446744073709551614.manifest"));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(auto hint, store->OpenRead(root_ + "/_versions/latest_version_hint.json"));
  ASSERT_OK_AND_ASSIGN(BufferPtr hb, hint->ReadAt(0, *hint->Size()));
  EXPECT_EQ(std::string(hb->view()), "{\"version\":1}");
  ASSERT_OK_AND_ASSIGN(auto m, ReadManifest(*store, root_ + "/_versions/18446744073709551614.manifest"));
  EXPECT_EQ(m.writer_version().library(), "lancet");
  EXPECT_EQ(m.data_format().version(), "2.2");
  EXPECT_EQ(m.max_fragment_id(), 2u);
  ASSERT_OK_AND_ASSIGN(auto txf, store->OpenRead(root_ + "/_transactions/" + m.transaction_file()));
  ASSERT_OK_AND_ASSIGN(BufferPtr tb, txf->ReadAt(0, *txf->Size()));
  lance::table::Transaction txn;
  ASSERT_TRUE(txn.ParseFromArray(tb->data(), static_cast<int>(tb->size())));
  EXPECT_EQ(txn.read_version(), 0u);
  EXPECT_TRUE(txn.has_overwrite());
  EXPECT_EQ(txn.overwrite().fragments_size(), 3);
  EXPECT_EQ(m.transaction_file(), "0-" + txn.uuid() + ".txn");

  // Create again is refused and leaves no new files behind.
  auto again = WriteDataset(store, root_, rows.schema, {MakeRows(0, 1)}, {});
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
}

TEST_P(WriterTest, AppendOverwriteVersions) {
  auto store = store_;
  ASSERT_OK(WriteDataset(store, root_, RowSchema(), {MakeRows(0, 10)}, {}).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK_AND_ASSIGN(uint64_t v2, WriteDataset(store, root_, RowSchema(), {MakeRows(10, 5)}, append));
  EXPECT_EQ(v2, 2u);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root_));
  EXPECT_EQ(ds->CountRows(), 15u);
  EXPECT_EQ(ds->fragments().back().id, 1u);
  std::vector<int64_t> expect(15);
  for (int i = 0; i < 15; ++i) expect[static_cast<size_t>(i)] = i;
  EXPECT_EQ(Ids(*ds), expect);

  // A different schema cannot be appended.
  Schema other = RowSchema();
  other.fields[2].type = MakeType(TypeId::kInt64);
  auto bad = WriteDataset(store, root_, other, {}, append);
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();

  WriteParams ow;
  ow.mode = WriteMode::kOverwrite;
  ASSERT_OK_AND_ASSIGN(uint64_t v3, WriteDataset(store, root_, RowSchema(), {MakeRows(100, 3)}, ow));
  EXPECT_EQ(v3, 3u);
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, root_));
  EXPECT_EQ(Ids(*ds), (std::vector<int64_t>{100, 101, 102}));
  EXPECT_EQ(ds->fragments()[0].id, 2u);  // ids are never reused

  ASSERT_OK_AND_ASSIGN(auto versions, ds->ListVersions());
  ASSERT_EQ(versions.size(), 3u);
  EXPECT_EQ(versions[0].num_rows, 10u);
  EXPECT_EQ(versions[1].num_rows, 15u);
  EXPECT_EQ(versions[2].num_rows, 3u);
  ASSERT_OK_AND_ASSIGN(auto old, ds->Checkout(2));
  EXPECT_EQ(old->CountRows(), 15u);
}

TEST_P(WriterTest, TagsAndRestore) {
  auto store = store_;
  ASSERT_OK(WriteDataset(store, root_, RowSchema(), {MakeRows(0, 10)}, {}).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(WriteDataset(store, root_, RowSchema(), {MakeRows(10, 10)}, append).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root_));
  ASSERT_OK(CreateTag(*ds, "first", 1));
  EXPECT_EQ(CreateTag(*ds, "first", 2).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(CreateTag(*ds, "nope", 9).IsNotFound());
  EXPECT_TRUE(CreateTag(*ds, "a/b", 1).IsInvalidArgument());
  ASSERT_OK(CreateTag(*ds, "second", 2));
  ASSERT_OK_AND_ASSIGN(auto tags, ds->ListTags());
  EXPECT_EQ(tags, (std::map<std::string, uint64_t>{{"first", 1}, {"second", 2}}));
  ASSERT_OK_AND_ASSIGN(auto f, store->OpenRead(root_ + "/_refs/tags/first.json"));
  ASSERT_OK_AND_ASSIGN(BufferPtr fb, f->ReadAt(0, *f->Size()));
  EXPECT_NE(std::string(fb->view()).find("\"manifestSize\":"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto tagged, ds->CheckoutTag("first"));
  EXPECT_EQ(tagged->CountRows(), 10u);
  ASSERT_OK(DeleteTag(*ds, "second"));
  EXPECT_TRUE(DeleteTag(*ds, "second").IsNotFound());
  ASSERT_OK_AND_ASSIGN(tags, ds->ListTags());
  EXPECT_EQ(tags.size(), 1u);

  ASSERT_OK_AND_ASSIGN(uint64_t v3, Restore(*ds, 1));
  EXPECT_EQ(v3, 3u);
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, root_));
  EXPECT_EQ(ds->CountRows(), 10u);
  // After a restore, new fragments still get fresh ids (peer README).
  ASSERT_OK(WriteDataset(store, root_, RowSchema(), {MakeRows(50, 1)}, append).status());
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, root_));
  EXPECT_EQ(ds->fragments().back().id, 2u);
  EXPECT_TRUE(Restore(*ds, 42).status().IsNotFound());
}

TEST_P(WriterTest, DeleteRowsMergesAndDropsFragments) {
  auto store = store_;
  WriteParams p;
  p.max_rows_per_file = 6000;
  ASSERT_OK(WriteDataset(store, root_, RowSchema(), {MakeRows(0, 6000), MakeRows(6000, 10)}, p).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root_));
  ASSERT_EQ(ds->fragments().size(), 2u);
  // Fragment 0: offsets 1 and 3; fragment 1: offset 0.
  std::vector<uint64_t> del = {1, 3, (uint64_t{1} << 32) | 0};
  ASSERT_OK_AND_ASSIGN(uint64_t v2, DeleteRows(*ds, del));
  EXPECT_EQ(v2, 2u);
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, root_));
  EXPECT_EQ(ds->CountRows(), 6007u);
  EXPECT_TRUE(ds->fragments()[0].deletion_file.ends_with(".arrow"));
  std::vector<int64_t> ids = Ids(*ds);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 1), 0);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 6000), 0);
  ASSERT_OK_AND_ASSIGN(auto m, ReadManifest(*store, root_ + "/_versions/" + ManifestFileNameV2(2)));
  EXPECT_EQ(m.reader_feature_flags() & 1, 1u);
  EXPECT_EQ(m.writer_feature_flags() & 1, 1u);

  // A second delete merges with the first; above 5000 rows it becomes a bitmap.
  std::vector<uint64_t> many;
  for (uint64_t i = 0; i < 5500; ++i) many.push_back(i);
  ASSERT_OK(DeleteRows(*ds, many).status());
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, root_));
  EXPECT_EQ(ds->CountRows(), 500u + 9u);
  EXPECT_TRUE(ds->fragments()[0].deletion_file.ends_with(".bin"));
  EXPECT_EQ(ds->fragments()[0].deleted_rows, 5500u);

  // Deleting the rest of fragment 1 removes it from the manifest.
  std::vector<uint64_t> rest;
  for (uint64_t i = 1; i < 10; ++i) rest.push_back((uint64_t{1} << 32) | i);
  ASSERT_OK(DeleteRows(*ds, rest).status());
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, root_));
  ASSERT_EQ(ds->fragments().size(), 1u);
  EXPECT_EQ(ds->CountRows(), 500u);
  std::vector<int64_t> expect;
  for (int64_t i = 5500; i < 6000; ++i) expect.push_back(i);
  EXPECT_EQ(Ids(*ds), expect);

  // Addresses outside the version are rejected.
  std::vector<uint64_t> bad = {(uint64_t{7} << 32)};
  EXPECT_TRUE(DeleteRows(*ds, bad).status().IsNotFound());
  // Old versions still read as they were.
  ASSERT_OK_AND_ASSIGN(auto v1, ds->Checkout(1));
  EXPECT_EQ(v1->CountRows(), 6010u);
}

TEST_P(WriterTest, StableRowIds) {
  auto store = store_;
  WriteParams p;
  p.enable_stable_row_ids = true;
  p.max_rows_per_file = 4;
  ASSERT_OK(WriteDataset(store, root_, RowSchema(), {MakeRows(0, 6)}, p).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(WriteDataset(store, root_, RowSchema(), {MakeRows(6, 3)}, append).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root_));
  ScanOptions opts;
  opts.columns = {"id", "_rowid"};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
  std::vector<uint64_t> row_ids;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) row_ids.push_back(b.columns[1].values<uint64_t>()[i]);
  }
  EXPECT_EQ(row_ids, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Writer, LocalDirectoryUri) {
  std::string dir = ::testing::TempDir() + "lancet_writer_local_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  ASSERT_OK(WriteDataset(dir, RowSchema(), {MakeRows(0, 20)}, {}).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir));
  EXPECT_EQ(ds->CountRows(), 20u);
  std::filesystem::remove_all(dir);
}


// Forwards to `inner`, but runs `before_first_manifest` just before the first manifest
// create, so a competing commit lands in between deterministically.
class RacingStore : public io::ObjectStore {
 public:
  RacingStore(std::shared_ptr<io::ObjectStore> inner, std::function<void()> before_first_manifest)
      : inner_(std::move(inner)), hook_(std::move(before_first_manifest)) {}
  Result<std::unique_ptr<io::RandomAccessFile>> OpenRead(const std::string& p) const override {
    return inner_->OpenRead(p);
  }
  Result<uint64_t> Size(const std::string& p) const override { return inner_->Size(p); }
  Result<bool> Exists(const std::string& p) const override { return inner_->Exists(p); }
  Result<std::vector<io::ObjectInfo>> List(const std::string& d) const override { return inner_->List(d); }
  Status Put(const std::string& p, std::span<const uint8_t> b) override { return inner_->Put(p, b); }
  Status PutIfAbsent(const std::string& p, std::span<const uint8_t> b) override {
    if (hook_ && p.find("/_versions/") != std::string::npos) std::exchange(hook_, nullptr)();
    return inner_->PutIfAbsent(p, b);
  }
  Status Delete(const std::string& p) override { return inner_->Delete(p); }

 private:
  std::shared_ptr<io::ObjectStore> inner_;
  std::function<void()> hook_;
};

TEST_P(WriterTest, AppendsRacingToCreateBothLand) {
  // Regression: the loser of two appends that both found no dataset saw the winner's
  // create as a replacement and gave up with CommitConflict.
  auto inner = store_;
  WriteParams append;
  append.mode = WriteMode::kAppend;
  auto racing = std::make_shared<RacingStore>(inner, [&] {
    ASSERT_OK(WriteDataset(inner, root_, RowSchema(), {MakeRows(0, 10)}, append).status());
  });
  ASSERT_OK_AND_ASSIGN(uint64_t v, WriteDataset(racing, root_, RowSchema(), {MakeRows(10, 5)}, append));
  EXPECT_EQ(v, 2u);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(inner, root_));
  std::vector<int64_t> ids = Ids(*ds);
  std::sort(ids.begin(), ids.end());
  std::vector<int64_t> want(15);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(ids, want);
  // The loser's first attempt wrote a transaction file; only committed ones remain.
  ASSERT_OK_AND_ASSIGN(auto txns, inner->List(root_ + "/_transactions"));
  EXPECT_EQ(txns.size(), 2u);

  // A create racing a create of another schema is still refused, leaving no stray files.
  auto inner2 = io::NewMemoryStore();
  auto racing2 = std::make_shared<RacingStore>(inner2, [&] {
    Schema other;
    other.fields = {MakeField("other", MakeType(TypeId::kInt32))};
    RecordBatch b = *MakeRecordBatch({"other"}, {*ArrayFromVector(MakeType(TypeId::kInt32), std::vector<int32_t>{1})});
    ASSERT_OK(WriteDataset(inner2, root_, other, {b}, append).status());
  });
  auto lost = WriteDataset(racing2, root_, RowSchema(), {MakeRows(0, 3)}, append);
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(lost.status().IsCommitConflict()) << lost.status().ToString();
  ASSERT_OK_AND_ASSIGN(txns, inner2->List(root_ + "/_transactions"));
  EXPECT_EQ(txns.size(), 1u);
}

TEST_P(WriterTest, RetriedAppendStampsTheVersionItCommits) {
  WriteParams p;
  p.enable_stable_row_ids = true;
  ASSERT_OK(WriteDataset(store_, root_, RowSchema(), {MakeRows(0, 4)}, p).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  auto inner = store_;
  auto racing = std::make_shared<RacingStore>(inner, [&] {
    ASSERT_OK(WriteDataset(inner, root_, RowSchema(), {MakeRows(4, 2)}, append).status());
  });
  ASSERT_OK_AND_ASSIGN(uint64_t v, WriteDataset(racing, root_, RowSchema(), {MakeRows(6, 3)}, append));
  ASSERT_EQ(v, 3u);  // lost version 2 to the hook's append, retried
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(inner, root_));
  ScanOptions opts;
  opts.columns = {"id", "_row_created_at_version", "_row_last_updated_at_version"};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
  std::map<int64_t, uint64_t> created;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      created[b.columns[0].values<int64_t>()[i]] = b.columns[1].values<uint64_t>()[i];
      EXPECT_EQ(b.columns[1].values<uint64_t>()[i], b.columns[2].values<uint64_t>()[i]);
    }
  }
  ASSERT_EQ(created.size(), 9u);
  for (const auto& [id, version] : created) EXPECT_EQ(version, id < 4 ? 1u : id < 6 ? 2u : 3u) << id;
}

INSTANTIATE_TEST_SUITE_P(Stores, WriterTest,
                         ::testing::Values(::lancet::testing::StoreKind::kMemory, ::lancet::testing::StoreKind::kLocal,
                                           ::lancet::testing::StoreKind::kS3),
                         [](const auto& info) { return ::lancet::testing::StoreKindName(info.param); });

}  // namespace
}  // namespace lancet::table
