#include <random>

#include "encoding/bitpacking.h"
#include "encoding_test_util.h"

namespace lancet::encoding {
namespace {

using namespace testing;  // NOLINT

constexpr uint32_t kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

template <typename T>
std::vector<T> RandomValues(size_t n, uint32_t width, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    uint64_t r = rng();
    x = width >= 64 ? static_cast<T>(r) : static_cast<T>(r & ((uint64_t{1} << width) - 1));
  }
  return v;
}

pb::CompressiveEncoding InlineEnc(uint64_t bits) {
  pb::CompressiveEncoding e;
  e.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(bits);
  return e;
}

pb::CompressiveEncoding OutOfLineEnc(uint64_t bits, uint64_t width) {
  pb::CompressiveEncoding e;
  e.mutable_out_of_line_bitpacking()->set_uncompressed_bits_per_value(bits);
  *e.mutable_out_of_line_bitpacking()->mutable_values() = FlatEnc(width);
  return e;
}

template <typename T>
void RoundTripAllWidths() {
  constexpr uint32_t kBits = sizeof(T) * 8;
  for (uint32_t w = 0; w <= kBits; ++w) {
    auto in = RandomValues<T>(kFastLanesBlock, w, 1000 + w);
    std::vector<T> packed(FastLanesWords<T>(w));
    FastLanesPack<T>(in, w, packed);
    std::vector<T> out(kFastLanesBlock);
    FastLanesUnpack<T>(packed, w, out);
    ASSERT_EQ(in, out) << "T=" << kBits << " W=" << w;
  }
}

TEST(FastLanesTest, RoundTripEveryWidth) {
  RoundTripAllWidths<uint8_t>();
  RoundTripAllWidths<uint16_t>();
  RoundTripAllWidths<uint32_t>();
  RoundTripAllWidths<uint64_t>();
}

TEST(FastLanesTest, FullWidthIsTheTransposedOrder) {
  // At W = T every row occupies one word, so the layout is visible directly.
  std::vector<uint32_t> in(kFastLanesBlock);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i;
  std::vector<uint32_t> packed(FastLanesWords<uint32_t>(32));
  FastLanesPack<uint32_t>(in, 32, packed);
  constexpr uint32_t kLanes = 1024 / 32;
  for (uint32_t row = 0; row < 32; ++row) {
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      ASSERT_EQ(packed[kLanes * row + lane], kOrder[row / 8] * 16 + (row % 8) * 128 + lane);
    }
  }
}

TEST(FastLanesTest, OneBitLayout) {
  // u8, W=1: lane l's word holds bit r = value (kOrder[r/8]*16 + (r%8)*128 + l); r < 8 so row/8 = 0.
  std::vector<uint8_t> in(kFastLanesBlock, 0);
  in[128 * 3 + 5] = 1;  // row 3 of lane 5
  std::vector<uint8_t> packed(FastLanesWords<uint8_t>(1));
  FastLanesPack<uint8_t>(in, 1, packed);
  for (size_t i = 0; i < packed.size(); ++i) EXPECT_EQ(packed[i], i == 5 ? 1u << 3 : 0u) << i;
}

TEST(FastLanesTest, ValuesStraddleWords) {
  // W=3 in u8: row 2 sits at bits 6..8 and straddles words 0 and 1 of its lane.
  std::vector<uint8_t> in(kFastLanesBlock, 0);
  in[2 * 128 + 0] = 0b101;
  std::vector<uint8_t> packed(FastLanesWords<uint8_t>(3));
  FastLanesPack<uint8_t>(in, 3, packed);
  EXPECT_EQ(packed[0], 0b01000000);
  EXPECT_EQ(packed[128 / 8 * 0 + 128], 0b1);  // word 1 of lane 0 is at LANES*1 + 0 = 128
}

template <typename T>
void InlineRoundTrip(size_t n, int width) {
  auto values = RandomValues<T>(n, width < 0 ? 5 : static_cast<uint32_t>(width), n);
  auto chunks = InlineBitpackChunks<T>(values, width);
  ASSERT_EQ(chunks.size(), (n + 1023) / 1024);
  std::vector<T> got;
  for (size_t c = 0; c < chunks.size(); ++c) {
    uint64_t count = std::min<uint64_t>(1024, n - c * 1024);
    std::vector<BufferPtr> bufs = {Bytes(chunks[c])};
    ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(InlineEnc(sizeof(T) * 8), bufs, count));
    auto v = Values<T>(b);
    got.insert(got.end(), v.begin(), v.end());
  }
  EXPECT_EQ(got, values);
  // The block form accepts the chunks back to back.
  std::vector<uint8_t> all;
  for (const auto& c : chunks) all.insert(all.end(), c.begin(), c.end());
  ASSERT_OK_AND_ASSIGN(DataBlock whole, DecodeBlock(InlineEnc(sizeof(T) * 8), Bytes(all), n));
  EXPECT_EQ(Values<T>(whole), values);
}

