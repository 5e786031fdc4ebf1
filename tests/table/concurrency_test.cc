// Concurrent writers in separate processes, on disk and on S3: four crash_child
// processes append 25 (S3: 10) times each to one dataset; every append must succeed by
// rebasing, each version has exactly one winner, and the final version holds every row
// exactly once. On disk, updates race appends, deletes, other updates and compactions.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "common/test_stores.h"

#include "lancet/table/cleanup.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr int kWriters = 4;

struct Appender {
  pid_t pid = -1;
  int out = -1;  // the child's stdout: one committed version a line
};

Appender SpawnAppender(const std::string& dir, int writer, int appends) {
  std::string exe = LANCET_CRASH_CHILD, mode = "append", w = std::to_string(writer), n = std::to_string(appends),
              d = dir;
  char* argv[] = {exe.data(), mode.data(), d.data(), w.data(), n.data(), nullptr};
  int fds[2];
  if (::pipe(fds) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::execv(argv[0], argv);
    ::_exit(127);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

// crash_child with `args`, its stdout on a pipe.
Appender SpawnChild(std::vector<std::string> args) {
  std::string exe = LANCET_CRASH_CHILD;
  std::vector<char*> argv = {exe.data()};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

class Concurrency : public ::testing::TestWithParam<testing::StoreKind> {};

// On S3 the conditional PUT of the manifest is what picks each version's one winner.
TEST_P(Concurrency, FourProcessesAppendingAllSucceed) {
  LANCET_SKIP_WITHOUT_STORE(GetParam());
  const bool s3 = GetParam() == testing::StoreKind::kS3;
  // S3 commits cost round trips on a shared machine: 4 x 10 there, 4 x 25 on disk.
  const int appends_each = s3 ? 10 : 25;
  testing::TestRoot root(GetParam(), testing::CurrentTestName());
  const std::string dir = root.uri() + "/ds";
  // Nobody creates the table first: the appends race to create it too, and every
  // loser rebases onto the winner's version 1.
  // fork() then exec() at once, so the children inherit none of this process's threads.
  std::vector<Appender> children;
  for (int w = 0; w < kWriters; ++w) {
    Appender a = SpawnAppender(dir, w, appends_each);
    ASSERT_GT(a.pid, 0);
    children.push_back(a);
  }
  std::map<uint64_t, int> winner;  // version -> the writer that committed it
  for (int w = 0; w < kWriters; ++w) {
    std::istringstream lines(ReadAll(children[w].out));
    int committed = 0;
    for (uint64_t v; lines >> v; ++committed) {
      EXPECT_TRUE(winner.emplace(v, w).second) << "version " << v << " committed twice";
    }
    EXPECT_EQ(committed, appends_each) << "writer " << w;
    int status = 0;
    ASSERT_EQ(::waitpid(children[w].pid, &status, 0), children[w].pid);
    // The child prints its error on stderr.
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << w << " failed";
  }
  // Exactly one winner for each of versions 1..N, and no version skipped.
  const int total = kWriters * appends_each;
  ASSERT_EQ(winner.size(), static_cast<size_t>(total));
  EXPECT_EQ(winner.begin()->first, 1u);
  EXPECT_EQ(winner.rbegin()->first, static_cast<uint64_t>(total));

  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir));
  EXPECT_EQ(ds->version(), static_cast<uint64_t>(total));
  // Losers rebased: a commit's transaction file is named after the version its writer
  // read, so a version committed on top of one it never read shows the rebase. The
  // three writers that lost the race to create the table rebase at least once each.
  int rebased = 0;
  for (uint64_t v = 1; v <= static_cast<uint64_t>(total); ++v) {
    ASSERT_OK_AND_ASSIGN(auto at, ds->Checkout(v));
    const std::string txn = at->Describe()["transaction_file"];
    const uint64_t read_version = std::stoull(txn.substr(0, txn.find('-')));
    EXPECT_LT(read_version, v) << "version " << v << " claims to have read itself or later: " << txn;
    if (read_version + 1 < v) ++rebased;
  }
  EXPECT_GE(rebased, kWriters - 1);
  std::multiset<int64_t> ids;
  ScanOptions scan;
  scan.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(scan));
  for (const RecordBatch& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) ids.insert(b.columns[0].values<int64_t>()[i]);
  }
  std::multiset<int64_t> expected;
  for (int64_t w = 0; w < kWriters; ++w) {
    for (int64_t i = 0; i < appends_each * 3; ++i) expected.insert(w * 1000000 + i);
  }
  EXPECT_EQ(ids, expected);
  // Fragment ids stay unique although every writer assigned them on its own.
  std::set<uint64_t> frag_ids;
  for (const FragmentInfo& f : ds->fragments()) EXPECT_TRUE(frag_ids.insert(f.id).second) << f.id;
  EXPECT_EQ(frag_ids.size(), static_cast<size_t>(total));

  // Losing attempts leave nothing a cleanup would have to guess about: only the
  // transaction files of the superseded versions go.
  CleanupOptions opts;
  opts.older_than = std::chrono::seconds(0);
  opts.delete_unverified = true;
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*ds, opts));
  EXPECT_EQ(stats.old_versions, static_cast<uint64_t>(total - 1));
  EXPECT_EQ(stats.files_removed, 2 * stats.old_versions);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(dir));
  EXPECT_EQ(after->CountRows(), expected.size());
}

