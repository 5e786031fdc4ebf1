// The posting-list codec of the inverted index: round trips over every block shape
// (tail only, exactly full blocks, full blocks plus a tail), gaps and frequencies up to
// 2^32 - 1, positions, the bit packer against a scalar model, and corrupt bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <random>

#include "index/bitpack128.h"
#include "index/fts_impacts.h"
#include "index/fts_posting.h"
#include "index/varint.h"
#include "util/test_macros.h"

namespace lancet::index::fts {
namespace {

// A list of `n` docs with gaps up to `max_gap`, freqs up to `max_freq` and (when asked)
// positions.
Postings MakePostings(uint32_t n, uint32_t max_gap, uint32_t max_freq, bool positions, uint32_t seed) {
  std::mt19937 rng(seed);
  Postings p;
  uint32_t doc = rng() % max_gap;
  for (uint32_t i = 0; i < n; ++i) {
    p.doc_ids.push_back(doc);
    doc += 1 + rng() % max_gap;
    const uint32_t f = 1 + (rng() % 8 == 0 ? rng() % max_freq : rng() % 3);
    p.freqs.push_back(f);
    if (positions) {
      std::vector<uint32_t> pos;
      uint32_t at = rng() % 50;
      for (uint32_t j = 0; j < f; ++j) {
        pos.push_back(at);
        at += rng() % 4 == 0 ? rng() % 100000 : rng() % 5;
      }
      p.positions.push_back(std::move(pos));
    }
  }
  return p;
}

std::vector<uint32_t> Lengths(const Postings& p, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> len(p.doc_ids.back() + 1);
  for (auto& l : len) l = 1 + rng() % 300;
  for (size_t i = 0; i < p.doc_ids.size(); ++i) len[p.doc_ids[i]] = std::max(len[p.doc_ids[i]], p.freqs[i]);
  return len;
}

Bm25 Stats(const std::vector<uint32_t>& lengths) {
  uint64_t total = 0;
  for (uint32_t l : lengths) total += l;
  return {lengths.size(), static_cast<float>(total) / static_cast<float>(lengths.size())};
}

std::string Hex(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += "0123456789abcdef"[c >> 4], out += "0123456789abcdef"[c & 15];
  return out;
}

std::vector<std::string_view> Views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

void RoundTrip(const Postings& p) {
  const auto lengths = Lengths(p, 7);
  const Bm25 bm25 = Stats(lengths);
  ASSERT_OK_AND_ASSIGN(EncodedPostings e, EncodePostings(p, lengths, bm25));
  const uint32_t n = static_cast<uint32_t>(p.doc_ids.size());
  EXPECT_EQ(e.length, n);
  ASSERT_EQ(e.blocks.size(), (n + 127) / 128);
  const size_t blocks = e.blocks.size();
  EXPECT_EQ(e.impacts.size(), blocks + (blocks + 31) / 32);
  const auto views = Views(e.blocks);
  ASSERT_OK_AND_ASSIGN(DecodedPostings d, DecodePostings(views, n, "test"));
  EXPECT_EQ(d.doc_ids, p.doc_ids);
  EXPECT_EQ(d.freqs, p.freqs);
  // Scores: each block's is idf * its best doc weight (to rounding), the list's the max.
  const float idf = Bm25::Idf(n, bm25.num_docs);
  float best = 0;
  for (size_t b = 0; b < blocks; ++b) {
    float w = 0;
    for (size_t i = b * 128; i < std::min<size_t>(n, (b + 1) * 128); ++i) {
      w = std::max(w, bm25.DocWeight(p.freqs[i], lengths[p.doc_ids[i]]));
    }
    EXPECT_NEAR(d.block_max_scores[b], idf * w, 1e-5f * idf * w);
    best = std::max(best, d.block_max_scores[b]);
  }
  EXPECT_EQ(e.max_score, best);
  if (!p.positions.empty()) {
    ASSERT_EQ(e.position_block_offsets.size(), blocks);
    ASSERT_OK_AND_ASSIGN(auto pos, DecodePositions(e.compressed_positions, e.position_block_offsets, p.freqs, "test"));
    EXPECT_EQ(pos, p.positions);
  } else {
    EXPECT_TRUE(e.compressed_positions.empty());
    EXPECT_TRUE(e.position_block_offsets.empty());
  }
}

TEST(FtsPostingTest, RoundTripsEveryBlockShape) {
  for (uint32_t n : {1u, 2u, 127u, 128u, 129u, 255u, 256u, 257u, 1000u, 4096u, 4097u, 5000u}) {
    SCOPED_TRACE(n);
    RoundTrip(MakePostings(n, 3, 10, false, n));
    RoundTrip(MakePostings(n, 1000, 500, true, n + 1));
  }
}

TEST(FtsPostingTest, RoundTripsExtremes) {
  // Dense ids (1-bit deltas after a 0 first delta) with frequency 1 everywhere.
  Postings dense;
  for (uint32_t i = 0; i < 300; ++i) {
    dense.doc_ids.push_back(i);
    dense.freqs.push_back(1);
  }
  RoundTrip(dense);
  // Big gaps (17-bit deltas; a doc length is needed for every id up to the last) and
  // frequencies up to 2^32 - 1.
  Postings sparse;
  for (uint32_t i = 0; i < 140; ++i) {
    sparse.doc_ids.push_back(i * 70001u);
    sparse.freqs.push_back(i % 2 ? 0xFFFFFFFFu : 1);
  }
  RoundTrip(sparse);
}

TEST(FtsPostingTest, DecodesFullWidthDeltas) {
  // A full block whose doc ids jump by nearly 2^32 once: 32-bit wide deltas.
  uint32_t docs[128], freqs[128];
  for (uint32_t i = 0; i < 128; ++i) {
    docs[i] = i < 64 ? i : 0xFFFFFF00u + i;
    freqs[i] = 1 + i;
  }
  std::string block(4, '\0');
  block.append(reinterpret_cast<const char*>(&docs[0]), 4);
  const uint32_t doc_bits = bitpack::MaxBitsSorted(docs), freq_bits = bitpack::MaxBits(freqs);
  ASSERT_EQ(doc_bits, 32u);
  block.push_back(static_cast<char>(doc_bits));
  std::string packed(bitpack::PackedBytes(doc_bits), '\0');
  bitpack::PackSorted(docs, doc_bits, reinterpret_cast<uint8_t*>(packed.data()));
  block += packed;
  block.push_back(static_cast<char>(freq_bits));
  packed.assign(bitpack::PackedBytes(freq_bits), '\0');
  bitpack::Pack(freqs, freq_bits, reinterpret_cast<uint8_t*>(packed.data()));
  block += packed;
  uint32_t got_docs[128], got_freqs[128];
  ASSERT_OK(DecodePostingBlock(block, 128, got_docs, got_freqs, "wide").status());
  EXPECT_EQ(0, std::memcmp(docs, got_docs, sizeof(docs)));
  EXPECT_EQ(0, std::memcmp(freqs, got_freqs, sizeof(freqs)));
}

TEST(FtsPostingTest, BitPackerMatchesScalarModel) {
  std::mt19937 rng(3);
  for (uint32_t bits = 0; bits <= 32; ++bits) {
    uint32_t values[128], back[128];
    for (auto& v : values) v = bits == 0 ? 0 : static_cast<uint32_t>(rng()) >> (32 - bits);
    std::vector<uint8_t> packed(bitpack::PackedBytes(bits) + 1, 0xAB);
    bitpack::Pack(values, bits, packed.data());
    EXPECT_EQ(packed.back(), 0xAB) << "wrote past the group";
    // The model: lane i % 4, slot i / 4, little-endian bit stream per lane, word w of
    // lane l at u32 index 4w + l.
    for (uint32_t i = 0; i < 128 && bits > 0; ++i) {
      uint64_t v = 0;
      for (uint32_t b = 0; b < bits; ++b) {
        const uint32_t bit = (i / 4) * bits + b;
        const uint32_t word = 4 * (bit / 32) + i % 4;
        uint32_t w;
        std::memcpy(&w, &packed[4 * word], 4);
        v |= uint64_t{(w >> (bit % 32)) & 1} << b;
      }
      ASSERT_EQ(v, values[i]) << "bits " << bits << " value " << i;
    }
    bitpack::Unpack(packed.data(), bits, back);
    EXPECT_EQ(0, std::memcmp(values, back, sizeof(values))) << bits;
    EXPECT_EQ(bitpack::MaxBits(values),
              bits == 0 ? 0 : static_cast<uint32_t>(std::bit_width(*std::max_element(values, values + 128))));
  }
}

TEST(FtsPostingTest, ImpactsKeepOnlyUndominatedPairs) {
  // (freq, len): (1, 10) (1, 8) (2, 9) (3, 20) (2, 30): the frontier is (1, 8) (2, 9)
  // (3, 20), stored with length codes 8, 9, 18: steps (1, 8) (1, 1) (1, 9).
  const std::vector<uint32_t> docs = {0, 1, 2, 3, 4}, freqs = {1, 1, 2, 3, 2}, lens = {10, 8, 9, 20, 30};
  const auto entries = EncodeImpacts(docs, freqs, lens);
  ASSERT_EQ(entries.size(), 2u);  // the block's, then its group's
  const std::string want = {4, 3, 1, 8, 0, 1, 9};
  EXPECT_EQ(entries[0], want);
  EXPECT_EQ(entries[1], want);
  // Lengths 16 and 17 share code 16: the higher frequency stands for both.
  const std::vector<uint32_t> d2 = {5, 6}, f2 = {1, 2}, l2 = {0, 0, 0, 0, 0, 16, 17};
  const std::string want2 = {6, 1, 3, 16};
  EXPECT_EQ(EncodeImpacts(d2, f2, l2)[0], want2);

  uint32_t last = 0;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  ASSERT_OK(DecodeImpactEntry(entries[0], &last, &pairs, "impacts"));
  EXPECT_EQ(last, 4u);
  EXPECT_EQ(pairs, (std::vector<std::pair<uint32_t, uint32_t>>{{1, 8}, {2, 9}, {3, 20}}));
  ASSERT_OK(DecodeImpactEntry(want2, &last, &pairs, "impacts"));
  EXPECT_EQ(pairs, (std::vector<std::pair<uint32_t, uint32_t>>{{2, 16}}));
  for (const std::string& bad :
       {std::string{}, std::string{4}, std::string{4, 0}, std::string{4, 3, 1, 8, 0, 1}, want + "x",
        std::string{4, 9, 1, 8}, std::string{4, 2, 1, 8, 1, 0},
        std::string{4, 1, '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', 1}}) {
    const Status st = DecodeImpactEntry(bad, &last, &pairs, "impacts of t");
    EXPECT_TRUE(st.IsCorruption()) << Hex(bad);
  }
}

TEST(FtsPostingTest, ImpactsGroupEvery32Blocks) {
  Postings p;
  for (uint32_t i = 0; i < 33 * 128 + 5; ++i) {
    p.doc_ids.push_back(i);
    p.freqs.push_back(1);
  }
  const std::vector<uint32_t> lens(p.doc_ids.size(), 4);
  const auto entries = EncodeImpacts(p.doc_ids, p.freqs, lens);
  ASSERT_EQ(entries.size(), 34u + 2u);
  size_t pos = 0;
  uint32_t last = 0;
  ASSERT_TRUE(GetVarint32(reinterpret_cast<const uint8_t*>(entries[34].data()), entries[34].size(), &pos, &last));
  EXPECT_EQ(last, 32u * 128 - 1);  // the first group ends with block 31
}

TEST(FtsPostingTest, DocLengthCodes) {
  uint32_t prev_code = 0;
  for (uint64_t len = 0; len <= UINT32_MAX; len = len < 4096 ? len + 1 : len * 3 + 7) {
    const uint32_t code = QuantizeDocLength(static_cast<uint32_t>(len));
    ASSERT_LE(code, 255u);
    ASSERT_GE(code, prev_code) << len;  // monotone
    ASSERT_LE(DequantizeDocLength(code), len);
    ASSERT_EQ(QuantizeDocLength(DequantizeDocLength(code)), code);
    prev_code = code;
  }
  EXPECT_EQ(QuantizeDocLength(7), 7u);
  EXPECT_EQ(QuantizeDocLength(8), 8u);
  EXPECT_EQ(QuantizeDocLength(23), 19u);
  EXPECT_EQ(DequantizeDocLength(19), 22u);
}

TEST(FtsPostingTest, EncodeRejectsBadInput) {
  std::vector<uint32_t> lengths(10, 3);
  Postings p;
  EXPECT_FALSE(EncodePostings(p, lengths, {10, 3}).ok());  // empty
  p.doc_ids = {2, 1};
  p.freqs = {1, 1};
  EXPECT_FALSE(EncodePostings(p, lengths, {10, 3}).ok());  // descending
  p.doc_ids = {1, 20};
  EXPECT_FALSE(EncodePostings(p, lengths, {10, 3}).ok());  // no length
  p.doc_ids = {1, 2};
  p.freqs = {1, 0};
  EXPECT_FALSE(EncodePostings(p, lengths, {10, 3}).ok());  // freq 0
  p.freqs = {1, 2};
  p.positions = {{1}, {3, 2}};
  EXPECT_FALSE(EncodePostings(p, lengths, {10, 3}).ok());  // positions descend
}

TEST(FtsPostingTest, CorruptPostingsAreCorruption) {
  const Postings p = MakePostings(300, 5, 5, false, 1);
  const auto lengths = Lengths(p, 2);
  ASSERT_OK_AND_ASSIGN(EncodedPostings e, EncodePostings(p, lengths, Stats(lengths)));
  auto check = [&](std::vector<std::string> blocks, uint32_t length) {
    auto r = DecodePostings(Views(blocks), length, "term 7");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("term 7"), std::string::npos);
  };
  check(e.blocks, 301);          // one doc more than the blocks hold
  check(e.blocks, 4000000000u);  // a huge length: refused before allocating
  check(e.blocks, 256);          // the tail is counted as full
  auto b = e.blocks;
  b[0].pop_back();
  check(b, 300);  // truncated full block
  b = e.blocks;
  b[0][8] = 33;
  check(b, 300);  // bit width past 32
  b = e.blocks;
  b[2].push_back(0);
  check(b, 300);  // trailing byte after the tail
  b = e.blocks;
  b[2].resize(6);
  check(b, 300);  // truncated tail
  b = e.blocks;
  b[2] = std::string(4, '\0') + std::string(10, '\xff');
  check(b, 300);  // varint past 5 bytes
  b = e.blocks;
  b[1].replace(4, 4, std::string(4, '\0'));
  check(b, 300);  // block 1 starts at doc 0, before block 0 ends
  b = e.blocks;
  b[0][8] = 32;  // 32-bit deltas where 3 were packed: the widths no longer fit the size
  check(b, 300);
}

TEST(FtsPostingTest, CorruptPositionsAreCorruption) {
  const Postings p = MakePostings(200, 5, 300, true, 4);
  const auto lengths = Lengths(p, 5);
  ASSERT_OK_AND_ASSIGN(EncodedPostings e, EncodePostings(p, lengths, Stats(lengths)));
  auto check = [&](std::string_view bytes, std::vector<uint32_t> offsets, std::vector<uint32_t> freqs) {
    auto r = DecodePositions(bytes, offsets, freqs, "positions of t");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  };
  const auto& c = e.compressed_positions;
  const auto& off = e.position_block_offsets;
  check(c.substr(0, c.size() - 1), off, p.freqs);  // truncated
  check(c + "x", off, p.freqs);                    // trailing byte
  check(c, {off[0]}, p.freqs);                     // missing block offset
  check(c, {off[1], off[0]}, p.freqs);             // offsets backwards
  check(c, {0, static_cast<uint32_t>(c.size() + 1)}, p.freqs);
  auto freqs = p.freqs;
  freqs[0] = 4000000000u;  // a count the bytes cannot hold
  check(c, off, freqs);
  freqs = p.freqs;
  freqs[0] += 1;
  check(c, off, freqs);
  std::string bad = c;
  bad[0] = 40;  // packed group width past 32 (the first block has > 128 positions)
  check(bad, off, p.freqs);
}

// Not a benchmark harness: a rough figure printed for the record, and a floor far
// below what the decoder does so the test never flakes.
TEST(FtsPostingTest, DecodeSpeed) {
  const Postings p = MakePostings(1 << 20, 20, 20, false, 9);
  const auto lengths = Lengths(p, 10);
  ASSERT_OK_AND_ASSIGN(EncodedPostings e, EncodePostings(p, lengths, Stats(lengths)));
  const auto views = Views(e.blocks);
  std::vector<uint32_t> docs(128), freqs(128);
  uint64_t sum = 0;
  const auto start = std::chrono::steady_clock::now();
  int rounds = 0;
  for (; rounds < 20; ++rounds) {
    for (size_t b = 0; b < views.size(); ++b) {
      auto s = DecodePostingBlock(views[b], PostingBlockDocs(e.length, static_cast<uint32_t>(b)), docs.data(),
                                  freqs.data(), "bench");
      ASSERT_TRUE(s.ok());
      sum += docs[5] + freqs[7];
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = rounds * double(e.length) / secs;
  std::printf("decode: %.0f M postings/s (checksum %llu)\n", rate / 1e6, static_cast<unsigned long long>(sum));
  EXPECT_GT(rate, 10e6);
}

}  // namespace
}  // namespace lancet::index::fts
