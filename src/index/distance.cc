// Distance kernels. Eight independent partial sums let the compiler keep them in one
// vector register without -ffast-math (a single running sum would pin the order).
#include "lancet/index/distance.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace lancet::index {
namespace {

constexpr size_t kLanes = 8;

float Sum(const float (&acc)[kLanes]) {
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

float DotProduct(const float* a, const float* b, size_t dim) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) acc[j] += a[i + j] * b[i + j];
  }
  float s = Sum(acc);
  for (; i < dim; ++i) s += a[i] * b[i];
  return s;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

Result<DistanceType> ParseDistanceType(std::string_view name) {
  const std::string n = Lower(name);
  if (n == "l2" || n == "euclidean") return DistanceType::kL2;
  if (n == "cosine") return DistanceType::kCosine;
  if (n == "dot") return DistanceType::kDot;
  if (n == "hamming") return DistanceType::kHamming;
  return Status::InvalidArgument("unknown distance type '" + std::string(name) +
                                 "' (choices: l2, cosine, dot, hamming)");
}

const char* DistanceTypeName(DistanceType type) {
  switch (type) {
    case DistanceType::kL2:
      return "l2";
    case DistanceType::kCosine:
      return "cosine";
    case DistanceType::kDot:
      return "dot";
    case DistanceType::kHamming:
      return "hamming";
  }
  return "?";
}

float L2Distance(const float* a, const float* b, size_t dim) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) {
      const float d = a[i + j] - b[i + j];
      acc[j] += d * d;
    }
  }
  float s = Sum(acc);
  for (; i < dim; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

float DotDistance(const float* a, const float* b, size_t dim) { return 1.0f - DotProduct(a, b, dim); }

float CosineDistance(const float* a, const float* b, size_t dim) {
  float xy[kLanes] = {}, xx[kLanes] = {}, yy[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) {
      xy[j] += a[i + j] * b[i + j];
      xx[j] += a[i + j] * a[i + j];
      yy[j] += b[i + j] * b[i + j];
    }
  }
  float sxy = Sum(xy), sxx = Sum(xx), syy = Sum(yy);
  for (; i < dim; ++i) {
    sxy += a[i] * b[i];
    sxx += a[i] * a[i];
    syy += b[i] * b[i];
  }
  return 1.0f - sxy / (std::sqrt(sxx) * std::sqrt(syy));
}

float HammingDistance(const uint8_t* a, const uint8_t* b, size_t bytes) {
  uint64_t bits = 0;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    bits += static_cast<uint64_t>(std::popcount(x ^ y));
  }
  for (; i < bytes; ++i) bits += static_cast<uint64_t>(std::popcount(static_cast<unsigned>(a[i] ^ b[i])));
  return static_cast<float>(bits);
}

float Distance(DistanceType type, const float* a, const float* b, size_t dim) {
  switch (type) {
    case DistanceType::kL2:
      return L2Distance(a, b, dim);
    case DistanceType::kCosine:
      return CosineDistance(a, b, dim);
    case DistanceType::kDot:
      return DotDistance(a, b, dim);
    case DistanceType::kHamming:
      break;
  }
  return std::numeric_limits<float>::quiet_NaN();
}

Status CheckVectorType(const DataType& type, DistanceType distance, const std::string& where) {
  if (type.id == TypeId::kFixedSizeList && type.children.size() == 1 && type.list_size > 0) {
    const TypeId item = type.children[0].type.id;
    const bool floats = item == TypeId::kFloat16 || item == TypeId::kFloat32 || item == TypeId::kFloat64;
    if (distance == DistanceType::kHamming && item == TypeId::kUInt8) return Status::OK();
    if (distance != DistanceType::kHamming && floats) return Status::OK();
    if (distance == DistanceType::kHamming) {
      return Status::InvalidArgument(where + ": hamming distance needs fixed_size_list<uint8>, not " + type.ToString());
    }
    if (item == TypeId::kUInt8) {
      return Status::InvalidArgument(where + ": a fixed_size_list<uint8> column is searched with hamming distance");
    }
  }
  return Status::InvalidArgument(where +
                                 ": not a vector column (fixed_size_list of float16/float32/float64, "
                                 "or of uint8 for hamming): " +
                                 type.ToString());
}

Result<std::vector<float>> VectorsAsFloat32(const Array& vectors) {
  const DataType& t = vectors.type;
  if (t.id != TypeId::kFixedSizeList || vectors.children.size() != 1 || t.list_size <= 0) {
    return Status::InvalidArgument("not a fixed_size_list vector array: " + t.ToString());
  }
  const Array& items = vectors.children[0];
  const size_t dim = static_cast<size_t>(t.list_size);
  const TypeId item = items.type.id;
  if (item != TypeId::kFloat16 && item != TypeId::kFloat32 && item != TypeId::kFloat64) {
    return Status::InvalidArgument("vector items must be float16/float32/float64, not " + items.type.ToString());
  }
  const size_t rows = static_cast<size_t>(vectors.length);
  std::vector<float> out(rows * dim);
  const int64_t first = vectors.offset * static_cast<int64_t>(dim);
  for (size_t r = 0; r < rows; ++r) {
    float* dst = out.data() + r * dim;
    if (vectors.IsNull(static_cast<int64_t>(r))) {
      std::fill(dst, dst + dim, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    const int64_t base = first + static_cast<int64_t>(r * dim);
    if (item == TypeId::kFloat32) {
      std::memcpy(dst, items.values<float>() + base, dim * sizeof(float));
    } else if (item == TypeId::kFloat64) {
      const double* src = items.values<double>() + base;
      for (size_t j = 0; j < dim; ++j) dst[j] = static_cast<float>(src[j]);
    } else {
      const uint16_t* src = items.values<uint16_t>() + base;
      for (size_t j = 0; j < dim; ++j) dst[j] = HalfToFloat(src[j]);
    }
  }
  return out;
}

}  // namespace lancet::index
