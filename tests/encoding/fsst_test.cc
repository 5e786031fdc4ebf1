#include <random>

#include "encoding_test_util.h"

namespace lancet::encoding {
namespace {

using namespace testing;  // NOLINT

/// A 2312-byte table with the given symbols (codes 0..n-1).
std::string SymbolTable(const std::vector<std::string>& symbols, bool enabled = true) {
  std::vector<uint8_t> t(2312, 0);
  uint64_t header = (0x46535354ULL << 32) | (uint64_t{enabled} << 24) | symbols.size();
  std::memcpy(t.data(), &header, 8);
  for (size_t i = 0; i < symbols.size(); ++i) {
    std::memcpy(t.data() + 8 + 8 * i, symbols[i].data(), symbols[i].size());
    t[8 + 8 * symbols.size() + i] = static_cast<uint8_t>(symbols[i].size());
  }
  return std::string(t.begin(), t.end());
}

pb::CompressiveEncoding FsstEnc(const std::string& table) {
  pb::CompressiveEncoding e;
  e.mutable_fsst()->set_symbol_table(table);
  *e.mutable_fsst()->mutable_values() = VariableEnc();
  return e;
}

const std::vector<std::string> kSymbols = {"row-", "hello", "abcdefgh", "x"};

TEST(FsstTest, MiniBlockChunk) {
  // "row-1", "hello world!", "", "abcdefghx" with 0xFF escapes for literals.
  std::vector<std::string> compressed = {std::string("\x00\xff"
                                                     "1",
                                                     3),
                                         std::string("\x01\xff \xff"
                                                     "w\xff"
                                                     "o\xff"
                                                     "r\xff"
                                                     "l\xff"
                                                     "d\xff!",
                                                     15),
                                         "", std::string("\x02\x03", 2)};
  std::vector<BufferPtr> bufs = {Bytes(VariableChunk(compressed))};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FsstEnc(SymbolTable(kSymbols)), bufs, 4));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{"row-1", "hello world!", "", "abcdefghx"}));
}

// A take decompresses only the values it reads (the result holds just those), and a
// corrupt value it skips cannot fail it.
TEST(FsstTest, WantedValuesOnly) {
  std::vector<std::string> compressed = {std::string("\x00\xff"
                                                     "1",
                                                     3),
                                         std::string("\x07", 1), "", std::string("\x02\x03", 2)};
  std::vector<BufferPtr> bufs = {Bytes(VariableChunk(compressed))};
  const std::vector<uint32_t> wanted = {0, 3};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FsstEnc(SymbolTable(kSymbols)), bufs, 4, wanted));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{"row-1", "abcdefghx"}));
  // Value 1 holds code 7, which the table lacks.
  const std::vector<uint32_t> bad = {1};
  EXPECT_TRUE(DecodeMiniBlockChunk(FsstEnc(SymbolTable(kSymbols)), bufs, 4, bad).status().IsCorruption());
  const std::vector<uint32_t> unordered = {3, 0};
  EXPECT_FALSE(DecodeMiniBlockChunk(FsstEnc(SymbolTable(kSymbols)), bufs, 4, unordered).ok());
  const std::vector<uint32_t> past_end = {4};
  EXPECT_FALSE(DecodeMiniBlockChunk(FsstEnc(SymbolTable(kSymbols)), bufs, 4, past_end).ok());
}

TEST(FsstTest, FullZipPerValue) {
  std::string v0("\x00\x00\x03", 3), v1("\xff\xff", 2);
  std::vector<std::span<const uint8_t>> values = {{reinterpret_cast<const uint8_t*>(v0.data()), v0.size()},
                                                  {},
                                                  {reinterpret_cast<const uint8_t*>(v1.data()), v1.size()}};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeFullZipVariable(FsstEnc(SymbolTable(kSymbols)), values, nullptr));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{"row-row-x", "", "\xff"}));
}

TEST(FsstTest, LongStrings) {
  std::string compressed(3000, '\x02');
  std::vector<BufferPtr> bufs = {Bytes(VariableChunk({compressed}))};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FsstEnc(SymbolTable(kSymbols)), bufs, 1));
  ASSERT_EQ(b.num_values, 1u);
  EXPECT_EQ(Strings(b)[0].size(), 24000u);
  EXPECT_EQ(Strings(b)[0].substr(0, 16), "abcdefghabcdefgh");
}

// The decoder takes eight codes at a time until an escape: escapes at every position
// of that window, at string ends, and dangling at the end, against a plain decoder.
TEST(FsstTest, EscapesAtEveryPositionOfAWord) {
  std::mt19937 rng(7);
  std::vector<std::string> compressed, expect;
  for (int n = 0; n < 400; ++n) {
    std::string in, out;
    const int codes = static_cast<int>(rng() % 40);
    for (int k = 0; k < codes; ++k) {
      if (rng() % 5 == 0) {
        const char lit = static_cast<char>(rng() % 256);
        in += '\xff';
        in += lit;
        out += lit;
      } else {
        const uint8_t c = static_cast<uint8_t>(rng() % kSymbols.size());
        in += static_cast<char>(c);
        out += kSymbols[c];
      }
    }
    compressed.push_back(in);
    expect.push_back(out);
  }
  std::vector<BufferPtr> bufs = {Bytes(VariableChunk(compressed))};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FsstEnc(SymbolTable(kSymbols)), bufs, compressed.size()));
  EXPECT_EQ(Strings(b), expect);
  for (size_t len = 1; len <= 17; ++len) {
    std::string dangling(len - 1, '\x00');
    dangling += '\xff';
    std::vector<BufferPtr> d = {Bytes(VariableChunk({dangling}))};
    SCOPED_TRACE(len);
    EXPECT_CORRUPT(DecodeMiniBlockChunk(FsstEnc(SymbolTable(kSymbols)), d, 1));
  }
}

TEST(FsstTest, DisabledEncoderPassesThrough) {
  std::vector<BufferPtr> bufs = {Bytes(VariableChunk({"plain", "text"}))};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FsstEnc(SymbolTable({}, false)), bufs, 2));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{"plain", "text"}));
}

TEST(FsstTest, Corrupt) {
  std::vector<BufferPtr> bufs = {Bytes(VariableChunk({std::string("\x00", 1)}))};
  std::string table = SymbolTable(kSymbols);
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FsstEnc(table.substr(0, 2311)), bufs, 1));
  std::string bad_magic = table;
  bad_magic[7] = 0;
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FsstEnc(bad_magic), bufs, 1));
  // Code 9 is not in a 4-symbol table.
  std::vector<BufferPtr> unknown = {Bytes(VariableChunk({"\x09"}))};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FsstEnc(table), unknown, 1));
  // A string cannot end in the escape code.
  std::vector<BufferPtr> dangling = {Bytes(VariableChunk({"\x03\xff"}))};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FsstEnc(table), dangling, 1));
  // A symbol of length 0 is impossible.
  std::string zero_len = table;
  zero_len[8 + 8 * 4 + 1] = 0;
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FsstEnc(zero_len), bufs, 1));
}

}  // namespace
}  // namespace lancet::encoding
