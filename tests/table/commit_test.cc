// Commit protocol: racing writers, rebasing appends, conflicts.
#include "table/commit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <thread>

#include "common/test_stores.h"
#include "lancet/table/write.h"
#include "table/manifest.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = begin; i < begin + n; ++i) ids.push_back(i);
  return *MakeRecordBatch({"id"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids)});
}

std::multiset<int64_t> AllIds(const Dataset& ds) {
  std::multiset<int64_t> out;
  auto batches = ds.Scan();
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  for (const auto& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) out.insert(b.columns[0].values<int64_t>()[i]);
  }
  return out;
}

// 4 threads x 10 appends of 3 rows each: every commit lands, every row exactly once.
void RaceAppends(std::shared_ptr<io::ObjectStore> store, const std::string& root) {
  ASSERT_OK(WriteDataset(store, root, Rows(0, 0).schema, {}, {}).status());
  constexpr int kThreads = 4, kAppends = 10, kRows = 3;
  std::vector<std::thread> threads;
  std::vector<Status> errors(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      WriteParams p;
      p.mode = WriteMode::kAppend;
      // Correctness is the point here, not how long a writer may lose: on S3 a commit
      // takes ~10 requests, so four writers contend far longer than on disk.
      p.max_commit_attempts = 60;
      for (int a = 0; a < kAppends; ++a) {
        int64_t begin = (t * kAppends + a) * kRows;
        auto v = WriteDataset(store, root, Rows(0, 0).schema, {Rows(begin, kRows)}, p);
        if (!v.ok()) {
          errors[static_cast<size_t>(t)] = v.status();
          return;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const Status& s : errors) ASSERT_OK(s);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root));
  EXPECT_EQ(ds->version(), 1u + kThreads * kAppends);
  std::multiset<int64_t> ids = AllIds(*ds);
  ASSERT_EQ(ids.size(), static_cast<size_t>(kThreads * kAppends * kRows));
  for (int64_t i = 0; i < kThreads * kAppends * kRows; ++i) EXPECT_EQ(ids.count(i), 1u) << i;
  std::set<uint64_t> frag_ids;
  for (const auto& f : ds->fragments()) frag_ids.insert(f.id);
  EXPECT_EQ(frag_ids.size(), ds->fragments().size());
  ASSERT_OK_AND_ASSIGN(auto versions, ds->ListVersions());
  EXPECT_EQ(versions.size(), 1u + kThreads * kAppends);
}

// Racing writers on every store; on S3 the conditional PUT (If-None-Match: *) is
// what picks one winner per version.
class CommitRace : public ::testing::TestWithParam<::lancet::testing::StoreKind> {};

TEST_P(CommitRace, RacingAppends) {
  LANCET_SKIP_WITHOUT_STORE(GetParam());
  ::lancet::testing::TestRoot place(GetParam(), ::lancet::testing::CurrentTestName());
  RaceAppends(place.store(), place.root() + "/race.lance");
}

INSTANTIATE_TEST_SUITE_P(Stores, CommitRace,
                         ::testing::Values(::lancet::testing::StoreKind::kMemory, ::lancet::testing::StoreKind::kLocal,
                                           ::lancet::testing::StoreKind::kS3),
                         [](const auto& info) { return ::lancet::testing::StoreKindName(info.param); });

TEST(Commit, AppendAfterConcurrentOverwriteConflicts) {
  auto store = io::NewMemoryStore();
  const std::string root = "mem/ds";
  ASSERT_OK(WriteDataset(store, root, Rows(0, 0).schema, {Rows(0, 5)}, {}).status());
  // A commit builder that loses to an overwrite committed between read and commit.
  int calls = 0;
  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    if (calls++ == 0) {
      WriteParams ow;
      ow.mode = WriteMode::kOverwrite;
      RETURN_IF_ERROR(WriteDataset(store, root, Rows(0, 0).schema, {Rows(100, 1)}, ow).status());
    }
    for (const auto& [v, txn] : base.since_read) {
      if (txn && txn->has_overwrite()) return Status::CommitConflict("overwritten at " + std::to_string(v));
    }
    PreparedCommit prep;
    prep.manifest = *base.latest;
    prep.transaction.mutable_append();
    return prep;
  };
  auto v = CommitWithRetry(*store, root, 1, build, 5);
  EXPECT_TRUE(v.status().IsCommitConflict()) << v.status().ToString();
  EXPECT_EQ(calls, 2);
}

TEST(Commit, RetriesRunOut) {
  auto store = io::NewMemoryStore();
  const std::string root = "mem/ds";
  ASSERT_OK(WriteDataset(store, root, Rows(0, 0).schema, {}, {}).status());
  // Someone else always takes the next version first.
  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    lance::table::Manifest other = *base.latest;
    other.set_version(base.latest_version + 1);
    RETURN_IF_ERROR(store->PutIfAbsent(
        JoinPath(root, "_versions/" + ManifestFileNameV2(base.latest_version + 1)), EncodeManifestFile(other, {}, nullptr)));
    PreparedCommit prep;
    prep.manifest = *base.latest;
    prep.transaction.mutable_append();
    return prep;
  };
  auto v = CommitWithRetry(*store, root, 1, build, 3);
  EXPECT_TRUE(v.status().IsCommitConflict()) << v.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto listed, store->List(root + "/_transactions"));
  EXPECT_EQ(listed.size(), 1u);  // only the creation's; the failed one is cleaned up
}

TEST(Commit, ConcurrentDeletesMerge) {
  auto store = io::NewMemoryStore();
  const std::string root = "mem/ds";
  ASSERT_OK(WriteDataset(store, root, Rows(0, 0).schema, {Rows(0, 100)}, {}).status());
  ASSERT_OK_AND_ASSIGN(auto read1, Dataset::Open(store, root));
  ASSERT_OK_AND_ASSIGN(auto read2, Dataset::Open(store, root));
  std::vector<uint64_t> a = {1, 2, 3}, b = {3, 4, 5};
  ASSERT_OK(DeleteRows(*read1, a).status());
  // read2 still sees version 1; its delete must merge with read1's.
  ASSERT_OK_AND_ASSIGN(uint64_t v, DeleteRows(*read2, b));
  EXPECT_EQ(v, 3u);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root));
  EXPECT_EQ(ds->CountRows(), 95u);
  std::multiset<int64_t> ids = AllIds(*ds);
  for (int64_t gone : {1, 2, 3, 4, 5}) EXPECT_EQ(ids.count(gone), 0u) << gone;

  // A delete based on a version before an overwrite is a conflict.
  WriteParams ow;
  ow.mode = WriteMode::kOverwrite;
  ASSERT_OK(WriteDataset(store, root, Rows(0, 0).schema, {Rows(0, 10)}, ow).status());
  std::vector<uint64_t> c = {7};
  EXPECT_TRUE(DeleteRows(*ds, c).status().IsCommitConflict());
}

TEST(Commit, Names) {
  std::string name = NewDataFileName();
  ASSERT_EQ(name.size(), 56u);
  // The hex part may itself start with 0 or 1, so check the binary prefix alone.
  EXPECT_EQ(name.substr(0, 24).find_first_not_of("01"), std::string::npos);
  EXPECT_EQ(name.substr(24, 26).find_first_not_of("0123456789abcdef"), std::string::npos);
  std::string uuid = NewUuid();
  ASSERT_EQ(uuid.size(), 36u);
  EXPECT_EQ(uuid[14], '4');
  EXPECT_NE(NewUuid(), uuid);
}

}  // namespace
}  // namespace lancet::table
