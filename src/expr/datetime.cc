// Date and timestamp literals.
#include "expr/datetime.h"

#include <cctype>
#include <chrono>

namespace lancet::expr {
namespace {

// Reads between min_digits and max_digits decimal digits at *pos.
bool ReadDigits(std::string_view s, size_t* pos, size_t min_digits, size_t max_digits, int* out) {
  size_t n = 0;
  int v = 0;
  while (n < max_digits && *pos + n < s.size() && std::isdigit(static_cast<unsigned char>(s[*pos + n]))) {
    v = v * 10 + (s[*pos + n] - '0');
    ++n;
  }
  if (n < min_digits) return false;
  *pos += n;
  *out = v;
  return true;
}

bool ReadChar(std::string_view s, size_t* pos, char c) {
  if (*pos < s.size() && s[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

bool ReadDate(std::string_view s, size_t* pos, int64_t* days) {
  int y, m, d;
  if (!ReadDigits(s, pos, 4, 4, &y) || !ReadChar(s, pos, '-') || !ReadDigits(s, pos, 1, 2, &m) ||
      !ReadChar(s, pos, '-') || !ReadDigits(s, pos, 1, 2, &d)) {
    return false;
  }
  std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(m)),
                                  std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok()) return false;
  *days = std::chrono::sys_days(ymd).time_since_epoch().count();
  return true;
}

}  // namespace

std::optional<int64_t> ParseDate(std::string_view s) {
  size_t pos = 0;
  int64_t days;
  if (!ReadDate(s, &pos, &days) || pos != s.size()) return std::nullopt;
  return days;
}

std::optional<__int128> ParseTimestampNanos(std::string_view s) {
  size_t pos = 0;
  int64_t days;
  if (!ReadDate(s, &pos, &days)) return std::nullopt;
  __int128 nanos = __int128{days} * kNanosPerDay;
  if (pos == s.size()) return nanos;
  if (!ReadChar(s, &pos, 'T') && !ReadChar(s, &pos, ' ')) return std::nullopt;
  int h, mi, sec = 0;
  if (!ReadDigits(s, &pos, 2, 2, &h) || !ReadChar(s, &pos, ':') || !ReadDigits(s, &pos, 2, 2, &mi)) {
    return std::nullopt;
  }
  if (ReadChar(s, &pos, ':') && !ReadDigits(s, &pos, 2, 2, &sec)) return std::nullopt;
  if (h > 23 || mi > 59 || sec > 59) return std::nullopt;
  nanos += ((__int128{h} * 60 + mi) * 60 + sec) * 1000000000;
  if (ReadChar(s, &pos, '.')) {
    __int128 frac = 0, scale = 100000000;
    size_t begin = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      if (scale == 0) return std::nullopt;  // finer than nanoseconds
      frac += (s[pos++] - '0') * scale;
      scale /= 10;
    }
    if (pos == begin) return std::nullopt;
    nanos += frac;
  }
  if (pos == s.size()) return nanos;
  if (ReadChar(s, &pos, 'Z')) return pos == s.size() ? std::optional<__int128>(nanos) : std::nullopt;
  int sign = s[pos] == '+' ? 1 : s[pos] == '-' ? -1 : 0;
  if (sign == 0) return std::nullopt;
  ++pos;
  int oh, om = 0;
  if (!ReadDigits(s, &pos, 2, 2, &oh)) return std::nullopt;
  if (ReadChar(s, &pos, ':') || pos < s.size()) {
    if (!ReadDigits(s, &pos, 2, 2, &om)) return std::nullopt;
  }
  if (pos != s.size() || oh > 23 || om > 59) return std::nullopt;
  // Local time minus its offset is UTC, which is what Arrow timestamps count from.
  return nanos - sign * (__int128{oh} * 60 + om) * 60 * 1000000000;
}

int64_t NanosPerUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 1000000000;
    case TimeUnit::kMilli:
      return 1000000;
    case TimeUnit::kMicro:
      return 1000;
    case TimeUnit::kNano:
      return 1;
  }
  return 1;
}

}  // namespace lancet::expr
