#include "index/fts_impacts.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "index/fts_posting.h"
#include "index/varint.h"

namespace lancet::index::fts {
namespace {

// Up to this frequency the frontier is found by indexing an array, not by sorting.
constexpr uint32_t kDenseFreqs = 4096;

void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// The pairs of docs [begin, end): for each frequency its shortest doc, keeping only
// pairs whose doc is shorter than that of every higher frequency (a longer doc with a
// lower frequency can never score more).
std::string Entry(std::span<const uint32_t> doc_ids, std::span<const uint32_t> freqs,
                  std::span<const uint32_t> doc_lengths, size_t begin, size_t end,
                  std::vector<std::pair<uint32_t, uint32_t>>* pairs,
                  std::vector<std::pair<uint32_t, uint32_t>>* frontier,
                  std::vector<std::pair<uint32_t, uint32_t>>* quantized) {
  frontier->clear();
  uint32_t max_freq = 0;
  for (size_t i = begin; i < end; ++i) max_freq = std::max(max_freq, freqs[i]);
  if (max_freq <= kDenseFreqs) {
    // Frequencies are small: the shortest doc per frequency by direct indexing, no sort.
    thread_local std::vector<uint32_t> shortest;
    shortest.assign(max_freq + 1, UINT32_MAX);
    for (size_t i = begin; i < end; ++i) {
      uint32_t& s = shortest[freqs[i]];
      s = std::min(s, doc_lengths[doc_ids[i]]);
    }
    uint32_t best = UINT32_MAX;
    for (uint32_t f = max_freq + 1; f-- > 0;) {
      if (shortest[f] < best) {
        best = shortest[f];
        frontier->emplace_back(f, best);
      }
    }
  } else {
    pairs->clear();
    for (size_t i = begin; i < end; ++i) pairs->emplace_back(freqs[i], doc_lengths[doc_ids[i]]);
    std::sort(pairs->begin(), pairs->end());
    // From the highest frequency down, each frequency run's first (shortest) pair, kept
    // when it is shorter than everything kept so far.
    uint32_t best = UINT32_MAX;
    const std::vector<std::pair<uint32_t, uint32_t>>& p = *pairs;
    for (size_t i = p.size(); i-- > 0;) {
      if (i > 0 && p[i - 1].first == p[i].first) continue;
      if (p[i].second < best) {
        best = p[i].second;
        frontier->push_back(p[i]);
      }
    }
  }
  // Lengths are stored as QuantizeDocLength codes; where codes collide the higher
  // frequency of the run wins (it dominates at that code).
  quantized->clear();
  for (auto it = frontier->rbegin(); it != frontier->rend(); ++it) {
    const uint32_t code = QuantizeDocLength(it->second);
    if (!quantized->empty() && quantized->back().second == code) {
      quantized->back().first = it->first;
    } else {
      quantized->emplace_back(it->first, code);
    }
  }
  std::string out;
  PutVarint32(&out, doc_ids[end - 1]);
  PutVarint32(&out, static_cast<uint32_t>(quantized->size()));
  uint32_t prev_freq = 0, prev_code = 0;
  for (const auto& [freq, code] : *quantized) {
    // Frequency steps are >= 1 and code steps usually exactly 1: the step minus one,
    // shifted, with the low bit saying whether a code step byte follows.
    const uint32_t code_step = code - prev_code;
    PutVarint64(&out, (uint64_t{freq - prev_freq - 1} << 1) | (code_step != 1));
    if (code_step != 1) out.push_back(static_cast<char>(code_step));
    prev_freq = freq;
    prev_code = code;
  }
  return out;
}

}  // namespace

uint32_t QuantizeDocLength(uint32_t length) {
  const auto bits = static_cast<uint32_t>(std::bit_width(length));
  if (bits < 4) return length;
  const uint32_t shift = bits - 4;
  return ((length >> shift) & 0x07) | ((shift + 1) << 3);
}

uint32_t DequantizeDocLength(uint32_t code) {
  const uint32_t mantissa = code & 0x07;
  const uint32_t exponent = code >> 3;
  if (exponent == 0) return mantissa;
  const uint64_t v = uint64_t{mantissa | 0x08} << (exponent - 1);
  return v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v);
}

std::vector<std::string> EncodeImpacts(std::span<const uint32_t> doc_ids, std::span<const uint32_t> freqs,
                                       std::span<const uint32_t> doc_lengths) {
  const uint32_t n = static_cast<uint32_t>(doc_ids.size());
  const uint32_t blocks = PostingBlockCount(n);
  std::vector<std::string> out;
  out.reserve(blocks + (blocks + kImpactGroupBlocks - 1) / kImpactGroupBlocks);
  std::vector<std::pair<uint32_t, uint32_t>> pairs, frontier, quantized;
  for (uint32_t b = 0; b < blocks; ++b) {
    const size_t begin = size_t{b} * kPostingBlockSize;
    out.push_back(Entry(doc_ids, freqs, doc_lengths, begin, std::min<size_t>(n, begin + kPostingBlockSize), &pairs,
                        &frontier, &quantized));
  }
  for (uint32_t g = 0; g < blocks; g += kImpactGroupBlocks) {
    const size_t begin = size_t{g} * kPostingBlockSize;
    const size_t end = std::min<size_t>(n, begin + size_t{kImpactGroupBlocks} * kPostingBlockSize);
    out.push_back(Entry(doc_ids, freqs, doc_lengths, begin, end, &pairs, &frontier, &quantized));
  }
  return out;
}

Status DecodeImpactEntry(std::string_view entry, uint32_t* doc_up_to, std::vector<std::pair<uint32_t, uint32_t>>* pairs,
                         std::string_view what) {
  auto bad = [&](const char* why) { return Status::Corruption(std::string(what) + ": impact entry " + why); };
  const auto* p = reinterpret_cast<const uint8_t*>(entry.data());
  const size_t size = entry.size();
  size_t pos = 0;
  uint32_t count = 0;
  if (!GetVarint32(p, size, &pos, doc_up_to) || !GetVarint32(p, size, &pos, &count)) return bad("truncated");
  // A pair takes at least a byte: a count the bytes cannot hold is refused first.
  if (count == 0 || count > size - pos) return bad("pair count does not fit its bytes");
  pairs->clear();
  pairs->reserve(count);
  uint64_t freq = 0;
  uint32_t code = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t packed = 0;
    bool done = false;
    for (uint32_t shift = 0; shift < 64 && pos < size; shift += 7) {
      const uint8_t byte = p[pos++];
      packed |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) {
        done = true;
        break;
      }
    }
    if (!done) return bad("has a bad varint");
    freq += (packed >> 1) + 1;
    uint32_t step = 1;
    if (packed & 1) {
      if (pos >= size) return bad("truncated");
      step = p[pos++];
      if (step == 0 && i > 0) return bad("repeats a length code");
    }
    code += step;
    if (freq > UINT32_MAX || code > 255) return bad("overflows");
    pairs->emplace_back(static_cast<uint32_t>(freq), DequantizeDocLength(code));
  }
  if (pos != size) return bad("has trailing bytes");
  return Status::OK();
}

}  // namespace lancet::index::fts
