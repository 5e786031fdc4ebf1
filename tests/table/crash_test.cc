// Crash safety: a writer killed with SIGKILL at a random moment (appending, deleting or
// updating) leaves the dataset readable at its last committed version with exactly that
// version's rows and values, and Cleanup
// (delete_unverified, older_than 0) then removes every file the crash orphaned.
//
// LANCET_CRASH_RUNS=N sets the number of kills (default 12; the stress run uses 100+),
// LANCET_CRASH_SEED fixes the first workload seed to replay a failure.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "lancet/table/cleanup.h"
#include "lancet/table/write.h"
#include "table/crash_spawn.h"
#include "table/crash_workload.h"
#include "table/manifest.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

namespace fs = std::filesystem;

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

std::set<int64_t> ScanIds(const Dataset& ds) {
  std::set<int64_t> ids;
  ScanOptions scan;
  scan.columns = {"id"};
  auto batches = ds.Scan(scan);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok()) return ids;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) EXPECT_TRUE(ids.insert(b.columns[0].values<int64_t>()[i]).second);
  }
  return ids;
}

// Every row's payload by id (an id seen twice is a failure).
std::map<int64_t, std::optional<std::string>> ScanPayloads(const Dataset& ds) {
  std::map<int64_t, std::optional<std::string>> out;
  ScanOptions scan;
  scan.columns = {"id", "payload"};
  auto batches = ds.Scan(scan);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok()) return out;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      std::optional<std::string> p;
      if (b.columns[1].IsValid(i)) p = std::string(b.columns[1].GetView(i));
      EXPECT_TRUE(out.emplace(b.columns[0].values<int64_t>()[i], std::move(p)).second);
    }
  }
  return out;
}

// What the latest version references, relative to the dataset root.
std::set<std::string> ReferencedFiles(const Dataset& ds) {
  std::set<std::string> out = {"_versions/" + ManifestFileNameV2(ds.version()), "_versions/latest_version_hint.json"};
  for (const FragmentInfo& f : ds.fragments()) {
    for (const DataFileInfo& d : f.files) out.insert("data/" + d.path);
    if (!f.deletion_file.empty()) out.insert(f.deletion_file);
  }
  auto manifest = ReadManifest(*ds.store(), ds.uri() + "/_versions/" + ManifestFileNameV2(ds.version()));
  EXPECT_TRUE(manifest.ok()) << manifest.status().ToString();
  if (manifest.ok() && !manifest->transaction_file().empty()) {
    out.insert("_transactions/" + manifest->transaction_file());
  }
  return out;
}

// Files under data/ and _deletions/ that no version references, plus temporary files: what the kill orphaned.
size_t CountOrphans(const Dataset& ds, const std::string& dir) {
  std::set<std::string> used;
  auto versions = ds.ListVersions();
  EXPECT_TRUE(versions.ok());
  if (!versions.ok()) return 0;
  for (const VersionInfo& v : *versions) {
    auto old = ds.Checkout(v.version);
    EXPECT_TRUE(old.ok()) << old.status().ToString();
    if (!old.ok()) continue;
    for (const FragmentInfo& f : (*old)->fragments()) {
      for (const DataFileInfo& d : f.files) used.insert("data/" + d.path);
      if (!f.deletion_file.empty()) used.insert(f.deletion_file);
    }
  }
  size_t orphans = 0;
  for (const std::string& f : FilesUnder(dir)) {
    bool managed = f.starts_with("data/") || f.starts_with("_deletions/");
    if ((managed && !used.count(f)) || f.find(".tmp-") != std::string::npos) ++orphans;
  }
  return orphans;
}

struct RunFacts {
  uint64_t reported = 0;  // versions the writer reported before the kill
  bool landed_unreported = false;
  size_t orphans = 0;  // files the kill left that no version references
};

