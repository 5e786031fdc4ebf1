// Exact nearest-neighbour search: workers pull batches of (vector, _rowid) from one
// streaming scan and score them, so decoding and distance work share the cores and
// memory stays at the scan's read-ahead.
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>

#include "scan/knn.h"

namespace lancet::scan {
namespace {

// The vector column's bytes for hamming: one `dim`-byte row per vector; null rows are
// marked so they score NaN.
struct ByteRows {
  const uint8_t* data = nullptr;
  std::vector<bool> null;
};

Result<ByteRows> BytesOf(const Array& vectors, uint32_t dim) {
  if (vectors.children.size() != 1 || vectors.children[0].type.id != TypeId::kUInt8) {
    return Status::Internal("hamming search over a column that is not fixed_size_list<uint8>");
  }
  const Array& items = vectors.children[0];
  ByteRows out;
  out.data = items.values<uint8_t>() + vectors.offset * static_cast<int64_t>(dim);
  out.null.resize(static_cast<size_t>(vectors.length));
  for (int64_t r = 0; r < vectors.length; ++r) {
    out.null[static_cast<size_t>(r)] = vectors.IsNull(r);
  }
  return out;
}

// Scores one batch into `tops` (one per query).
Status ScoreBatch(const RecordBatch& batch, const VectorColumn& column, const PreparedQueries& queries,
                  std::vector<TopK>& tops) {
  const Array& vectors = batch.columns[0];
  const uint64_t* rows = batch.columns[1].values<uint64_t>();
  const size_t n = static_cast<size_t>(batch.num_rows);
  const size_t dim = column.dim;
  if (column.bits) {
    ASSIGN_OR_RETURN(ByteRows bytes, BytesOf(vectors, column.dim));
    for (size_t q = 0; q < queries.bytes.size(); ++q) {
      for (size_t r = 0; r < n; ++r) {
        if (bytes.null[r]) continue;
        tops[q].Offer(index::HammingDistance(queries.bytes[q].data(), bytes.data + r * dim, dim), rows[r]);
      }
    }
    return Status::OK();
  }
  // float32 vectors without nulls are scored in place; others are converted first.
  std::vector<float> converted;
  const float* values = nullptr;
  const Array& items = vectors.children[0];
  if (items.type.id == TypeId::kFloat32 && vectors.null_count == 0) {
    values = items.values<float>() + vectors.offset * static_cast<int64_t>(dim);
  } else {
    ASSIGN_OR_RETURN(converted, index::VectorsAsFloat32(vectors));
    values = converted.data();
  }
  std::vector<float> distances(n);
  for (size_t q = 0; q < queries.floats.size(); ++q) {
    const float* query = queries.floats[q].data();
    for (size_t r = 0; r < n; ++r) distances[r] = index::Distance(column.distance, query, values + r * dim, dim);
    for (size_t r = 0; r < n; ++r) tops[q].Offer(distances[r], rows[r]);
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<TopK>> FlatSearch(const table::Dataset& dataset, table::ScanOptions scan, const VectorColumn& column,
                                     const PreparedQueries& queries, size_t limit) {
  scan.columns = {column.name, "_rowid"};
  scan.with_row_id = false;
  scan.with_row_addr = false;
  scan.ordered = false;
  // Small batches stay views of one decoded page (no copy into a batch buffer) and
  // reuse the buffer cache's blocks.
  scan.batch_size = 4096;
  scan.offset = 0;
  scan.limit.reset();
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, dataset.NewScan(scan));

  const size_t workers = std::max<size_t>(1, std::thread::hardware_concurrency());
  std::vector<std::vector<TopK>> partial(workers, std::vector<TopK>(queries.size(), TopK(limit)));
  std::mutex mu;
  Status failed;
  // Own threads, not the CPU pool: the scan decodes on that pool, and workers waiting
  // in Next() there would starve it.
  auto work = [&](size_t w) {
    for (;;) {
      std::optional<RecordBatch> batch;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!failed.ok()) return;
        auto next = reader->Next();
        if (!next.ok()) {
          failed = next.status();
          return;
        }
        batch = next.MoveValue();
      }
      if (!batch) return;
      Status st = ScoreBatch(*batch, column, queries, partial[w]);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (failed.ok()) failed = st;
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers; ++w) threads.emplace_back(work, w);
  work(0);
  for (std::thread& t : threads) t.join();
  RETURN_IF_ERROR(failed);
  std::vector<TopK> out = std::move(partial[0]);
  for (size_t w = 1; w < workers; ++w) {
    for (size_t q = 0; q < out.size(); ++q) out[q].Merge(partial[w][q]);
  }
  return out;
}

Result<std::vector<std::vector<float>>> ExactDistances(const table::Dataset& dataset, const VectorColumn& column,
                                                       const PreparedQueries& queries,
                                                       const std::vector<uint64_t>& rows) {
  std::vector<std::vector<float>> out(queries.size(), std::vector<float>(rows.size()));
  if (rows.empty()) return out;
  ASSIGN_OR_RETURN(RecordBatch batch, dataset.TakeRowIds(rows, {column.name}));
  const Array& vectors = batch.columns[0];
  const size_t dim = column.dim;
  if (column.bits) {
    ASSIGN_OR_RETURN(ByteRows bytes, BytesOf(vectors, column.dim));
    for (size_t q = 0; q < queries.size(); ++q) {
      for (size_t r = 0; r < rows.size(); ++r) {
        out[q][r] = bytes.null[r] ? std::numeric_limits<float>::quiet_NaN()
                                  : index::HammingDistance(queries.bytes[q].data(), bytes.data + r * dim, dim);
      }
    }
    return out;
  }
  ASSIGN_OR_RETURN(std::vector<float> values, index::VectorsAsFloat32(vectors));
  for (size_t q = 0; q < queries.size(); ++q) {
    for (size_t r = 0; r < rows.size(); ++r) {
      out[q][r] = index::Distance(column.distance, queries.floats[q].data(), values.data() + r * dim, dim);
    }
  }
  return out;
}

}  // namespace lancet::scan
