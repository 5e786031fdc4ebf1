// Branches and clones: forks that copy no data, writes that never touch main, tags on
// branch versions, cleanup that keeps what branches read, concurrent branch writers.
#include "lancet/table/branch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "lancet/table/cleanup.h"
#include "lancet/table/clone.h"
#include "lancet/table/compaction.h"
#include "lancet/table/evolution.h"
#include "lancet/table/update.h"
#include "lancet/table/write.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

namespace fs = std::filesystem;

struct BranchDir {
  fs::path path;
  BranchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() / ("lancet_branch_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~BranchDir() { fs::remove_all(path); }
  std::string ds() const { return (path / "t.lance").string(); }
};

RecordBatch IdRows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = begin; i < begin + n; ++i) ids.push_back(i);
  return *MakeRecordBatch({"id"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids)});
}

Result<uint64_t> Append(const std::string& uri, int64_t begin, int64_t n, WriteMode mode = WriteMode::kAppend) {
  WriteParams p;
  p.mode = mode;
  p.max_rows_per_file = 5;
  RecordBatch b = IdRows(begin, n);
  return WriteDataset(uri, b.schema, {b}, p);
}

std::vector<int64_t> SortedIds(const Dataset& ds) {
  std::vector<int64_t> ids = testing::ScannedIds(ds);
  std::sort(ids.begin(), ids.end());
  return ids;
}

using testing::IdRange;

std::unique_ptr<Dataset> OpenOn(const std::string& uri, const std::string& branch,
                                std::optional<uint64_t> version = std::nullopt) {
  OpenOptions o;
  o.branch = branch;
  o.version = version;
  auto ds = Dataset::Open(uri, o);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? std::move(*ds) : nullptr;
}

OpenOptions VersionOne() {
  OpenOptions o;
  o.version = 1;
  return o;
}

size_t FilesUnder(const fs::path& dir) {
  if (!fs::exists(dir)) return 0;
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

TEST(BranchTest, ForkCopiesNoDataAndWritesStayOnTheBranch) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 10, WriteMode::kCreate).status());
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(dir.ds()));
  ASSERT_OK_AND_ASSIGN(auto branch, CreateBranch(*main, "exp"));
  EXPECT_EQ(branch->version(), 1u);
  EXPECT_EQ(branch->branch(), "exp");
  EXPECT_EQ(branch->table_root(), main->root());
  EXPECT_EQ(FilesUnder(fs::path(dir.ds()) / "tree/exp/data"), 0u);
  EXPECT_EQ(SortedIds(*branch), IdRange(0, 10));

  ASSERT_OK_AND_ASSIGN(uint64_t v, Append(BranchRoot(dir.ds(), "exp"), 10, 5));
  EXPECT_EQ(v, 2u);
  auto on_branch = OpenOn(dir.ds(), "exp");
  ASSERT_OK(DeleteWhere(*on_branch, "id < 3").status());
  on_branch = OpenOn(dir.ds(), "exp");
  ASSERT_OK(Update(*on_branch, "id = 4", {{"id", "40"}}).status());
  on_branch = OpenOn(dir.ds(), "exp");
  CompactionOptions co;
  co.target_rows_per_fragment = 100;
  ASSERT_OK(Compact(*on_branch, co).status());

  std::vector<int64_t> want = IdRange(3, 15);
  want.erase(std::find(want.begin(), want.end(), 4));
  want.push_back(40);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(SortedIds(*OpenOn(dir.ds(), "exp")), want);
  ASSERT_OK_AND_ASSIGN(main, Dataset::Open(dir.ds()));
  EXPECT_EQ(main->version(), 1u);
  EXPECT_EQ(SortedIds(*main), IdRange(0, 10));
  // Every version of the branch stays readable, the fork point included.
  EXPECT_EQ(SortedIds(*OpenOn(dir.ds(), "exp", 2)), IdRange(0, 15));
  ASSERT_OK_AND_ASSIGN(auto back, OpenOn(dir.ds(), "exp")->Checkout(1));
  EXPECT_EQ(back->branch(), "exp");
  EXPECT_EQ(SortedIds(*back), IdRange(0, 10));
}

