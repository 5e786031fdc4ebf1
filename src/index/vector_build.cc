// CreateVectorIndex: two streamed passes over the column. The first keeps a uniform
// sample (reservoir) to train the IVF centroids and the quantizer; the second assigns
// every row to its partition and encodes it, grouping rows by partition within a
// memory budget (PartitionShuffler), and the segment is written and committed.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "index/index_file.h"
#include "index/index_segment.h"
#include "index/ivf_hnsw.h"
#include "index/ivf_writer.h"
#include "index/kmeans.h"
#include "index/vector_build.h"
#include "index/vector_details.h"
#include "lancet/index/vector_index.h"

namespace lancet::index {
namespace {

struct BuildParams {
  uint32_t num_partitions = 0;   // 0: the reference's rule
  uint32_t num_sub_vectors = 0;  // 0: the reference's rule
  uint32_t num_bits = 8;
  uint32_t max_iterations = 50;
  uint32_t sample_rate = 256;
  uint32_t m = kHnswDefaultM;  // IVF_HNSW_SQ
  uint32_t ef_construction = kHnswDefaultEfConstruction;
};

Result<uint32_t> ParseCount(const std::string& key, const std::string& value, uint32_t min, uint32_t max) {
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v < min || v > max) {
    return Status::InvalidArgument("vector index param " + key + "=" + value + ": expected an integer in [" +
                                   std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return v;
}

Result<BuildParams> ParseParams(const std::map<std::string, std::string>& params, VectorIndexType type) {
  BuildParams out;
  for (const auto& [key, value] : params) {
    if (key == "num_partitions") {
      ASSIGN_OR_RETURN(out.num_partitions, ParseCount(key, value, 1, 65536));
    } else if (key == "num_sub_vectors" && type == VectorIndexType::kIvfPq) {
      ASSIGN_OR_RETURN(out.num_sub_vectors, ParseCount(key, value, 1, 65536));
    } else if (key == "num_bits" && type != VectorIndexType::kIvfFlat) {
      ASSIGN_OR_RETURN(out.num_bits, ParseCount(key, value, 8, 8));
    } else if (key == "max_iterations") {
      ASSIGN_OR_RETURN(out.max_iterations, ParseCount(key, value, 1, 10000));
    } else if (key == "sample_rate") {
      ASSIGN_OR_RETURN(out.sample_rate, ParseCount(key, value, 1, 1 << 20));
    } else if (key == "m" && type == VectorIndexType::kIvfHnswSq) {
      ASSIGN_OR_RETURN(out.m, ParseCount(key, value, 4, 1 << 16));
    } else if (key == "ef_construction" && type == VectorIndexType::kIvfHnswSq) {
      ASSIGN_OR_RETURN(out.ef_construction, ParseCount(key, value, 1, 1 << 20));
    } else {
      return Status::InvalidArgument("unknown param '" + key + "' for a " + VectorIndexFileType(type) +
                                     " index (num_partitions, max_iterations, sample_rate" +
                                     (type == VectorIndexType::kIvfPq       ? ", num_sub_vectors, num_bits)"
                                      : type == VectorIndexType::kIvfSq     ? ", num_bits)"
                                      : type == VectorIndexType::kIvfHnswSq ? ", num_bits, m, ef_construction)"
                                                                            : ")"));
    }
  }
  // The reference refuses these too.
  if (out.ef_construction < out.m) {
    return Status::InvalidArgument("vector index param ef_construction=" + std::to_string(out.ef_construction) +
                                   " must be at least m=" + std::to_string(out.m));
  }
  return out;
}

// The reference's defaults: rows / target partition size, clamped to [1, 4096].
uint32_t DefaultPartitions(uint64_t rows, VectorIndexType type) {
  const uint64_t target = type == VectorIndexType::kIvfFlat     ? 4096
                          : type == VectorIndexType::kIvfHnswSq ? (1 << 20)
                                                                : 8192;
  return static_cast<uint32_t>(std::clamp<uint64_t>(rows / target, 1, 4096));
}
uint32_t DefaultSubVectors(uint32_t dim) { return dim % 16 == 0 ? dim / 16 : dim % 8 == 0 ? dim / 8 : 1; }

bool Finite(const float* v, uint32_t dim) {
  for (uint32_t i = 0; i < dim; ++i) {
    if (!std::isfinite(v[i])) return false;
  }
  return true;
}

// Feeds `fn(row, vector)` every indexable row of the column (nulls and vectors with
// NaN/infinite values are skipped, as the reference does; cosine vectors normalized).
template <typename Fn>
Status ForEachBatch(const table::Dataset& dataset, const Field& field, DistanceType distance, Fn&& fn) {
  table::ScanOptions scan;
  scan.columns = {field.name};
  // Batches of a few MiB keep the build's memory at the read-ahead of a few of them
  // (65536-row batches of 768-d vectors were 200 MB each).
  scan.batch_size = 4096;
  (dataset.stable_row_ids() ? scan.with_row_id : scan.with_row_addr) = true;
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, dataset.NewScan(scan));
  const uint32_t dim = static_cast<uint32_t>(field.type.list_size);
  for (;;) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
    if (!batch) break;
    ASSIGN_OR_RETURN(std::vector<float> values, VectorsAsFloat32(batch->columns[0]));
    const uint64_t* rows = batch->columns[1].values<uint64_t>();
    std::vector<uint64_t> kept_rows;
    size_t kept = 0;
    for (int64_t i = 0; i < batch->num_rows; ++i) {
      float* v = values.data() + static_cast<size_t>(i) * dim;
      if (batch->columns[0].IsNull(i) || !Finite(v, dim)) continue;
      if (distance == DistanceType::kCosine) NormalizeVector(v, dim);
      if (kept != static_cast<size_t>(i)) std::copy(v, v + dim, values.data() + kept * dim);
      kept_rows.push_back(rows[i]);
      ++kept;
    }
    values.resize(kept * dim);
    RETURN_IF_ERROR(fn(kept_rows, values, static_cast<uint64_t>(batch->num_rows)));
  }
  return Status::OK();
}

struct Trained {
  IvfModel model;
  PqCodebook pq;
  SqBounds sq;
};

Result<Trained> Train(const table::Dataset& dataset, const Field& field, VectorIndexType type, DistanceType distance,
                      const BuildParams& params, uint64_t total_rows) {
  const uint32_t dim = static_cast<uint32_t>(field.type.list_size);
  const uint32_t parts = params.num_partitions ? params.num_partitions : DefaultPartitions(total_rows, type);
  const uint64_t ivf_sample = static_cast<uint64_t>(parts) * params.sample_rate;
  const uint64_t quant_sample = type == VectorIndexType::kIvfFlat ? 0 : 256ULL * params.sample_rate;
  const uint64_t capacity = std::max(ivf_sample, quant_sample);
  std::vector<float> sample;
  uint64_t seen = 0;
  std::mt19937_64 rng(0x1ce5eed);
  RETURN_IF_ERROR(ForEachBatch(dataset, field, distance,
                               [&](const std::vector<uint64_t>& rows, const std::vector<float>& v, uint64_t) -> Status {
                                 for (size_t i = 0; i < rows.size(); ++i, ++seen) {
                                   const float* src = v.data() + i * dim;
                                   if (seen < capacity) {
                                     sample.insert(sample.end(), src, src + dim);
                                   } else {
                                     const uint64_t j = std::uniform_int_distribution<uint64_t>(0, seen)(rng);
                                     if (j < capacity) std::copy(src, src + dim, sample.begin() + j * dim);
                                   }
                                 }
                                 return Status::OK();
                               }));
  const size_t n = sample.size() / dim;
  if (n < parts) {
    return Status::InvalidArgument(dataset.uri() + ": " + std::to_string(parts) + " partitions need at least as many " +
                                   "indexable vectors in column '" + field.name + "', it has " + std::to_string(n));
  }
  // Sampled rows in random order, so any prefix is a uniform sample too.
  for (size_t i = n; i > 1; --i) {
    const size_t j = std::uniform_int_distribution<size_t>(0, i - 1)(rng);
    std::swap_ranges(sample.begin() + (i - 1) * dim, sample.begin() + i * dim, sample.begin() + j * dim);
  }
  Trained out;
  KMeansOptions km;
  km.max_iterations = params.max_iterations;
  km.metric = distance == DistanceType::kDot ? DistanceType::kDot : DistanceType::kL2;
  // Partitions of similar size keep a probe's cost and an HNSW graph's recall even.
  km.init = KMeansInit::kRandomRows;
  ASSIGN_OR_RETURN(KMeansResult ivf, TrainKMeans(sample.data(), std::min<size_t>(n, ivf_sample), dim, parts, km));
  out.model.dim = dim;
  out.model.centroids = std::move(ivf.centroids);
  out.model.loss = ivf.loss;
  // Float16 columns keep float16 centroids and codebooks, and float16 residuals.
  const bool half = field.type.children[0].type.id == TypeId::kFloat16;
  out.model.half = half;
  if (half) {
    for (float& c : out.model.centroids) c = RoundToHalf(c);
  }
  const size_t qn = std::min<size_t>(n, quant_sample);
  if (type == VectorIndexType::kIvfPq) {
    const uint32_t m = params.num_sub_vectors ? params.num_sub_vectors : DefaultSubVectors(dim);
    std::vector<float> train(sample.begin(), sample.begin() + qn * dim);
    if (distance != DistanceType::kDot) {
      // L2 and cosine codes quantize the residual from the row's partition centroid.
      std::vector<uint32_t> assign(qn);
      AssignNearest(train.data(), qn, dim, out.model.centroids.data(), parts, DistanceType::kL2, 0, assign.data(),
                    nullptr);
      for (size_t i = 0; i < qn; ++i) {
        const float* c = out.model.centroid(assign[i]);
        for (uint32_t j = 0; j < dim; ++j) {
          train[i * dim + j] = half ? RoundToHalf(train[i * dim + j] - c[j]) : train[i * dim + j] - c[j];
        }
      }
    }
    ASSIGN_OR_RETURN(out.pq, TrainPqCodebook(train.data(), qn, dim, m, params.max_iterations, 7));
    out.pq.half = half;
    if (half) {
      for (float& v : out.pq.values) v = RoundToHalf(v);
    }
  } else if (type == VectorIndexType::kIvfSq || type == VectorIndexType::kIvfHnswSq) {
    out.sq.Update(sample.data(), qn * dim);
  }
  return out;
}

// Pass 2: partition and encode every row, on all cores.
Status Assign(const table::Dataset& dataset, const Field& field, VectorIndexType type, DistanceType distance,
              const Trained& trained, PartitionShuffler& shuffler, const CreateVectorIndexOptions& options,
              uint64_t total_rows) {
  const uint32_t dim = trained.model.dim;
  const DistanceType part_metric = distance == DistanceType::kDot ? DistanceType::kDot : DistanceType::kL2;
  const size_t payload = type == VectorIndexType::kIvfFlat ? dim * (trained.model.half ? 2 : 4)
                         : type == VectorIndexType::kIvfPq ? trained.pq.num_sub_vectors
                                                           : dim;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  uint64_t done = 0;
  return ForEachBatch(
      dataset, field, distance,
      [&](const std::vector<uint64_t>& rows, const std::vector<float>& v, uint64_t batch_rows) -> Status {
        const size_t n = rows.size();
        std::vector<uint32_t> assign(n);
        std::vector<uint8_t> encoded(n * payload);
        auto work = [&](size_t begin, size_t end) {
          std::vector<float> residual(dim);
          for (size_t i = begin; i < end; ++i) {
            const float* x = v.data() + i * dim;
            assign[i] = NearestPartition(trained.model, x, part_metric).first;
            uint8_t* out = encoded.data() + i * payload;
            if (type == VectorIndexType::kIvfFlat) {
              if (trained.model.half) {
                for (uint32_t j = 0; j < dim; ++j) {
                  const uint16_t h = FloatToHalfBits(x[j]);
                  std::memcpy(out + 2 * j, &h, 2);
                }
              } else {
                std::memcpy(out, x, dim * sizeof(float));
              }
            } else if (type == VectorIndexType::kIvfPq) {
              const float* src = x;
              if (distance != DistanceType::kDot) {
                const float* c = trained.model.centroid(assign[i]);
                for (uint32_t j = 0; j < dim; ++j) {
                  residual[j] = trained.model.half ? RoundToHalf(x[j] - c[j]) : x[j] - c[j];
                }
                src = residual.data();
              }
              trained.pq.Encode(src, out);
            } else {
              trained.sq.Encode(x, dim, out);
            }
          }
        };
        std::vector<std::thread> pool;
        const size_t chunk = (n + threads - 1) / threads;
        for (unsigned t = 1; t < threads && t * chunk < n; ++t) {
          pool.emplace_back(work, t * chunk, std::min(n, (t + 1) * chunk));
        }
        work(0, std::min(n, chunk));
        for (std::thread& t : pool) t.join();
        for (size_t i = 0; i < n; ++i) RETURN_IF_ERROR(shuffler.Add(assign[i], rows[i], encoded.data() + i * payload));
        done += batch_rows;
        if (options.progress) options.progress(done, total_rows);
        return Status::OK();
      });
}

VectorDetails DetailsFor(VectorIndexType type, DistanceType distance, const BuildParams& params, const Trained& t) {
  VectorDetails d;
  d.type = type;
  d.distance = distance;
  d.runtime_hints = {{"lance.ivf.max_iters", std::to_string(params.max_iterations)},
                     {"lance.ivf.sample_rate", std::to_string(params.sample_rate)},
                     {"lance.ivf.shuffle_partition_batches", "10240"},
                     {"lance.ivf.shuffle_partition_concurrency", "2"},
                     {"lance.skip_transpose", "false"}};
  if (type == VectorIndexType::kIvfPq) {
    d.pq_num_bits = 8;
    d.pq_num_sub_vectors = t.pq.num_sub_vectors;
    d.runtime_hints["lance.pq.kmeans_redos"] = "1";
    d.runtime_hints["lance.pq.max_iters"] = std::to_string(params.max_iterations);
    d.runtime_hints["lance.pq.sample_rate"] = std::to_string(params.sample_rate);
  } else if (type == VectorIndexType::kIvfSq || type == VectorIndexType::kIvfHnswSq) {
    d.sq_num_bits = 8;
    d.runtime_hints["lance.sq.sample_rate"] = std::to_string(params.sample_rate);
  }
  if (type == VectorIndexType::kIvfHnswSq) {
    d.hnsw_m = params.m;
    d.hnsw_ef_construction = params.ef_construction;
    d.hnsw_max_level = kHnswDefaultMaxLevel;
    d.runtime_hints["lance.hnsw.prefetch_distance"] = "2";
  }
  return d;
}

// Partitions, encodes and writes every row of `dataset` with a trained model into a
// new segment `name`; nothing is committed (the files are removed on failure).
Result<table::IndexMetadata> WriteSegment(const table::Dataset& dataset, const Field& field, VectorIndexType type,
                                          DistanceType distance, const std::string& name, const BuildParams& params,
                                          const Trained& trained, const CreateVectorIndexOptions& options) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const uint64_t total = dataset.CountRows();
  auto write = [&](const std::string& dir, table::IndexMetadata& meta) -> Result<std::vector<IndexFileEntry>> {
    const uint32_t dim = trained.model.dim;
    const uint32_t parts = static_cast<uint32_t>(trained.model.centroids.size() / dim);
    const size_t payload = type == VectorIndexType::kIvfFlat ? dim * (trained.model.half ? 2 : 4)
                           : type == VectorIndexType::kIvfPq ? trained.pq.num_sub_vectors
                                                             : dim;
    PartitionShuffler shuffler(parts, payload, options.memory_budget);
    RETURN_IF_ERROR(Assign(dataset, field, type, distance, trained, shuffler, options, total));
    IvfWriteSpec spec;
    spec.type = type;
    spec.distance = distance;
    spec.kind = type == VectorIndexType::kIvfFlat ? StorageKind::kFlat
                : type == VectorIndexType::kIvfPq ? StorageKind::kPq
                                                  : StorageKind::kSq;
    spec.model = &trained.model;
    spec.pq = &trained.pq;
    spec.sq = &trained.sq;
    std::vector<IndexFileEntry> files;
    if (type == VectorIndexType::kIvfHnswSq) {
      HnswParams hnsw;
      hnsw.m = params.m;
      hnsw.ef_construction = params.ef_construction;
      hnsw.max_level = kHnswDefaultMaxLevel;
      ASSIGN_OR_RETURN(files, WriteIvfHnswSegment(store, dir, spec, shuffler, hnsw));
    } else {
      ASSIGN_OR_RETURN(files, WriteIvfSegment(store, dir, spec, shuffler));
    }
    meta.details = SerializeVectorDetails(DetailsFor(type, distance, params, trained));
    return files;
  };
  return WriteNewSegment(dataset, field, name, kVectorIndexTypeUrl, kVectorIndexVersion, write);
}

}  // namespace

