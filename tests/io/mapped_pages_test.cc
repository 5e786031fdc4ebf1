// The resident budget of mapped reads (src/io/mapped_pages.h): released large reads stay
// resident up to the budget and leave the process past it, without changing any bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/mapped_pages.h"
#include "lancet/io/object_store.h"

namespace lancet::io {
namespace {

constexpr uint64_t kMiB = 1 << 20;

// Before any read of this process fixes the budget: 4 MiB.
const bool kBudgetSet = [] { return ::setenv("LANCET_MAPPED_RESIDENT_MIB", "4", 1) == 0; }();

// Resident bytes of the mapping that holds `p`, from /proc/self/smaps.
uint64_t ResidentOfMappingAt(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("Rss:", 0) == 0) return std::stoull(line.substr(4)) * 1024;
  }
  ADD_FAILURE() << "no mapping holds " << p;
  return 0;
}

class MappedPagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kBudgetSet);
    ASSERT_EQ(MappedResidentBudget(), 4 * kMiB);
    path_ = (std::filesystem::temp_directory_path() / ("lancet-mapped-pages-" + std::to_string(::getpid()) + "-" +
                                                       ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::vector<uint8_t> bytes(32 * kMiB);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + i / 4096);
    std::ofstream(path_, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    expected_ = std::move(bytes);
    auto file = LocalFileSystem()->OpenRead(path_);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    file_ = std::move(*file);
    ASSERT_TRUE(file_->cheap_reads());
  }
  void TearDown() override { std::filesystem::remove(path_); }

  // Reads [offset, offset + length), touches every byte, checks it, drops the buffer.
  void ReadAndRelease(uint64_t offset, uint64_t length) {
    auto buf = file_->ReadAt(offset, length);
    ASSERT_TRUE(buf.ok());
    base_ = (*buf)->data() - offset;
    EXPECT_EQ(std::memcmp((*buf)->data(), expected_.data() + offset, length), 0);
  }

  std::string path_;
  std::vector<uint8_t> expected_;
  std::unique_ptr<RandomAccessFile> file_;
  const uint8_t* base_ = nullptr;
};

TEST_F(MappedPagesTest, ReleasedReadsPastTheBudgetLeaveTheProcess) {
  for (uint64_t off = 0; off < 32 * kMiB; off += kMiB) ReadAndRelease(off, kMiB);
  // Without the budget all 32 MiB would stay resident for as long as the file is open.
  const uint64_t resident = ResidentOfMappingAt(base_);
  EXPECT_LE(resident, 6 * kMiB) << resident;
  EXPECT_GE(resident, 2 * kMiB) << "the newest releases stay mapped: " << resident;
}

TEST_F(MappedPagesTest, ReadsWithinTheBudgetStayResident) {
  ReadAndRelease(0, kMiB);
  ReadAndRelease(kMiB, kMiB);
  EXPECT_GE(ResidentOfMappingAt(base_), 2 * kMiB);
}

TEST_F(MappedPagesTest, ReadingTheSamePagesAgainDoesNotAdviseThemAway) {
  // A hot table scanned again and again: each release of the same 3 MiB replaces the
  // last one instead of counting twice, so the pages never leave within a 4 MiB budget.
  for (int pass = 0; pass < 10; ++pass) ReadAndRelease(8 * kMiB, 3 * kMiB);
  EXPECT_GE(ResidentOfMappingAt(base_), 3 * kMiB);
}

TEST_F(MappedPagesTest, ALiveBufferOnAdvisedPagesKeepsItsBytes) {
  // A small read inside a large one: when the large one's pages leave, the small one
  // faults the same bytes back in.
  auto small = file_->ReadAt(kMiB + 100, 1000);
  ASSERT_TRUE(small.ok());
  for (uint64_t off = 0; off < 32 * kMiB; off += kMiB) ReadAndRelease(off, kMiB);
  EXPECT_EQ(std::memcmp((*small)->data(), expected_.data() + kMiB + 100, 1000), 0);
}

}  // namespace
}  // namespace lancet::io
