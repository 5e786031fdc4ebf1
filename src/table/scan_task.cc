#include "table/scan_task.h"

#include <algorithm>

#include "util/thread_pool.h"

namespace lancet::table {
namespace {

// Narrow fixed-width values sit thousands to a mini-block chunk, so a selective
// filter's survivors still touch nearly every chunk: taking them row by row saves no
// bytes and costs a decode per row. Wider values (embeddings, strings, lists) are where
// fetching only the survivors pays.
bool NarrowField(const Field& field) {
  if (field.type.id == TypeId::kStruct) {
    return std::all_of(field.type.children.begin(), field.type.children.end(), NarrowField);
  }
  return field.type.IsFixedWidth() && field.type.BitWidth() <= 128;
}

// Rows `offsets` (ascending) of `fields` in one fragment.
Result<std::vector<Array>> ReadScanColumns(const ScanContext& ctx, size_t frag_idx,
                                           const std::vector<const Field*>& fields,
                                           const std::vector<uint64_t>& offsets) {
  const uint64_t first = offsets.front(), span = offsets.back() - first + 1;
  const bool contiguous = span == offsets.size();
  // Dense selections decode the covering range and drop the rest; sparse ones (what
  // survives a selective filter) let the file reader fetch only the pages and values
  // those rows need, which is where late materialisation saves its bytes.
  const bool dense = offsets.size() * 2 >= span;
  std::vector<int64_t> keep;
  if (!contiguous) {
    keep.reserve(offsets.size());
    for (uint64_t o : offsets) keep.push_back(static_cast<int64_t>(o - first));
  }
  std::vector<Result<Array>> cols(fields.size(), Status::Internal("not decoded"));
  ParallelFor(ThreadPool::Cpu(), fields.size(), ThreadPool::Cpu().size(), [&](size_t i) {
    cols[i] = [&]() -> Result<Array> {
      Array col;
      if (dense || NarrowField(*fields[i])) {
        ASSIGN_OR_RETURN(col, ctx.source->ReadFragmentRange(frag_idx, *fields[i], first, first + span));
        if (!contiguous) {
          ASSIGN_OR_RETURN(col, TakeRows(col, keep));
        }
      } else {
        ASSIGN_OR_RETURN(col, ctx.source->ReadFragmentOffsets(frag_idx, *fields[i], offsets));
      }
      if (col.length != static_cast<int64_t>(offsets.size())) {
        return Status::Internal(ctx.dataset->uri() + ": column '" + fields[i]->name + "' of fragment " +
                                std::to_string(ctx.dataset->fragments()[frag_idx].id) + " decoded " +
                                std::to_string(col.length) + " rows, " + std::to_string(offsets.size()) + " expected");
      }
      return col;
    }();
  });
  std::vector<Array> out;
  out.reserve(cols.size());
  for (auto& c : cols) {
    RETURN_IF_ERROR(c.status());
    out.push_back(c.MoveValue());
  }
  return out;
}

}  // namespace

Result<Array> ComputeRowMeta(const ScanSource& source, size_t frag_idx, uint64_t frag_id, RowMeta meta,
                             std::span<const uint64_t> offsets) {
  switch (meta) {
    case RowMeta::kRowId:
      return UInt64Array(source.FragmentRowIds(frag_idx, offsets));
    case RowMeta::kRowAddr: {
      std::vector<uint64_t> addrs;
      addrs.reserve(offsets.size());
      for (uint64_t o : offsets) addrs.push_back((frag_id << 32) | o);
      return UInt64Array(addrs);
    }
    case RowMeta::kCreatedAt:
    case RowMeta::kLastUpdated: {
      ASSIGN_OR_RETURN(std::vector<uint64_t> versions, source.FragmentRowVersions(frag_idx, meta, offsets));
      return UInt64Array(versions);
    }
  }
  return Status::Internal("unknown row meta column");
}

Result<ScanContext> MakeScanContext(const Dataset& dataset, const ScanSource& source, const ScanOptions& options) {
  ScanContext ctx;
  ctx.dataset = &dataset;
  ctx.source = &source;
  ASSIGN_OR_RETURN(ctx.projection, PlanProjection(dataset.read_schema(), options.columns, options.with_row_id,
                                                  options.with_row_addr, dataset.uri()));
  ctx.reuse.assign(ctx.projection.fields.size(), -1);
  auto check_lineage = [&](RowMeta m) -> Status {
    if (IsLineage(m) && !source.HasStableRowIds()) return NoLineageError(dataset.uri(), m);
    return Status::OK();
  };
  for (RowMeta m : ctx.projection.meta) RETURN_IF_ERROR(check_lineage(m));
  if (options.filter.empty()) return ctx;
  // The filter may name meta columns too, unless a data column has the same name.
  Schema bind_schema = dataset.read_schema();
  for (RowMeta m : {RowMeta::kRowId, RowMeta::kRowAddr, RowMeta::kCreatedAt, RowMeta::kLastUpdated}) {
    if (bind_schema.FieldIndex(RowMetaName(m)) < 0) bind_schema.fields.push_back(RowMetaField(m));
  }
  auto bound = expr::Filter::Bind(options.filter, bind_schema);
  if (!bound.ok()) return bound.status().WithContext(dataset.uri());
  for (const std::string& name : bound->columns()) {
    int idx = dataset.read_schema().FieldIndex(name);
    int filter_idx = static_cast<int>(ctx.filter_schema.fields.size());
    if (idx < 0) {
      std::optional<RowMeta> m = RowMetaFromName(name);
      if (!m) return Status::Internal(dataset.uri() + ": the filter reads an unknown column '" + name + "'");
      RETURN_IF_ERROR(check_lineage(*m));
      ctx.filter_schema.fields.push_back(RowMetaField(*m));
      ctx.filter_meta.push_back(m);
      continue;
    }
    ctx.filter_schema.fields.push_back(dataset.read_schema().fields[static_cast<size_t>(idx)]);
    ctx.filter_meta.push_back(std::nullopt);
    for (size_t i = 0; i < ctx.projection.fields.size(); ++i) {
      if (ctx.projection.whole[i] && ctx.projection.top_index[i] == idx) ctx.reuse[i] = filter_idx;
    }
  }
  ctx.filter = std::move(*bound);
  return ctx;
}

Result<RecordBatch> RunScanTask(const ScanContext& ctx, const ScanTask& task) {
  const ScanProjection& proj = ctx.projection;
  RecordBatch out;
  out.schema = proj.schema;
  const std::vector<uint64_t>* rows = &task.offsets;
  std::vector<uint64_t> survivors;
  std::vector<Array> filter_cols;
  std::vector<int64_t> survivor_idx;  // positions of the survivors among task.offsets
  const uint64_t frag_id = ctx.dataset->fragments()[task.frag_idx].id;
  const bool evaluate = ctx.filter && !task.exact;
  if (evaluate) {
    std::vector<const Field*> fields;
    for (size_t i = 0; i < ctx.filter_schema.fields.size(); ++i) {
      if (!ctx.filter_meta[i]) fields.push_back(&ctx.filter_schema.fields[i]);
    }
    std::vector<Array> read_cols;
    if (!fields.empty()) {
      ASSIGN_OR_RETURN(read_cols, ReadScanColumns(ctx, task.frag_idx, fields, task.offsets));
    }
    for (size_t i = 0, r = 0; i < ctx.filter_schema.fields.size(); ++i) {
      if (!ctx.filter_meta[i]) {
        filter_cols.push_back(std::move(read_cols[r++]));
        continue;
      }
      ASSIGN_OR_RETURN(Array meta,
                       ComputeRowMeta(*ctx.source, task.frag_idx, frag_id, *ctx.filter_meta[i], task.offsets));
      filter_cols.push_back(std::move(meta));
    }
    RecordBatch probe;
    probe.schema = ctx.filter_schema;
    probe.num_rows = static_cast<int64_t>(task.offsets.size());
    probe.columns = filter_cols;
    ASSIGN_OR_RETURN(std::vector<bool> match, ctx.filter->Evaluate(probe));
    for (size_t i = 0; i < match.size(); ++i) {
      if (!match[i]) continue;
      survivors.push_back(task.offsets[i]);
      survivor_idx.push_back(static_cast<int64_t>(i));
    }
    if (survivors.empty()) return out;
    rows = &survivors;
  }
  out.num_rows = static_cast<int64_t>(rows->size());
  const bool all_pass = rows->size() == task.offsets.size();
  std::vector<const Field*> rest;
  auto reused = [&](size_t i) { return evaluate && ctx.reuse[i] >= 0; };
  for (size_t i = 0; i < proj.fields.size(); ++i) {
    if (!reused(i)) rest.push_back(&proj.fields[i]);
  }
  std::vector<Array> read;
  if (!rest.empty()) {
    ASSIGN_OR_RETURN(read, ReadScanColumns(ctx, task.frag_idx, rest, *rows));
  }
  std::vector<Array> data;
  data.reserve(proj.fields.size());
  size_t next_read = 0;
  for (size_t i = 0; i < proj.fields.size(); ++i) {
    if (!reused(i)) {
      data.push_back(std::move(read[next_read++]));
      continue;
    }
    const Array& col = filter_cols[static_cast<size_t>(ctx.reuse[i])];
    if (all_pass) {
      data.push_back(col);
    } else {
      ASSIGN_OR_RETURN(Array taken, TakeRows(col, survivor_idx));
      data.push_back(std::move(taken));
    }
  }
  for (int slot : proj.order) {
    if (slot >= 0) {
      out.columns.push_back(std::move(data[static_cast<size_t>(slot)]));
      continue;
    }
    ASSIGN_OR_RETURN(Array meta, ComputeRowMeta(*ctx.source, task.frag_idx, frag_id,
                                                proj.meta[static_cast<size_t>(-1 - slot)], *rows));
    out.columns.push_back(std::move(meta));
  }
  return out;
}

}  // namespace lancet::table
