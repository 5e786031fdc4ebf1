// Datasets on S3 under faults (tests/io/fault_proxy between writer and radosgw):
// commits survive lost answers and throttling without losing or doubling data, a failed
// commit shows nothing, and a writer killed mid-upload leaves no visible object and only
// a pending multipart upload, which cleanup aborts.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <thread>

#include "common/fault_proxy.h"
#include "common/test_stores.h"
#include "lancet/table/cleanup.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

extern char** environ;

namespace lancet::table {
namespace {

using testing::Fault;

// The schema crash_child's appends use.
RecordBatch Rows(int64_t lo, int64_t hi) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> payload;
  for (int64_t id = lo; id < hi; ++id) {
    ids.push_back(id);
    payload.push_back("row-" + std::to_string(id));
  }
  return *MakeRecordBatch({"id", "payload"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(payload)});
}

std::set<int64_t> Ids(const Dataset& ds) {
  std::set<int64_t> out;
  ScanOptions scan;
  scan.columns = {"id"};
  auto batches = ds.Scan(scan);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok()) return out;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) EXPECT_TRUE(out.insert(b.columns[0].values<int64_t>()[i]).second);
  }
  return out;
}

class S3Crash : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::S3Configured()) GTEST_SKIP() << testing::kNoS3;
    root_ = std::make_unique<testing::TestRoot>(testing::StoreKind::kS3, testing::CurrentTestName());
    proxy_ = std::make_unique<testing::FaultProxy>();
    uri_ = root_->uri() + "/ds.lance";
    key_ = root_->Path("ds.lance");
  }
  io::StorageOptions Proxied(int max_retries = 4) {
    return {{"aws_endpoint", proxy_->endpoint()}, {"client_max_retries", std::to_string(max_retries)}};
  }
  Result<uint64_t> Write(const RecordBatch& rows, WriteMode mode, const io::StorageOptions& so = {}) {
    WriteParams params;
    params.mode = mode;
    params.storage_options = so;
    return WriteDataset(uri_, rows.schema, {rows}, params);
  }
  std::unique_ptr<Dataset> OpenDirect() {
    auto ds = Dataset::Open(uri_);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? std::move(*ds) : nullptr;
  }
  std::vector<io::PendingUpload> Pending() {
    auto p = root_->store()->ListUploads(key_);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? *p : std::vector<io::PendingUpload>{};
  }

  std::unique_ptr<testing::TestRoot> root_;
  std::unique_ptr<testing::FaultProxy> proxy_;
  std::string uri_, key_;
};

TEST_F(S3Crash, CommitsSurviveFaultsWithoutLosingOrDoublingData) {
  // Each kind of fault once or twice, on each kind of request a commit makes.
  std::vector<int> rules = {
      proxy_->Add({"PUT", "/_versions/", "", "lose", 0, "", 0, 2}),  // the commit landed, its answer did not
      proxy_->Add({"PUT", "/data/", "", "drop", 0, "", 0, 1}),
      proxy_->Add({"PUT", "/_transactions/", "", "status", 503, "SlowDown", 0, 2}),
      proxy_->Add({"GET", "", "list-type=2", "status", 500, "InternalError", 0, 2}),
      proxy_->Add({"HEAD", "", "", "drop", 0, "", 0, 1}),
      proxy_->Add({"GET", "/_versions/", "", "short", 10, "", 0, 1}),
  };
  ASSERT_OK_AND_ASSIGN(uint64_t v, Write(Rows(0, 10), WriteMode::kCreate, Proxied()));
  EXPECT_EQ(v, 1u);
  for (int i = 1; i <= 3; ++i) {
    ASSERT_OK_AND_ASSIGN(v, Write(Rows(i * 10, i * 10 + 10), WriteMode::kAppend, Proxied()));
    EXPECT_EQ(v, static_cast<uint64_t>(i + 1));
  }
  OpenOptions oo;
  oo.storage_options = Proxied();
  ASSERT_OK_AND_ASSIGN(auto through, Dataset::Open(uri_, oo));
  EXPECT_EQ(Ids(*through).size(), 40u);
  for (int id : rules) EXPECT_GT(proxy_->Hits(id), 0) << "rule " << id << " never fired";

  // Read directly: four versions, every row once.
  auto ds = OpenDirect();
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->version(), 4u);
  std::set<int64_t> ids = Ids(*ds);
  EXPECT_EQ(ids.size(), 40u);
  EXPECT_EQ(*ids.begin(), 0);
  EXPECT_EQ(*ids.rbegin(), 39);
  ASSERT_OK_AND_ASSIGN(auto versions, ds->ListVersions());
  EXPECT_EQ(versions.size(), 4u);
}

