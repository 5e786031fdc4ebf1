// Column statistics for manifests: counts, NaN handling, bound order and serialization.
#include "catalog/iceberg_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::catalog::iceberg {
namespace {

template <typename T>
std::string LE(T v) {
  std::string s(sizeof v, '\0');
  std::memcpy(s.data(), &v, sizeof v);
  return s;
}

TEST(IcebergStats, IntsAcrossBatchesWithNulls) {
  ColumnStats st(7, "long");
  ASSERT_OK_AND_ASSIGN(
      Array a, ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{5, -9, 100}, {true, true, false}));
  ASSERT_OK_AND_ASSIGN(
      Array b, ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 42},
                               {false, true}));
  st.Update(a);
  st.Update(b);
  DataFile f;
  st.AddTo(&f);
  EXPECT_EQ(f.value_counts[7], 5);
  EXPECT_EQ(f.null_value_counts[7], 2);
  EXPECT_EQ(f.lower_bounds[7], LE<int64_t>(-9));  // the null slot's value is not a bound
  EXPECT_EQ(f.upper_bounds[7], LE<int64_t>(42));
  EXPECT_FALSE(f.nan_value_counts.count(7));
}

TEST(IcebergStats, IntAndDateAreFourBytes) {
  ColumnStats st(1, "date");
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromVector(MakeType(TypeId::kDate32), std::vector<int32_t>{19000, -3, 7}));
  st.Update(a);
  DataFile f;
  st.AddTo(&f);
  EXPECT_EQ(f.lower_bounds[1], LE<int32_t>(-3));
  EXPECT_EQ(f.upper_bounds[1], LE<int32_t>(19000));
}

TEST(IcebergStats, DoublesSkipNanAndOrderNegativeZeroFirst) {
  ColumnStats st(3, "double");
  const double nan = std::nan("");
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromVector(MakeType(TypeId::kFloat64), std::vector<double>{0.0, nan, -0.0, nan}));
  st.Update(a);
  DataFile f;
  st.AddTo(&f);
  EXPECT_EQ(f.nan_value_counts[3], 2);
  EXPECT_EQ(f.value_counts[3], 4);
  EXPECT_EQ(f.lower_bounds[3], LE<double>(-0.0));
  EXPECT_EQ(f.upper_bounds[3], LE<double>(0.0));

  ColumnStats only_nan(4, "float");
  ASSERT_OK_AND_ASSIGN(Array n, ArrayFromVector(MakeType(TypeId::kFloat32), std::vector<float>{std::nanf("")}));
  only_nan.Update(n);
  DataFile g;
  only_nan.AddTo(&g);
  EXPECT_EQ(g.nan_value_counts[4], 1);
  EXPECT_FALSE(g.lower_bounds.count(4));
  EXPECT_FALSE(g.upper_bounds.count(4));
}

TEST(IcebergStats, StringsCompareAsUnsignedBytesAndLongOnesDropBounds) {
  ColumnStats st(2, "string");
  st.Update(StringArray({"b", std::nullopt, "\xc3\xa9t\xc3\xa9", "a", "Z"}));
  DataFile f;
  st.AddTo(&f);
  EXPECT_EQ(f.lower_bounds[2], "Z");
  EXPECT_EQ(f.upper_bounds[2], "\xc3\xa9t\xc3\xa9");  // U+00E9 sorts after ASCII
  EXPECT_EQ(f.null_value_counts[2], 1);

  ColumnStats longer(5, "string");
  longer.Update(StringArray({"short", std::string(ColumnStats::kMaxBoundBytes + 1, 'x')}));
  DataFile g;
  longer.AddTo(&g);
  EXPECT_EQ(g.value_counts[5], 2);
  EXPECT_FALSE(g.lower_bounds.count(5));
}

TEST(IcebergStats, BooleansAndTypesWithoutBounds) {
  ColumnStats st(1, "boolean");
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromVector(MakeType(TypeId::kBool), std::vector<bool>{true, true}));
  st.Update(a);
  DataFile f;
  st.AddTo(&f);
  EXPECT_EQ(f.lower_bounds[1], std::string(1, '\x01'));
  EXPECT_EQ(f.upper_bounds[1], std::string(1, '\x01'));

  ColumnStats dec(9, "decimal(10, 2)");
  DataType d = MakeType(TypeId::kDecimal128);
  d.precision = 10;
  d.scale = 2;
  ASSERT_OK_AND_ASSIGN(Array arr, MakeNullArray(d, 3));
  dec.Update(arr);
  DataFile g;
  dec.AddTo(&g);
  EXPECT_EQ(g.value_counts[9], 3);
  EXPECT_EQ(g.null_value_counts[9], 3);
  EXPECT_FALSE(g.lower_bounds.count(9));
}

}  // namespace
}  // namespace lancet::catalog::iceberg
