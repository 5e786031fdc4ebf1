// FSST decompression (docs/format §8). The symbol table is one 2312-byte blob per page:
//   u64 header = "FSST" << 32 | encoder_switch << 24 | suffix_lim << 16 | terminator << 8 | n_symbols
//   n_symbols u64 symbols (little-endian bytes), n_symbols u8 lengths, zero fill to 2312.
// Code 255 escapes the next byte; any other code c emits lens[c] bytes of symbols[c].
#include <algorithm>

#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

namespace {

constexpr uint64_t kSymbolTableSize = 8 + 256 * 8 + 256;
constexpr uint64_t kFsstMagic = 0x46535354ULL << 32;
constexpr uint8_t kEscape = 255;
constexpr uint64_t kMaxSymbolLength = 8;

struct SymbolTable {
  bool enabled = false;
  uint32_t count = 0;
  uint8_t symbols[256][8] = {};
  uint8_t lens[256] = {};
};

Result<SymbolTable> ParseSymbolTable(std::span<const uint8_t> bytes) {
  if (bytes.size() != kSymbolTableSize) {
    return Corrupt("FSST: symbol table is ", bytes.size(), " bytes, expected ", kSymbolTableSize);
  }
  uint64_t header = LoadLE<uint64_t>(bytes.data());
  if ((header & (0xFFFFFFFFULL << 32)) != kFsstMagic) return Corrupt("FSST: symbol table lacks the FSST magic");
  SymbolTable table;
  table.enabled = ((header >> 24) & 1) != 0;
  table.count = static_cast<uint32_t>(header & 0xFF);
  for (uint32_t i = 0; i < table.count; ++i) {
    std::memcpy(table.symbols[i], bytes.data() + 8 + i * 8, 8);
    table.lens[i] = bytes[8 + table.count * 8 + i];
    if (table.lens[i] == 0 || table.lens[i] > kMaxSymbolLength) {
      return Corrupt("FSST: symbol ", i, " has length ", static_cast<int>(table.lens[i]));
    }
  }
  return table;
}

/// Appends the decompression of `in` to `out` (which has room for 8 bytes per input byte).
Status DecompressOne(const SymbolTable& table, std::span<const uint8_t> in, uint8_t* out, uint64_t* out_pos) {
  uint64_t pos = *out_pos;
  for (size_t i = 0; i < in.size(); ++i) {
    uint8_t code = in[i];
    if (code == kEscape) {
      if (i + 1 >= in.size()) return Corrupt("FSST: string ends in an escape code");
      out[pos++] = in[++i];
      continue;
    }
    if (code >= table.count) return Corrupt("FSST: code ", static_cast<int>(code), " is not in the symbol table");
    std::memcpy(out + pos, table.symbols[code], table.lens[code]);
    pos += table.lens[code];
  }
  *out_pos = pos;
  return Status::OK();
}

}  // namespace

Result<DataBlock> FsstDecompress(std::span<const uint8_t> symbol_table, const DataBlock& compressed,
                                 std::span<const uint32_t> wanted) {
  RETURN_IF_ERROR(ValidateVariable(compressed));
  ASSIGN_OR_RETURN(SymbolTable table, ParseSymbolTable(symbol_table));
  // A disabled encoder copied the strings through unchanged.
  if (!table.enabled) return compressed;
  uint64_t n = compressed.num_values;
  for (size_t k = 0; k < wanted.size(); ++k) {
    if (wanted[k] >= n || (k > 0 && wanted[k] <= wanted[k - 1])) {
      return Status::InvalidArgument("FSST: wanted value indexes must ascend below " + std::to_string(n));
    }
  }
  const bool all = wanted.empty();
  uint64_t in_bytes = compressed.OffsetAt(n) - compressed.OffsetAt(0);
  if (!all) {
    in_bytes = 0;
    for (uint32_t i : wanted) in_bytes += compressed.OffsetAt(i + 1) - compressed.OffsetAt(i);
  }
  ASSIGN_OR_RETURN(uint64_t out_cap, CheckedMul(in_bytes, kMaxSymbolLength, "FSST output"));
  // Sized for the worst case and never zeroed: only the first `pos` bytes, all
  // written below, are exposed.
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(std::max<uint64_t>(out_cap, 1)));
  uint32_t bits = compressed.offset_bits;
  if (bits == 32 && out_cap > UINT32_MAX) bits = 64;
  uint64_t width = bits / 8;
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> offsets, Buffer::Allocate((n + 1) * width));
  uint8_t* o = offsets->mutable_data();
  const uint8_t* data = compressed.data->data();
  uint64_t pos = 0;
  size_t next_wanted = 0;
  for (uint64_t i = 0; i <= n; ++i) {
    const bool decode = i > 0 && (all || (next_wanted < wanted.size() && wanted[next_wanted] == i - 1));
    if (decode) {
      if (!all) ++next_wanted;
      uint64_t b = compressed.OffsetAt(i - 1);
      uint64_t e = compressed.OffsetAt(i);
      RETURN_IF_ERROR(DecompressOne(table, {data + b, static_cast<size_t>(e - b)}, out->mutable_data(), &pos));
    }
    if (bits == 64) {
      std::memcpy(o + i * 8, &pos, 8);
    } else {
      uint32_t p32 = static_cast<uint32_t>(pos);
      std::memcpy(o + i * 4, &p32, 4);
    }
  }
  return DataBlock::Variable(bits, n, std::move(offsets), Buffer::Slice(std::move(out), 0, pos));
}

}  // namespace lancet::encoding::internal
