// Reading auxiliary.idx: storage_metadata, partition rows and their distances.
#include "index/ivf_storage.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <nlohmann/json.hpp>

#include "index/index_file.h"

namespace lancet::index {
namespace {

bool HeapLess(const VectorHit& a, const VectorHit& b) {
  return a.distance < b.distance || (a.distance == b.distance && a.row < b.row);
}

// An unsigned integer member of `obj`, or Corruption naming the file.
Result<uint64_t> UintMember(const nlohmann::json& obj, const char* key, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_unsigned()) {
    return Status::Corruption(path + ": storage_metadata has no unsigned '" + std::string(key) + "'");
  }
  return it->get<uint64_t>();
}

// The FSL rows [0, length) of `codes` as contiguous values of T.
template <typename T>
const T* FslValues(const Array& fsl) {
  const Array& child = fsl.children[0];
  return child.values<T>() + fsl.offset * fsl.type.list_size;
}

// Bytes of partitions all open storages keep. Past it partitions are read per search:
// memory stays bounded however many segments are searched.
constexpr uint64_t kPartitionCacheBytes = 512ULL << 20;
std::atomic<uint64_t> g_cached_bytes{0};

}  // namespace

IvfStorage::~IvfStorage() { g_cached_bytes.fetch_sub(cached_bytes_); }

Result<std::shared_ptr<const IvfStorage::Partition>> IvfStorage::Load(uint32_t p) const {
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (p < cache_.size() && cache_[p]) return cache_[p];
  }
  auto part = std::make_shared<Partition>();
  RETURN_IF_ERROR(ReadPartition(p, &part->rows, kind_ == StorageKind::kFlat ? &part->vectors : nullptr,
                                kind_ == StorageKind::kFlat ? nullptr : &part->codes));
  const uint64_t bytes = part->bytes();
  uint64_t now = g_cached_bytes.load();
  while (now + bytes <= kPartitionCacheBytes && !g_cached_bytes.compare_exchange_weak(now, now + bytes)) {
  }
  if (now + bytes > kPartitionCacheBytes) return std::shared_ptr<const Partition>(std::move(part));
  std::lock_guard<std::mutex> lock(cache_mu_);
  if (cache_.size() < ivf_.num_partitions()) cache_.resize(ivf_.num_partitions());
  if (cache_[p]) {  // another search loaded it first
    g_cached_bytes.fetch_sub(bytes);
    return cache_[p];
  }
  cache_[p] = std::move(part);
  cached_bytes_ += bytes;
  return cache_[p];
}

void TopK::Push(uint64_t row, float distance) {
  if (std::isnan(distance) || k_ == 0) return;
  const VectorHit hit{row, distance};
  if (heap_.size() < k_) {
    heap_.push_back(hit);
    std::push_heap(heap_.begin(), heap_.end(), HeapLess);
  } else if (HeapLess(hit, heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), HeapLess);
    heap_.back() = hit;
    std::push_heap(heap_.begin(), heap_.end(), HeapLess);
  }
}

std::vector<VectorHit> TopK::Take() {
  std::sort_heap(heap_.begin(), heap_.end(), HeapLess);
  return std::move(heap_);
}

