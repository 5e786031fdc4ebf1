// The IVF model of a vector index segment (lance.index.pb.IVF in a global buffer of
// index.idx and auxiliary.idx) and the partition layout of the files, shared by the
// IVF_FLAT/PQ/SQ readers and builders and by IVF_HNSW. Internal to the index layer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/format/file_reader.h"
#include "lancet/index/distance.h"
#include "lancet/result.h"

namespace lancet::index {

/// Schema metadata keys of the vector index files.
inline constexpr const char* kIvfMetadataKey = "lance:ivf";             // decimal global buffer index
inline constexpr const char* kVectorIndexMetadataKey = "lance:index";   // {"type":..,"distance_type":..}
inline constexpr const char* kStorageMetadataKey = "storage_metadata";  // JSON array of JSON strings
inline constexpr const char* kDistanceTypeKey = "distance_type";
inline constexpr const char* kFlatSubIndexKey = "lance:flat";
inline constexpr const char* kIndexFileName = "index.idx";
inline constexpr const char* kAuxiliaryFileName = "auxiliary.idx";
inline constexpr const char* kRowIdColumn = "_rowid";

/// Partitions of the rows in one file, plus the centroids when the file has them.
struct IvfModel {
  uint32_t dim = 0;              // 0 when there are no centroids
  std::vector<float> centroids;  // num_partitions x dim, row-major
  bool half = false;             // centroids stored as FLOAT16 (float16 columns)
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> lengths;
  std::optional<double> loss;

  uint32_t num_partitions() const { return static_cast<uint32_t>(lengths.size()); }
  const float* centroid(uint32_t p) const { return centroids.data() + static_cast<size_t>(p) * dim; }
  /// Appends a partition of `rows` rows after the previous one.
  void AddPartition(uint32_t rows);
  /// Serialized lance.index.pb.IVF (centroids as a FLOAT32 tensor, FLOAT16 when `half`).
  std::string Serialize() const;
};

/// Parses `bytes` (lance.index.pb.IVF) read from `path`. Corruption naming `path` when
/// it does not parse, the centroid tensor's shape disagrees with its bytes, offsets and
/// lengths differ in count, or a partition reaches past `num_rows` rows.
Result<IvfModel> ParseIvfModel(std::span<const uint8_t> bytes, const std::string& path, uint64_t num_rows);

/// Reads the model that `file`'s schema metadata `lance:ivf` names.
Result<IvfModel> ReadIvfModel(const format::FileReader& file);

/// A float tensor (FLOAT16/32/64) of lance.index.pb.Tensor as row-major float32, with
/// its shape. Corruption naming `path` when the bytes do not match the shape.
struct FloatTensor {
  std::vector<uint32_t> shape;
  std::vector<float> values;
  bool half = false;  // stored as FLOAT16
};
Result<FloatTensor> ParseFloatTensor(std::span<const uint8_t> bytes, const std::string& path, const std::string& what);
/// FLOAT32, or FLOAT16 when `half` (values are rounded to nearest).
std::string SerializeFloatTensor(std::span<const float> values, const std::vector<uint32_t>& shape, bool half = false);

/// IEEE binary16 conversions (round to nearest, ties to even; overflow to infinity).
uint16_t FloatToHalfBits(float x);
float HalfBitsToFloat(uint16_t h);
/// `x` rounded to the nearest float16: the reference computes float16 columns' query,
/// residuals and centroids in that type.
inline float RoundToHalf(float x) { return HalfBitsToFloat(FloatToHalfBits(x)); }

/// The `n` partitions (at most num_partitions) whose centroids are nearest `query` by
/// `metric` (cosine callers pass a normalized query and kL2), nearest first.
std::vector<uint32_t> NearestPartitions(const IvfModel& model, const float* query, uint32_t n, DistanceType metric);

/// The nearest partition of `vector` (ties: the lowest id) and its distance.
std::pair<uint32_t, float> NearestPartition(const IvfModel& model, const float* vector, DistanceType metric);

/// Scales `v` (dim floats) to unit length; leaves an all-zero vector as it is.
void NormalizeVector(float* v, size_t dim);

}  // namespace lancet::index
