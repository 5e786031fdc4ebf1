// Write-side encoders (FSST, RLE, dictionary) checked against the read-side
// decoders.
#include <random>

#include "encoding/dictionary_encoder.h"
#include "encoding/fsst_encoder.h"
#include "encoding/rle_encoder.h"
#include "encoding_test_util.h"

namespace lancet::encoding {
namespace {

using namespace testing;  // NOLINT

struct Strings {
  std::vector<uint8_t> data;
  std::vector<uint64_t> offsets{0};
  void Add(std::string_view s) {
    data.insert(data.end(), s.begin(), s.end());
    offsets.push_back(data.size());
  }
  std::vector<std::string> All() const {
    std::vector<std::string> out;
    for (size_t i = 0; i + 1 < offsets.size(); ++i) {
      out.emplace_back(reinterpret_cast<const char*>(data.data()) + offsets[i], offsets[i + 1] - offsets[i]);
    }
    return out;
  }
};

// Compresses `in` and decodes it as a one-chunk Fsst(Variable) mini-block.
std::vector<std::string> FsstRoundTrip(const Strings& in, double* ratio) {
  FsstEncoder enc = FsstEncoder::Train(in.data, in.offsets);
  *ratio = enc.sample_ratio();
  std::vector<uint8_t> out;
  std::vector<uint64_t> offsets;
  enc.Compress(in.data, in.offsets, &out, &offsets);
  std::vector<std::string> compressed;
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    compressed.emplace_back(reinterpret_cast<const char*>(out.data()) + offsets[i], offsets[i + 1] - offsets[i]);
  }
  const std::vector<uint8_t> table = enc.SerializeTable();
  EXPECT_EQ(table.size(), kFsstTableBytes);
  pb::CompressiveEncoding e;
  e.mutable_fsst()->set_symbol_table(table.data(), table.size());
  *e.mutable_fsst()->mutable_values() = VariableEnc();
  std::vector<BufferPtr> bufs = {Bytes(VariableChunk(compressed))};
  auto block = DecodeMiniBlockChunk(e, bufs, compressed.size());
  EXPECT_TRUE(block.ok()) << block.status().ToString();
  return block.ok() ? testing::Strings(*block) : std::vector<std::string>{};
}

TEST(FsstEncoderTest, RoundTripsAndCompressesRepetitiveText) {
  Strings in;
  for (int i = 0; i < 5000; ++i) in.Add("user-" + std::to_string(i * 7919 % 1000000));
  in.Add("");
  in.Add(std::string("\xff\x00\x01 binary \xfe", 13));
  double ratio = 1;
  EXPECT_EQ(FsstRoundTrip(in, &ratio), in.All());
  EXPECT_LT(ratio, 0.7);
}

TEST(FsstEncoderTest, RoundTripsRandomBytes) {
  std::mt19937 rng(7);
  Strings in;
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 40, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    in.Add(s);
  }
  double ratio = 0;
  EXPECT_EQ(FsstRoundTrip(in, &ratio), in.All());
  // Incompressible data: every byte is escaped, so the sample grows.
  EXPECT_GT(ratio, 0.9);
}

TEST(FsstEncoderTest, EmptyInput) {
  Strings in;
  double ratio = 0;
  EXPECT_TRUE(FsstRoundTrip(in, &ratio).empty());
  EXPECT_EQ(ratio, 1.0);
}

TEST(RleEncoderTest, RoundTripsAndSplitsLongRuns) {
  std::vector<uint32_t> values;
  for (int i = 0; i < 600; ++i) values.push_back(7);
  for (int i = 0; i < 3; ++i) values.push_back(static_cast<uint32_t>(i));
  values.push_back(7);
  EXPECT_EQ(CountRuns<uint32_t>(values), 5u);
  std::vector<uint8_t> run_values, lengths;
  RleEncode<uint32_t>(values, &run_values, &lengths);
  EXPECT_EQ(lengths, (std::vector<uint8_t>{255, 255, 90, 1, 1, 1, 1}));
  pb::CompressiveEncoding e;
  *e.mutable_rle()->mutable_values() = FlatEnc(32);
  *e.mutable_rle()->mutable_run_lengths() = FlatEnc(8);
  std::vector<BufferPtr> bufs = {Bytes(run_values), Bytes(lengths)};
  ASSERT_OK_AND_ASSIGN(DataBlock block, DecodeMiniBlockChunk(e, bufs, values.size()));
  EXPECT_EQ(Values<uint32_t>(block), values);
}

TEST(RleEncoderTest, EveryWidth) {
  std::vector<uint8_t> v8 = {1, 1, 2};
  std::vector<uint16_t> v16 = {1, 1, 2};
  std::vector<uint64_t> v64 = {5, 5, 5, 0};
  std::vector<uint8_t> vals, lens;
  RleEncode<uint8_t>(v8, &vals, &lens);
  EXPECT_EQ(vals, (std::vector<uint8_t>{1, 2}));
  vals.clear();
  lens.clear();
  RleEncode<uint16_t>(v16, &vals, &lens);
  EXPECT_EQ(vals.size(), 4u);
  vals.clear();
  lens.clear();
  RleEncode<uint64_t>(v64, &vals, &lens);
  EXPECT_EQ(lens, (std::vector<uint8_t>{3, 1}));
  EXPECT_EQ(CountRuns<uint64_t>({}), 0u);
}

TEST(DictionaryEncoderTest, BuildsItemsInFirstUseOrder) {
  Strings in;
  for (const char* s : {"b", "a", "b", "", "a", "c"}) in.Add(s);
  auto dict = BuildVariableDictionary(in.data, in.offsets, 10);
  ASSERT_TRUE(dict.has_value());
  EXPECT_EQ(dict->indices, (std::vector<uint32_t>{0, 1, 0, 2, 1, 3}));
  EXPECT_EQ(dict->num_items(), 4u);
  EXPECT_EQ(SampleCardinality(in.data, in.offsets, 3), 2u);
  // The block form decodes through the reader's Variable block decoder.
  ASSERT_OK_AND_ASSIGN(DataBlock items,
                       DecodeBlock(VariableEnc(), Bytes(EncodeVariableBlock(dict->item_offsets, dict->item_data)), 4));
  EXPECT_EQ(testing::Strings(items), (std::vector<std::string>{"b", "a", "", "c"}));
  ASSERT_OK_AND_ASSIGN(
      DataBlock plain,
      ApplyDictionary(DataBlock::Fixed(32, 6,
                                       Buffer::Copy(std::span<const uint8_t>(
                                           reinterpret_cast<const uint8_t*>(dict->indices.data()), 24))),
                      items));
  EXPECT_EQ(testing::Strings(plain), in.All());
}

TEST(DictionaryEncoderTest, GivesUpPastMaxItems) {
  Strings in;
  for (int i = 0; i < 100; ++i) in.Add(std::to_string(i));
  EXPECT_FALSE(BuildVariableDictionary(in.data, in.offsets, 50).has_value());
  EXPECT_TRUE(BuildVariableDictionary(in.data, in.offsets, 100).has_value());
}

}  // namespace
}  // namespace lancet::encoding
