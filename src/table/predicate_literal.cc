// Checking predicate literals against column types, and ISO date/timestamp literals.
#include "table/predicate_literal.h"

#include <cctype>
#include <chrono>
#include <limits>
#include <string_view>

namespace lancet::table {
namespace {

using Literal = PredicateNode::Literal;

// Reads exactly `digits` decimal digits at *pos.
bool ReadDigits(std::string_view s, size_t* pos, size_t digits, int* out) {
  if (*pos + digits > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = s[*pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *pos += digits;
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

// Days since 1970-01-01 of "YYYY-MM-DD" at *pos.
bool ReadDate(std::string_view s, size_t* pos, int64_t* days) {
  int y, m, d;
  if (!ReadDigits(s, pos, 4, &y) || !ReadChar(s, pos, '-') || !ReadDigits(s, pos, 2, &m) || !ReadChar(s, pos, '-') ||
      !ReadDigits(s, pos, 2, &d)) {
    return false;
  }
  std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(m)),
                                  std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok()) return false;
  *days = std::chrono::sys_days(ymd).time_since_epoch().count();
  return true;
}

constexpr __int128 kNanosPerDay = __int128{86400} * 1000000000;

__int128 NanosPerUnit(TimeUnit unit) {
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

}  // namespace

std::optional<int64_t> ParseIsoDate(std::string_view s) {
  size_t pos = 0;
  int64_t days;
  if (!ReadDate(s, &pos, &days) || pos != s.size()) return std::nullopt;
  return days;
}

std::optional<__int128> ParseIsoTimestampNanos(std::string_view s) {
  size_t pos = 0;
  int64_t days;
  if (!ReadDate(s, &pos, &days)) return std::nullopt;
  __int128 nanos = days * kNanosPerDay;
  if (pos == s.size()) return nanos;
  if (!ReadChar(s, &pos, 'T') && !ReadChar(s, &pos, ' ')) return std::nullopt;
  int h, mi, sec = 0;
  if (!ReadDigits(s, &pos, 2, &h) || !ReadChar(s, &pos, ':') || !ReadDigits(s, &pos, 2, &mi)) return std::nullopt;
  if (ReadChar(s, &pos, ':') && !ReadDigits(s, &pos, 2, &sec)) return std::nullopt;
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
  if (!ReadDigits(s, &pos, 2, &oh)) return std::nullopt;
  if (ReadChar(s, &pos, ':') || pos < s.size()) {
    if (!ReadDigits(s, &pos, 2, &om)) return std::nullopt;
  }
  if (pos != s.size() || oh > 23 || om > 59) return std::nullopt;
  // Local time minus its offset is UTC, which is what Arrow timestamps count from.
  return nanos - sign * (__int128{oh} * 60 + om) * 60 * 1000000000;
}

Status CheckLiteral(const DataType& column_type, Literal* lit, const LiteralError& error) {
  const DataType& type =
      column_type.id == TypeId::kDictionary && column_type.value_type ? *column_type.value_type : column_type;
  auto kind_error = [&](const char* expected) {
    return error("literal " + lit->text + " does not fit type " + type.ToString() + " (expected " + expected + ")");
  };
  auto check_range = [&](__int128 lo, __int128 hi) -> Status {
    if (lit->int_value < lo || lit->int_value > hi) {
      return error("literal " + lit->text + " is out of range for type " + type.ToString());
    }
    return Status::OK();
  };
  switch (type.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kBool:
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      break;
    default:
      return error("comparisons on type " + type.ToString() + " are not supported (only IS [NOT] NULL)");
  }
  if (lit->kind == Literal::Kind::kNull) return Status::OK();
  const int bits = type.BitWidth();
  switch (type.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      if (lit->kind == Literal::Kind::kFloat) return Status::OK();
      if (lit->kind != Literal::Kind::kInt) return kind_error("a number");
      return check_range(-(__int128{1} << (bits - 1)), (__int128{1} << (bits - 1)) - 1);
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      if (lit->kind == Literal::Kind::kFloat) return Status::OK();
      if (lit->kind != Literal::Kind::kInt) return kind_error("a number");
      return check_range(0, (__int128{1} << bits) - 1);
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      if (lit->kind != Literal::Kind::kInt && lit->kind != Literal::Kind::kFloat) return kind_error("a number");
      return Status::OK();
    case TypeId::kBool:
      return lit->kind == Literal::Kind::kBool ? Status::OK() : kind_error("TRUE or FALSE");
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return lit->kind == Literal::Kind::kString ? Status::OK() : kind_error("a 'string'");
    case TypeId::kDate32:
    case TypeId::kDate64: {
      const __int128 per_day = type.id == TypeId::kDate32 ? 1 : 86400000;
      if (lit->kind == Literal::Kind::kString) {
        std::optional<int64_t> days = ParseIsoDate(lit->string_value);
        if (!days) return error("literal " + lit->text + " is not a date 'YYYY-MM-DD'");
        lit->kind = Literal::Kind::kInt;
        lit->int_value = *days * per_day;
      } else if (lit->kind != Literal::Kind::kInt) {
        return kind_error("'YYYY-MM-DD' or an integer");
      }
      return check_range(-(__int128{1} << (bits - 1)), (__int128{1} << (bits - 1)) - 1);
    }
    case TypeId::kTimestamp: {
      if (lit->kind == Literal::Kind::kString) {
        std::optional<__int128> nanos = ParseIsoTimestampNanos(lit->string_value);
        if (!nanos)
          return error("literal " + lit->text + " is not a timestamp 'YYYY-MM-DD[ HH:MM[:SS[.f]]][Z|+HH:MM]'");
        __int128 per_unit = NanosPerUnit(type.unit);
        if (*nanos % per_unit != 0) {
          return error("literal " + lit->text + " is finer than the unit of type " + type.ToString());
        }
        lit->kind = Literal::Kind::kInt;
        lit->int_value = *nanos / per_unit;
      } else if (lit->kind != Literal::Kind::kInt) {
        return kind_error("an ISO 'timestamp' or an integer");
      }
      return check_range(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    }
    default:  // time32/64, duration: raw counts of the unit
      if (lit->kind != Literal::Kind::kInt) return kind_error("an integer");
      return check_range(-(__int128{1} << (bits - 1)), (__int128{1} << (bits - 1)) - 1);
  }
}

}  // namespace lancet::table
