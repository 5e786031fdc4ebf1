// CAST(x AS type): the reference's type names and conversions, an error (never a null)
// for a value that does not fit.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "expr/bound.h"
#include "expr/datetime.h"

namespace lancet::expr {
namespace {

bool IsIntegerId(TypeId id) { return id >= TypeId::kInt8 && id <= TypeId::kUInt64; }
bool IsFloatId(TypeId id) { return id == TypeId::kFloat32 || id == TypeId::kFloat64 || id == TypeId::kFloat16; }
bool IsTextId(TypeId id) { return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8; }
bool IsBinaryId(TypeId id) { return id == TypeId::kBinary || id == TypeId::kLargeBinary; }

__int128 MinOf(const DataType& t) {
  const int bits = t.BitWidth();
  return t.id <= TypeId::kInt64 ? -(__int128{1} << (bits - 1)) : 0;
}
__int128 MaxOf(const DataType& t) {
  const int bits = t.BitWidth();
  return t.id <= TypeId::kInt64 ? (__int128{1} << (bits - 1)) - 1 : (__int128{1} << bits) - 1;
}

std::string Int128Text(__int128 v) {
  if (v == 0) return "0";
  std::string s;
  const bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  while (u > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

std::string DateText(int64_t days) {
  // Civil-from-days (Howard Hinnant's algorithm).
  int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld", static_cast<long long>(y), static_cast<long long>(m),
                static_cast<long long>(d));
  return buf;
}

// The value as nanoseconds, for a date or timestamp.
__int128 TemporalNanos(const DataType& t, int64_t v) {
  if (t.id == TypeId::kDate32) return __int128{v} * kNanosPerDay;
  if (t.id == TypeId::kDate64) return __int128{v} * 1000000;
  return __int128{v} * NanosPerUnit(t.unit);
}

}  // namespace

std::optional<DataType> CastTarget(const std::string& name) {
  static const std::pair<const char*, TypeId> kNames[] = {
      {"TINYINT", TypeId::kInt8},
      {"SMALLINT", TypeId::kInt16},
      {"INT", TypeId::kInt32},
      {"INTEGER", TypeId::kInt32},
      {"BIGINT", TypeId::kInt64},
      {"TINYINT UNSIGNED", TypeId::kUInt8},
      {"SMALLINT UNSIGNED", TypeId::kUInt16},
      {"INT UNSIGNED", TypeId::kUInt32},
      {"INTEGER UNSIGNED", TypeId::kUInt32},
      {"BIGINT UNSIGNED", TypeId::kUInt64},
      {"FLOAT", TypeId::kFloat32},
      {"DOUBLE", TypeId::kFloat64},
      {"STRING", TypeId::kUtf8},
      {"BINARY", TypeId::kBinary},
      {"DATE", TypeId::kDate32},
      {"BOOLEAN", TypeId::kBool},
  };
  for (const auto& [n, id] : kNames) {
    if (name == n) return MakeType(id);
  }
  // With a precision the reference's casts are not the plain unit change, so only the
  // bare name (microseconds) is taken.
  if (name == "TIMESTAMP" || name == "DATETIME") return TimestampType(TimeUnit::kMicro);
  return std::nullopt;
}

bool CanCast(const DataType& from, const DataType& to) {
  const TypeId f = from.id, t = to.id;
  if (f == TypeId::kNull || from == to) return true;
  const bool f_num = IsIntegerId(f) || IsFloatId(f) || f == TypeId::kBool;
  if (IsIntegerId(t) || IsFloatId(t)) {
    return f_num || IsTextId(f) || ((f == TypeId::kDate32 || f == TypeId::kTimestamp) && IsIntegerId(t));
  }
  if (t == TypeId::kBool) return IsIntegerId(f) || IsFloatId(f) || IsTextId(f);
  if (IsTextId(t)) return IsIntegerId(f) || f == TypeId::kBool || IsTextId(f) || f == TypeId::kDate32;
  if (IsBinaryId(t)) return IsTextId(f) || IsBinaryId(f);
  if (t == TypeId::kDate32) return IsTextId(f) || f == TypeId::kTimestamp || f == TypeId::kDate64;
  if (t == TypeId::kTimestamp)
    return IsTextId(f) || f == TypeId::kTimestamp || f == TypeId::kDate32 || f == TypeId::kDate64;
  return false;
}

Result<Column> CastColumn(const Column& in, const DataType& from, const DataType& to, const std::string& where) {
  const size_t n = static_cast<size_t>(in.length);
  Column out;
  out.kind = *KindOf(to);
  out.length = in.length;
  out.valid = in.kind == Kind::kNull ? std::vector<uint8_t>(n, 0) : in.valid;
  out.ints.resize(n);
  out.uints.resize(n);
  out.floats.resize(n);
  out.strings.resize(n);
  if (in.kind == Kind::kNull) return out;
  auto fail = [&](const std::string& what) {
    return Status::InvalidArgument(where + ": CAST from " + from.ToString() + " to " + to.ToString() + ": " + what);
  };
  if (IsTextId(to.id) || IsBinaryId(to.id)) out.arena = std::make_shared<std::deque<std::string>>();
  for (size_t i = 0; i < n; ++i) {
    if (!in.valid[i]) continue;
    // Integers and booleans as an exact wide value, floats as a double, text as bytes.
    const bool from_float = in.kind == Kind::kFloat;
    const __int128 iv = in.kind == Kind::kUInt                              ? __int128{in.uints[i]}
                        : (in.kind == Kind::kInt || in.kind == Kind::kBool) ? __int128{in.ints[i]}
                                                                            : 0;
    const double fv = from_float ? in.floats[i] : 0;
    const std::string_view sv = in.kind == Kind::kString ? in.strings[i] : std::string_view();
    if (IsIntegerId(to.id)) {
      __int128 v = iv;
      if (from_float) {
        if (!std::isfinite(fv) || fv <= -1.8446744073709552e19 || fv >= 1.8446744073709552e19) {
          return fail("value " + std::to_string(fv) + " does not fit");
        }
        v = static_cast<__int128>(std::trunc(fv));
      } else if (in.kind == Kind::kString) {
        std::string s(sv);
        size_t k = (s.size() > 0 && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
        if (k == s.size() || s.size() > 21 || s.find_first_not_of("0123456789", k) != std::string::npos) {
          return fail("'" + s + "' is not an integer");
        }
        v = 0;
        for (size_t j = k; j < s.size(); ++j) v = v * 10 + (s[j] - '0');
        if (s[0] == '-') v = -v;
      }
      if (v < MinOf(to) || v > MaxOf(to)) return fail("value " + Int128Text(v) + " does not fit");
      if (to.id == TypeId::kUInt64) {
        out.uints[i] = static_cast<uint64_t>(v);
      } else {
        out.ints[i] = static_cast<int64_t>(v);
      }
    } else if (IsFloatId(to.id)) {
      double v = from_float ? fv : static_cast<double>(iv);
      if (in.kind == Kind::kString) {
        std::string s(sv);
        errno = 0;
        char* end = nullptr;
        v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || s.find_first_of("xXpP") != std::string::npos) {
          return fail("'" + s + "' is not a number");
        }
      }
      out.floats[i] = to.id == TypeId::kFloat32 ? static_cast<float>(v) : v;
    } else if (to.id == TypeId::kBool) {
      if (in.kind == Kind::kString) {
        std::string s(sv);
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (s != "true" && s != "false") return fail("'" + std::string(sv) + "' is not TRUE or FALSE");
        out.ints[i] = s == "true";
      } else {
        out.ints[i] = from_float ? fv != 0 : iv != 0;
      }
    } else if (IsTextId(to.id) || IsBinaryId(to.id)) {
      std::string s;
      if (in.kind == Kind::kString) {
        s = std::string(sv);
      } else if (from.id == TypeId::kBool) {
        s = iv ? "true" : "false";
      } else if (from.id == TypeId::kDate32) {
        s = DateText(static_cast<int64_t>(iv));
      } else {
        s = Int128Text(iv);
      }
      out.arena->push_back(std::move(s));
      out.strings[i] = out.arena->back();
    } else if (to.id == TypeId::kDate32 || to.id == TypeId::kTimestamp) {
      __int128 nanos;
      if (in.kind == Kind::kString) {
        std::optional<__int128> parsed = ParseTimestampNanos(sv);
        if (!parsed) return fail("'" + std::string(sv) + "' is not a date or timestamp");
        nanos = *parsed;
      } else {
        nanos = TemporalNanos(from, static_cast<int64_t>(iv));
      }
      const __int128 per = to.id == TypeId::kDate32 ? __int128{kNanosPerDay} : __int128{NanosPerUnit(to.unit)};
      const __int128 v = FloorDiv(nanos, per);
      if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max() ||
          (to.id == TypeId::kDate32 &&
           (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()))) {
        return fail("value out of range");
      }
      out.ints[i] = static_cast<int64_t>(v);
    } else {
      return fail("not supported");
    }
  }
  return out;
}

}  // namespace lancet::expr