Result<table::IndexMetadata> CreateVectorIndex(const table::Dataset& dataset, const std::string& column,
                                               VectorIndexType type, const CreateVectorIndexOptions& options) {
  const int pos = dataset.schema().FieldIndex(column);
  if (pos < 0) return Status::NotFound(dataset.uri() + ": no top-level column named '" + column + "'");
  const Field& field = dataset.schema().fields[static_cast<size_t>(pos)];
  const std::string where = dataset.uri() + ": column '" + column + "'";
  RETURN_IF_ERROR(CheckVectorType(field.type, options.distance, where));
  if (options.distance == DistanceType::kHamming) {
    return Status::NotSupported(where + ": Lancet builds IVF indexes for l2, cosine and dot only");
  }
  if (field.type.children[0].type.id == TypeId::kFloat64) {
    return Status::NotSupported(where + ": Lancet builds vector indexes on float16 and float32 vectors only");
  }
  ASSIGN_OR_RETURN(BuildParams params, ParseParams(options.params, type));
  const std::string name = options.name.empty() ? column + "_idx" : options.name;
  ASSIGN_OR_RETURN(std::vector<std::string> removed, SegmentsToReplace(dataset, name, options.replace));
  ASSIGN_OR_RETURN(Trained trained, Train(dataset, field, type, options.distance, params, dataset.CountRows()));
  ASSIGN_OR_RETURN(table::IndexMetadata meta,
                   WriteSegment(dataset, field, type, options.distance, name, params, trained, options));
  return CommitSegment(dataset, std::move(meta), removed);
}

