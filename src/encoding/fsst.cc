// FSST decompression (docs/format §8). The symbol table is one 2312-byte blob per page:
//   u64 header = "FSST" << 32 | encoder_switch << 24 | suffix_lim << 16 | terminator << 8 | n_symbols
//   n_symbols u64 symbols (little-endian bytes), n_symbols u8 lengths, zero fill to 2312.
// Code 255 escapes the next byte; any other code c emits lens[c] bytes of symbols[c].
#include <algorithm>
#include <bit>

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
  // Codes past `count` keep length 0, which DecompressOne reports as corrupt.
  uint64_t symbols[256] = {};
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
    std::memcpy(&table.symbols[i], bytes.data() + 8 + i * 8, 8);
    table.lens[i] = bytes[8 + table.count * 8 + i];
    if (table.lens[i] == 0 || table.lens[i] > kMaxSymbolLength) {
      return Corrupt("FSST: symbol ", i, " has length ", static_cast<int>(table.lens[i]));
    }
  }
  return table;
}

/// The chunks of a page share its table, so each thread keeps the last table it parsed:
/// a take touching one chunk per row would otherwise parse it once per row.
Result<const SymbolTable*> CachedSymbolTable(std::span<const uint8_t> bytes) {
  thread_local std::vector<uint8_t> key;
  thread_local SymbolTable table;
  if (key.size() == bytes.size() && std::equal(key.begin(), key.end(), bytes.begin())) return &table;
  key.clear();
  ASSIGN_OR_RETURN(table, ParseSymbolTable(bytes));
  key.assign(bytes.begin(), bytes.end());
  return &table;
}

/// The decompressed size of `in`; Corruption for a code the table lacks or a trailing
/// escape. Sizing the output exactly keeps a page's decoded chunks at their real size
/// (a worst-case 8x buffer per chunk would multiply a batch's memory).
Result<uint64_t> DecompressedSize(const SymbolTable& table, std::span<const uint8_t> in) {
  uint64_t size = 0;
  bool bad = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const uint8_t code = in[i];
    if (code == kEscape) {
      if (i + 1 == in.size()) return Corrupt("FSST: string ends in an escape code");
      ++i;
      ++size;
      continue;
    }
    size += table.lens[code];
    bad |= table.lens[code] == 0;
  }
  if (bad) {
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == kEscape) {
        ++i;
      } else if (table.lens[in[i]] == 0) {
        return Corrupt("FSST: code ", static_cast<int>(in[i]), " is not in the symbol table");
      }
    }
  }
  return size;
}

/// Appends the decompression of `in`, already checked by DecompressedSize, at `dst`
/// and returns the end. Every symbol is stored as a whole 8-byte word and the position
/// advanced by its length (a variable-length copy per code would be a libc call), so
/// the output needs 8 bytes of slack past its end.
/// Unchecked input (the scratch path) may hold unknown codes, which add nothing, or end
/// in an escape, which stops the value; either sets *bad.
uint8_t* DecompressOne(const SymbolTable& table, std::span<const uint8_t> in, uint8_t* dst, bool* bad) {
  const uint8_t* p = in.data();
  const uint8_t* end = p + in.size();
  bool unknown = false;
  auto put = [&](uint8_t code) {
    std::memcpy(dst, &table.symbols[code], 8);
    dst += table.lens[code];
    unknown |= table.lens[code] == 0;
  };
  // Eight codes at a time while none is an escape: one load and a bit test instead of
  // a branch per code. Escapes (literal bytes) are rare in trained tables.
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    // Bytes equal to kEscape (0xFF) are the zero bytes of ~w; the lowest flagged byte
    // is exact (borrows only flag bytes above it).
    const uint64_t inv = ~w;
    const uint64_t esc = (inv - kOnes) & ~inv & kHighs;
    if (esc == 0) [[likely]] {
      for (int k = 0; k < 8; ++k) put(static_cast<uint8_t>(w >> (8 * k)));
      p += 8;
      continue;
    }
    const int first = std::countr_zero(esc) / 8;
    for (int k = 0; k < first; ++k) put(static_cast<uint8_t>(w >> (8 * k)));
    p += first + 1;  // past the escape, at its literal if there is one
    if (p == end) {
      unknown = true;
      break;
    }
    *dst++ = *p++;
  }
  while (p < end) {
    const uint8_t code = *p++;
    if (code != kEscape) [[likely]] {
      put(code);
    } else {
      if (p == end) {
        unknown = true;
        break;
      }
      *dst++ = *p++;
    }
  }
  *bad |= unknown;
  return dst;
}

}  // namespace

