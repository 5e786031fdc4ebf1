#include "encoding_test_util.h"

namespace lancet::encoding {
namespace {

using namespace testing;  // NOLINT

std::vector<BufferPtr> One(BufferPtr b) { return {std::move(b)}; }

TEST(FlatTest, DecodesValuesAndDropsPadding) {
  std::vector<uint8_t> bytes;
  for (int32_t v : {7, -1, 42}) Put<int32_t>(&bytes, v);
  bytes.insert(bytes.end(), {0xFE, 0xFE, 0xFE, 0xFE});  // chunk padding
  auto bufs = One(Bytes(bytes));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FlatEnc(32), bufs, 3));
  EXPECT_EQ(Values<int32_t>(b), (std::vector<int32_t>{7, -1, 42}));
  EXPECT_EQ(b.data->size(), 12u);
}

TEST(FlatTest, EmptyInput) {
  auto bufs = One(Buffer::Empty());
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FlatEnc(64), bufs, 0));
  EXPECT_EQ(b.num_values, 0u);
  ASSERT_OK_AND_ASSIGN(DataBlock c, DecodeBlock(FlatEnc(16), nullptr, 0));
  EXPECT_EQ(c.num_values, 0u);
}

TEST(FlatTest, BoolBitmap) {
  // 10 bools, LSB first: 0x9e 0x01 = 0,1,1,1,1,0,0,1,1,0
  auto bufs = One(Bytes(std::vector<uint8_t>{0x9e, 0x01}));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FlatEnc(1), bufs, 10));
  EXPECT_EQ(b.bits_per_value, 1u);
  EXPECT_EQ(b.data->size(), 2u);
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FlatEnc(1), bufs, 17));
}

TEST(FlatTest, TruncatedIsCorruption) {
  auto bufs = One(Bytes(std::vector<uint8_t>(7, 0)));
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FlatEnc(64), bufs, 1));
  EXPECT_CORRUPT(DecodeBlock(FlatEnc(32), bufs[0], 2));
  // A count whose byte size overflows 64 bits must not wrap into a small number.
  EXPECT_CORRUPT(DecodeBlock(FlatEnc(64), bufs[0], UINT64_MAX / 2));
}

TEST(FlatTest, MissingBufferIsCorruption) {
  std::vector<BufferPtr> none;
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FlatEnc(32), none, 1));
}

TEST(VariableChunkTest, ChunkRelativeOffsets) {
  std::vector<std::string> values = {"a", "", "hello", std::string(5000, 'x')};
  auto bufs = One(Bytes(VariableChunk(values)));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(VariableEnc(), bufs, values.size()));
  EXPECT_EQ(b.offset_bits, 32u);
  EXPECT_EQ(b.OffsetAt(0), 5u * 4);  // first offset points just past the offsets
  EXPECT_EQ(Strings(b), values);
}

TEST(VariableChunkTest, SixtyFourBitOffsets) {
  std::vector<std::string> values = {"xyz", "", "q"};
  auto bufs = One(Bytes(VariableChunk<uint64_t>(values)));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(VariableEnc(64), bufs, 3));
  EXPECT_EQ(b.offset_bits, 64u);
  EXPECT_EQ(Strings(b), values);
}

TEST(VariableChunkTest, ZeroValues) {
  auto bufs = One(Bytes(VariableChunk({})));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(VariableEnc(), bufs, 0));
  EXPECT_EQ(b.num_values, 0u);
}

TEST(VariableChunkTest, CorruptOffsets) {
  auto chunk = VariableChunk({"ab", "cd"});
  // Too many values for the chunk.
  EXPECT_CORRUPT(DecodeMiniBlockChunk(VariableEnc(), One(Bytes(chunk)), 100));
  EXPECT_CORRUPT(DecodeMiniBlockChunk(VariableEnc(), One(Bytes(chunk)), UINT64_MAX));
  // First offset points into the offsets.
  auto bad_first = chunk;
  bad_first[0] = 4;
  EXPECT_CORRUPT(DecodeMiniBlockChunk(VariableEnc(), One(Bytes(bad_first)), 2));
  // Decreasing offsets.
  auto decreasing = chunk;
  decreasing[4] = 20;
  EXPECT_CORRUPT(DecodeMiniBlockChunk(VariableEnc(), One(Bytes(decreasing)), 2));
  // Last offset past the end.
  auto past = chunk;
  past[8] = 200;
  EXPECT_CORRUPT(DecodeMiniBlockChunk(VariableEnc(), One(Bytes(past)), 2));
  // Offsets must be Flat 32/64.
  EXPECT_CORRUPT(DecodeMiniBlockChunk(VariableEnc(16), One(Bytes(chunk)), 2));
}

