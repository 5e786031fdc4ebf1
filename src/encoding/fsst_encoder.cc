// Training follows the FSST paper's scheme (Boncz, Neumann, Leis, VLDB 2020): a
// few rounds of compressing a ~16 KiB sample with the current table, counting
// how often each symbol and each adjacent pair of symbols is used, and keeping
// the 255 candidates (symbols and pair concatenations) that save the most
// bytes.
#include "encoding/fsst_encoder.h"

#include <algorithm>
#include <cstring>

namespace lancet::encoding {

namespace {

constexpr uint64_t kFsstMagic = 0x46535354ULL << 32;
constexpr uint8_t kEscape = 255;
constexpr uint32_t kMaxSymbols = 255;
constexpr uint64_t kSampleTarget = 16 * 1024;
constexpr uint64_t kSampleMaxValueBytes = 512;
constexpr int kRounds = 5;
// Extended codes while counting: 0..254 symbols, 256 + b the escaped byte b.
constexpr uint32_t kExtCodes = 512;

uint64_t LowMask(uint32_t len) { return len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1; }

// Up to 8 bytes at p, zero-filled past `end`.
uint64_t LoadWord(const uint8_t* p, const uint8_t* end) {
  uint64_t w = 0;
  if (end - p >= 8) {
    std::memcpy(&w, p, 8);
  } else {
    std::memcpy(&w, p, static_cast<size_t>(end - p));
  }
  return w;
}

uint32_t HashPrefix(uint64_t word, uint32_t bits) {
  return static_cast<uint32_t>(((word & 0xFFFFFF) * 2971215073ULL) >> 15) & ((1u << bits) - 1);
}

}  // namespace

void FsstEncoder::Clear() {
  symbols_.clear();
  std::fill(hash_.begin(), hash_.end(), HashEntry{});
  std::fill(short_.begin(), short_.end(), kNoShort);
  single_.fill(kNoShort);
}

bool FsstEncoder::Add(Symbol s) {
  if (symbols_.size() >= kMaxSymbols || s.len == 0 || s.len > 8) return false;
  s.value &= LowMask(s.len);
  const uint8_t code = static_cast<uint8_t>(symbols_.size());
  if (s.len >= 3) {
    HashEntry& e = hash_[HashPrefix(s.value, kHashBits)];
    if (e.len != 0) return false;
    e = {s.value, s.len, code};
  } else if (s.len == 2) {
    const auto key = static_cast<uint16_t>(s.value);
    if (short_[key] != kNoShort && (short_[key] >> 8) == 2) return false;
    short_[key] = static_cast<uint16_t>(code | (2u << 8));
  } else {
    const auto b = static_cast<uint8_t>(s.value);
    if (single_[b] != kNoShort) return false;
    single_[b] = code;
  }
  symbols_.push_back(s);
  return true;
}

void FsstEncoder::Finalize() {
  // Two-byte prefixes without a 2-byte symbol fall back to their first byte's
  // symbol.
  for (uint32_t key = 0; key < (1u << 16); ++key) {
    if (short_[key] != kNoShort) continue;
    const uint16_t c = single_[key & 0xFF];
    if (c != kNoShort) short_[key] = static_cast<uint16_t>(c | (1u << 8));
  }
}

void FsstEncoder::Match(uint64_t word, uint64_t remaining, uint8_t* code, uint8_t* len) const {
  if (remaining >= 3) {
    const HashEntry& e = hash_[HashPrefix(word, kHashBits)];
    if (e.len != 0 && e.len <= remaining && (word & LowMask(e.len)) == e.value) {
      *code = e.code;
      *len = e.len;
      return;
    }
  }
  uint16_t s = kNoShort;
  if (remaining >= 2) {
    s = short_[word & 0xFFFF];
  } else {
    s = single_[word & 0xFF];
    if (s != kNoShort) s = static_cast<uint16_t>(s | (1u << 8));
  }
  if (s == kNoShort) {
    *len = 0;
    return;
  }
  *code = static_cast<uint8_t>(s & 0xFF);
  *len = static_cast<uint8_t>(s >> 8);
}

size_t FsstEncoder::CompressOne(const uint8_t* p, size_t n, uint8_t* out) const {
  const uint8_t* end = p + n;
  uint8_t* o = out;
  while (p < end) {
    uint8_t code = 0, len = 0;
    Match(LoadWord(p, end), static_cast<uint64_t>(end - p), &code, &len);
    if (len == 0) {
      *o++ = kEscape;
      *o++ = *p++;
    } else {
      *o++ = code;
      p += len;
    }
  }
  return static_cast<size_t>(o - out);
}

FsstEncoder FsstEncoder::Train(std::span<const uint8_t> data, std::span<const uint64_t> offsets) {
  FsstEncoder enc;
  enc.Clear();
  // The sample: values (cut at 512 bytes) at evenly spaced byte positions, so
  // empty and null values, whatever their pattern, are never what gets sampled.
  std::vector<std::span<const uint8_t>> sample;
  const size_t n = offsets.empty() ? 0 : offsets.size() - 1;
  const uint64_t total = n == 0 ? 0 : offsets[n] - offsets[0];
  uint64_t sample_bytes = 0;
  if (total > 0) {
    const uint64_t avg = std::max<uint64_t>(1, total / n);
    const uint64_t step = std::max<uint64_t>(1, total / std::max<uint64_t>(1, kSampleTarget / avg));
    size_t last = SIZE_MAX;
    for (uint64_t pos = offsets[0]; pos < offsets[n] && sample_bytes < kSampleTarget; pos += step) {
      const size_t i = static_cast<size_t>(std::upper_bound(offsets.begin(), offsets.end(), pos) - offsets.begin()) - 1;
      if (i == last || i >= n) continue;
      last = i;
      const uint64_t len = std::min(offsets[i + 1] - offsets[i], kSampleMaxValueBytes);
      sample.emplace_back(data.data() + offsets[i], len);
      sample_bytes += len;
    }
  }

  std::vector<uint16_t> count1(kExtCodes);
  std::vector<uint16_t> count2(kExtCodes * kExtCodes);
  auto ext_symbol = [&](uint32_t ext) -> Symbol {
    if (ext >= 256) return Symbol{ext - 256, 1};
    return enc.symbols_[ext];
  };
  auto inc = [](uint16_t& c) {
    if (c != UINT16_MAX) ++c;
  };
  for (int round = 0; round < kRounds; ++round) {
    std::fill(count1.begin(), count1.end(), 0);
    std::fill(count2.begin(), count2.end(), 0);
    for (const auto& s : sample) {
      const uint8_t* p = s.data();
      const uint8_t* end = p + s.size();
      uint32_t prev = UINT32_MAX;
      while (p < end) {
        uint8_t code = 0, len = 0;
        enc.Match(LoadWord(p, end), static_cast<uint64_t>(end - p), &code, &len);
        const uint32_t ext = len == 0 ? 256u + *p : code;
        if (prev != UINT32_MAX) {
          inc(count2[prev * kExtCodes + ext]);
          // Also the previous symbol extended by one byte, so symbols can grow a byte
          // at a time even where a longer symbol matched next (as FSST does).
          if (len > 1) inc(count2[prev * kExtCodes + 256u + *p]);
        }
        p += len == 0 ? 1 : len;
        inc(count1[ext]);
        prev = ext;
      }
    }
    struct Candidate {
      uint64_t gain;
      Symbol symbol;
    };
    std::vector<Candidate> cands;
    const bool last = round + 1 == kRounds;
    for (uint32_t a = 0; a < kExtCodes; ++a) {
      if (count1[a] == 0) continue;
      const Symbol sa = ext_symbol(a);
      // Early rounds favour single bytes so escapes disappear first (as FSST
      // does).
      cands.push_back({uint64_t{count1[a]} * sa.len * (sa.len == 1 && !last ? 8 : 1), sa});
      if (sa.len == 8) continue;
      for (uint32_t b = 0; b < kExtCodes; ++b) {
        const uint16_t c = count2[a * kExtCodes + b];
        if (c == 0) continue;
        const Symbol sb = ext_symbol(b);
        const uint32_t len = std::min<uint32_t>(8, sa.len + sb.len);
        const Symbol joined{sa.value | (sb.value << (8 * sa.len)), static_cast<uint8_t>(len)};
        cands.push_back({uint64_t{c} * len, joined});
      }
    }
    std::sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) {
      if (x.gain != y.gain) return x.gain > y.gain;
      if (x.symbol.len != y.symbol.len) return x.symbol.len > y.symbol.len;
      return x.symbol.value < y.symbol.value;
    });
    enc.Clear();
    // Add() skips duplicates and symbols whose slot a better one holds.
    for (const auto& c : cands) {
      if (enc.symbols_.size() >= kMaxSymbols) break;
      enc.Add(c.symbol);
    }
    enc.Finalize();
  }

  if (sample_bytes > 0) {
    std::vector<uint8_t> scratch(2 * kSampleMaxValueBytes);
    uint64_t compressed = 0;
    for (const auto& s : sample) compressed += enc.CompressOne(s.data(), s.size(), scratch.data());
    enc.sample_ratio_ = static_cast<double>(compressed) / static_cast<double>(sample_bytes);
  }
  return enc;
}

