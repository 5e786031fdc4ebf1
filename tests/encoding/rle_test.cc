#include "encoding_test_util.h"

namespace lancet::encoding {
namespace {

using namespace testing;  // NOLINT

pb::CompressiveEncoding RleEnc(uint64_t bits) {
  pb::CompressiveEncoding e;
  *e.mutable_rle()->mutable_values() = FlatEnc(bits);
  *e.mutable_rle()->mutable_run_lengths() = FlatEnc(8);
  return e;
}

TEST(RleTest, MiniBlockChunk) {
  std::vector<uint8_t> values, runs = {255, 45, 3};
  for (int32_t v : {7, -2, 9}) Put<int32_t>(&values, v);
  std::vector<BufferPtr> bufs = {Bytes(values), Bytes(runs)};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(RleEnc(32), bufs, 303));
  auto got = Values<int32_t>(b);
  ASSERT_EQ(got.size(), 303u);
  EXPECT_EQ(got[0], 7);
  EXPECT_EQ(got[254], 7);
  EXPECT_EQ(got[255], -2);
  EXPECT_EQ(got[299], -2);
  EXPECT_EQ(got[300], 9);
  EXPECT_EQ(got[302], 9);
}

TEST(RleTest, LongRunSplitAcrossEntries) {
  std::vector<uint8_t> values, runs = {255, 255, 90};
  for (int i = 0; i < 3; ++i) Put<uint64_t>(&values, 5);
  std::vector<BufferPtr> bufs = {Bytes(values), Bytes(runs)};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(RleEnc(64), bufs, 600));
  EXPECT_EQ(Values<uint64_t>(b), std::vector<uint64_t>(600, 5));
}

TEST(RleTest, BlockForm) {
  std::vector<uint8_t> bytes;
  Put<uint64_t>(&bytes, 4);  // two u16 values
  Put<uint16_t>(&bytes, 0);
  Put<uint16_t>(&bytes, 1);
  bytes.push_back(3);
  bytes.push_back(2);
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(RleEnc(16), Bytes(bytes), 5));
  EXPECT_EQ(Values<uint16_t>(b), (std::vector<uint16_t>{0, 0, 0, 1, 1}));
  ASSERT_OK_AND_ASSIGN(auto levels, ToLevels(b, 5));
  EXPECT_EQ(levels, (std::vector<uint16_t>{0, 0, 0, 1, 1}));
}

TEST(RleTest, Empty) {
  std::vector<BufferPtr> bufs = {Buffer::Empty(), Buffer::Empty()};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(RleEnc(32), bufs, 0));
  EXPECT_EQ(b.num_values, 0u);
  ASSERT_OK_AND_ASSIGN(DataBlock c, DecodeBlock(RleEnc(16), Buffer::Empty(), 0));
  EXPECT_EQ(c.num_values, 0u);
}

TEST(RleTest, Corrupt) {
  std::vector<uint8_t> values, runs = {2, 2};
  Put<int32_t>(&values, 1);
  Put<int32_t>(&values, 2);
  std::vector<BufferPtr> bufs = {Bytes(values), Bytes(runs)};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(RleEnc(32), bufs, 5));  // runs too short
  EXPECT_CORRUPT(DecodeMiniBlockChunk(RleEnc(32), bufs, uint64_t{1} << 50));  // no huge allocation
  std::vector<BufferPtr> one = {Bytes(values)};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(RleEnc(32), one, 4));
  EXPECT_CORRUPT(DecodeMiniBlockChunk(RleEnc(24), bufs, 4));
  std::vector<uint8_t> block;
  Put<uint64_t>(&block, 1000);
  EXPECT_CORRUPT(DecodeBlock(RleEnc(16), Bytes(block), 3));
  EXPECT_CORRUPT(DecodeBlock(RleEnc(16), Bytes(std::vector<uint8_t>{1, 2, 3}), 3));
  pb::CompressiveEncoding wide_runs = RleEnc(32);
  *wide_runs.mutable_rle()->mutable_run_lengths() = FlatEnc(16);
  EXPECT_CORRUPT(DecodeMiniBlockChunk(wide_runs, bufs, 4));
}

}  // namespace
}  // namespace lancet::encoding
