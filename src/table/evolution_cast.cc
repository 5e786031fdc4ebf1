#include "table/evolution_cast.h"

#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "util/array_builder.h"
#include "util/type_util.h"

namespace lancet::table {
namespace {

bool IsStringLike(TypeId id) { return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8; }
bool IsBinaryLike(TypeId id) { return id == TypeId::kBinary || id == TypeId::kLargeBinary; }
bool IsFloat(TypeId id) { return id == TypeId::kFloat32 || id == TypeId::kFloat64; }

std::vector<bool> Validity(const Array& a) {
  std::vector<bool> valid;
  if (a.null_count == 0) return valid;
  valid.resize(static_cast<size_t>(a.length));
  for (int64_t i = 0; i < a.length; ++i) valid[static_cast<size_t>(i)] = a.IsValid(i);
  return valid;
}

// Calls f(T{}) with the C type of integer or float type `id`.
template <typename F>
auto VisitNumeric(TypeId id, F&& f) {
  switch (id) {
    case TypeId::kInt8:
      return f(int8_t{});
    case TypeId::kInt16:
      return f(int16_t{});
    case TypeId::kInt32:
      return f(int32_t{});
    case TypeId::kInt64:
      return f(int64_t{});
    case TypeId::kUInt8:
      return f(uint8_t{});
    case TypeId::kUInt16:
      return f(uint16_t{});
    case TypeId::kUInt32:
      return f(uint32_t{});
    case TypeId::kUInt64:
      return f(uint64_t{});
    case TypeId::kFloat32:
      return f(float{});
    default:
      return f(double{});
  }
}

template <typename To, typename From>
bool Fits(From v) {
  if constexpr (std::is_floating_point_v<To>) {
    return true;
  } else if constexpr (std::is_signed_v<From>) {
    if (v < 0) {
      if constexpr (std::is_signed_v<To>) {
        return static_cast<int64_t>(v) >= static_cast<int64_t>(std::numeric_limits<To>::min());
      } else {
        return false;
      }
    }
    return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<To>::max());
  } else {
    return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<To>::max());
  }
}

template <typename From, typename To>
Result<Array> CastNumeric(const Array& a, const DataType& to, const std::string& column) {
  std::vector<To> out(static_cast<size_t>(a.length));
  const From* in = a.values<From>();
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.IsValid(i)) continue;
    if (!Fits<To>(in[i])) {
      return Status::InvalidArgument("column '" + column + "': value " + std::to_string(in[i]) + " at row " +
                                     std::to_string(i) + " does not fit " + to.ToString());
    }
    out[static_cast<size_t>(i)] = static_cast<To>(in[i]);
  }
  return ArrayFromVector(to, out, Validity(a));
}

}  // namespace

bool CanCast(const DataType& from, const DataType& to) {
  if (IsIntegerType(from.id)) return IsIntegerType(to.id);
  if (IsFloat(from.id)) return IsFloat(to.id);
  if (IsStringLike(from.id)) return IsStringLike(to.id);
  if (IsBinaryLike(from.id)) return IsBinaryLike(to.id);
  return false;
}

Result<Array> CastArray(const Array& array, const DataType& to, const std::string& column) {
  if (IsStringLike(array.type.id) || IsBinaryLike(array.type.id)) {
    std::vector<std::optional<std::string>> values(static_cast<size_t>(array.length));
    uint64_t total = 0;
    for (int64_t i = 0; i < array.length; ++i) {
      if (!array.IsValid(i)) continue;
      std::string_view v = array.GetView(i);
      total += v.size();
      values[static_cast<size_t>(i)] = std::string(v);
    }
    if (!to.IsLargeBinaryLike() && total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("column '" + column + "': " + std::to_string(total) +
                                     " bytes of values do not fit the 32-bit offsets of " + to.ToString());
    }
    return MakeBinaryArray(to, values);
  }
  return VisitNumeric(array.type.id, [&](auto from) -> Result<Array> {
    return VisitNumeric(to.id, [&](auto target) -> Result<Array> {
      return CastNumeric<decltype(from), decltype(target)>(array, to, column);
    });
  });
}

}  // namespace lancet::table