TEST_F(S3Crash, FailedCommitShowsNothingAndCleanupRemovesItsFiles) {
  ASSERT_OK(Write(Rows(0, 5), WriteMode::kCreate).status());
  proxy_->Add({"PUT", "/_versions/", "", "status", 503, "SlowDown", 0, -1});
  const auto start = std::chrono::steady_clock::now();
  auto failed = Write(Rows(5, 10), WriteMode::kAppend, Proxied(1));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("HTTP 503 SlowDown"), std::string::npos) << failed.status().ToString();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  EXPECT_EQ(proxy_->Count("PUT", "/_versions/"), 2u);

  auto ds = OpenDirect();
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(Ids(*ds).size(), 5u);
  // Cleanup through the proxy, to count its requests: the orphans go in one DeleteObjects.
  proxy_->Clear();
  OpenOptions oo;
  oo.storage_options = Proxied();
  ASSERT_OK_AND_ASSIGN(auto through, Dataset::Open(uri_, oo));
  CleanupOptions opts;
  opts.older_than = std::chrono::seconds(0);
  opts.delete_unverified = true;
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*through, opts));
  EXPECT_GE(stats.files_removed, 1u);  // the data file no manifest references
  EXPECT_EQ(stats.old_versions, 0u);
  EXPECT_EQ(proxy_->Count("POST", "?delete"), 1u);
  EXPECT_EQ(proxy_->Count("DELETE"), 0u);
  EXPECT_EQ(proxy_->Count("HEAD", "/data/"), 0u);
  ds = OpenDirect();
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(Ids(*ds).size(), 5u);
}

TEST_F(S3Crash, WriterKilledMidUploadLeavesOnlyAnUploadCleanupAborts) {
  ASSERT_OK(Write(Rows(0, 3), WriteMode::kCreate).status());
  // The data file is 12 MiB: its second part stalls in the proxy, and there the writer dies.
  int stall = proxy_->Add({"PUT", "/data/", "partNumber=2", "stall", 120000, "", 0, 1});
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!std::string_view(*e).starts_with("AWS_ENDPOINT_URL=")) env.emplace_back(*e);
  }
  env.push_back("AWS_ENDPOINT_URL=" + proxy_->endpoint());
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = LANCET_CRASH_CHILD, mode = "bigappend", dir = uri_, bytes = std::to_string(12 << 20);
  char* argv[] = {exe.data(), mode.data(), dir.data(), bytes.data(), nullptr};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execve(argv[0], argv, envp.data());
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (proxy_->Hits(stall) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_EQ(proxy_->Hits(stall), 1) << "the writer never reached its second part";
  ASSERT_TRUE(WIFSIGNALED(status));

  // Readers see version 1 only; the half-written data file is no object at all.
  auto ds = OpenDirect();
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(Ids(*ds).size(), 3u);
  std::vector<io::PendingUpload> pending = Pending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_TRUE(pending[0].path.starts_with(key_ + "/data/")) << pending[0].path;
  EXPECT_FALSE(*root_->store()->Exists(pending[0].path));

  // A young upload may belong to a commit in progress: kept unless asked.
  CleanupOptions opts;
  opts.older_than = std::chrono::seconds(0);
  ASSERT_OK_AND_ASSIGN(CleanupStats kept, Cleanup(*ds, opts));
  EXPECT_EQ(kept.uploads_aborted, 0u);
  EXPECT_EQ(Pending().size(), 1u);
  // `lancet cleanup --delete-unverified` aborts it (the CLI runs Cleanup).
  std::string cmd = std::string(LANCET_LANCET_EXE) + " cleanup " + uri_ + " --older-than 0s --delete-unverified";
  FILE* out = ::popen(cmd.c_str(), "r");
  ASSERT_NE(out, nullptr);
  std::string printed;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), out)) > 0;) printed.append(buf, n);
  EXPECT_EQ(::pclose(out), 0) << printed;
  EXPECT_NE(printed.find("aborted 1 stale multipart uploads"), std::string::npos) << printed;
  EXPECT_TRUE(Pending().empty());

  // The dataset goes on as before.
  ASSERT_OK_AND_ASSIGN(uint64_t v, Write(Rows(3, 6), WriteMode::kAppend));
  EXPECT_EQ(v, 2u);
  ds = OpenDirect();
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(Ids(*ds).size(), 6u);
}

}  // namespace
}  // namespace lancet::table
