#include <algorithm>

#include "index/fts_unicode_data.h"

namespace lancet::index::fts {

bool IsAlphanumeric(uint32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
  const CodeRange* end = kAlphanumeric + kAlphanumericSize;
  const CodeRange* it =
      std::upper_bound(kAlphanumeric, end, cp, [](uint32_t c, const CodeRange& r) { return c < r.first; });
  return it != kAlphanumeric && cp <= (it - 1)->last;
}

void AppendLower(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
    return;
  }
  const LowerMapping* end = kLower + kLowerSize;
  const LowerMapping* it =
      std::lower_bound(kLower, end, cp, [](const LowerMapping& m, uint32_t c) { return m.from < c; });
  if (it == end || it->from != cp) {
    AppendUtf8(cp, out);
    return;
  }
  AppendUtf8(it->to, out);
  if (it->to2 != 0) AppendUtf8(it->to2, out);
}

const char* FoldToAscii(uint32_t cp) {
  const FoldMapping* end = kFold + kFoldSize;
  const FoldMapping* it = std::lower_bound(kFold, end, cp, [](const FoldMapping& m, uint32_t c) { return m.from < c; });
  return it != end && it->from == cp ? it->to : nullptr;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

uint32_t NextCodePoint(std::string_view s, size_t* pos) {
  constexpr uint32_t kReplacement = 0xFFFD;
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t b0 = byte(*pos);
  ++*pos;
  if (b0 < 0x80) return b0;
  size_t need;
  uint32_t cp;
  // The second byte's range is narrower for some leads: that is what rules out overlong
  // forms, surrogates and values past U+10FFFF, and decides where a bad sequence ends.
  uint8_t lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1, cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2, cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3, cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return kReplacement;
  }
  for (size_t k = 0; k < need; ++k) {
    if (*pos >= s.size()) return kReplacement;
    const uint8_t b = byte(*pos);
    if (b < lo || b > hi) return kReplacement;  // the bad byte starts the next character
    lo = 0x80, hi = 0xBF;
    cp = (cp << 6) | (b & 0x3F);
    ++*pos;
  }
  return cp;
}

}  // namespace lancet::index::fts
