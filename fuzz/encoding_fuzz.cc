// libFuzzer target for the compressive-encoding decoders.
//
// Input layout: u8 mode | u16 proto length | CompressiveEncoding bytes | u16 value count |
// payload. Mode picks the entry point (mini-block chunk, block, full-zip fixed, full-zip
// variable); the payload is cut into buffers/values by u16 length prefixes. The value
// count is kept small so that legitimately large outputs (e.g. Constant) do not dominate.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "encoding/decoders.h"

namespace {

struct Reader {
  const uint8_t* p;
  size_t n;
  bool Take(size_t k, const uint8_t** out) {
    if (k > n) return false;
    *out = p;
    p += k;
    n -= k;
    return true;
  }
  bool U16(uint16_t* v) {
    const uint8_t* b;
    if (!Take(2, &b)) return false;
    *v = static_cast<uint16_t>(b[0] | (b[1] << 8));
    return true;
  }
};

/// Splits the rest of the input into length-prefixed pieces (the last takes what remains).
std::vector<std::span<const uint8_t>> Pieces(Reader* r, size_t max_pieces) {
  std::vector<std::span<const uint8_t>> out;
  while (r->n > 0 && out.size() + 1 < max_pieces) {
    uint16_t len;
    const uint8_t* b;
    if (!r->U16(&len)) break;
    size_t take = std::min<size_t>(len, r->n);
    if (!r->Take(take, &b)) break;
    out.emplace_back(b, take);
  }
  if (r->n > 0) out.emplace_back(r->p, r->n);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lancet;            // NOLINT
  using namespace lancet::encoding;  // NOLINT
  Reader r{data, size};
  const uint8_t* mode;
  uint16_t proto_len, count;
  const uint8_t* proto;
  if (!r.Take(1, &mode) || !r.U16(&proto_len) || !r.Take(proto_len, &proto) || !r.U16(&count)) return 0;
  pb::CompressiveEncoding encoding;
  if (!encoding.ParseFromArray(proto, proto_len)) return 0;
  (void)DescribeEncoding(encoding);
  switch (*mode % 4) {
    case 0: {
      std::vector<BufferPtr> buffers;
      for (auto piece : Pieces(&r, 4)) buffers.push_back(Buffer::Copy(piece));
      auto block = DecodeMiniBlockChunk(encoding, buffers, count);
      if (block.ok() && block->kind == DataBlock::Kind::kFixed) (void)ToLevels(*block, count);
      break;
    }
    case 1: {
      auto block = DecodeBlock(encoding, Buffer::Copy(std::span<const uint8_t>(r.p, r.n)), count);
      if (block.ok()) {
        // Use the decoded block as dictionary items for a few indices.
        std::vector<uint8_t> idx = {0, 1, 2, 3};
        (void)ApplyDictionary(DataBlock::Fixed(8, idx.size(), Buffer::FromVector(idx)), *block);
      }
      break;
    }
    case 2:
      (void)DecodeFullZipFixed(encoding, Buffer::Copy(std::span<const uint8_t>(r.p, r.n)), count);
      break;
    case 3: {
      auto pieces = Pieces(&r, 1u << 16);
      auto backing = Buffer::Copy(std::span<const uint8_t>(data, size));
      (void)DecodeFullZipVariable(encoding, pieces, backing);
      break;
    }
  }
  return 0;
}
