#include "index/value_order.h"

#include <cmath>
#include <cstring>

namespace lancet::index {
namespace {

template <typename T>
int Cmp(T x, T y) {
  return x < y ? -1 : (y < x ? 1 : 0);
}

// IEEE 754 totalOrder as the reference compares floats (-NaN < -inf ... inf < NaN), but
// with -0 equal to 0, as a comparison with a literal treats them.
template <typename T>
int CmpFloat(T x, T y) {
  const bool xn = std::isnan(x), yn = std::isnan(y);
  if (xn || yn) {
    const int xr = xn ? (std::signbit(x) ? -1 : 1) : 0, yr = yn ? (std::signbit(y) ? -1 : 1) : 0;
    return Cmp(xr, yr);
  }
  return Cmp(x, y);
}

// IEEE half → float, enough to order by (subnormals and NaN included).
float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(man), -24);
  } else if (exp == 31) {
    v = man ? NAN : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

}  // namespace

bool IsOrderable(const DataType& type) {
  switch (type.id) {
    case TypeId::kBool:
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
      return true;
    default:
      return false;
  }
}

int CompareValues(const Array& a, int64_t i, const Array& b, int64_t j) {
  const bool av = a.IsValid(i), bv = b.IsValid(j);
  if (!av || !bv) return av == bv ? 0 : (av ? 1 : -1);
  switch (a.type.id) {
    case TypeId::kBool:
      return Cmp<int>(a.GetBool(i), b.GetBool(j));
    case TypeId::kInt8:
      return Cmp(a.values<int8_t>()[i], b.values<int8_t>()[j]);
    case TypeId::kInt16:
      return Cmp(a.values<int16_t>()[i], b.values<int16_t>()[j]);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return Cmp(a.values<int32_t>()[i], b.values<int32_t>()[j]);
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      return Cmp(a.values<int64_t>()[i], b.values<int64_t>()[j]);
    case TypeId::kUInt8:
      return Cmp(a.values<uint8_t>()[i], b.values<uint8_t>()[j]);
    case TypeId::kUInt16:
      return Cmp(a.values<uint16_t>()[i], b.values<uint16_t>()[j]);
    case TypeId::kUInt32:
      return Cmp(a.values<uint32_t>()[i], b.values<uint32_t>()[j]);
    case TypeId::kUInt64:
      return Cmp(a.values<uint64_t>()[i], b.values<uint64_t>()[j]);
    case TypeId::kFloat16:
      return CmpFloat(HalfToFloat(a.values<uint16_t>()[i]), HalfToFloat(b.values<uint16_t>()[j]));
    case TypeId::kFloat32:
      return CmpFloat(a.values<float>()[i], b.values<float>()[j]);
    case TypeId::kFloat64:
      return CmpFloat(a.values<double>()[i], b.values<double>()[j]);
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      const std::string_view x = a.GetView(i), y = b.GetView(j);
      const int c = x.compare(y);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default:
      return 0;
  }
}

}  // namespace lancet::index
