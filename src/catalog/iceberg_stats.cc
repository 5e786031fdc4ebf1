#include "catalog/iceberg_stats.h"

#include <cmath>
#include <cstring>
#include <type_traits>

namespace lancet::catalog::iceberg {
namespace {

template <typename T>
std::string LittleEndian(T v) {
  // Iceberg's bounds are little-endian, as this machine stores values.
  std::string out(sizeof v, '\0');
  std::memcpy(out.data(), &v, sizeof v);
  return out;
}

// Bounds order floats as IEEE 754 totalOrder does for non-NaN values (the spec's rule):
// -0.0 sorts before +0.0.
template <typename T>
bool BoundLess(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>) {
    if (a == b) return std::signbit(a) && !std::signbit(b);
  }
  return a < b;
}

}  // namespace

ColumnStats::ColumnStats(int32_t field_id, const std::string& iceberg_type) : id_(field_id) {
  if (iceberg_type == "boolean") kind_ = Kind::kBool;
  if (iceberg_type == "int" || iceberg_type == "date") kind_ = Kind::kInt32;
  if (iceberg_type == "long" || iceberg_type == "timestamp" || iceberg_type == "timestamptz") kind_ = Kind::kInt64;
  if (iceberg_type == "float") kind_ = Kind::kFloat;
  if (iceberg_type == "double") kind_ = Kind::kDouble;
  if (iceberg_type == "string" || iceberg_type == "binary") kind_ = Kind::kBytes;
}

template <typename T>
void ColumnStats::Track(T v, T* lo, T* hi) {
  if (!any_ || BoundLess(v, *lo)) *lo = v;
  if (!any_ || BoundLess(*hi, v)) *hi = v;
  any_ = true;
}

void ColumnStats::Update(const Array& a) {
  values_ += a.length;
  for (int64_t i = 0; i < a.length; ++i) {
    if (a.IsNull(i)) {
      ++nulls_;
      continue;
    }
    switch (kind_) {
      case Kind::kNone:
        break;
      case Kind::kBool:
        Track<int64_t>(a.GetBool(i) ? 1 : 0, &int_lo_, &int_hi_);
        break;
      case Kind::kInt32:
        Track<int64_t>(a.values<int32_t>()[i], &int_lo_, &int_hi_);
        break;
      case Kind::kInt64:
        Track<int64_t>(a.values<int64_t>()[i], &int_lo_, &int_hi_);
        break;
      case Kind::kFloat:
      case Kind::kDouble: {
        const double v = kind_ == Kind::kFloat ? a.values<float>()[i] : a.values<double>()[i];
        if (std::isnan(v)) {
          ++nans_;  // NaN is never a bound (spec: nan_value_counts instead)
        } else {
          Track(v, &float_lo_, &float_hi_);
        }
        break;
      }
      case Kind::kBytes: {
        const std::string_view v = a.GetView(i);
        if (v.size() > kMaxBoundBytes) {
          bounded_ = false;
        } else {
          Track(std::string(v), &bytes_lo_, &bytes_hi_);
        }
        break;
      }
    }
  }
}

void ColumnStats::AddTo(DataFile* file) const {
  file->value_counts[id_] += values_;
  file->null_value_counts[id_] += nulls_;
  if (kind_ == Kind::kFloat || kind_ == Kind::kDouble) file->nan_value_counts[id_] += nans_;
  if (!any_ || !bounded_) return;
  std::string lo, hi;
  switch (kind_) {
    case Kind::kNone:
      return;
    case Kind::kBool:
      lo = std::string(1, static_cast<char>(int_lo_));
      hi = std::string(1, static_cast<char>(int_hi_));
      break;
    case Kind::kInt32:
      lo = LittleEndian(static_cast<int32_t>(int_lo_));
      hi = LittleEndian(static_cast<int32_t>(int_hi_));
      break;
    case Kind::kInt64:
      lo = LittleEndian(int_lo_);
      hi = LittleEndian(int_hi_);
      break;
    case Kind::kFloat:
      lo = LittleEndian(static_cast<float>(float_lo_));
      hi = LittleEndian(static_cast<float>(float_hi_));
      break;
    case Kind::kDouble:
      lo = LittleEndian(float_lo_);
      hi = LittleEndian(float_hi_);
      break;
    case Kind::kBytes:
      lo = bytes_lo_;
      hi = bytes_hi_;
      break;
  }
  file->lower_bounds[id_] = std::move(lo);
  file->upper_bounds[id_] = std::move(hi);
}

}  // namespace lancet::catalog::iceberg
