// Vector distances as the reference computes them, shared by flat (exact) search, the
// IVF/PQ/SQ/HNSW indexes and their builders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::index {

/// The reference's metric types (lance.index.pb.VectorIndexDetails.metric_type order).
enum class DistanceType : uint8_t { kL2 = 0, kCosine = 1, kDot = 2, kHamming = 3 };

/// "l2" (also "euclidean"), "cosine", "dot", "hamming", case-insensitive;
/// InvalidArgument naming the choices otherwise.
Result<DistanceType> ParseDistanceType(std::string_view name);
/// "l2", "cosine", "dot", "hamming": as the reference writes them in index metadata.
const char* DistanceTypeName(DistanceType type);

/// Squared Euclidean distance (the reference's "l2" is squared).
float L2Distance(const float* a, const float* b, size_t dim);
/// 1 - a·b.
float DotDistance(const float* a, const float* b, size_t dim);
/// 1 - a·b / (|a| |b|); NaN when either vector is all zeros, as the reference.
float CosineDistance(const float* a, const float* b, size_t dim);
/// Differing bits of two packed bit vectors of `bytes` bytes.
float HammingDistance(const uint8_t* a, const uint8_t* b, size_t bytes);

/// The distance of `type` between two float vectors (not for kHamming).
float Distance(DistanceType type, const float* a, const float* b, size_t dim);

/// \brief A fixed_size_list<float16|float32|float64> array's rows as row-major float32
/// (`dim` values a row). Null rows read as NaN, so their distance is NaN; a null item
/// keeps the value stored under it, as the reference reads it.
/// InvalidArgument for another type.
Result<std::vector<float>> VectorsAsFloat32(const Array& vectors);

/// Whether `type` is a vector column searchable with `distance`: a fixed_size_list of
/// float16/float32/float64 (any distance but hamming), or of uint8 (hamming only).
Status CheckVectorType(const DataType& type, DistanceType distance, const std::string& where);

}  // namespace lancet::index
