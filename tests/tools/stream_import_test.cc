// `lancet import` streams: from a fifo and from standard input, and a bad batch in the
// middle of the input commits nothing (the dataset stays at its version, no data
// files are left behind).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <thread>

#include "cli_test_util.h"
#include "format/ipc_writer.h"
#include "lancet/table/dataset.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

Schema StreamSchema() {
  return Schema{{MakeField("id", MakeType(TypeId::kInt64)), MakeField("s", MakeType(TypeId::kUtf8))}, {}};
}

RecordBatch Batch(int64_t first, int64_t n, bool bad_utf8 = false) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> strs;
  for (int64_t i = first; i < first + n; ++i) {
    ids.push_back(i);
    strs.push_back("s" + std::to_string(i));
  }
  if (bad_utf8) strs.back() = std::string("\xC3\x28", 2);
  return RecordBatch{
      StreamSchema(),
      n,
      {*ArrayFromVector(MakeType(TypeId::kInt64), ids), *MakeBinaryArray(MakeType(TypeId::kUtf8), strs)}};
}

// An IPC stream of `count` batches of 100 rows; batch `bad` (if any) has invalid UTF-8.
std::string StreamBytes(int count, int bad = -1) {
  std::vector<RecordBatch> batches;
  for (int b = 0; b < count; ++b) batches.push_back(Batch(b * 100, 100, b == bad));
  auto bytes = format::WriteIpcStream(StreamSchema(), batches);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? std::string((*bytes)->view()) : std::string();
}

void WriteAllTo(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

size_t DataFiles(const std::string& ds) {
  std::error_code ec;
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(ds + "/data", ec)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

std::vector<int64_t> Ids(const std::string& ds) {
  std::vector<Array> cols = ScanAll(ds);
  if (cols.empty()) return {};
  return std::vector<int64_t>(cols[0].values<int64_t>(), cols[0].values<int64_t>() + cols[0].length);
}

TEST(StreamImport, FromAFifo) {
  ScopedTempDir dir;
  const std::string fifo = dir.Join("in.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string bytes = StreamBytes(7);
  std::thread producer([&] { WriteAllTo(::open(fifo.c_str(), O_WRONLY), bytes); });
  const std::string ds = dir.Join("ds.lance");
  const int rc = RunLancet({"import", fifo, ds, "--max-rows-per-file", "300"});
  producer.join();
  ASSERT_EQ(rc, 0);
  std::vector<int64_t> ids = Ids(ds);
  ASSERT_EQ(ids.size(), 700u);
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], static_cast<int64_t>(i));
  EXPECT_EQ(DataFiles(ds), 3u);  // 300 + 300 + 100 rows
}

TEST(StreamImport, FromStandardInput) {
  ScopedTempDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string bytes = StreamBytes(3);
  std::thread producer([&] { WriteAllTo(fds[1], bytes); });
  const int saved = ::dup(0);
  ::dup2(fds[0], 0);
  ::close(fds[0]);
  const std::string ds = dir.Join("ds.lance");
  const int rc = RunLancet({"import", "-", ds});
  ::dup2(saved, 0);
  ::close(saved);
  producer.join();
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(Ids(ds).size(), 300u);
}

TEST(StreamImport, BadBatchMidStreamCommitsNothing) {
  ScopedTempDir dir;
  const std::string ds = dir.Join("ds.lance");
  const std::string good = dir.Join("good.arrows");
  WriteTextFile(good, StreamBytes(1));
  ASSERT_EQ(RunLancet({"import", good, ds}), 0);
  const size_t files = DataFiles(ds);

  // Batches 0-3 reach data files of 100 rows before batch 4 turns out bad.
  const std::string bad = dir.Join("bad.arrows");
  WriteTextFile(bad, StreamBytes(6, /*bad=*/4));
  EXPECT_NE(RunLancet({"import", bad, ds, "--mode", "append", "--max-rows-per-file", "100"}), 0);
  ASSERT_OK_AND_ASSIGN(auto opened, table::Dataset::Open(ds));
  EXPECT_EQ(opened->version(), 1u);
  EXPECT_EQ(opened->CountRows(), 100u);
  EXPECT_EQ(DataFiles(ds), files);

  // A truncated stream fails the same way.
  const std::string full = StreamBytes(6);
  const std::string cut = dir.Join("cut.arrows");
  WriteTextFile(cut, full.substr(0, full.size() - 100));
  EXPECT_NE(RunLancet({"import", cut, ds, "--mode", "append", "--max-rows-per-file", "100"}), 0);
  ASSERT_OK_AND_ASSIGN(opened, table::Dataset::Open(ds));
  EXPECT_EQ(opened->version(), 1u);
  EXPECT_EQ(DataFiles(ds), files);
}

TEST(StreamImport, IpcFileFromAPipeIsRefusedClearly) {
  ScopedTempDir dir;
  const std::string fifo = dir.Join("file.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto file = format::WriteIpcFile(StreamSchema(), {Batch(0, 10)});
  ASSERT_TRUE(file.ok());
  const std::string bytes((*file)->view());
  std::signal(SIGPIPE, SIG_IGN);  // the importer may stop reading before the producer is done
  std::thread producer([&] { WriteAllTo(::open(fifo.c_str(), O_WRONLY), bytes); });
  testing::internal::CaptureStderr();
  const int rc = RunLancet({"import", fifo, dir.Join("ds.lance")});
  const std::string err = testing::internal::GetCapturedStderr();
  producer.join();
  EXPECT_NE(rc, 0);
  EXPECT_NE(err.find("must be a regular file"), std::string::npos) << err;
}

}  // namespace
}  // namespace lancet::cli