// Metadata-only and column-rewriting schema changes and a restore, on a branch whose
// files are all inherited: the branch keeps reading them, main never changes.
TEST(BranchTest, EvolutionAndRestoreOnABranch) {
  BranchDir dir;
  RecordBatch rows = testing::IdNameXRows(0, 12);
  WriteParams p;
  p.max_rows_per_file = 5;
  ASSERT_OK(WriteDataset(dir.ds(), rows.schema, {rows}, p).status());
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(dir.ds()));
  const std::string main_schema = main->schema().ToString();
  ASSERT_OK(CreateBranch(*main, "evo").status());
  ASSERT_OK(AlterColumnType(*OpenOn(dir.ds(), "evo"), "id", MakeType(TypeId::kInt32)).status());
  ASSERT_OK(RenameColumn(*OpenOn(dir.ds(), "evo"), "name", "label").status());
  ASSERT_OK(DropColumns(*OpenOn(dir.ds(), "evo"), {"x"}).status());
  Field extra;
  extra.name = "extra";
  extra.type = MakeType(TypeId::kInt64);
  ASSERT_OK(AddNullColumns(*OpenOn(dir.ds(), "evo"), {extra}).status());
  auto evo = OpenOn(dir.ds(), "evo");
  ASSERT_NE(evo, nullptr);
  EXPECT_EQ(evo->version(), 5u);
  ASSERT_EQ(evo->schema().fields.size(), 3u);
  EXPECT_EQ(evo->schema().fields[0].type.id, TypeId::kInt32);
  EXPECT_EQ(evo->schema().fields[1].name, "label");
  EXPECT_EQ(evo->schema().fields[2].name, "extra");
  ASSERT_OK_AND_ASSIGN(auto batches, evo->Scan());
  int64_t n = 0;
  for (const RecordBatch& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) EXPECT_EQ(b.columns[0].values<int32_t>()[i], n++);
  }
  EXPECT_EQ(n, 12);
  ASSERT_OK(Restore(*evo, 1).status());
  evo = OpenOn(dir.ds(), "evo");
  EXPECT_EQ(evo->schema().ToString(), main_schema);
  EXPECT_EQ(SortedIds(*evo), IdRange(0, 12));
  ASSERT_OK_AND_ASSIGN(main, Dataset::Open(dir.ds()));
  EXPECT_EQ(main->version(), 1u);
  EXPECT_EQ(main->schema().ToString(), main_schema);
}

TEST(BranchTest, ListNestedAndDelete) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 4, WriteMode::kCreate).status());
  ASSERT_OK(Append(dir.ds(), 4, 4).status());
  auto v1 = OpenOn(dir.ds(), "", 1);
  ASSERT_NE(v1, nullptr);
  ASSERT_OK(CreateBranch(*v1, "a").status());
  ASSERT_OK(Append(BranchRoot(dir.ds(), "a"), 100, 2).status());
  auto a = OpenOn(dir.ds(), "a");
  ASSERT_OK_AND_ASSIGN(auto nested, CreateBranch(*a, "a/b"));
  ASSERT_OK(Append(BranchRoot(dir.ds(), "a/b"), 200, 1).status());
  EXPECT_EQ(SortedIds(*OpenOn(dir.ds(), "a/b")), (std::vector<int64_t>{0, 1, 2, 3, 100, 101, 200}));

  ASSERT_OK_AND_ASSIGN(auto branches, ListBranches(*a));
  ASSERT_EQ(branches.size(), 2u);
  EXPECT_EQ(branches[0].name, "a");
  EXPECT_EQ(branches[0].parent_branch, "");
  EXPECT_EQ(branches[0].parent_version, 1u);
  EXPECT_EQ(branches[1].name, "a/b");
  EXPECT_EQ(branches[1].parent_branch, "a");
  EXPECT_EQ(branches[1].parent_version, 2u);
  EXPECT_TRUE(fs::exists(fs::path(dir.ds()) / "_refs/branches/a%2Fb.json"));

  EXPECT_EQ(CreateBranch(*v1, "a").status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(DeleteBranch(*a, "a").code(), StatusCode::kInvalidArgument);  // a/b reads its files
  ASSERT_OK(DeleteBranch(*a, "a/b"));
  EXPECT_EQ(FilesUnder(fs::path(dir.ds()) / "tree/a/b"), 0u);
  EXPECT_EQ(SortedIds(*OpenOn(dir.ds(), "a")), (std::vector<int64_t>{0, 1, 2, 3, 100, 101}));
  OpenOptions gone;
  gone.branch = "a/b";
  EXPECT_EQ(Dataset::Open(dir.ds(), gone).status().code(), StatusCode::kNotFound);
  ASSERT_OK(DeleteBranch(*a, "a"));
  ASSERT_OK_AND_ASSIGN(branches, ListBranches(*v1));
  EXPECT_TRUE(branches.empty());
  EXPECT_EQ(DeleteBranch(*v1, "a").code(), StatusCode::kNotFound);
}