std::vector<uint8_t> FsstEncoder::SerializeTable() const {
  std::vector<uint8_t> out(kFsstTableBytes, 0);
  const uint64_t n = symbols_.size();
  // Bit 24 switches the encoder on; suffix limit and terminator are unused by
  // readers.
  const uint64_t header = kFsstMagic | (uint64_t{1} << 24) | n;
  std::memcpy(out.data(), &header, 8);
  for (uint64_t i = 0; i < n; ++i) {
    std::memcpy(out.data() + 8 + i * 8, &symbols_[i].value, 8);
    out[8 + n * 8 + i] = symbols_[i].len;
  }
  return out;
}

void FsstEncoder::Compress(std::span<const uint8_t> data, std::span<const uint64_t> offsets, std::vector<uint8_t>* out,
                           std::vector<uint64_t>* out_offsets) const {
  out->clear();
  out_offsets->clear();
  if (offsets.empty()) return;
  const size_t n = offsets.size() - 1;
  out->resize(2 * (offsets[n] - offsets[0]));
  out_offsets->reserve(n + 1);
  size_t pos = 0;
  out_offsets->push_back(0);
  for (size_t i = 0; i < n; ++i) {
    pos += CompressOne(data.data() + offsets[i], offsets[i + 1] - offsets[i], out->data() + pos);
    out_offsets->push_back(pos);
  }
  out->resize(pos);
}

}  // namespace lancet::encoding
