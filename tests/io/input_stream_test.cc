#include "lancet/io/input_stream.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "util/test_macros.h"

namespace lancet::io {
namespace {

class InputStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("lancet_input_stream_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    for (int i = 0; i < 100; ++i) bytes_.push_back(static_cast<char>('a' + i % 26));
    std::ofstream(path_, std::ios::binary) << bytes_;
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::filesystem::path path_;
  std::string bytes_;
};

// A regular file's reads are sized by what it holds: a zero-length read, exact pieces,
// a claim past the end (only the rest) and reads after the end (empty).
TEST_F(InputStreamTest, RegularFileReadsGiveTheFileInPieces) {
  ASSERT_OK_AND_ASSIGN(auto in, OpenInputStream(path_.string()));
  ASSERT_OK_AND_ASSIGN(BufferPtr none, in->Read(0));
  EXPECT_TRUE(none->empty());
  ASSERT_OK_AND_ASSIGN(BufferPtr head, in->Read(10));
  EXPECT_EQ(head->view(), bytes_.substr(0, 10));
  ASSERT_OK_AND_ASSIGN(BufferPtr middle, in->Read(60));
  EXPECT_EQ(middle->view(), bytes_.substr(10, 60));
  ASSERT_OK_AND_ASSIGN(BufferPtr rest, in->Read(uint64_t{1} << 40));
  EXPECT_EQ(rest->view(), bytes_.substr(70));
  ASSERT_OK_AND_ASSIGN(BufferPtr after, in->Read(5));
  EXPECT_TRUE(after->empty());
}

// Bytes appended after the stream was opened are still read (as from a pipe).
TEST_F(InputStreamTest, BytesAppendedAfterOpeningAreRead) {
  ASSERT_OK_AND_ASSIGN(auto in, OpenInputStream(path_.string()));
  ASSERT_OK_AND_ASSIGN(BufferPtr head, in->Read(90));
  EXPECT_EQ(head->view(), bytes_.substr(0, 90));
  std::ofstream(path_, std::ios::binary | std::ios::app) << "XYZ";
  ASSERT_OK_AND_ASSIGN(BufferPtr rest, in->Read(20));
  EXPECT_EQ(rest->view(), bytes_.substr(90) + "XYZ");
}

// Large reads at unaligned positions give the file's bytes, which stay valid after
// the stream is gone.
TEST_F(InputStreamTest, LargeReadsAtUnalignedPositionsGiveTheFileBytes) {
  std::string big;
  for (int i = 0; i < 3 << 20; ++i) big.push_back(static_cast<char>(i * 7 % 251));
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << big;
  BufferPtr head, large, rest;
  {
    ASSERT_OK_AND_ASSIGN(auto in, OpenInputStream(path_.string()));
    ASSERT_OK_AND_ASSIGN(head, in->Read(4099));
    ASSERT_OK_AND_ASSIGN(large, in->Read(2 << 20));
    ASSERT_OK_AND_ASSIGN(rest, in->Read(uint64_t{1} << 30));
  }
  EXPECT_EQ(head->view(), big.substr(0, 4099));
  EXPECT_EQ(large->view(), big.substr(4099, 2 << 20));
  EXPECT_EQ(rest->view(), big.substr(4099 + (2 << 20)));
}

}  // namespace
}  // namespace lancet::io
