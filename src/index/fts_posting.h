// One term's posting list in the reference's inverted-index layout (format version 2:
// 128-doc blocks, varint-delta tail, block max scores, impacts, optional shared position
// stream). Bytes in, bytes out. Internal to the index layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/result.h"
#include "lancet/status.h"

namespace lancet::index::fts {

inline constexpr uint32_t kPostingBlockSize = 128;

/// BM25 as the reference computes it (f32 arithmetic, K1 = 1.2, B = 0.75).
struct Bm25 {
  uint64_t num_docs = 0;
  float avg_doc_length = 0;  // total_tokens / num_docs of what is scored
  static float Idf(uint64_t docs_with_term, uint64_t num_docs);
  float DocWeight(uint32_t freq, uint32_t doc_tokens) const;
};

/// A term's postings in one partition: partition-local doc numbers (row numbers of the
/// partition's docs file), ascending, with the term's frequency in each; positions per
/// doc only when the index stores them.
struct Postings {
  std::vector<uint32_t> doc_ids;
  std::vector<uint32_t> freqs;
  std::vector<std::vector<uint32_t>> positions;  // empty, or one list per doc
};

/// One row of `part_<p>_invert.lance`.
struct EncodedPostings {
  std::vector<std::string> blocks;               // `_posting`
  float max_score = 0;                           // `_max_score`
  uint32_t length = 0;                           // `_length` (docs containing the term)
  std::vector<std::string> impacts;              // `_impacts`
  std::string compressed_positions;              // `_compressed_position` (with positions only)
  std::vector<uint32_t> position_block_offsets;  // `_position_block_offset` (with positions only)
};

/// Encodes `postings` byte-identically to the reference. `doc_lengths[d]` is doc d's
/// token count; `bm25` holds the partition's statistics (scores use the term's idf).
/// Block scores are max f / (f + norm) over the block times idf * (K1 + 1), the
/// reference's order of f32 operations (DocWeight's order can differ in the last bit).
/// InvalidArgument for an empty list, ids not strictly ascending or without a length,
/// a frequency 0, or positions that do not number the frequency or do not ascend.
Result<EncodedPostings> EncodePostings(const Postings& postings, std::span<const uint32_t> doc_lengths,
                                       const Bm25& bm25);

/// `_posting` blocks of a list of `length` docs: full blocks of kPostingBlockSize, then
/// one short block for the rest.
constexpr uint32_t PostingBlockCount(uint32_t length) {
  return length / kPostingBlockSize + (length % kPostingBlockSize != 0);
}

/// Docs in block `block` of a list of `length` docs.
constexpr uint32_t PostingBlockDocs(uint32_t length, uint32_t block) {
  return block + 1 < PostingBlockCount(length) || length % kPostingBlockSize == 0 ? kPostingBlockSize
                                                                                  : length % kPostingBlockSize;
}

/// Decodes one `_posting` block holding `count` docs (PostingBlockDocs) into
/// `doc_ids[0, count)` and `freqs[0, count)`, returning the block's stored max score.
/// The query path's unit: no allocation. Corruption naming `what` unless the bytes are
/// exactly such a block with strictly ascending doc ids.
Result<float> DecodePostingBlock(std::string_view block, uint32_t count, uint32_t* doc_ids, uint32_t* freqs,
                                 std::string_view what);

/// A decoded posting list. `block_max_scores[i]` is block i's stored upper bound.
struct DecodedPostings {
  std::vector<uint32_t> doc_ids;
  std::vector<uint32_t> freqs;
  std::vector<float> block_max_scores;
};

/// Decodes `_posting` blocks of a term whose `_length` is `length`. Corruption naming
/// `what` for bytes that do not decode to exactly `length` ascending doc ids.
Result<DecodedPostings> DecodePostings(std::span<const std::string_view> blocks, uint32_t length,
                                       std::string_view what);

/// Positions of the docs of posting block `block` (bytes [block_offsets[block], next
/// offset or end) of `_compressed_position`), appended flat in doc order to `out`;
/// `freqs` are the block's docs' frequencies (the count per doc).
Status DecodePositionBlock(std::string_view compressed, std::span<const uint32_t> block_offsets, uint32_t block,
                           std::span<const uint32_t> freqs, std::vector<uint32_t>* out, std::string_view what);

/// Positions of every doc of a posting list (doc order), from `_compressed_position`
/// and `_position_block_offset`; `freqs` give the count per doc.
Result<std::vector<std::vector<uint32_t>>> DecodePositions(std::string_view compressed,
                                                           std::span<const uint32_t> block_offsets,
                                                           std::span<const uint32_t> freqs, std::string_view what);

}  // namespace lancet::index::fts
