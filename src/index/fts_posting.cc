#include "index/fts_posting.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "index/bitpack128.h"
#include "index/fts_impacts.h"
#include "index/fts_positions.h"
#include "index/varint.h"

namespace lancet::index::fts {
namespace {

constexpr float kK1 = 1.2f;
constexpr float kB = 0.75f;
constexpr uint32_t kN = kPostingBlockSize;
static_assert(kN == bitpack::kGroup);

Status Corrupt(std::string_view what, const std::string& why) {
  return Status::Corruption(std::string(what) + ": " + why);
}

void PutF32(std::string* out, float v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

void PutU32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);  // little-endian host (bitpack128 asserts it)
  out->append(b, 4);
}

void PutPacked(std::string* out, const uint32_t* values, bool sorted) {
  const uint32_t bits = sorted ? bitpack::MaxBitsSorted(values) : bitpack::MaxBits(values);
  out->push_back(static_cast<char>(bits));
  const size_t at = out->size();
  out->resize(at + bitpack::PackedBytes(bits));
  auto* dst = reinterpret_cast<uint8_t*>(out->data() + at);
  if (sorted) {
    bitpack::PackSorted(values, bits, dst);
  } else {
    bitpack::Pack(values, bits, dst);
  }
}

// The reference scores a block as max f / (f + norm) over its docs times
// idf * (K1 + 1), in that order; keeping the order keeps every f32 bit.
float BlockScore(std::span<const uint32_t> doc_ids, std::span<const uint32_t> freqs,
                 std::span<const uint32_t> doc_lengths, const Bm25& bm25, float idf_scale) {
  float best = std::numeric_limits<float>::lowest();
  for (size_t i = 0; i < doc_ids.size(); ++i) {
    const float f = static_cast<float>(freqs[i]);
    const float norm = kK1 * (1.0f - kB + kB * static_cast<float>(doc_lengths[doc_ids[i]]) / bm25.avg_doc_length);
    best = std::max(best, f / (f + norm));
  }
  return best * idf_scale;
}

Status CheckInput(const Postings& p, std::span<const uint32_t> doc_lengths) {
  const size_t n = p.doc_ids.size();
  if (n == 0) return Status::InvalidArgument("posting list: no docs");
  if (n > UINT32_MAX) return Status::InvalidArgument("posting list: more than 2^32 docs");
  if (p.freqs.size() != n) return Status::InvalidArgument("posting list: one frequency per doc needed");
  if (!p.positions.empty() && p.positions.size() != n) {
    return Status::InvalidArgument("posting list: positions for every doc or none needed");
  }
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && p.doc_ids[i] <= p.doc_ids[i - 1]) {
      return Status::InvalidArgument("posting list: doc ids must ascend");
    }
    if (p.doc_ids[i] >= doc_lengths.size()) return Status::InvalidArgument("posting list: doc id without a length");
    if (p.freqs[i] == 0) return Status::InvalidArgument("posting list: frequency 0");
    if (!p.positions.empty()) {
      const auto& pos = p.positions[i];
      if (pos.size() != p.freqs[i]) return Status::InvalidArgument("posting list: positions must number the freq");
      for (size_t j = 1; j < pos.size(); ++j) {
        if (pos[j] < pos[j - 1]) return Status::InvalidArgument("posting list: positions must ascend");
      }
    }
  }
  return Status::OK();
}

}  // namespace

float Bm25::Idf(uint64_t docs_with_term, uint64_t num_docs) {
  const float n = static_cast<float>(docs_with_term);
  const float total = static_cast<float>(num_docs);
  return std::log((total - n + 0.5f) / (n + 0.5f) + 1.0f);
}

float Bm25::DocWeight(uint32_t freq, uint32_t doc_tokens) const {
  const float f = static_cast<float>(freq);
  const float norm = kK1 * (1.0f - kB + kB * static_cast<float>(doc_tokens) / avg_doc_length);
  return (kK1 + 1.0f) * f / (f + norm);
}