Result<table::IndexMetadata> RebuildVectorSegment(const table::Dataset& dataset, const table::IndexMetadata& model) {
  ASSIGN_OR_RETURN(VectorDetails details, ParseVectorDetails(model));
  if (!details.type || !IsUsableVector(model)) {
    return Status::NotSupported(dataset.uri() + ": index '" + model.name + "' is a kind Lancet does not rebuild");
  }
  const VectorIndexType type = *details.type;
  const Field* field = model.fields.size() == 1 ? FieldById(dataset.schema(), model.fields[0]) : nullptr;
  if (!field || field->type.id != TypeId::kFixedSizeList) {
    return Status::Corruption(dataset.uri() + ": index '" + model.name + "' does not cover one vector column");
  }
  ASSIGN_OR_RETURN(const std::string dir, dataset.IndexDirectory(model));
  ASSIGN_OR_RETURN(std::unique_ptr<format::FileReader> main, OpenIndexFile(*dataset.store(), dir, kIndexFileName));
  Trained trained;
  ASSIGN_OR_RETURN(trained.model, ReadIvfModel(*main));
  if (trained.model.dim != static_cast<uint32_t>(field->type.list_size) || trained.model.num_partitions() == 0) {
    return Status::Corruption(main->path() + ": the IVF model does not fit column '" + field->name + "'");
  }
  // The writer lays the partitions out anew: only the centroids carry over.
  trained.model.offsets.clear();
  trained.model.lengths.clear();
  const StorageKind kind = type == VectorIndexType::kIvfFlat ? StorageKind::kFlat
                           : type == VectorIndexType::kIvfPq ? StorageKind::kPq
                                                             : StorageKind::kSq;
  ASSIGN_OR_RETURN(std::unique_ptr<format::FileReader> aux_file,
                   OpenIndexFile(*dataset.store(), dir, kAuxiliaryFileName));
  ASSIGN_OR_RETURN(std::unique_ptr<IvfStorage> aux,
                   IvfStorage::Open(std::move(aux_file), kind, trained.model.dim,
                                    field->type.children[0].type.id == TypeId::kFloat16));
  trained.pq = aux->codebook();
  trained.model.half = field->type.children[0].type.id == TypeId::kFloat16;
  trained.sq = aux->bounds();
  BuildParams params;
  auto hint = [&](const char* key, uint32_t fallback) {
    auto it = details.runtime_hints.find(key);
    uint32_t v = 0;
    if (it == details.runtime_hints.end()) return fallback;
    const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
    return ec == std::errc() && v > 0 ? v : fallback;
  };
  params.max_iterations = hint("lance.ivf.max_iters", params.max_iterations);
  params.sample_rate = hint("lance.ivf.sample_rate", params.sample_rate);
  if (type == VectorIndexType::kIvfHnswSq) {
    if (details.hnsw_m >= 4) params.m = details.hnsw_m;
    params.ef_construction = std::max(params.m, details.hnsw_ef_construction);
  }
  return WriteSegment(dataset, *field, type, details.distance, model.name, params, trained, {});
}

}  // namespace lancet::index