TEST(InlineBitpackingTest, BlockBoundaries) {
  for (size_t n : {0, 1, 1023, 1024, 1025, 3000}) {
    InlineRoundTrip<uint8_t>(n, -1);
    InlineRoundTrip<uint16_t>(n, -1);
    InlineRoundTrip<uint32_t>(n, -1);
    InlineRoundTrip<uint64_t>(n, -1);
  }
}

TEST(InlineBitpackingTest, WidthZeroAndFull) {
  InlineRoundTrip<uint32_t>(1500, 0);
  InlineRoundTrip<uint32_t>(1500, 32);
  InlineRoundTrip<uint64_t>(1500, 64);
  InlineRoundTrip<uint8_t>(1500, 8);
  auto chunk = InlineBitpackChunks<uint64_t>(std::vector<uint64_t>(10, 0), 0)[0];
  EXPECT_EQ(chunk.size(), 8u);  // header only
}

TEST(InlineBitpackingTest, EveryWidthRoundTrips) {
  for (int w = 0; w <= 32; ++w) InlineRoundTrip<uint32_t>(1100, w);
  for (int w = 0; w <= 16; ++w) InlineRoundTrip<uint16_t>(1100, w);
}

TEST(InlineBitpackingTest, Corrupt) {
  auto chunk = InlineBitpackChunks<uint32_t>(RandomValues<uint32_t>(1024, 7, 1), 7)[0];
  auto enc = InlineEnc(32);
  // Truncated at every length.
  for (size_t cut = 0; cut < chunk.size(); cut += 37) {
    std::vector<BufferPtr> bufs = {Bytes(std::vector<uint8_t>(chunk.begin(), chunk.begin() + cut))};
    EXPECT_CORRUPT(DecodeMiniBlockChunk(enc, bufs, 1024));
  }
  // Width beyond the type.
  auto wide = chunk;
  wide[0] = 33;
  std::vector<BufferPtr> bufs = {Bytes(wide)};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(enc, bufs, 1024));
  // More than one block's worth of values in a chunk.
  bufs = {Bytes(chunk)};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(enc, bufs, 1025));
  // Unsupported word size.
  EXPECT_CORRUPT(DecodeMiniBlockChunk(InlineEnc(24), bufs, 10));
  // Block form with a huge count fails before allocating.
  EXPECT_CORRUPT(DecodeBlock(enc, Bytes(chunk), uint64_t{1} << 40));
}

template <typename T>
void OutOfLineRoundTrip(size_t n, uint32_t width) {
  auto values = RandomValues<T>(n, width, n * 131 + width);
  auto bytes = OutOfLineBitpack<T>(values, width);
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(OutOfLineEnc(sizeof(T) * 8, width), Bytes(bytes), n));
  EXPECT_EQ(Values<T>(b), values) << "n=" << n << " W=" << width;
}

TEST(OutOfLineBitpackingTest, RoundTrip) {
  for (size_t n : {0, 1, 5, 1000, 1023, 1024, 1025, 2048, 2100}) {
    for (uint32_t w = 0; w <= 16; ++w) OutOfLineRoundTrip<uint16_t>(n, w);
    for (uint32_t w : {0, 1, 7, 8}) OutOfLineRoundTrip<uint8_t>(n, w);
    for (uint32_t w : {0, 1, 13, 31, 32}) OutOfLineRoundTrip<uint32_t>(n, w);
    for (uint32_t w : {0, 1, 33, 63, 64}) OutOfLineRoundTrip<uint64_t>(n, w);
  }
}

TEST(OutOfLineBitpackingTest, TailRule) {
  // 1024 + 91 u16 levels at W=2: the tail costs 91*2 bytes raw versus 256 bytes padded,
  // so it is stored raw: 256 + 182 = 438 bytes (the size observed in reference files).
  auto values = RandomValues<uint16_t>(1024 + 91, 2, 9);
  auto bytes = OutOfLineBitpack<uint16_t>(values, 2);
  EXPECT_EQ(bytes.size(), 438u);
  // 1024 + 1000 at W=1: padding to a block is cheaper, so two packed blocks.
  auto packed = OutOfLineBitpack<uint16_t>(RandomValues<uint16_t>(2024, 1, 3), 1);
  EXPECT_EQ(packed.size(), 2u * 64 * 2);
}

