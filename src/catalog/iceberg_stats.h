// Per-data-file column statistics for Iceberg manifests: value, null and NaN counts,
// and lower/upper bounds in Iceberg's single-value binary serialization (spec Appendix
// D: little-endian ints/longs/floats/doubles, one byte for booleans, UTF-8 or raw bytes
// for strings and binary). Internal to the catalog layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "catalog/iceberg_manifest.h"
#include "lancet/array.h"

namespace lancet::catalog::iceberg {

/// \brief Statistics of one top-level primitive column over the batches of one data
/// file. Bounds are kept for boolean, int, long, float, double (NaN excluded), date,
/// timestamp(tz), string and binary; strings and binary values longer than
/// kMaxBoundBytes drop that column's bounds (Iceberg allows leaving bounds out, and a
/// truncated upper bound would need a rounded-up value).
class ColumnStats {
 public:
  static constexpr size_t kMaxBoundBytes = 64;

  /// REQUIRES: `iceberg_type` is the column's Iceberg primitive name, `values` holds the
  /// conformed (Parquet-side) array.
  ColumnStats(int32_t field_id, const std::string& iceberg_type);
  void Update(const Array& values);
  /// Adds the counts and bounds to `file`'s maps.
  void AddTo(DataFile* file) const;

 private:
  enum class Kind : uint8_t { kNone, kBool, kInt32, kInt64, kFloat, kDouble, kBytes };
  template <typename T>
  void Track(T v, T* lo, T* hi);

  int32_t id_;
  Kind kind_ = Kind::kNone;
  int64_t values_ = 0, nulls_ = 0, nans_ = 0;
  bool any_ = false;     // a bound-bearing value was seen
  bool bounded_ = true;  // false once a string or binary value is too long
  int64_t int_lo_ = 0, int_hi_ = 0;
  double float_lo_ = 0, float_hi_ = 0;
  std::string bytes_lo_, bytes_hi_;
};

}  // namespace lancet::catalog::iceberg
