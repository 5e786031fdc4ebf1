// The IVF model: parsing and writing lance.index.pb.IVF, and partition selection.
#include "index/ivf_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "index/index_file.h"
#include "lance_proto/index.pb.h"

namespace lancet::index {

float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    f = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    f = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
  }
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= sign;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t FloatToHalfBits(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN, infinity
  if (abs >= 0x477ff000u) return sign | 0x7c00u;                                  // 65520 and up round to infinity
  if (abs < 0x38800000u) {
    // Below 2^-14: a subnormal half, counted in units of 2^-24 (exact in float).
    float a;
    std::memcpy(&a, &abs, 4);
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  uint32_t h = ((((abs >> 23) - 127 + 15) << 10) | ((abs & 0x7fffffu) >> 13));
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return sign | static_cast<uint16_t>(h);
}

void IvfModel::AddPartition(uint32_t rows) {
  offsets.push_back(offsets.empty() ? 0 : offsets.back() + lengths.back());
  lengths.push_back(rows);
}

std::string IvfModel::Serialize() const {
  lance::index::pb::IVF pb;
  for (uint64_t o : offsets) pb.add_offsets(o);
  for (uint32_t l : lengths) pb.add_lengths(l);
  if (dim > 0) {
    const std::string tensor =
        SerializeFloatTensor(centroids, {static_cast<uint32_t>(centroids.size() / dim), dim}, half);
    pb.mutable_centroids_tensor()->ParseFromString(tensor);
  }
  if (loss) pb.set_loss(*loss);
  return pb.SerializeAsString();
}

Result<FloatTensor> ParseFloatTensor(std::span<const uint8_t> bytes, const std::string& path, const std::string& what) {
  lance::index::pb::Tensor pb;
  if (!pb.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption(path + ": the " + what + " tensor does not parse");
  }
  return [&]() -> Result<FloatTensor> {
    FloatTensor out;
    uint64_t count = 1;
    for (uint32_t s : pb.shape()) {
      out.shape.push_back(s);
      count *= s;
      if (count > (1ULL << 34)) return Status::Corruption(path + ": the " + what + " tensor's shape is too large");
    }
    size_t width = 0;
    switch (pb.data_type()) {
      case lance::index::pb::Tensor::FLOAT16:
        width = 2;
        out.half = true;
        break;
      case lance::index::pb::Tensor::FLOAT32:
        width = 4;
        break;
      case lance::index::pb::Tensor::FLOAT64:
        width = 8;
        break;
      default:
        return Status::NotSupported(path + ": the " + what + " tensor has data type " +
                                    std::to_string(static_cast<int>(pb.data_type())) + ", not a float type");
    }
    const std::string& data = pb.data();
    if (data.size() != count * width) {
      return Status::Corruption(path + ": the " + what + " tensor holds " + std::to_string(data.size()) +
                                " bytes, its shape needs " + std::to_string(count * width));
    }
    out.values.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      const char* p = data.data() + i * width;
      if (width == 2) {
        uint16_t h;
        std::memcpy(&h, p, 2);
        out.values[i] = HalfBitsToFloat(h);
      } else if (width == 4) {
        std::memcpy(&out.values[i], p, 4);
      } else {
        double d;
        std::memcpy(&d, p, 8);
        out.values[i] = static_cast<float>(d);
      }
    }
    return out;
  }();
}

std::string SerializeFloatTensor(std::span<const float> values, const std::vector<uint32_t>& shape, bool half) {
  lance::index::pb::Tensor pb;
  pb.set_data_type(half ? lance::index::pb::Tensor::FLOAT16 : lance::index::pb::Tensor::FLOAT32);
  for (uint32_t s : shape) pb.add_shape(s);
  if (half) {
    std::string data(values.size() * 2, '\0');
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t h = FloatToHalfBits(values[i]);
      std::memcpy(data.data() + 2 * i, &h, 2);
    }
    pb.set_data(std::move(data));
  } else {
    pb.set_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  }
  return pb.SerializeAsString();
}

