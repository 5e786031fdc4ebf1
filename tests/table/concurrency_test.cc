// Concurrent writers in separate processes: four crash_child processes append 25 times
// each to one dataset; every append must succeed by rebasing, and the final version holds
// every row exactly once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "lancet/table/cleanup.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

namespace fs = std::filesystem;

constexpr int kWriters = 4;
constexpr int kAppendsEach = 25;

pid_t SpawnAppender(const std::string& dir, int writer) {
  std::string exe = LANCET_CRASH_CHILD, mode = "append", w = std::to_string(writer), n = std::to_string(kAppendsEach),
              d = dir;
  char* argv[] = {exe.data(), mode.data(), d.data(), w.data(), n.data(), nullptr};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(argv[0], argv);
    ::_exit(127);
  }
  return pid;
}

TEST(Concurrency, FourProcessesAppendingAllSucceed) {
  const std::string dir = ::testing::TempDir() + "lancet_concurrency_" + std::to_string(::getpid());
  fs::remove_all(dir);
  // Nobody creates the table first: the appends race to create it too, and every
  // loser rebases onto the winner's version 1.
  // fork() then exec() at once, so the children inherit none of this process's threads.
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = SpawnAppender(dir, w);
    ASSERT_GT(pid, 0);
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    // The child prints its error on stderr.
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << pid << " failed";
  }

  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir));
  EXPECT_EQ(ds->version(), static_cast<uint64_t>(kWriters * kAppendsEach));
  std::multiset<int64_t> ids;
  ScanOptions scan;
  scan.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(scan));
  for (const RecordBatch& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) ids.insert(b.columns[0].values<int64_t>()[i]);
  }
  std::multiset<int64_t> expected;
  for (int64_t w = 0; w < kWriters; ++w) {
    for (int64_t i = 0; i < kAppendsEach * 3; ++i) expected.insert(w * 1000000 + i);
  }
  EXPECT_EQ(ids, expected);
  // Fragment ids stay unique although every writer assigned them on its own.
  std::set<uint64_t> frag_ids;
  for (const FragmentInfo& f : ds->fragments()) EXPECT_TRUE(frag_ids.insert(f.id).second) << f.id;
  EXPECT_EQ(frag_ids.size(), static_cast<size_t>(kWriters * kAppendsEach));

  // Losing attempts leave nothing a cleanup would have to guess about: only the
  // transaction files of the superseded versions go.
  CleanupOptions opts;
  opts.older_than = std::chrono::seconds(0);
  opts.delete_unverified = true;
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*ds, opts));
  EXPECT_EQ(stats.old_versions, static_cast<uint64_t>(kWriters * kAppendsEach - 1));
  EXPECT_EQ(stats.files_removed, 2 * stats.old_versions);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(dir));
  EXPECT_EQ(after->CountRows(), expected.size());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lancet::table
