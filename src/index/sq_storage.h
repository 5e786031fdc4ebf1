// 8-bit scalar quantization as the reference stores it (`__sq_code` with the value
// bounds in storage_metadata), shared by IVF_SQ and IVF_HNSW_SQ. Internal.
#pragma once

#include <cstdint>
#include <limits>

#include "lancet/index/distance.h"

namespace lancet::index {

struct SqBounds {
  double start = std::numeric_limits<double>::max();
  double end = std::numeric_limits<double>::lowest();

  /// Widens the bounds to cover `n` values (non-finite values are skipped).
  void Update(const float* values, size_t n);
  /// Codes of `n` values: (v - start) * 255 / (end - start), truncated and saturated to
  /// [0, 255] (NaN gives 0); all 0 when start == end.
  void Encode(const float* values, size_t n, uint8_t* codes) const;
  /// The distance of two code vectors as the reference computes it: the code-space
  /// squared L2 (or 1 - dot for kDot) scaled back by (end - start)^2 / 255^2.
  float Distance(const uint8_t* a, const uint8_t* b, size_t dim, DistanceType metric) const;
};

}  // namespace lancet::index
