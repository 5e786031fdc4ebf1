#include "index/fts_positions.h"

#include "index/bitpack128.h"
#include "index/fts_posting.h"
#include "index/varint.h"

namespace lancet::index::fts {
namespace {

constexpr size_t kGroup = bitpack::kGroup;

Status Corrupt(std::string_view what, const std::string& why) {
  return Status::Corruption(std::string(what) + ": " + why);
}

}  // namespace

void EncodePositionBlock(std::span<const std::vector<uint32_t>> docs, std::string* out) {
  uint32_t group[kGroup];
  size_t filled = 0;
  for (const auto& positions : docs) {
    uint32_t prev = 0;
    for (uint32_t p : positions) {
      group[filled++] = p - prev;
      prev = p;
      if (filled == kGroup) {
        const uint32_t bits = bitpack::MaxBits(group);
        out->push_back(static_cast<char>(bits));
        const size_t at = out->size();
        out->resize(at + bitpack::PackedBytes(bits));
        bitpack::Pack(group, bits, reinterpret_cast<uint8_t*>(out->data() + at));
        filled = 0;
      }
    }
  }
  for (size_t i = 0; i < filled; ++i) PutVarint32(out, group[i]);
}

Status DecodePositionBlock(std::string_view compressed, std::span<const uint32_t> block_offsets, uint32_t block,
                           std::span<const uint32_t> freqs, std::vector<uint32_t>* out, std::string_view what) {
  if (block >= block_offsets.size()) return Corrupt(what, "no position block " + std::to_string(block));
  const size_t begin = block_offsets[block];
  const size_t end = block + 1 < block_offsets.size() ? block_offsets[block + 1] : compressed.size();
  if (begin > end || end > compressed.size()) {
    return Corrupt(what, "position block " + std::to_string(block) + " outside the position stream");
  }
  const auto* p = reinterpret_cast<const uint8_t*>(compressed.data()) + begin;
  const size_t size = end - begin;
  uint64_t total = 0;
  for (uint32_t f : freqs) total += f;
  // Every group takes at least its width byte and every tail delta a byte: a count the
  // bytes cannot hold is refused before anything is sized by it.
  if (total / kGroup + total % kGroup > size) {
    return Corrupt(
        what, "position block " + std::to_string(block) + " too short for " + std::to_string(total) + " positions");
  }
  const size_t base = out->size();
  out->resize(base + total);
  uint32_t* deltas = out->data() + base;
  size_t pos = 0;
  const uint64_t full = total / kGroup * kGroup;
  for (uint64_t i = 0; i < full; i += kGroup) {
    if (pos >= size) return Corrupt(what, "truncated position block " + std::to_string(block));
    const uint32_t bits = p[pos++];
    if (bits > 32 || size - pos < bitpack::PackedBytes(bits)) {
      return Corrupt(what, "bad packed position group in block " + std::to_string(block));
    }
    bitpack::Unpack(p + pos, bits, deltas + i);
    pos += bitpack::PackedBytes(bits);
  }
  for (uint64_t i = full; i < total; ++i) {
    if (!GetVarint32(p, size, &pos, &deltas[i])) {
      return Corrupt(what, "bad position varint in block " + std::to_string(block));
    }
  }
  if (pos != size)
    return Corrupt(what, std::to_string(size - pos) + " bytes after position block " + std::to_string(block));
  // Deltas to positions, each doc from 0.
  size_t i = 0;
  for (uint32_t f : freqs) {
    uint64_t acc = 0;
    for (uint32_t j = 0; j < f; ++j, ++i) {
      acc += deltas[i];
      deltas[i] = static_cast<uint32_t>(acc);
    }
    if (acc > UINT32_MAX) return Corrupt(what, "position past 2^32 in block " + std::to_string(block));
  }
  return Status::OK();
}

Result<std::vector<std::vector<uint32_t>>> DecodePositions(std::string_view compressed,
                                                           std::span<const uint32_t> block_offsets,
                                                           std::span<const uint32_t> freqs, std::string_view what) {
  const size_t num_blocks = freqs.size() / kPostingBlockSize + (freqs.size() % kPostingBlockSize != 0);
  if (block_offsets.size() != num_blocks) {
    return Corrupt(
        what, std::to_string(block_offsets.size()) + " position blocks for " + std::to_string(freqs.size()) + " docs");
  }
  if (num_blocks > 0 && block_offsets[0] != 0) return Corrupt(what, "position stream does not start at 0");
  std::vector<std::vector<uint32_t>> out(freqs.size());
  std::vector<uint32_t> flat;
  for (size_t b = 0; b < num_blocks; ++b) {
    const size_t begin = b * kPostingBlockSize;
    const size_t count = std::min<size_t>(kPostingBlockSize, freqs.size() - begin);
    flat.clear();
    RETURN_IF_ERROR(DecodePositionBlock(compressed, block_offsets, static_cast<uint32_t>(b),
                                        freqs.subspan(begin, count), &flat, what));
    const uint32_t* at = flat.data();
    for (size_t d = 0; d < count; ++d) {
      out[begin + d].assign(at, at + freqs[begin + d]);
      at += freqs[begin + d];
    }
  }
  return out;
}

}  // namespace lancet::index::fts
