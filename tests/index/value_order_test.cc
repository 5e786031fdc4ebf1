#include "index/value_order.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "util/array_builder.h"

namespace lancet::index {
namespace {

TEST(ValueOrderTest, FloatsPutNaNLastAndZerosEqual) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Array a = ArrayFromVector<double>(MakeType(TypeId::kFloat64), {-inf, -0.0, 0.0, 1.5, inf, nan, -nan, 0},
                                    {true, true, true, true, true, true, true, false})
                .MoveValue();
  EXPECT_LT(CompareValues(a, 0, a, 1), 0);
  EXPECT_EQ(CompareValues(a, 1, a, 2), 0);
  EXPECT_LT(CompareValues(a, 3, a, 4), 0);
  EXPECT_LT(CompareValues(a, 4, a, 5), 0);
  // -NaN sorts before -inf, as IEEE totalOrder (and the reference's comparisons) has it.
  EXPECT_LT(CompareValues(a, 6, a, 0), 0);
  EXPECT_GT(CompareValues(a, 5, a, 6), 0);
  // The null sorts before everything, -inf included.
  EXPECT_LT(CompareValues(a, 7, a, 0), 0);
  EXPECT_EQ(CompareValues(a, 7, a, 7), 0);
}

TEST(ValueOrderTest, IntegersBySignednessAndStringsBytewise) {
  Array u = ArrayFromVector<uint64_t>(MakeType(TypeId::kUInt64), {1, ~0ULL}).MoveValue();
  EXPECT_LT(CompareValues(u, 0, u, 1), 0);
  Array s = ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {-1, 1}).MoveValue();
  EXPECT_LT(CompareValues(s, 0, s, 1), 0);
  Array t = StringArray({"a", "ab", "\xc3\xa9", "b"});
  EXPECT_LT(CompareValues(t, 0, t, 1), 0);
  EXPECT_LT(CompareValues(t, 1, t, 3), 0);
  EXPECT_GT(CompareValues(t, 2, t, 3), 0);  // bytes 0xc3 > 'b'
  EXPECT_TRUE(IsOrderable(MakeType(TypeId::kLargeUtf8)));
  EXPECT_FALSE(IsOrderable(MakeType(TypeId::kStruct)));
}

}  // namespace
}  // namespace lancet::index