RecordBatch StartRows(int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> payload;
  for (int64_t id = 0; id < n; ++id) {
    ids.push_back(id);
    payload.push_back("start-" + std::to_string(id));
  }
  return *MakeRecordBatch({"id", "payload"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(payload)});
}

// Two updaters rewrite the same 100 rows, a third other rows, while an appender, a
// deleter (of rows in the same fragments) and a compactor commit too. Every update
// succeeds (rebased on appends and deletes, re-run after a conflicting update or
// compaction), is applied to all its rows or none, and no row is lost or doubled.
TEST(ConcurrentUpdate, UpdatesRaceAppendsDeletesUpdatesAndCompactions) {
  const std::string dir = ::testing::TempDir() + "lancet_concurrent_update_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  WriteParams create;
  create.enable_stable_row_ids = true;
  create.max_rows_per_file = 50;
  RecordBatch start = StartRows(400);
  ASSERT_OK(WriteDataset(dir, start.schema, {start}, create).status());
  constexpr int kUpdates = 6, kAppends = 15, kDeletes = 30;
  struct Child {
    std::string name;
    Appender proc;
    std::string out;
  };
  std::vector<Child> children = {
      {"a", SpawnChild({"update", dir, "a", "0", std::to_string(kUpdates)}), ""},
      {"b", SpawnChild({"update", dir, "b", "0", std::to_string(kUpdates)}), ""},
      {"c", SpawnChild({"update", dir, "c", "2", std::to_string(kUpdates)}), ""},
      {"append", SpawnChild({"append", dir, "5", std::to_string(kAppends)}), ""},
      {"delete", SpawnChild({"delete", dir, "1", std::to_string(kDeletes)}), ""},
      {"compact", SpawnChild({"compact", dir, "6"}), ""},
  };
  for (Child& c : children) {
    ASSERT_GT(c.proc.pid, 0);
    c.out = ReadAll(c.proc.out);
    int status = 0;
    ASSERT_EQ(::waitpid(c.proc.pid, &status, 0), c.proc.pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << c.name << " failed";
  }
  // The last update of the shared rows decides their value; each update rewrote all 100.
  uint64_t last_version = 0;
  std::string last_value;
  std::set<uint64_t> versions;
  for (const Child& c : children) {
    if (c.name.size() != 1) continue;
    std::istringstream lines(c.out);
    int i = 0;
    for (uint64_t v, rows; lines >> v >> rows; ++i) {
      EXPECT_EQ(rows, 100u) << c.name << " update " << i;
      EXPECT_TRUE(versions.insert(v).second) << "version " << v << " committed twice";
      if (c.name != "c" && v > last_version) {
        last_version = v;
        last_value = c.name + "-" + std::to_string(i);
      }
    }
    EXPECT_EQ(i, kUpdates) << c.name;
  }
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir));
  std::map<int64_t, std::string> rows;
  ScanOptions scan;
  scan.columns = {"id", "payload"};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(scan));
  for (const RecordBatch& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      const int64_t id = b.columns[0].values<int64_t>()[i];
      EXPECT_TRUE(rows.emplace(id, std::string(b.columns[1].GetView(i))).second) << "row " << id << " twice";
    }
  }
  std::set<int64_t> expected_ids;
  for (int64_t id = 0; id < 400; ++id) {
    if (!(id % 4 == 1 && id < 1 + 4 * kDeletes)) expected_ids.insert(id);
  }
  for (int64_t i = 0; i < kAppends * 3; ++i) expected_ids.insert(5000000 + i);
  std::set<int64_t> got_ids;
  for (const auto& [id, p] : rows) got_ids.insert(id);
  EXPECT_EQ(got_ids, expected_ids);
  for (const auto& [id, payload] : rows) {
    if (id >= 1000000) continue;
    if (id % 4 == 0) {
      EXPECT_EQ(payload, last_value) << "row " << id;
    } else if (id % 4 == 2) {
      EXPECT_EQ(payload, "c-" + std::to_string(kUpdates - 1)) << "row " << id;
    } else {
      EXPECT_EQ(payload, "start-" + std::to_string(id)) << "row " << id;
    }
  }
  // Commits on top of versions their writer never read: rebased appends, deletes and
  // updates (a re-run update reads the latest version again).
  int rebased = 0;
  for (uint64_t v = 2; v <= ds->version(); ++v) {
    ASSERT_OK_AND_ASSIGN(auto at, ds->Checkout(v));
    const std::string txn = at->Describe()["transaction_file"];
    if (std::stoull(txn.substr(0, txn.find('-'))) + 1 < v) ++rebased;
  }
  EXPECT_GE(rebased, 1);
  std::printf("%d of %llu commits rebased; compactions committed, lost: %s", rebased,
              static_cast<unsigned long long>(ds->version() - 1), children.back().out.c_str());
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Stores, Concurrency, ::testing::Values(testing::StoreKind::kLocal, testing::StoreKind::kS3),
                         [](const auto& info) { return testing::StoreKindName(info.param); });

}  // namespace
}  // namespace lancet::table
