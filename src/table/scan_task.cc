#include "table/scan_task.h"

#include <algorithm>

#include "util/thread_pool.h"

namespace lancet::table {
namespace {

Array RowKeyArray(const std::vector<uint64_t>& values) {
  Array a;
  a.type = MakeType(TypeId::kUInt64);
  a.length = static_cast<int64_t>(values.size());
  a.buffers = {nullptr, Buffer::Copy(std::string_view(reinterpret_cast<const char*>(values.data()),
                                                      values.size() * sizeof(uint64_t)))};
  return a;
}

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

Result<ScanContext> MakeScanContext(const Dataset& dataset, const ScanSource& source, const ScanOptions& options) {
  ScanContext ctx;
  ctx.dataset = &dataset;
  ctx.source = &source;
  ASSIGN_OR_RETURN(ctx.projection, PlanProjection(dataset.read_schema(), options.columns, options.with_row_id,
                                                  options.with_row_addr, dataset.uri()));
  ctx.reuse.assign(ctx.projection.fields.size(), -1);
  if (options.filter.empty()) return ctx;
  auto bound = expr::Filter::Bind(options.filter, dataset.read_schema());
  if (!bound.ok()) return bound.status().WithContext(dataset.uri());
  for (const std::string& name : bound->columns()) {
    int idx = dataset.read_schema().FieldIndex(name);
    if (idx < 0) return Status::Internal(dataset.uri() + ": the filter reads an unknown column '" + name + "'");
    int filter_idx = static_cast<int>(ctx.filter_schema.fields.size());
    ctx.filter_schema.fields.push_back(dataset.read_schema().fields[static_cast<size_t>(idx)]);
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
  if (ctx.filter) {
    std::vector<const Field*> fields;
    for (const Field& f : ctx.filter_schema.fields) fields.push_back(&f);
    ASSIGN_OR_RETURN(filter_cols, ReadScanColumns(ctx, task.frag_idx, fields, task.offsets));
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
  for (size_t i = 0; i < proj.fields.size(); ++i) {
    if (ctx.reuse[i] < 0) rest.push_back(&proj.fields[i]);
  }
  std::vector<Array> read;
  if (!rest.empty()) {
    ASSIGN_OR_RETURN(read, ReadScanColumns(ctx, task.frag_idx, rest, *rows));
  }
  size_t next_read = 0;
  for (size_t i = 0; i < proj.fields.size(); ++i) {
    if (ctx.reuse[i] < 0) {
      out.columns.push_back(std::move(read[next_read++]));
      continue;
    }
    const Array& col = filter_cols[static_cast<size_t>(ctx.reuse[i])];
    if (all_pass) {
      out.columns.push_back(col);
    } else {
      ASSIGN_OR_RETURN(Array taken, TakeRows(col, survivor_idx));
      out.columns.push_back(std::move(taken));
    }
  }
  if (proj.row_id) out.columns.push_back(RowKeyArray(ctx.source->FragmentRowIds(task.frag_idx, *rows)));
  if (proj.row_addr) {
    const uint64_t frag_id = ctx.dataset->fragments()[task.frag_idx].id;
    std::vector<uint64_t> addrs;
    addrs.reserve(rows->size());
    for (uint64_t o : *rows) addrs.push_back((frag_id << 32) | o);
    out.columns.push_back(RowKeyArray(addrs));
  }
  return out;
}

}  // namespace lancet::table