Result<EncodedPostings> EncodePostings(const Postings& postings, std::span<const uint32_t> doc_lengths,
                                       const Bm25& bm25) {
  RETURN_IF_ERROR(CheckInput(postings, doc_lengths));
  const std::span<const uint32_t> docs(postings.doc_ids), freqs(postings.freqs);
  const auto n = static_cast<uint32_t>(docs.size());
  const uint32_t blocks = PostingBlockCount(n);
  const float idf_scale = Bm25::Idf(n, bm25.num_docs) * (kK1 + 1.0f);

  EncodedPostings out;
  out.length = n;
  out.max_score = std::numeric_limits<float>::lowest();
  out.blocks.resize(blocks);
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint32_t begin = b * kN, count = PostingBlockDocs(n, b);
    const float score =
        BlockScore(docs.subspan(begin, count), freqs.subspan(begin, count), doc_lengths, bm25, idf_scale);
    out.max_score = std::max(out.max_score, score);
    std::string& block = out.blocks[b];
    PutF32(&block, score);
    if (count == kN) {
      PutU32(&block, docs[begin]);
      PutPacked(&block, &docs[begin], /*sorted=*/true);
      PutPacked(&block, &freqs[begin], /*sorted=*/false);
    } else {
      uint32_t prev = 0;
      for (uint32_t i = begin; i < begin + count; ++i) {
        PutVarint32(&block, docs[i] - prev);
        prev = docs[i];
      }
      for (uint32_t i = begin; i < begin + count; ++i) PutVarint32(&block, freqs[i]);
    }
  }
  out.impacts = EncodeImpacts(docs, freqs, doc_lengths);
  if (!postings.positions.empty()) {
    out.position_block_offsets.reserve(blocks);
    for (uint32_t b = 0; b < blocks; ++b) {
      out.position_block_offsets.push_back(static_cast<uint32_t>(out.compressed_positions.size()));
      EncodePositionBlock(std::span(postings.positions).subspan(b * kN, PostingBlockDocs(n, b)),
                          &out.compressed_positions);
    }
  }
  return out;
}

Result<float> DecodePostingBlock(std::string_view block, uint32_t count, uint32_t* doc_ids, uint32_t* freqs,
                                 std::string_view what) {
  const auto* p = reinterpret_cast<const uint8_t*>(block.data());
  const size_t size = block.size();
  if (count == 0 || count > kN) return Corrupt(what, "posting block of " + std::to_string(count) + " docs");
  if (size < 4) return Corrupt(what, "posting block of " + std::to_string(size) + " bytes");
  float score;
  std::memcpy(&score, p, 4);
  if (count == kN) {
    // [score f32][first doc u32][bits u8][doc deltas][bits u8][freqs]
    if (size < 9) return Corrupt(what, "truncated posting block header");
    uint32_t first;
    std::memcpy(&first, p + 4, 4);
    const uint32_t doc_bits = p[8];
    if (doc_bits > 32) return Corrupt(what, "posting block doc ids " + std::to_string(doc_bits) + " bits wide");
    const size_t freq_at = 9 + bitpack::PackedBytes(doc_bits);
    if (size < freq_at + 1) return Corrupt(what, "truncated posting block doc ids");
    const uint32_t freq_bits = p[freq_at];
    if (freq_bits > 32) return Corrupt(what, "posting block frequencies " + std::to_string(freq_bits) + " bits wide");
    if (size != freq_at + 1 + bitpack::PackedBytes(freq_bits)) {
      return Corrupt(what, "posting block of " + std::to_string(size) + " bytes does not match its bit widths");
    }
    bitpack::UnpackSorted(p + 9, doc_bits, first, doc_ids);
    bitpack::Unpack(p + freq_at + 1, freq_bits, freqs);
    // Successors must be strictly greater: a zero delta or a wrap past 2^32 both fail.
    bool bad = false;
    for (uint32_t i = 1; i < kN; ++i) bad |= doc_ids[i] <= doc_ids[i - 1];
    if (bad) return Corrupt(what, "posting block doc ids do not ascend");
    return score;
  }
  // [score f32][varint doc deltas, the first absolute][varint freqs]
  size_t pos = 4;
  uint32_t doc = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t delta;
    if (!GetVarint32(p, size, &pos, &delta)) return Corrupt(what, "bad varint in posting tail doc ids");
    if (i > 0 && (delta == 0 || delta > UINT32_MAX - doc)) return Corrupt(what, "posting tail doc ids do not ascend");
    doc = i == 0 ? delta : doc + delta;
    doc_ids[i] = doc;
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (!GetVarint32(p, size, &pos, &freqs[i])) return Corrupt(what, "bad varint in posting tail frequencies");
  }
  if (pos != size) return Corrupt(what, std::to_string(size - pos) + " bytes after the posting tail");
  return score;
}

Result<DecodedPostings> DecodePostings(std::span<const std::string_view> blocks, uint32_t length,
                                       std::string_view what) {
  const uint32_t num_blocks = PostingBlockCount(length);
  // Before anything is sized by `length`: the blocks must be there to hold it.
  if (blocks.size() != num_blocks) {
    return Corrupt(what, std::to_string(blocks.size()) + " posting blocks for " + std::to_string(length) + " docs");
  }
  DecodedPostings out;
  out.doc_ids.resize(length);
  out.freqs.resize(length);
  out.block_max_scores.resize(num_blocks);
  for (uint32_t b = 0; b < num_blocks; ++b) {
    const size_t begin = size_t{b} * kN;
    ASSIGN_OR_RETURN(out.block_max_scores[b], DecodePostingBlock(blocks[b], PostingBlockDocs(length, b),
                                                                 &out.doc_ids[begin], &out.freqs[begin], what));
    if (b > 0 && out.doc_ids[begin] <= out.doc_ids[begin - 1]) {
      return Corrupt(what, "posting block " + std::to_string(b) + " does not follow its predecessor");
    }
  }
  return out;
}

}  // namespace lancet::index::fts
