// The reference's full-text indexes (lance 12 through the Node peer, with and without
// positions): every term's posting list decodes, and re-encoding it from the decoded
// doc ids, frequencies and positions with the partition's doc lengths and statistics
// gives back the reference's bytes, column by column. Skipped when node or the peer is
// not installed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "common/peer.h"
#include "index/fts_impacts.h"
#include "index/fts_posting.h"
#include "index/index_file.h"
#include "lancet/io/object_store.h"
#include "util/test_macros.h"

namespace lancet::index::fts {
namespace {

namespace fs = std::filesystem;

std::string Hex(std::string_view s, size_t max = 48) {
  std::string out;
  char b[3];
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    std::snprintf(b, sizeof(b), "%02x", static_cast<unsigned char>(s[i]));
    out += b;
  }
  if (s.size() > max) out += "...(" + std::to_string(s.size()) + " bytes)";
  return out;
}

class FtsPostingReferenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::PeerScratchDir("lancet-ftsref");
    if (dir_.empty()) return;
    const std::string cmd = "LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                            "' node '" LANCET_SOURCE_DIR "/tests/index/fts_posting_reference.mjs' '" +
                            testing::PeerHarnessDir() + "/lib/peer.mjs' '" + dir_ + "' >'" + dir_ + "/peer.out' 2>'" +
                            dir_ + "/peer.err'";
    ok_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty() && !std::getenv("LANCET_KEEP_TMP")) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (dir_.empty()) GTEST_SKIP() << "node or the lance peer is not installed";
    ASSERT_TRUE(ok_) << "the peer script failed; see " << dir_ << "/peer.err";
  }

  // The one index directory of `table`.
  static std::string IndexDir(const std::string& table) {
    std::string found;
    for (const auto& e : fs::directory_iterator(dir_ + "/" + table + ".lance/_indices")) found = e.path().string();
    return found;
  }

  void CheckTable(const std::string& table, bool with_positions);

  static inline std::string dir_;
  static inline bool ok_ = false;
};