namespace {

template <typename In>
In LoadOffset(const uint8_t* offsets, uint64_t i) {
  In v;
  std::memcpy(&v, offsets + i * sizeof(In), sizeof(In));
  return v;
}

/// Decompresses the values `wanted` names (all when empty) into `out`, writing one
/// offset of type Out per output value plus one. In is the input's offset type; both
/// are templates so the per-value loop has no width branches.
template <typename In, typename Out>
void DecompressValues(const SymbolTable& table, const DataBlock& compressed, std::span<const uint32_t> wanted,
                      uint8_t* out, uint8_t* offsets_out, bool* bad) {
  const uint64_t n = compressed.num_values;
  const uint8_t* in_offsets = compressed.offsets->data();
  const uint8_t* data = compressed.data ? compressed.data->data() : nullptr;
  uint64_t pos = 0;
  auto put = [&](uint64_t i) {
    Out v = static_cast<Out>(pos);
    std::memcpy(offsets_out + i * sizeof(Out), &v, sizeof(Out));
  };
  put(0);
  if (wanted.empty()) {
    uint64_t b = LoadOffset<In>(in_offsets, 0);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t e = LoadOffset<In>(in_offsets, i + 1);
      pos = static_cast<uint64_t>(DecompressOne(table, {data + b, static_cast<size_t>(e - b)}, out + pos, bad) - out);
      put(i + 1);
      b = e;
    }
  } else {
    for (size_t k = 0; k < wanted.size(); ++k) {
      uint64_t b = LoadOffset<In>(in_offsets, wanted[k]), e = LoadOffset<In>(in_offsets, wanted[k] + 1);
      pos = static_cast<uint64_t>(DecompressOne(table, {data + b, static_cast<size_t>(e - b)}, out + pos, bad) - out);
      put(k + 1);
    }
  }
}

}  // namespace