TEST(OutOfLineBitpackingTest, Corrupt) {
  auto values = RandomValues<uint16_t>(1100, 3, 5);
  auto bytes = OutOfLineBitpack<uint16_t>(values, 3);
  auto enc = OutOfLineEnc(16, 3);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{100}, bytes.size() - 1, bytes.size() - 2}) {
    std::vector<uint8_t> t(bytes.begin(), bytes.begin() + cut);
    EXPECT_CORRUPT(DecodeBlock(enc, Bytes(t), 1100));
  }
  EXPECT_CORRUPT(DecodeBlock(enc, Bytes(bytes), 5000));
  EXPECT_CORRUPT(DecodeBlock(OutOfLineEnc(16, 17), Bytes(bytes), 1100));
  EXPECT_CORRUPT(DecodeBlock(OutOfLineEnc(12, 3), Bytes(bytes), 1100));
  pb::CompressiveEncoding no_values;
  no_values.mutable_out_of_line_bitpacking()->set_uncompressed_bits_per_value(16);
  EXPECT_CORRUPT(DecodeBlock(no_values, Bytes(bytes), 1100));
}

// Reading one value straight from the packed words equals unpacking the block, for
// every type, width and index.
template <typename T>
void GetMatchesUnpack() {
  constexpr uint32_t kBits = sizeof(T) * 8;
  for (uint32_t w = 0; w <= kBits; ++w) {
    auto in = RandomValues<T>(kFastLanesBlock, w, 77 + w);
    std::vector<T> packed(FastLanesWords<T>(w));
    FastLanesPack<T>(in, w, packed);
    // Unaligned on purpose: chunk words sit at any byte offset of a read.
    std::vector<uint8_t> bytes(packed.size() * sizeof(T) + 1);
    if (!packed.empty()) std::memcpy(bytes.data() + 1, packed.data(), packed.size() * sizeof(T));
    for (uint32_t i = 0; i < kFastLanesBlock; ++i) {
      ASSERT_EQ(FastLanesGet<T>(bytes.data() + 1, w, i), in[i]) << "T=" << kBits << " W=" << w << " i=" << i;
    }
  }
}

TEST(FastLanesTest, GetMatchesUnpack) {
  GetMatchesUnpack<uint8_t>();
  GetMatchesUnpack<uint16_t>();
  GetMatchesUnpack<uint32_t>();
  GetMatchesUnpack<uint64_t>();
}

// A take's wanted values come out compacted and equal to the same values of a full decode.
TEST(InlineBitpackingTest, WantedValuesOnly) {
  auto values = RandomValues<uint64_t>(3000, 37, 4);
  auto chunks = InlineBitpackChunks<uint64_t>(values, -1);
  std::vector<uint8_t> all;
  for (const auto& c : chunks) all.insert(all.end(), c.begin(), c.end());
  const std::vector<uint32_t> wanted = {0, 5, 1023, 1024, 2047, 2999};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(InlineEnc(64), Bytes(all), 3000, wanted));
  std::vector<uint64_t> expect;
  for (uint32_t w : wanted) expect.push_back(values[w]);
  EXPECT_EQ(Values<uint64_t>(b), expect);
  std::vector<BufferPtr> bufs = {Bytes(chunks[0])};
  const std::vector<uint32_t> in_chunk = {3, 900};
  ASSERT_OK_AND_ASSIGN(DataBlock c, DecodeMiniBlockChunk(InlineEnc(64), bufs, 1024, in_chunk));
  EXPECT_EQ(Values<uint64_t>(c), (std::vector<uint64_t>{values[3], values[900]}));
  const std::vector<uint32_t> past_end = {1024};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(InlineEnc(64), bufs, 1024, past_end));
  const std::vector<uint32_t> unordered = {9, 2};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(InlineEnc(64), bufs, 1024, unordered));
}

TEST(OutOfLineBitpackingTest, WantedValuesOnly) {
  // 1024 + 91 at W=2 keeps a raw tail; 2024 at W=1 pads it to a packed block.
  for (auto [n, w] : {std::pair<size_t, uint32_t>{1115, 2}, {2024, 1}, {700, 16}}) {
    auto values = RandomValues<uint16_t>(n, w, n);
    auto bytes = OutOfLineBitpack<uint16_t>(values, w);
    std::vector<uint32_t> wanted;
    for (uint32_t i = 0; i < n; i += 97) wanted.push_back(i);
    wanted.push_back(static_cast<uint32_t>(n - 1));
    ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(OutOfLineEnc(16, w), Bytes(bytes), n, wanted));
    std::vector<uint16_t> expect;
    for (uint32_t i : wanted) expect.push_back(values[i]);
    EXPECT_EQ(Values<uint16_t>(b), expect) << "n=" << n << " W=" << w;
  }
}

TEST(BitWidthTest, Required) {
  EXPECT_EQ(RequiredBitWidth<uint32_t>(std::vector<uint32_t>{0, 0}), 0u);
  EXPECT_EQ(RequiredBitWidth<uint32_t>(std::vector<uint32_t>{1, 2}), 2u);
  EXPECT_EQ(RequiredBitWidth<uint64_t>(std::vector<uint64_t>{~uint64_t{0}}), 64u);
}

}  // namespace
}  // namespace lancet::encoding
