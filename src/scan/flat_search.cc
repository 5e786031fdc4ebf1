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

// Calls fn(q, distances) for each query q with the distances of every row of `vectors`
// to it; null vectors get NaN. float32 vectors without nulls are read in place, others
// converted first.
template <typename Fn>
Status QueryDistances(const Array& vectors, const VectorColumn& column, const PreparedQueries& queries, Fn&& fn) {
  const size_t n = static_cast<size_t>(vectors.length);
  const size_t dim = column.dim;
  const Array& items = vectors.children[0];
  std::vector<float> distances(n);
  if (column.bits) {
    if (items.type.id != TypeId::kUInt8) {
      return Status::Internal("hamming search over a column that is not fixed_size_list<uint8>");
    }
    const uint8_t* data = items.values<uint8_t>() + vectors.offset * static_cast<int64_t>(dim);
    for (size_t q = 0; q < queries.bytes.size(); ++q) {
      for (size_t r = 0; r < n; ++r) {
        distances[r] = vectors.IsNull(static_cast<int64_t>(r))
                           ? std::numeric_limits<float>::quiet_NaN()
                           : index::HammingDistance(queries.bytes[q].data(), data + r * dim, dim);
      }
      fn(q, distances);
    }
    return Status::OK();
  }
  std::vector<float> converted;
  const float* values = nullptr;
  if (items.type.id == TypeId::kFloat32 && vectors.null_count == 0) {
    values = items.values<float>() + vectors.offset * static_cast<int64_t>(dim);
  } else {
    ASSIGN_OR_RETURN(converted, index::VectorsAsFloat32(vectors));
    values = converted.data();
  }
  for (size_t q = 0; q < queries.floats.size(); ++q) {
    const float* query = queries.floats[q].data();
    for (size_t r = 0; r < n; ++r) distances[r] = index::Distance(column.distance, query, values + r * dim, dim);
    fn(q, distances);
  }
  return Status::OK();
}

// Scores one batch into `tops` (one per query); NaN distances are dropped by TopK.
Status ScoreBatch(const RecordBatch& batch, const VectorColumn& column, const PreparedQueries& queries,
                  std::vector<TopK>& tops) {
  const uint64_t* rows = batch.columns[1].values<uint64_t>();
  return QueryDistances(batch.columns[0], column, queries, [&](size_t q, const std::vector<float>& distances) {
    for (size_t r = 0; r < distances.size(); ++r) tops[q].Offer(distances[r], rows[r]);
  });
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
  std::vector<std::vector<float>> out(queries.size());
  if (rows.empty()) return out;
  ASSIGN_OR_RETURN(RecordBatch batch, dataset.TakeRowIds(rows, {column.name}));
  RETURN_IF_ERROR(QueryDistances(batch.columns[0], column, queries,
                                 [&](size_t q, const std::vector<float>& distances) { out[q] = distances; }));
  return out;
}

}  // namespace lancet::scan
