// UTF-8 string functions and LIKE.
#include "expr/text.h"

#include <cstdio>

namespace lancet::expr {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xc0) == 0x80; }

// Decodes the character at s[*i]; false for malformed UTF-8.
bool Decode(std::string_view s, size_t* i, uint32_t* cp) {
  const auto c = static_cast<unsigned char>(s[*i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || *i + len > s.size()) return false;
  uint32_t v = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) {
    const auto d = static_cast<unsigned char>(s[*i + k]);
    if (!IsContinuation(d)) return false;
    v = (v << 6) | (d & 0x3f);
  }
  *i += len;
  *cp = v;
  return true;
}

void Encode(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

bool In(uint32_t cp, uint32_t lo, uint32_t hi) { return cp >= lo && cp <= hi; }

// Blocks with no case at all: their characters map to themselves.
bool Caseless(uint32_t cp) {
  return In(cp, 0x02b9, 0x036f) || In(cp, 0x0590, 0x06ff) || In(cp, 0x2000, 0x206f) || In(cp, 0x2190, 0x23ff) ||
         In(cp, 0x2500, 0x27bf) || In(cp, 0x3000, 0x9fff) || In(cp, 0xac00, 0xd7af) || In(cp, 0xfe00, 0xfe0f) ||
         In(cp, 0x1f000, 0x1faff) || In(cp, 0x00a0, 0x00b4) || In(cp, 0x00b6, 0x00bf) || cp == 0x00d7 || cp == 0x00f7 ||
         cp == 0x0138;
}

// Rust's char::to_lowercase / to_uppercase on our tables; false outside them.
bool MapCase(uint32_t cp, bool upper, std::string* out) {
  auto put = [&](uint32_t v) {
    Encode(v, out);
    return true;
  };
  if (cp < 0x80) {
    if (upper && In(cp, 'a', 'z')) return put(cp - 32);
    if (!upper && In(cp, 'A', 'Z')) return put(cp + 32);
    return put(cp);
  }
  if (Caseless(cp)) return put(cp);
  // Latin-1 Supplement.
  if (In(cp, 0x00c0, 0x00de)) return put(upper ? cp : cp + 32);
  if (cp == 0x00df) return upper ? put('S') && put('S') : put(cp);
  if (In(cp, 0x00e0, 0x00fe)) return put(upper ? cp - 32 : cp);
  if (cp == 0x00ff) return put(upper ? 0x0178 : cp);
  if (cp == 0x00b5) return put(upper ? 0x039c : cp);
  // Latin Extended-A: alternating pairs, with the few exceptions spelled out.
  if (cp == 0x0130) return upper ? put(cp) : put('i') && put(0x0307);
  if (cp == 0x0131) return put(upper ? 'I' : cp);
  if (cp == 0x0149) return upper ? put(0x02bc) && put('N') : put(cp);
  if (cp == 0x0178) return put(upper ? cp : 0x00ff);
  if (cp == 0x017f) return put(upper ? 'S' : cp);
  const bool even_upper =
      In(cp, 0x0100, 0x0137) || In(cp, 0x014a, 0x0177) || In(cp, 0x0460, 0x0481) || In(cp, 0x048a, 0x04bf);
  const bool odd_upper = In(cp, 0x0139, 0x0148) || In(cp, 0x0179, 0x017e);
  if (even_upper || odd_upper) {
    const bool is_upper = (cp % 2 == 0) == even_upper;
    if (upper) return put(is_upper ? cp : cp - 1);
    return put(is_upper ? cp + 1 : cp);
  }
  // Greek without accents; capital sigma's lower case depends on its place in a word.
  if (In(cp, 0x0391, 0x03a9) && cp != 0x03a2 && cp != 0x03a3) return put(upper ? cp : cp + 32);
  if (cp == 0x03a3 && upper) return put(cp);
  if (In(cp, 0x03b1, 0x03c9)) return put(upper ? (cp == 0x03c2 ? 0x03a3 : cp - 32) : cp);
  // Cyrillic.
  if (In(cp, 0x0410, 0x042f)) return put(upper ? cp : cp + 32);
  if (In(cp, 0x0430, 0x044f)) return put(upper ? cp - 32 : cp);
  if (In(cp, 0x0400, 0x040f)) return put(upper ? cp : cp + 80);
  if (In(cp, 0x0450, 0x045f)) return put(upper ? cp - 80 : cp);
  return false;
}

size_t NextChar(std::string_view s, size_t i) {
  ++i;
  while (i < s.size() && IsContinuation(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

}  // namespace

int64_t CharLength(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += !IsContinuation(static_cast<unsigned char>(c));
  return n;
}

Result<std::string> ChangeCase(std::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp;
    if (!Decode(s, &i, &cp)) return Status::InvalidArgument("malformed UTF-8");
    if (!MapCase(cp, upper, &out)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
      return Status::NotSupported(std::string(upper ? "upper" : "lower") + "() of character " + hex +
                                  " (outside the supported case tables)");
    }
  }
  return out;
}

LikePattern::LikePattern(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      parts_.emplace_back(Part::kByte, pattern[++i]);
    } else if (c == '%') {
      if (parts_.empty() || parts_.back().first != Part::kAnyRun) parts_.emplace_back(Part::kAnyRun, 0);
    } else if (c == '_') {
      parts_.emplace_back(Part::kAnyOne, 0);
    } else {
      parts_.emplace_back(Part::kByte, c);
    }
  }
}

bool LikePattern::Matches(std::string_view s) const {
  // Greedy matching that backtracks to the last `%`, one character at a time; linear in
  // the common cases and O(|s| * |pattern|) at worst.
  size_t si = 0, pi = 0, star_s = 0;
  size_t star_p = SIZE_MAX;
  const size_t n = s.size(), m = parts_.size();
  while (si < n) {
    if (pi < m && parts_[pi].first == Part::kByte && parts_[pi].second == s[si]) {
      ++si;
      ++pi;
    } else if (pi < m && parts_[pi].first == Part::kAnyOne) {
      si = NextChar(s, si);
      ++pi;
    } else if (pi < m && parts_[pi].first == Part::kAnyRun) {
      star_p = pi++;
      star_s = si;
    } else if (star_p != SIZE_MAX) {
      pi = star_p + 1;
      star_s = NextChar(s, star_s);
      si = star_s;
    } else {
      return false;
    }
  }
  while (pi < m && parts_[pi].first == Part::kAnyRun) ++pi;
  return pi == m;
}

}  // namespace lancet::expr