Result<std::unique_ptr<IvfStorage>> IvfStorage::Open(std::unique_ptr<format::FileReader> file, StorageKind kind,
                                                     uint32_t dim, bool half) {
  auto out = std::unique_ptr<IvfStorage>(new IvfStorage());
  const std::string& path = file->path();
  out->kind_ = kind;
  out->dim_ = dim;
  out->half_ = half;
  RETURN_IF_ERROR(CheckIndexColumn(*file, 0, kRowIdColumn, MakeType(TypeId::kUInt64)));
  const Schema& schema = file->file_schema();
  if (schema.fields.size() < 2) return Status::Corruption(path + ": auxiliary file has no vector column");
  const Field& codes = schema.fields[1];
  const char* want = kind == StorageKind::kFlat ? kFlatColumn
                     : kind == StorageKind::kPq ? kPqCodeColumn
                                                : kSqCodeColumn;
  const bool fsl = codes.type.id == TypeId::kFixedSizeList && codes.type.children.size() == 1;
  const TypeId item = fsl ? codes.type.children[0].type.id : TypeId::kNull;
  const bool item_ok = kind == StorageKind::kFlat
                           ? (item == TypeId::kFloat16 || item == TypeId::kFloat32 || item == TypeId::kFloat64)
                           : item == TypeId::kUInt8;
  if (codes.name != want || !fsl || !item_ok || !format::IsLeafField(codes)) {
    return Status::Corruption(path + ": auxiliary column 1 is '" + codes.name + "' " + codes.type.ToString() +
                              ", expected '" + want + "'");
  }
  ASSIGN_OR_RETURN(out->ivf_, ReadIvfModel(*file));
  uint64_t total = 0;
  for (uint32_t len : out->ivf_.lengths) total += len;
  if (total > file->num_rows()) return Status::Corruption(path + ": IVF partitions hold more rows than the file");
  auto dt = ParseDistanceType(IndexFileMetadata(*file, kDistanceTypeKey));
  if (dt.ok()) out->file_distance_ = *dt;

  const std::string meta_text = IndexFileMetadata(*file, kStorageMetadataKey);
  nlohmann::json list = nlohmann::json::parse(meta_text, nullptr, false);
  if (list.is_discarded() || !list.is_array() || list.empty() || !list[0].is_string()) {
    return Status::Corruption(path + ": storage_metadata is not a JSON array of JSON strings");
  }
  nlohmann::json meta = nlohmann::json::parse(list[0].get<std::string>(), nullptr, false);
  if (meta.is_discarded() || !meta.is_object()) {
    return Status::Corruption(path + ": storage_metadata[0] is not a JSON object");
  }
  const int32_t width = codes.type.list_size;
  if (kind == StorageKind::kFlat) {
    ASSIGN_OR_RETURN(uint64_t d, UintMember(meta, "dim", path));
    if (d != dim || static_cast<uint64_t>(width) != dim) {
      return Status::Corruption(path + ": flat storage holds " + std::to_string(width) + "-d vectors (dim " +
                                std::to_string(d) + "), the column is " + std::to_string(dim) + "-d");
    }
  } else if (kind == StorageKind::kPq) {
    ASSIGN_OR_RETURN(uint64_t nbits, UintMember(meta, "nbits", path));
    ASSIGN_OR_RETURN(uint64_t m, UintMember(meta, "num_sub_vectors", path));
    ASSIGN_OR_RETURN(uint64_t d, UintMember(meta, "dimension", path));
    ASSIGN_OR_RETURN(uint64_t position, UintMember(meta, "codebook_position", path));
    if (nbits != 8) return Status::NotSupported(path + ": PQ with " + std::to_string(nbits) + " bits");
    if (d != dim || m == 0 || m > dim || dim % m != 0 || static_cast<uint64_t>(width) != m) {
      return Status::Corruption(path + ": PQ metadata (dimension " + std::to_string(d) + ", " + std::to_string(m) +
                                " sub-vectors, code width " + std::to_string(width) + ") does not fit " +
                                std::to_string(dim) + "-d vectors");
    }
    auto tr = meta.find("transposed");
    out->transposed_ = tr != meta.end() && tr->is_boolean() && tr->get<bool>();
    if (position == 0 || position > UINT32_MAX) return Status::Corruption(path + ": bad PQ codebook_position");
    ASSIGN_OR_RETURN(BufferPtr buffer, file->ReadGlobalBuffer(static_cast<uint32_t>(position)));
    ASSIGN_OR_RETURN(FloatTensor t, ParseFloatTensor(buffer->span(), path, "PQ codebook"));
    if (t.shape.size() != 2 || t.shape[0] != 256 || t.shape[1] != dim) {
      return Status::Corruption(path + ": the PQ codebook tensor is not [256, " + std::to_string(dim) + "]");
    }
    out->pq_.num_bits = 8;
    out->pq_.num_sub_vectors = static_cast<uint32_t>(m);
    out->pq_.dim = dim;
    out->pq_.values = std::move(t.values);
    out->pq_.half = t.half;
  } else {
    ASSIGN_OR_RETURN(uint64_t d, UintMember(meta, "dim", path));
    ASSIGN_OR_RETURN(uint64_t nbits, UintMember(meta, "num_bits", path));
    if (nbits != 8) return Status::NotSupported(path + ": SQ with " + std::to_string(nbits) + " bits");
    if (d != dim || static_cast<uint64_t>(width) != dim) {
      return Status::Corruption(path + ": SQ storage holds " + std::to_string(width) + "-d codes, the column is " +
                                std::to_string(dim) + "-d");
    }
    auto b = meta.find("bounds");
    if (b == meta.end() || !b->is_object() || !b->contains("start") || !b->contains("end") ||
        !(*b)["start"].is_number() || !(*b)["end"].is_number()) {
      return Status::Corruption(path + ": SQ storage_metadata has no numeric bounds");
    }
    out->sq_.start = (*b)["start"].get<double>();
    out->sq_.end = (*b)["end"].get<double>();
  }
  out->file_ = std::move(file);
  return out;
}