Result<DataBlock> FsstDecompress(std::span<const uint8_t> symbol_table, const DataBlock& compressed,
                                 std::span<const uint32_t> wanted) {
  uint64_t n = compressed.num_values;
  for (size_t k = 0; k < wanted.size(); ++k) {
    if (wanted[k] >= n || (k > 0 && wanted[k] <= wanted[k - 1])) {
      return Status::InvalidArgument("FSST: wanted value indexes must ascend below " + std::to_string(n));
    }
  }
  RETURN_IF_ERROR(ValidateVariable(compressed, wanted));
  ASSIGN_OR_RETURN(const SymbolTable* cached, CachedSymbolTable(symbol_table));
  const SymbolTable& table = *cached;
  // A disabled encoder copied the strings through unchanged.
  if (!table.enabled) return wanted.empty() ? compressed : SelectValues(compressed, wanted);
  const uint64_t n_out = wanted.empty() ? n : wanted.size();
  const uint8_t* data = compressed.data ? compressed.data->data() : nullptr;
  uint64_t in_bytes = 0;
  if (wanted.empty()) {
    in_bytes = compressed.OffsetAt(n) - compressed.OffsetAt(0);
  } else {
    for (uint32_t i : wanted) in_bytes += compressed.OffsetAt(i + 1) - compressed.OffsetAt(i);
  }
  auto decode = [&](uint8_t* dst, bool wide_out, std::shared_ptr<Buffer>* offsets, bool* bad) -> Status {
    ASSIGN_OR_RETURN(*offsets, Buffer::AllocateUninitialized((n_out + 1) * (wide_out ? 8 : 4)));
    uint8_t* o = (*offsets)->mutable_data();
    if (compressed.offset_bits == 64) {
      DecompressValues<uint64_t, uint64_t>(table, compressed, wanted, dst, o, bad);
    } else if (wide_out) {
      DecompressValues<uint32_t, uint64_t>(table, compressed, wanted, dst, o, bad);
    } else {
      DecompressValues<uint32_t, uint32_t>(table, compressed, wanted, dst, o, bad);
    }
    return Status::OK();
  };
  auto end_offset = [&](const Buffer& offsets, bool wide_out) {
    uint64_t v = 0;
    std::memcpy(&v, offsets.data() + n_out * (wide_out ? 8 : 4), wide_out ? 8 : 4);
    return v;
  };
  // Chunks (the usual case) decode in one pass into a reused per-thread scratch of the
  // worst-case size and are copied out at their real size, cheaper than sizing them
  // with a pass of their own. Big inputs (a whole page) are sized first instead.
  constexpr uint64_t kScratchLimit = uint64_t{4} << 20;
  if (in_bytes * kMaxSymbolLength + kMaxSymbolLength <= kScratchLimit) {
    thread_local std::vector<uint8_t> scratch;
    scratch.resize(std::max<size_t>(scratch.size(), in_bytes * kMaxSymbolLength + kMaxSymbolLength));
    const bool wide_out = compressed.offset_bits == 64;
    std::shared_ptr<Buffer> offsets;
    bool bad = false;
    RETURN_IF_ERROR(decode(scratch.data(), wide_out, &offsets, &bad));
    if (bad) {
      for (uint32_t k = 0; k < n; ++k) {
        if (!wanted.empty() && !std::binary_search(wanted.begin(), wanted.end(), k)) continue;
        const uint64_t b = compressed.OffsetAt(k), e = compressed.OffsetAt(k + 1);
        RETURN_IF_ERROR(DecompressedSize(table, {data + b, static_cast<size_t>(e - b)}).status());
      }
      return Corrupt("FSST: undecodable input");
    }
    const uint64_t out_size = end_offset(*offsets, wide_out);
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(out_size));
    if (out_size > 0) std::memcpy(out->mutable_data(), scratch.data(), out_size);
    return DataBlock::Variable(wide_out ? 64 : 32, n_out, std::move(offsets), std::move(out));
  }
  uint64_t out_size = 0;
  if (wanted.empty()) {
    const uint64_t b = compressed.OffsetAt(0), e = compressed.OffsetAt(n);
    ASSIGN_OR_RETURN(out_size, DecompressedSize(table, {data + b, static_cast<size_t>(e - b)}));
  } else {
    for (uint32_t i : wanted) {
      const uint64_t b = compressed.OffsetAt(i), e = compressed.OffsetAt(i + 1);
      ASSIGN_OR_RETURN(uint64_t size, DecompressedSize(table, {data + b, static_cast<size_t>(e - b)}));
      out_size += size;
    }
  }
  if (out_size > kMaxAllocation) return Corrupt("FSST: ", out_size, " decompressed bytes in one chunk");
  // Never zeroed: only the first out_size bytes, all written below, are exposed.
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(out_size + kMaxSymbolLength));
  const bool wide_out = compressed.offset_bits == 64 || out_size > UINT32_MAX;
  std::shared_ptr<Buffer> offsets;
  bool bad = false;
  RETURN_IF_ERROR(decode(out->mutable_data(), wide_out, &offsets, &bad));
  return DataBlock::Variable(wide_out ? 64 : 32, n_out, std::move(offsets), Buffer::Slice(std::move(out), 0, out_size));
}

}  // namespace lancet::encoding::internal