TEST(BranchTest, ConcurrentCreatorsOfOneNameLeaveOneBranch) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 3, WriteMode::kCreate).status());
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(dir.ds()));
  constexpr int kCreators = 4;
  std::vector<Status> results(kCreators);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCreators; ++i) {
    threads.emplace_back([&, i] { results[i] = CreateBranch(*main, "race").status(); });
  }
  for (auto& t : threads) t.join();
  int created = 0;
  for (const Status& st : results) {
    if (st.ok()) {
      ++created;
    } else {
      EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(SortedIds(*OpenOn(dir.ds(), "race")), IdRange(0, 3));
  EXPECT_EQ(FilesUnder(fs::path(dir.ds()) / "tree/race/_transactions"), 1u);
}

// A create killed after its manifest but before its ref leaves files and no branch.
TEST(BranchTest, DeleteClearsWhatAnInterruptedCreateLeft) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 3, WriteMode::kCreate).status());
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(dir.ds()));
  ASSERT_OK(CreateBranch(*main, "half").status());
  fs::remove(fs::path(dir.ds()) / "_refs/branches/half.json");
  ASSERT_OK_AND_ASSIGN(auto branches, ListBranches(*main));
  EXPECT_TRUE(branches.empty());
  EXPECT_EQ(CreateBranch(*main, "half").status().code(), StatusCode::kAlreadyExists);
  ASSERT_OK(DeleteBranch(*main, "half"));
  EXPECT_EQ(FilesUnder(fs::path(dir.ds()) / "tree/half"), 0u);
  EXPECT_EQ(DeleteBranch(*main, "half").code(), StatusCode::kNotFound);
  ASSERT_OK(CreateBranch(*main, "half").status());
  EXPECT_EQ(SortedIds(*OpenOn(dir.ds(), "half")), IdRange(0, 3));
}

TEST(BranchTest, NamesAreChecked) {
  for (const char* bad : {"", "main", "/a", "a/", "a//b", "a/../b", ".", "a\\b", "a%2Fb", "x\ny"}) {
    EXPECT_EQ(ValidateBranchName(bad).code(), StatusCode::kInvalidArgument) << bad;
  }
  for (const char* good : {"exp", "team/relabel-2", "v1.2"}) EXPECT_OK(ValidateBranchName(good));
}