void FtsPostingReferenceTest::CheckTable(const std::string& table, bool with_positions) {
  const std::string dir = IndexDir(table);
  ASSERT_FALSE(dir.empty());
  auto store = io::LocalFileSystem();

  // The partition's docs: one row per doc, its token count; total_tokens in metadata.
  ASSERT_OK_AND_ASSIGN(auto docs_file, OpenIndexFile(*store, dir, "part_0_docs.lance"));
  const uint64_t num_docs = docs_file->num_rows();
  ASSERT_OK_AND_ASSIGN(Array num_tokens, ReadIndexColumn(*docs_file, 1, 0, num_docs));
  const std::vector<uint32_t> lengths(num_tokens.values<uint32_t>(), num_tokens.values<uint32_t>() + num_docs);
  const uint64_t total_tokens = std::stoull(IndexFileMetadata(*docs_file, "total_tokens"));
  const Bm25 bm25{num_docs, static_cast<float>(total_tokens) / static_cast<float>(num_docs)};

  ASSERT_OK_AND_ASSIGN(auto inv, OpenIndexFile(*store, dir, "part_0_invert.lance"));
  EXPECT_EQ(IndexFileMetadata(*inv, "format_version"), "2");
  EXPECT_EQ(IndexFileMetadata(*inv, "posting_block_size"), "128");
  EXPECT_EQ(IndexFileMetadata(*inv, "posting_tail_codec"), "varint_delta_v1");
  if (with_positions) {
    EXPECT_EQ(IndexFileMetadata(*inv, "positions_codec"), "packed_delta_v1");
    EXPECT_EQ(IndexFileMetadata(*inv, "positions_layout"), "shared_stream_v2");
  }
  ASSERT_EQ(inv->file_schema().fields.size(), with_positions ? 6u : 4u);
  const uint64_t terms = inv->num_rows();
  ASSERT_OK_AND_ASSIGN(Array posting, ReadIndexColumn(*inv, 0, 0, terms));
  ASSERT_OK_AND_ASSIGN(Array max_score, ReadIndexColumn(*inv, 1, 0, terms));
  ASSERT_OK_AND_ASSIGN(Array length, ReadIndexColumn(*inv, 2, 0, terms));
  ASSERT_OK_AND_ASSIGN(Array impacts, ReadIndexColumn(*inv, 3, 0, terms));
  Array positions, offsets;
  if (with_positions) {
    ASSERT_OK_AND_ASSIGN(positions, ReadIndexColumn(*inv, 4, 0, terms));
    ASSERT_OK_AND_ASSIGN(offsets, ReadIndexColumn(*inv, 5, 0, terms));
  }

  std::vector<uint64_t> freq_sum(num_docs, 0);
  size_t shapes[4] = {};  // lists of < 128 docs, whole blocks only, blocks + tail, > 32 blocks
  size_t mismatches = 0;
  auto report = [&](uint64_t term, const std::string& what) {
    if (++mismatches <= 12) ADD_FAILURE() << table << " term " << term << ": " << what;
  };
  for (uint64_t t = 0; t < terms; ++t) {
    const std::string what = table + " term " + std::to_string(t);
    const uint32_t n = length.values<uint32_t>()[t];
    const auto [pb, pe] = posting.ListRange(static_cast<int64_t>(t));
    std::vector<std::string_view> blocks;
    for (int64_t i = pb; i < pe; ++i) blocks.push_back(posting.children[0].GetView(i));
    ASSERT_OK_AND_ASSIGN(DecodedPostings d, DecodePostings(blocks, n, what));
    ++shapes[n < 128 ? 0 : n % 128 == 0 ? 1 : 2];
    if (blocks.size() > 32) ++shapes[3];

    Postings p;
    p.doc_ids = d.doc_ids;
    p.freqs = d.freqs;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_LT(d.doc_ids[i], num_docs) << what;
      freq_sum[d.doc_ids[i]] += d.freqs[i];
    }
    std::vector<uint32_t> offs;
    if (with_positions) {
      const auto [ob, oe] = offsets.ListRange(static_cast<int64_t>(t));
      offs.assign(offsets.children[0].values<uint32_t>() + ob, offsets.children[0].values<uint32_t>() + oe);
      ASSERT_OK_AND_ASSIGN(p.positions,
                           DecodePositions(positions.GetView(static_cast<int64_t>(t)), offs, p.freqs, what));
    }
    ASSERT_OK_AND_ASSIGN(EncodedPostings e, EncodePostings(p, lengths, bm25));

    if (e.length != n) report(t, "length " + std::to_string(e.length) + " vs " + std::to_string(n));
    const float want_score = max_score.values<float>()[t];
    if (e.max_score != want_score) {
      report(t, "max score " + std::to_string(e.max_score) + " vs " + std::to_string(want_score));
    }
    for (size_t b = 0; b < blocks.size() && b < e.blocks.size(); ++b) {
      if (e.blocks[b] != blocks[b]) {
        report(t, "block " + std::to_string(b) + " of " + std::to_string(n) + " docs: ours " + Hex(e.blocks[b]) +
                      " theirs " + Hex(blocks[b]));
      }
    }
    const auto [ib, ie] = impacts.ListRange(static_cast<int64_t>(t));
    if (static_cast<size_t>(ie - ib) != e.impacts.size()) {
      report(t, std::to_string(e.impacts.size()) + " impact entries vs " + std::to_string(ie - ib));
    } else {
      for (int64_t i = ib; i < ie; ++i) {
        const std::string_view theirs = impacts.children[0].GetView(i);
        uint32_t up_to = 0;
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        ASSERT_OK(DecodeImpactEntry(theirs, &up_to, &pairs, what));
        const size_t blk = static_cast<size_t>(i - ib);
        const size_t last = blk < blocks.size() ? std::min<size_t>(n, (blk + 1) * 128) - 1
                                                : std::min<size_t>(n, (blk - blocks.size() + 1) * 32 * 128) - 1;
        EXPECT_EQ(up_to, d.doc_ids[last]) << what << " impact entry " << blk;
        if (e.impacts[i - ib] != theirs) {
          report(t, "impact entry " + std::to_string(i - ib) + " of " + std::to_string(n) + " docs: ours " +
                        Hex(e.impacts[i - ib]) + " theirs " + Hex(theirs));
        }
      }
    }
    if (with_positions) {
      if (e.position_block_offsets != offs) report(t, "position block offsets differ");
      const std::string_view theirs = positions.GetView(static_cast<int64_t>(t));
      if (e.compressed_positions != theirs) {
        report(t, "positions: ours " + Hex(e.compressed_positions) + " theirs " + Hex(theirs));
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
  // The corpus covers every list shape.
  EXPECT_GT(shapes[0], 0u);
  EXPECT_GT(shapes[2], 0u);
  EXPECT_GT(shapes[3], 0u);
  std::printf("%s: %llu terms, %llu docs; lists < 128 docs %zu, whole blocks %zu, blocks + tail %zu, > 32 blocks %zu\n",
              table.c_str(), static_cast<unsigned long long>(terms), static_cast<unsigned long long>(num_docs),
              shapes[0], shapes[1], shapes[2], shapes[3]);
  // Every counted token is in some posting list, so a doc's frequencies add up to its
  // token count.
  size_t off = 0;
  for (uint64_t d = 0; d < num_docs; ++d) {
    if (freq_sum[d] != lengths[d] && ++off <= 5) {
      ADD_FAILURE() << table << " doc " << d << ": frequencies add up to " << freq_sum[d] << ", _num_tokens "
                    << lengths[d];
    }
  }
  EXPECT_EQ(off, 0u);
}

TEST_F(FtsPostingReferenceTest, ReencodesWithoutPositionsByteForByte) { CheckTable("plain", false); }

TEST_F(FtsPostingReferenceTest, ReencodesWithPositionsByteForByte) { CheckTable("positions", true); }

}  // namespace
}  // namespace lancet::index::fts