std::vector<uint8_t> VariableBlockBytes(const std::vector<std::string>& values) {
  std::vector<uint8_t> out;
  Put<uint32_t>(&out, 32);
  Put<uint32_t>(&out, static_cast<uint32_t>(8 + 4 * (values.size() + 1)));
  uint32_t pos = 0;
  Put<uint32_t>(&out, pos);
  for (const auto& v : values) Put<uint32_t>(&out, pos += static_cast<uint32_t>(v.size()));
  for (const auto& v : values) out.insert(out.end(), v.begin(), v.end());
  return out;
}

TEST(VariableBlockTest, HeaderOffsetsBytes) {
  std::vector<std::string> values = {"red", "", "green", "blue"};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(VariableEnc(), Bytes(VariableBlockBytes(values)), 4));
  EXPECT_EQ(Strings(b), values);
}

TEST(VariableBlockTest, SixtyFourBitHeader) {
  std::vector<uint8_t> out;
  Put<uint64_t>(&out, 64);
  Put<uint64_t>(&out, 16 + 3 * 8);
  for (uint64_t o : {0, 2, 5}) Put<uint64_t>(&out, o);
  for (char c : std::string("abcde")) out.push_back(static_cast<uint8_t>(c));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(VariableEnc(64), Bytes(out), 2));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{"ab", "cde"}));
}

TEST(VariableBlockTest, OldHeaderScheme) {
  // One byte of width, the value count, then the data start.
  std::vector<uint8_t> out = {32};
  Put<uint32_t>(&out, 2);
  Put<uint32_t>(&out, 9 + 12);
  for (uint32_t o : {0, 1, 3}) Put<uint32_t>(&out, o);
  for (char c : std::string("xyz")) out.push_back(static_cast<uint8_t>(c));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(VariableEnc(), Bytes(out), 2));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{"x", "yz"}));
}

TEST(VariableBlockTest, Corrupt) {
  auto good = VariableBlockBytes({"a", "bc"});
  EXPECT_CORRUPT(DecodeBlock(VariableEnc(), Bytes(good), 3));  // count mismatch
  for (size_t cut = 0; cut < good.size(); ++cut) {
    std::vector<uint8_t> truncated(good.begin(), good.begin() + cut);
    EXPECT_FALSE(DecodeBlock(VariableEnc(), Bytes(truncated), 2).ok()) << cut;
  }
  auto bad_width = good;
  bad_width[0] = 16;
  EXPECT_CORRUPT(DecodeBlock(VariableEnc(), Bytes(bad_width), 2));
  auto bad_start = good;
  bad_start[4] = 200;
  EXPECT_CORRUPT(DecodeBlock(VariableEnc(), Bytes(bad_start), 2));
}

TEST(FullZipVariableTest, PlainValues) {
  std::string a = "first", c(70000, 'z');
  std::vector<std::span<const uint8_t>> values = {
      {reinterpret_cast<const uint8_t*>(a.data()), a.size()}, {}, {reinterpret_cast<const uint8_t*>(c.data()), c.size()}};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeFullZipVariable(VariableEnc(), values, nullptr));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{a, "", c}));
  ASSERT_OK_AND_ASSIGN(DataBlock b64, DecodeFullZipVariable(VariableEnc(64), values, nullptr));
  EXPECT_EQ(b64.offset_bits, 64u);
  EXPECT_EQ(Strings(b64), (std::vector<std::string>{a, "", c}));
}

TEST(FullZipFixedTest, Flat) {
  std::vector<uint8_t> bytes;
  for (int64_t v : {1, 2, 3}) Put<int64_t>(&bytes, v);
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeFullZipFixed(FlatEnc(64), Bytes(bytes), 3));
  EXPECT_EQ(Values<int64_t>(b), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_CORRUPT(DecodeFullZipFixed(FlatEnc(64), Bytes(bytes), 4));
}

}  // namespace
}  // namespace lancet::encoding
