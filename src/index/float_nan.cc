#include "index/float_nan.h"

#include <cmath>

namespace lancet::index {

bool HasNaN(const Array& a) {
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.IsValid(i)) continue;
    switch (a.type.id) {
      case TypeId::kFloat32:
        if (std::isnan(a.values<float>()[i])) return true;
        break;
      case TypeId::kFloat64:
        if (std::isnan(a.values<double>()[i])) return true;
        break;
      case TypeId::kFloat16:
        if ((a.values<uint16_t>()[i] & 0x7fff) > 0x7c00) return true;
        break;
      default:
        return false;
    }
  }
  return false;
}

bool ComparisonLiteralsFit(const ScalarQuery& q, const DataType& type) {
  auto fits = [&](const Array& a) { return a.type == type && !HasNaN(a); };
  auto one = [&](const Array& a) { return a.length == 1 && fits(a); };
  switch (q.kind) {
    case ScalarQuery::Kind::kEquals:
      return one(q.values);
    case ScalarQuery::Kind::kIn:
      return fits(q.values);
    case ScalarQuery::Kind::kRange:
      return (!q.lower || one(q.lower->value)) && (!q.upper || one(q.upper->value));
    default:
      return false;
  }
}

}  // namespace lancet::index
