// Fuzzes the inverted index's posting codec: the input becomes a term's `_length`, its
// `_posting` blocks, an `_impacts` entry and a position stream with block offsets, all
// decoded. Errors are fine; crashes, hangs and huge allocations are bugs. A list that
// decodes is re-encoded and must decode to the same docs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "index/fts_impacts.h"
#include "index/fts_posting.h"

namespace {

namespace fts = lancet::index::fts;

// Reads the next `n` bytes (fewer at the end).
std::string_view Take(const uint8_t*& data, size_t& size, size_t n) {
  n = std::min(n, size);
  std::string_view out(reinterpret_cast<const char*>(data), n);
  data += n;
  size -= n;
  return out;
}

uint32_t TakeU32(const uint8_t*& data, size_t& size) {
  uint32_t v = 0;
  const std::string_view b = Take(data, size, 4);
  std::memcpy(&v, b.data(), b.size());
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // [u32 length][u8 blocks]([u16 size][bytes])*blocks [u16 size][impact entry]
  // [u8 offsets][u32 offset]*offsets [position stream: the rest]
  const uint32_t length = TakeU32(data, size);
  const std::string_view nb = Take(data, size, 1);
  const size_t num_blocks = nb.empty() ? 0 : static_cast<uint8_t>(nb[0]);
  std::vector<std::string_view> blocks;
  for (size_t i = 0; i < num_blocks; ++i) {
    const std::string_view n = Take(data, size, 2);
    uint16_t len = 0;
    std::memcpy(&len, n.data(), n.size());
    blocks.push_back(Take(data, size, len));
  }
  const std::string_view n = Take(data, size, 2);
  uint16_t impact_len = 0;
  std::memcpy(&impact_len, n.data(), n.size());
  const std::string_view impact = Take(data, size, impact_len);
  uint32_t up_to = 0;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  (void)fts::DecodeImpactEntry(impact, &up_to, &pairs, "fuzz");

  const std::string_view no = Take(data, size, 1);
  std::vector<uint32_t> offsets(no.empty() ? 0 : static_cast<uint8_t>(no[0]));
  for (auto& o : offsets) o = TakeU32(data, size);
  const std::string_view stream = Take(data, size, size);

  auto decoded = fts::DecodePostings(blocks, length, "fuzz");
  std::vector<uint32_t> freqs;
  if (decoded.ok()) {
    freqs = decoded->freqs;
    // Re-encode small-id lists (the encoder needs a length per doc id).
    if (!decoded->doc_ids.empty() && decoded->doc_ids.back() < (1u << 20)) {
      fts::Postings p;
      p.doc_ids = decoded->doc_ids;
      p.freqs = decoded->freqs;
      std::vector<uint32_t> lengths(p.doc_ids.back() + 1, 1);
      for (size_t i = 0; i < p.doc_ids.size(); ++i) lengths[p.doc_ids[i]] = p.freqs[i];
      bool zero = false;
      for (uint32_t f : p.freqs) zero |= f == 0;
      auto e = fts::EncodePostings(p, lengths, {lengths.size(), 2.0f});
      if (zero != !e.ok()) std::abort();  // only a zero frequency is refused
      if (e.ok()) {
        std::vector<std::string_view> again(e->blocks.begin(), e->blocks.end());
        auto d2 = fts::DecodePostings(again, e->length, "fuzz again");
        if (!d2.ok() || d2->doc_ids != decoded->doc_ids || d2->freqs != decoded->freqs) std::abort();
      }
    }
  } else {
    // Frequencies from the stream's own bytes, so positions are fuzzed either way.
    for (size_t i = 0; i < stream.size() && i < 300; ++i) freqs.push_back(static_cast<uint8_t>(stream[i]) % 9);
  }
  (void)fts::DecodePositions(stream, offsets, freqs, "fuzz");
  if (!offsets.empty()) {
    std::vector<uint32_t> flat;
    (void)fts::DecodePositionBlock(stream, offsets, 0, std::span(freqs).first(std::min<size_t>(freqs.size(), 128)),
                                   &flat, "fuzz");
  }
  return 0;
}