Status IvfStorage::ReadPartition(uint32_t p, std::vector<uint64_t>* rows, std::vector<float>* vectors,
                                 std::vector<uint8_t>* codes) const {
  const uint64_t begin = ivf_.offsets[p], len = ivf_.lengths[p];
  rows->clear();
  if (vectors) vectors->clear();
  if (codes) codes->clear();
  if (len == 0) return Status::OK();
  ASSIGN_OR_RETURN(Array ids, ReadIndexColumn(*file_, 0, begin, begin + len));
  ASSIGN_OR_RETURN(Array data, ReadIndexColumn(*file_, 1, begin, begin + len));
  if (static_cast<uint64_t>(ids.length) != len || static_cast<uint64_t>(data.length) != len ||
      data.children.size() != 1) {
    return Status::Corruption(file_->path() + ": partition " + std::to_string(p) + " read back with the wrong length");
  }
  rows->assign(ids.values<uint64_t>(), ids.values<uint64_t>() + len);
  if (kind_ == StorageKind::kFlat) {
    if (vectors) {
      ASSIGN_OR_RETURN(*vectors, VectorsAsFloat32(data));
    }
    return Status::OK();
  }
  if (!codes) return Status::OK();
  const size_t width = static_cast<size_t>(data.type.list_size);
  const uint8_t* src = FslValues<uint8_t>(data);
  codes->resize(len * width);
  if (kind_ == StorageKind::kPq && transposed_) {
    // Column-major inside the partition: sub-vector j of row i is at j * len + i.
    for (size_t i = 0; i < len; ++i) {
      for (size_t j = 0; j < width; ++j) (*codes)[i * width + j] = src[j * len + i];
    }
  } else {
    std::copy(src, src + len * width, codes->begin());
  }
  return Status::OK();
}

Status IvfStorage::Scan(uint32_t p, const float* query, const float* centroid, DistanceType metric,
                        const std::function<bool(uint64_t)>* allowed, TopK& top) const {
  ASSIGN_OR_RETURN(std::shared_ptr<const Partition> part, Load(p));
  const std::vector<uint64_t>& rows = part->rows;
  const std::vector<float>& vectors = part->vectors;
  const std::vector<uint8_t>& codes = part->codes;
  const size_t n = rows.size();
  switch (kind_) {
    case StorageKind::kFlat:
      for (size_t i = 0; i < n; ++i) {
        if (allowed && !(*allowed)(rows[i])) continue;
        top.Push(rows[i], Distance(metric, query, vectors.data() + i * dim_, dim_));
      }
      break;
    case StorageKind::kPq: {
      // L2 and cosine codes quantize the residual from the partition's centroid.
      const DistanceType table_metric = metric == DistanceType::kDot ? DistanceType::kDot : DistanceType::kL2;
      std::vector<float> q(query, query + dim_);
      if (table_metric == DistanceType::kL2 && centroid) {
        for (uint32_t j = 0; j < dim_; ++j) q[j] = half_ ? RoundToHalf(q[j] - centroid[j]) : q[j] - centroid[j];
      }
      const std::vector<float> table = pq_.DistanceTable(q.data(), table_metric);
      const uint32_t m = pq_.num_sub_vectors;
      for (size_t i = 0; i < n; ++i) {
        if (allowed && !(*allowed)(rows[i])) continue;
        const uint8_t* c = codes.data() + i * m;
        top.Push(rows[i], pq_.Distance(table, table_metric, [c](uint32_t j) { return c[j]; }));
      }
      break;
    }
    case StorageKind::kSq: {
      std::vector<uint8_t> qc(dim_);
      sq_.Encode(query, dim_, qc.data());
      const DistanceType sq_metric = metric == DistanceType::kDot ? DistanceType::kDot : DistanceType::kL2;
      for (size_t i = 0; i < n; ++i) {
        if (allowed && !(*allowed)(rows[i])) continue;
        top.Push(rows[i], sq_.Distance(codes.data() + i * dim_, qc.data(), dim_, sq_metric));
      }
      break;
    }
  }
  return Status::OK();
}

}  // namespace lancet::index
