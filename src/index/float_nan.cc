#include "index/float_nan.h"

#include "index/float_values.h"

namespace lancet::index {

bool HasNaN(const Array& a) {
  if (!IsFloatType(a.type)) return false;
  for (int64_t i = 0; i < a.length; ++i) {
    if (a.IsValid(i) && IsNaNAt(a, i)) return true;
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
