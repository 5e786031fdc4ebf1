// Scalar quantization: bounds, codes and code distances.
#include "index/sq_storage.h"

#include <cmath>

namespace lancet::index {

void SqBounds::Update(const float* values, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) continue;
    start = std::min(start, static_cast<double>(values[i]));
    end = std::max(end, static_cast<double>(values[i]));
  }
}

void SqBounds::Encode(const float* values, size_t n, uint8_t* codes) const {
  const double range = end - start;
  for (size_t i = 0; i < n; ++i) {
    if (start == end) {
      codes[i] = 0;
      continue;
    }
    const double v = (static_cast<double>(values[i]) - start) * 255.0 / range;
    // A saturating truncation, as the reference's float-to-u8 cast.
    codes[i] = std::isnan(v) ? 0 : v <= 0 ? 0 : v >= 255 ? 255 : static_cast<uint8_t>(v);
  }
}

float SqBounds::Distance(const uint8_t* a, const uint8_t* b, size_t dim, DistanceType metric) const {
  float d;
  if (metric == DistanceType::kDot) {
    float dot = 0;
    for (size_t i = 0; i < dim; ++i) dot += static_cast<float>(a[i]) * static_cast<float>(b[i]);
    d = 1.0f - dot;
  } else {
    uint64_t sum = 0;
    for (size_t i = 0; i < dim; ++i) {
      const int diff = static_cast<int>(a[i]) - static_cast<int>(b[i]);
      sum += static_cast<uint64_t>(diff * diff);
    }
    d = static_cast<float>(sum);
  }
  const float range = static_cast<float>(end - start);
  return d * range * range / (255.0f * 255.0f);
}

}  // namespace lancet::index
