#include "index/fts_impacts.h"

#include <algorithm>
#include <utility>

#include "index/fts_posting.h"
#include "index/varint.h"

namespace lancet::index::fts {
namespace {

// The pairs of docs [begin, end): for each frequency its shortest doc, keeping only
// pairs whose doc is shorter than that of every higher frequency (a longer doc with a
// lower frequency can never score more).
std::string Entry(std::span<const uint32_t> doc_ids, std::span<const uint32_t> freqs,
                  std::span<const uint32_t> doc_lengths, size_t begin, size_t end,
                  std::vector<std::pair<uint32_t, uint32_t>>* pairs,
                  std::vector<std::pair<uint32_t, uint32_t>>* frontier) {
  pairs->clear();
  for (size_t i = begin; i < end; ++i) pairs->emplace_back(freqs[i], doc_lengths[doc_ids[i]]);
  std::sort(pairs->begin(), pairs->end());
  // From the highest frequency down, each frequency run's first (shortest) pair, kept
  // when it is shorter than everything kept so far.
  frontier->clear();
  uint32_t best = UINT32_MAX;
  const std::vector<std::pair<uint32_t, uint32_t>>& p = *pairs;
  for (size_t i = p.size(); i-- > 0;) {
    if (i > 0 && p[i - 1].first == p[i].first) continue;
    if (p[i].second < best) {
      best = p[i].second;
      frontier->push_back(p[i]);
    }
  }
  std::string out;
  PutVarint32(&out, doc_ids[end - 1]);
  PutVarint32(&out, static_cast<uint32_t>(frontier->size()));
  uint32_t prev = 0;
  for (auto it = frontier->rbegin(); it != frontier->rend(); ++it) {
    PutVarint32(&out, it->first - prev);
    PutVarint32(&out, it->second);
    prev = it->first;
  }
  return out;
}

}  // namespace

std::vector<std::string> EncodeImpacts(std::span<const uint32_t> doc_ids, std::span<const uint32_t> freqs,
                                       std::span<const uint32_t> doc_lengths) {
  const uint32_t n = static_cast<uint32_t>(doc_ids.size());
  const uint32_t blocks = PostingBlockCount(n);
  std::vector<std::string> out;
  out.reserve(blocks + (blocks + kImpactGroupBlocks - 1) / kImpactGroupBlocks);
  std::vector<std::pair<uint32_t, uint32_t>> pairs, frontier;
  for (uint32_t b = 0; b < blocks; ++b) {
    const size_t begin = size_t{b} * kPostingBlockSize;
    out.push_back(
        Entry(doc_ids, freqs, doc_lengths, begin, std::min<size_t>(n, begin + kPostingBlockSize), &pairs, &frontier));
  }
  for (uint32_t g = 0; g < blocks; g += kImpactGroupBlocks) {
    const size_t begin = size_t{g} * kPostingBlockSize;
    const size_t end = std::min<size_t>(n, begin + size_t{kImpactGroupBlocks} * kPostingBlockSize);
    out.push_back(Entry(doc_ids, freqs, doc_lengths, begin, end, &pairs, &frontier));
  }
  return out;
}

}  // namespace lancet::index::fts
