// Branch writers as processes: writers on main and on two branches run at once, and the
// one on branch b1 is killed with SIGKILL at a random moment. Every branch must then
// open at every version, b1 holding exactly a prefix of its writer's appends (at least
// those it reported), the others every append, and none another's rows.
//
// LANCET_CRASH_RUNS=N sets the number of kills (default 6).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "lancet/table/branch.h"
#include "table/crash_spawn.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRowsPerAppend = 3;

pid_t SpawnWriter(const std::string& dir, int64_t writer, int64_t count, int* read_fd) {
  return testing::SpawnCrashChild({"append", dir, std::to_string(writer), std::to_string(count)}, read_fd);
}

// Lines the writer printed (one per committed append).
size_t ReportedCommits(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  std::istringstream in(out);
  size_t lines = 0;
  for (std::string line; std::getline(in, line);) lines += !line.empty();
  return lines;
}

std::set<int64_t> WriterIds(int64_t writer, int64_t appends) {
  std::set<int64_t> ids;
  for (int64_t i = 0; i < appends * kRowsPerAppend; ++i) ids.insert(writer * 1000000 + i);
  return ids;
}

std::set<int64_t> IdsOf(const Dataset& ds) {
  ScanOptions scan;
  scan.columns = {"id"};
  auto batches = ds.Scan(scan);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::set<int64_t> ids;
  if (!batches.ok()) return ids;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) EXPECT_TRUE(ids.insert(b.columns[0].values<int64_t>()[i]).second);
  }
  return ids;
}

// Opens `branch` at every version; returns its latest rows.
std::set<int64_t> CheckEveryVersion(const std::string& table, const std::string& branch) {
  OpenOptions o;
  o.branch = branch;
  auto ds = Dataset::Open(table, o);
  EXPECT_TRUE(ds.ok()) << branch << ": " << ds.status().ToString();
  if (!ds.ok()) return {};
  auto versions = (*ds)->ListVersions();
  EXPECT_TRUE(versions.ok());
  if (versions.ok()) {
    for (const VersionInfo& v : *versions) {
      auto old = (*ds)->Checkout(v.version);
      EXPECT_TRUE(old.ok()) << branch << " v" << v.version << ": " << old.status().ToString();
      if (old.ok()) {
        EXPECT_EQ(IdsOf(**old).size(), (*old)->CountRows()) << branch << " v" << v.version;
      }
    }
  }
  return IdsOf(**ds);
}

TEST(BranchCrashTest, KilledBranchWriterLeavesEveryBranchReadable) {
  const char* env = std::getenv("LANCET_CRASH_RUNS");
  const int runs = env != nullptr && *env != '\0' ? std::atoi(env) : 6;
  const fs::path dir = fs::temp_directory_path() / ("lancet_branch_crash_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string table = (dir / "t.lance").string();
  int fd = -1;
  pid_t first = SpawnWriter(table, 0, 1, &fd);
  ASSERT_GT(first, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(first, &status, 0), first);
  ReportedCommits(fd);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_OK_AND_ASSIGN(auto main, Dataset::Open(table));
  ASSERT_OK(CreateBranch(*main, "b1").status());
  ASSERT_OK(CreateBranch(*main, "b2").status());

  std::set<int64_t> want_main = WriterIds(0, 1), want_b1 = want_main, want_b2 = want_main;
  std::mt19937_64 rng(std::random_device{}());
  constexpr int64_t kSurvivorAppends = 6;
  for (int run = 0; run < runs; ++run) {
    const int64_t main_writer = 10 + run, b1_writer = 100 + run, b2_writer = 200 + run;
    int fd_main = -1, fd_b1 = -1, fd_b2 = -1;
    pid_t p_main = SpawnWriter(table, main_writer, kSurvivorAppends, &fd_main);
    pid_t p_b1 = SpawnWriter(BranchRoot(table, "b1"), b1_writer, 1000, &fd_b1);
    pid_t p_b2 = SpawnWriter(BranchRoot(table, "b2"), b2_writer, kSurvivorAppends, &fd_b2);
    ASSERT_TRUE(p_main > 0 && p_b1 > 0 && p_b2 > 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(30, 600)(rng)));
    ::kill(p_b1, SIGKILL);
    ASSERT_EQ(::waitpid(p_b1, &status, 0), p_b1);
    const size_t reported = ReportedCommits(fd_b1);
    for (pid_t p : {p_main, p_b2}) {
      ASSERT_EQ(::waitpid(p, &status, 0), p);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "run " << run;
    }
    EXPECT_EQ(ReportedCommits(fd_main), static_cast<size_t>(kSurvivorAppends));
    EXPECT_EQ(ReportedCommits(fd_b2), static_cast<size_t>(kSurvivorAppends));

    auto add = [](std::set<int64_t>* to, const std::set<int64_t>& ids) { to->insert(ids.begin(), ids.end()); };
    add(&want_main, WriterIds(main_writer, kSurvivorAppends));
    add(&want_b2, WriterIds(b2_writer, kSurvivorAppends));
    EXPECT_EQ(CheckEveryVersion(table, ""), want_main) << "run " << run;
    EXPECT_EQ(CheckEveryVersion(table, "b2"), want_b2) << "run " << run;
    // b1: what it had, plus a prefix of this run's appends no shorter than what was reported.
    std::set<int64_t> b1 = CheckEveryVersion(table, "b1");
    const size_t fresh = b1.size() - want_b1.size();
    ASSERT_EQ(fresh % kRowsPerAppend, 0u) << "run " << run;
    const int64_t landed = static_cast<int64_t>(fresh / kRowsPerAppend);
    EXPECT_GE(static_cast<size_t>(landed), reported) << "run " << run;
    add(&want_b1, WriterIds(b1_writer, landed));
    EXPECT_EQ(b1, want_b1) << "run " << run;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lancet::table