TEST(BranchTest, TagsOnBranchVersions) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 3, WriteMode::kCreate).status());
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(dir.ds()));
  ASSERT_OK(CreateBranch(*main, "exp").status());
  ASSERT_OK(Append(BranchRoot(dir.ds(), "exp"), 3, 3).status());
  auto exp = OpenOn(dir.ds(), "exp");
  ASSERT_OK(CreateTag(*exp, "on-exp", 2));
  EXPECT_EQ(CreateTag(*exp, "nope", 7).code(), StatusCode::kNotFound);
  // The tag lives with the table and names its branch.
  ASSERT_OK_AND_ASSIGN(auto tagged, main->CheckoutTag("on-exp"));
  EXPECT_EQ(tagged->branch(), "exp");
  EXPECT_EQ(tagged->version(), 2u);
  EXPECT_EQ(SortedIds(*tagged), IdRange(0, 6));
  ASSERT_OK_AND_ASSIGN(auto tags, main->ListTags());
  EXPECT_EQ(tags.count("on-exp"), 1u);
  ASSERT_OK(DeleteTag(*exp, "on-exp"));
  EXPECT_EQ(main->CheckoutTag("on-exp").status().code(), StatusCode::kNotFound);
}

TEST(BranchTest, CleanupOfMainKeepsWhatBranchesRead) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 10, WriteMode::kCreate).status());
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Open(dir.ds()));
  ASSERT_OK(CreateBranch(*v1, "keep").status());
  // Main replaces every row; without the branch, v1 and its files would all go.
  ASSERT_OK(Append(dir.ds(), 100, 2, WriteMode::kOverwrite).status());
  ASSERT_OK(Append(dir.ds(), 102, 2).status());
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(dir.ds()));
  CleanupOptions co;
  co.older_than = std::chrono::seconds(0);
  co.delete_unverified = true;
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*main, co));
  EXPECT_EQ(stats.old_versions, 1u);  // v2; v1 is the branch's fork point
  EXPECT_EQ(SortedIds(*OpenOn(dir.ds(), "keep")), IdRange(0, 10));
  EXPECT_EQ(SortedIds(*OpenOn(dir.ds(), "", 1)), IdRange(0, 10));
  EXPECT_EQ(SortedIds(*main), IdRange(100, 104));

  // Once the branch is gone, the same cleanup takes v1 and its files.
  ASSERT_OK(DeleteBranch(*main, "keep"));
  ASSERT_OK_AND_ASSIGN(stats, Cleanup(*main, co));
  EXPECT_EQ(stats.old_versions, 1u);
  EXPECT_GE(stats.files_removed, 3u);
  EXPECT_EQ(Dataset::Open(dir.ds(), VersionOne()).status().code(), StatusCode::kNotFound);
}

TEST(BranchTest, ConcurrentWritersOnTwoBranchesAndMain) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 1, WriteMode::kCreate).status());
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(dir.ds()));
  ASSERT_OK(CreateBranch(*main, "b1").status());
  ASSERT_OK(CreateBranch(*main, "b2").status());
  const std::vector<std::string> targets = {dir.ds(), BranchRoot(dir.ds(), "b1"), BranchRoot(dir.ds(), "b2")};
  constexpr int kWritersPerTarget = 2, kAppends = 8;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (size_t t = 0; t < targets.size(); ++t) {
    for (int w = 0; w < kWritersPerTarget; ++w) {
      threads.emplace_back([&, t, w] {
        for (int i = 0; i < kAppends; ++i) {
          const int64_t id = 1000 * static_cast<int64_t>(t + 1) + 100 * w + i;
          if (!Append(targets[t], id, 1).ok()) ++failures;
        }
      });
    }
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (size_t t = 0; t < targets.size(); ++t) {
    auto ds = OpenOn(dir.ds(), t == 0 ? "" : "b" + std::to_string(t));
    ASSERT_NE(ds, nullptr);
    std::vector<int64_t> want = {0};
    for (int w = 0; w < kWritersPerTarget; ++w) {
      for (int i = 0; i < kAppends; ++i) want.push_back(1000 * static_cast<int64_t>(t + 1) + 100 * w + i);
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(SortedIds(*ds), want) << targets[t];
    EXPECT_EQ(ds->version(), 1u + kWritersPerTarget * kAppends);
  }
}

TEST(CloneTest, ShallowCloneReadsTheSourceAndWritesLandInTheClone) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 10, WriteMode::kCreate).status());
  ASSERT_OK(Append(dir.ds(), 10, 5).status());
  auto v1 = OpenOn(dir.ds(), "", 1);
  ASSERT_NE(v1, nullptr);
  const std::string target = (dir.path / "c.lance").string();
  ASSERT_OK_AND_ASSIGN(CloneStats stats, CloneDataset(*v1, target));
  EXPECT_EQ(stats.version, 1u);
  EXPECT_EQ(stats.files_written, 2u);  // the manifest and its transaction
  EXPECT_EQ(FilesUnder(fs::path(target) / "data"), 0u);
  EXPECT_EQ(CloneDataset(*v1, target).status().code(), StatusCode::kAlreadyExists);
  ASSERT_OK(Append(target, 500, 1).status());
  ASSERT_OK_AND_ASSIGN(auto clone, Dataset::Open(target));
  std::vector<int64_t> want = IdRange(0, 10);
  want.push_back(500);
  EXPECT_EQ(SortedIds(*clone), want);
  EXPECT_EQ(clone->version(), 2u);
  ASSERT_OK_AND_ASSIGN(auto src, Dataset::Open(dir.ds()));
  EXPECT_EQ(SortedIds(*src), IdRange(0, 15));
  ASSERT_OK(DeleteWhere(*clone, "id < 5").status());
  ASSERT_OK_AND_ASSIGN(src, Dataset::Open(dir.ds()));
  EXPECT_EQ(SortedIds(*src), IdRange(0, 15));
}