void KillAndVerify(const std::string& dir, uint64_t seed, int delay_ms, RunFacts* facts) {
  fs::remove_all(dir);
  int fd = -1;
  pid_t pid = testing::SpawnCrashChild({"crash", dir, std::to_string(seed)}, &fd);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  std::string out = ReadAll(fd);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the writer stopped on its own";

  // Each reported line must match the workload, and the last one is durable.
  testing::CrashWorkload workload(seed);
  std::istringstream lines(out);
  uint64_t version = 0, rows = 0, reported = 0;
  while (lines >> version >> rows) {
    ASSERT_EQ(version, reported + 1);
    workload.Next();
    ASSERT_EQ(rows, workload.ids().size()) << "version " << version;
    reported = version;
  }
  facts->reported = reported;

  auto opened = Dataset::Open(dir);
  if (!opened.ok()) {
    // Killed before the first commit landed.
    ASSERT_EQ(reported, 0u) << opened.status().ToString();
    ASSERT_TRUE(opened.status().IsNotFound()) << opened.status().ToString();
    return;
  }
  std::unique_ptr<Dataset> ds = std::move(*opened);
  // The commit in flight at the kill may have landed before its report.
  ASSERT_TRUE(ds->version() == reported || ds->version() == reported + 1)
      << "reported " << reported << ", found " << ds->version();
  std::set<int64_t> expected = testing::CrashWorkloadIds(seed, ds->version());
  EXPECT_EQ(ScanIds(*ds), expected);
  EXPECT_EQ(ds->CountRows(), expected.size());
  // Updates moved rows: none lost or doubled, each with its last committed value.
  EXPECT_EQ(ScanPayloads(*ds), testing::CrashWorkloadPayloads(seed, ds->version()));

  facts->landed_unreported = ds->version() != reported;
  facts->orphans = CountOrphans(*ds, dir);

  CleanupOptions opts;
  opts.older_than = std::chrono::seconds(0);
  opts.delete_unverified = true;
  ASSERT_OK(Cleanup(*ds, opts));
  std::set<std::string> referenced = ReferencedFiles(*ds);
  for (const std::string& f : FilesUnder(dir)) EXPECT_TRUE(referenced.count(f)) << "left after cleanup: " << f;
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(dir));
  EXPECT_EQ(reopened->version(), ds->version());
  EXPECT_EQ(ScanIds(*reopened), expected);
}

TEST(Crash, KilledWriterLeavesLastCommitReadable) {
  const uint64_t runs = EnvOr("LANCET_CRASH_RUNS", 12);
  const uint64_t first_seed = EnvOr("LANCET_CRASH_SEED", std::random_device{}());
  std::mt19937_64 rng(first_seed);
  const std::string dir = ::testing::TempDir() + "lancet_crash_" + std::to_string(::getpid());
  uint64_t versions = 0, landed_unreported = 0, orphans = 0, runs_with_orphans = 0;
  for (uint64_t run = 0; run < runs; ++run) {
    const uint64_t seed = first_seed + run;
    // Mostly long enough for several commits, sometimes within the first one.
    const int delay_ms = static_cast<int>(run % 4 == 0 ? rng() % 10 : rng() % 500);
    SCOPED_TRACE("LANCET_CRASH_SEED=" + std::to_string(seed) + " delay " + std::to_string(delay_ms) + " ms");
    RunFacts facts;
    KillAndVerify(dir, seed, delay_ms, &facts);
    if (HasFailure()) break;
    versions += facts.reported;
    landed_unreported += facts.landed_unreported;
    orphans += facts.orphans;
    runs_with_orphans += facts.orphans > 0;
  }
  fs::remove_all(dir);
  std::printf(
      "%llu kills: %llu versions reported, %llu commits landed "
      "unreported, %llu orphans in %llu runs\n",
      static_cast<unsigned long long>(runs), static_cast<unsigned long long>(versions),
      static_cast<unsigned long long>(landed_unreported), static_cast<unsigned long long>(orphans),
      static_cast<unsigned long long>(runs_with_orphans));
}

}  // namespace
}  // namespace lancet::table
