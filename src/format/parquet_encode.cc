#include "format/parquet_encode.h"

#include <bit>
#include <cstring>

namespace lancet::format::parquet {

namespace {

void AppendUleb128(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Packs values LSB first, `bit_width` bits each (the hybrid's bit-packed layout).
void AppendBitPacked(std::span<const uint32_t> values, size_t padded_count, int bit_width, std::string* out) {
  uint64_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < padded_count; ++i) {
    const uint64_t v = i < values.size() ? values[i] : 0;
    acc |= v << bits;
    bits += bit_width;
    while (bits >= 8) {
      out->push_back(static_cast<char>(acc & 0xFF));
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out->push_back(static_cast<char>(acc & 0xFF));
}

void AppendRleRun(uint32_t value, size_t count, int bit_width, std::string* out) {
  AppendUleb128(uint64_t{count} << 1, out);
  const int value_bytes = (bit_width + 7) / 8;
  for (int b = 0; b < value_bytes; ++b) out->push_back(static_cast<char>((value >> (8 * b)) & 0xFF));
}

// A bit-packed run: count is a multiple of 8 except for the final run of the data.
void AppendLiteralRun(std::span<const uint32_t> values, int bit_width, std::string* out) {
  if (values.empty()) return;
  const size_t groups = (values.size() + 7) / 8;
  AppendUleb128((uint64_t{groups} << 1) | 1, out);
  AppendBitPacked(values, groups * 8, bit_width, out);
}

}  // namespace

int BitWidthFor(uint64_t max_value) { return max_value == 0 ? 0 : 64 - std::countl_zero(max_value); }

void AppendRleBitPacked(std::span<const uint32_t> values, int bit_width, std::string* out) {
  size_t literal_begin = 0;  // values[literal_begin, i) wait for a bit-packed run
  size_t i = 0;
  while (i < values.size()) {
    size_t run_end = i + 1;
    while (run_end < values.size() && values[run_end] == values[i]) ++run_end;
    size_t run = run_end - i;
    // A bit-packed run may only end on a group of 8, so the literals first borrow
    // enough of this run to fill their last group.
    const size_t borrow = (8 - (i - literal_begin) % 8) % 8;
    if (run >= borrow + 8) {
      AppendLiteralRun(values.subspan(literal_begin, i + borrow - literal_begin), bit_width, out);
      AppendRleRun(values[i], run - borrow, bit_width, out);
      literal_begin = run_end;
    }
    i = run_end;
  }
  AppendLiteralRun(values.subspan(literal_begin), bit_width, out);
}

void AppendLevelsV1(std::span<const uint32_t> levels, int bit_width, std::string* out) {
  const size_t at = out->size();
  out->append(4, '\0');
  AppendRleBitPacked(levels, bit_width, out);
  const uint32_t length = static_cast<uint32_t>(out->size() - at - 4);
  std::memcpy(out->data() + at, &length, 4);
}

void AppendPlainBools(std::span<const uint8_t> values, std::string* out) {
  uint8_t byte = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    byte |= static_cast<uint8_t>((values[i] & 1) << (i & 7));
    if ((i & 7) == 7) {
      out->push_back(static_cast<char>(byte));
      byte = 0;
    }
  }
  if (values.size() % 8 != 0) out->push_back(static_cast<char>(byte));
}

}  // namespace lancet::format::parquet