Result<IvfModel> ParseIvfModel(std::span<const uint8_t> bytes, const std::string& path, uint64_t num_rows) {
  lance::index::pb::IVF pb;
  if (!pb.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption(path + ": the IVF model (lance.index.pb.IVF) does not parse");
  }
  IvfModel model;
  if (pb.offsets_size() != pb.lengths_size()) {
    return Status::Corruption(path + ": the IVF model has " + std::to_string(pb.offsets_size()) + " offsets but " +
                              std::to_string(pb.lengths_size()) + " lengths");
  }
  for (int p = 0; p < pb.offsets_size(); ++p) {
    const uint64_t begin = pb.offsets(p), len = pb.lengths(p);
    if (begin > num_rows || len > num_rows - begin) {
      return Status::Corruption(path + ": IVF partition " + std::to_string(p) + " (rows " + std::to_string(begin) +
                                " + " + std::to_string(len) + ") reaches past the file's " + std::to_string(num_rows) +
                                " rows");
    }
    model.offsets.push_back(begin);
    model.lengths.push_back(static_cast<uint32_t>(len));
  }
  if (pb.has_centroids_tensor()) {
    const std::string tensor_bytes = pb.centroids_tensor().SerializeAsString();
    ASSIGN_OR_RETURN(FloatTensor t,
                     ParseFloatTensor(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(tensor_bytes.data()),
                                                               tensor_bytes.size()),
                                      path, "IVF centroids"));
    if (t.shape.size() != 2 || t.shape[1] == 0) {
      return Status::Corruption(path + ": the IVF centroids tensor is not [partitions, dim]");
    }
    if (!model.lengths.empty() && t.shape[0] != model.lengths.size()) {
      return Status::Corruption(path + ": the IVF model has " + std::to_string(t.shape[0]) + " centroids but " +
                                std::to_string(model.lengths.size()) + " partitions");
    }
    model.dim = t.shape[1];
    model.half = t.half;
    model.centroids = std::move(t.values);
  }
  if (pb.has_loss()) model.loss = pb.loss();
  return model;
}

Result<IvfModel> ReadIvfModel(const format::FileReader& file) {
  const std::string text = IndexFileMetadata(file, kIvfMetadataKey);
  uint32_t index = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || index == 0) {
    return Status::Corruption(file.path() + ": schema metadata '" + kIvfMetadataKey + "' is '" + text +
                              "', not a global buffer index");
  }
  ASSIGN_OR_RETURN(BufferPtr buffer, file.ReadGlobalBuffer(index));
  return ParseIvfModel(buffer->span(), file.path(), file.num_rows());
}

std::vector<uint32_t> NearestPartitions(const IvfModel& model, const float* query, uint32_t n, DistanceType metric) {
  const uint32_t parts = model.dim == 0 ? 0 : static_cast<uint32_t>(model.centroids.size() / model.dim);
  std::vector<std::pair<float, uint32_t>> d(parts);
  for (uint32_t p = 0; p < parts; ++p) d[p] = {Distance(metric, query, model.centroid(p), model.dim), p};
  n = std::min(n, parts);
  std::partial_sort(d.begin(), d.begin() + n, d.end(), [](const auto& a, const auto& b) {
    // NaN distances (a NaN query) sort last.
    if (std::isnan(a.first) != std::isnan(b.first)) return std::isnan(b.first);
    return a.first < b.first || (a.first == b.first && a.second < b.second);
  });
  std::vector<uint32_t> out(n);
  for (uint32_t i = 0; i < n; ++i) out[i] = d[i].second;
  return out;
}

std::pair<uint32_t, float> NearestPartition(const IvfModel& model, const float* vector, DistanceType metric) {
  const uint32_t parts = static_cast<uint32_t>(model.centroids.size() / model.dim);
  uint32_t best = 0;
  float best_d = std::numeric_limits<float>::infinity();
  for (uint32_t p = 0; p < parts; ++p) {
    const float d = Distance(metric, vector, model.centroid(p), model.dim);
    if (d < best_d) {
      best_d = d;
      best = p;
    }
  }
  return {best, best_d};
}

void NormalizeVector(float* v, size_t dim) {
  double sum = 0;
  for (size_t i = 0; i < dim; ++i) sum += static_cast<double>(v[i]) * v[i];
  if (sum <= 0) return;
  const float inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (size_t i = 0; i < dim; ++i) v[i] *= inv;
}

}  // namespace lancet::index
