#include "index/float_values.h"

#include <cmath>

#include "util/array_builder.h"

namespace lancet::index {

bool IsFloatType(const DataType& type) {
  return type.id == TypeId::kFloat16 || type.id == TypeId::kFloat32 || type.id == TypeId::kFloat64;
}

bool IsNaNAt(const Array& a, int64_t i) {
  switch (a.type.id) {
    case TypeId::kFloat16: {
      const uint16_t h = a.values<uint16_t>()[i];
      return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
    }
    case TypeId::kFloat32:
      return std::isnan(a.values<float>()[i]);
    case TypeId::kFloat64:
      return std::isnan(a.values<double>()[i]);
    default:
      return false;
  }
}

bool IsZeroAt(const Array& a, int64_t i) {
  switch (a.type.id) {
    case TypeId::kFloat16:
      return (a.values<uint16_t>()[i] & 0x7fff) == 0;
    case TypeId::kFloat32:
      return a.values<float>()[i] == 0.0f;
    case TypeId::kFloat64:
      return a.values<double>()[i] == 0.0;
    default:
      return false;
  }
}

Result<Array> SignedZero(const DataType& type, bool negative) {
  switch (type.id) {
    case TypeId::kFloat16:
      return ArrayFromVector<uint16_t>(type, {static_cast<uint16_t>(negative ? 0x8000 : 0)});
    case TypeId::kFloat32:
      return ArrayFromVector<float>(type, {negative ? -0.0f : 0.0f});
    case TypeId::kFloat64:
      return ArrayFromVector<double>(type, {negative ? -0.0 : 0.0});
    default:
      return Status::InvalidArgument("no signed zero of " + type.ToString());
  }
}

}  // namespace lancet::index