// The reference's rule, observed: a source keeps no record of its clones, so its cleanup
// takes files a shallow clone still reads; a tag on the cloned version keeps them.
TEST(CloneTest, SourceCleanupKnowsNoClonesButKeepsTaggedVersions) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 10, WriteMode::kCreate).status());
  auto v1 = OpenOn(dir.ds(), "", 1);
  ASSERT_NE(v1, nullptr);
  const std::string target = (dir.path / "c.lance").string();
  ASSERT_OK(CloneDataset(*v1, target).status());
  ASSERT_OK(CreateTag(*v1, "cloned", 1));
  ASSERT_OK(Append(dir.ds(), 100, 2, WriteMode::kOverwrite).status());
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(dir.ds()));
  CleanupOptions co;
  co.older_than = std::chrono::seconds(0);
  co.delete_unverified = true;
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*main, co));
  EXPECT_EQ(stats.old_versions, 0u);
  ASSERT_OK_AND_ASSIGN(auto clone, Dataset::Open(target));
  EXPECT_EQ(SortedIds(*clone), IdRange(0, 10));

  ASSERT_OK(DeleteTag(*main, "cloned"));
  ASSERT_OK_AND_ASSIGN(stats, Cleanup(*main, co));
  EXPECT_EQ(stats.old_versions, 1u);
  ASSERT_OK_AND_ASSIGN(clone, Dataset::Open(target));  // the manifest is the clone's own
  auto scan = clone->Scan();
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.status().code(), StatusCode::kNotFound) << scan.status().ToString();
}

TEST(CloneTest, DeepCloneCopiesEveryFileAndStandsAlone) {
  BranchDir dir;
  ASSERT_OK(Append(dir.ds(), 0, 12, WriteMode::kCreate).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir.ds()));
  ASSERT_OK(DeleteWhere(*ds, "id = 3").status());
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(dir.ds()));
  const std::string target = (dir.path / "deep.lance").string();
  ASSERT_OK_AND_ASSIGN(CloneStats stats, CloneDataset(*ds, target, CloneOptions{.deep = true}));
  EXPECT_EQ(stats.files_written, 3u + 1u + 2u);  // data files, deletion file, manifest + txn
  fs::remove_all(dir.ds());
  ASSERT_OK_AND_ASSIGN(auto deep, Dataset::Open(target));
  std::vector<int64_t> want = IdRange(0, 12);
  want.erase(want.begin() + 3);
  EXPECT_EQ(SortedIds(*deep), want);
  EXPECT_EQ(deep->Describe().count("base_path.0"), 0u);
}

}  // namespace
}  // namespace lancet::table
