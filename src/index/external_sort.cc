#include "index/external_sort.h"

#include <algorithm>
#include <numeric>
#include <queue>

#include "index/value_order.h"
#include "lancet/format/file_reader.h"
#include "lancet/format/file_writer.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

// Rows a spilled run is read back by: the merge holds one such chunk per run.
constexpr int64_t kMergeReadRows = 4096;
// Rows a run is written in.
constexpr int64_t kSpillWriteRows = 64 * 1024;

uint64_t HeldBytes(const Array& values) {
  uint64_t bytes = 8 * static_cast<uint64_t>(values.length);  // the id
  if (values.type.IsFixedWidth()) {
    return bytes + static_cast<uint64_t>(values.length) * std::max(1, values.type.BitWidth() / 8);
  }
  for (int64_t i = 0; i < values.length; ++i) bytes += 8 + values.GetView(i).size();
  return bytes;
}

Schema RunSchema(const DataType& type) {
  Schema s;
  s.fields.push_back(MakeField("values", type, true));
  s.fields.push_back(MakeField("ids", MakeType(TypeId::kUInt64), false));
  return s;
}

std::vector<uint64_t> IdsOf(const Array& ids) { return {ids.values<uint64_t>(), ids.values<uint64_t>() + ids.length}; }

// One spilled run being merged: its current chunk and where the merge is in it.
struct RunCursor {
  std::unique_ptr<format::FileReader> file;
  uint64_t next_row = 0;
  Array values;
  std::vector<uint64_t> ids;
  int64_t pos = 0;
  int part = -1;  // the page part holding `values`, -1 when the page has none yet

  // Reads the next chunk; false at the end of the run.
  Result<bool> Load() {
    pos = 0;
    part = -1;
    if (next_row >= file->num_rows()) return false;
    const uint64_t end = std::min<uint64_t>(file->num_rows(), next_row + kMergeReadRows);
    const int c0 = 0, c1 = 1;
    ASSIGN_OR_RETURN(values, file->ReadRange(file->file_schema().fields[0], std::span<const int>(&c0, 1), next_row, end));
    ASSIGN_OR_RETURN(Array id_array,
                     file->ReadRange(file->file_schema().fields[1], std::span<const int>(&c1, 1), next_row, end));
    if (values.length != static_cast<int64_t>(end - next_row) || id_array.length != values.length) {
      return Status::Internal(file->path() + ": spill run read back short");
    }
    ids = IdsOf(id_array);
    next_row = end;
    return true;
  }
};

// The rows of one output chunk, gathered from the run chunks they came from.
class ChunkAssembler {
 public:
  void Add(RunCursor& run) {
    if (run.part < 0) {
      run.part = static_cast<int>(parts_.size());
      parts_.push_back({run.values, {}});
    }
    Part& p = parts_[run.part];
    picks_.emplace_back(run.part, static_cast<int64_t>(p.rows.size()));
    p.rows.push_back(run.pos);
    ids_.push_back(run.ids[run.pos]);
  }
  int64_t size() const { return static_cast<int64_t>(ids_.size()); }

  // Emits the chunk and starts the next; the runs' `part` must be reset by the caller.
  Status Flush(const ExternalSorter::Sink& sink) {
    if (ids_.empty()) return Status::OK();
    std::vector<Array> small;
    std::vector<int64_t> base;
    int64_t total = 0;
    for (Part& p : parts_) {
      ASSIGN_OR_RETURN(Array a, TakeRows(p.chunk, p.rows));
      base.push_back(total);
      total += a.length;
      small.push_back(std::move(a));
    }
    Array out;
    if (small.size() == 1) {
      out = std::move(small[0]);  // one part's rows were picked in order
    } else {
      ASSIGN_OR_RETURN(Array all, Concatenate(small));
      std::vector<int64_t> order;
      order.reserve(picks_.size());
      for (auto [part, i] : picks_) order.push_back(base[part] + i);
      ASSIGN_OR_RETURN(out, TakeRows(all, order));
    }
    RETURN_IF_ERROR(sink(out, ids_));
    parts_.clear();
    picks_.clear();
    ids_.clear();
    return Status::OK();
  }

 private:
  struct Part {
    Array chunk;
    std::vector<int64_t> rows;
  };
  std::vector<Part> parts_;
  std::vector<std::pair<int, int64_t>> picks_;
  std::vector<uint64_t> ids_;
};

}  // namespace

struct ExternalSorter::Held {
  Array values;
  std::vector<int64_t> order;
};

ExternalSorter::ExternalSorter(DataType type, uint64_t budget, std::string spill_parent)
    : type_(std::move(type)), budget_(budget), spill_parent_(std::move(spill_parent)) {}

ExternalSorter::~ExternalSorter() = default;

Status ExternalSorter::Add(const Array& values, std::span<const uint64_t> ids) {
  if (values.length == 0) return Status::OK();
  // A copy: a slice would keep its whole batch's buffers alive, beyond the budget.
  ASSIGN_OR_RETURN(Array own, Concatenate({values}));
  values_.push_back(std::move(own));
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  held_bytes_ += HeldBytes(values);
  if (held_bytes_ > budget_) return SpillRun();
  return Status::OK();
}

Result<ExternalSorter::Held> ExternalSorter::SortHeld() {
  Held h;
  if (values_.size() == 1) {
    h.values = values_[0];
  } else {
    ASSIGN_OR_RETURN(h.values, Concatenate(values_));
  }
  values_.clear();
  held_bytes_ = 0;
  h.order.resize(static_cast<size_t>(h.values.length));
  std::iota(h.order.begin(), h.order.end(), 0);
  const Array& v = h.values;
  std::stable_sort(h.order.begin(), h.order.end(),
                   [&v](int64_t a, int64_t b) { return CompareValues(v, a, v, b) < 0; });
  return h;
}

namespace {

// Calls sink with the held pairs in `h.order`, `chunk_rows` at a time.
Status EmitHeld(const Array& values, const std::vector<int64_t>& order, const std::vector<uint64_t>& ids,
                int64_t chunk_rows, const ExternalSorter::Sink& sink) {
  const int64_t n = static_cast<int64_t>(order.size());
  std::vector<uint64_t> chunk_ids;
  for (int64_t begin = 0; begin < n; begin += chunk_rows) {
    const int64_t end = std::min(n, begin + chunk_rows);
    std::vector<int64_t> idx(order.begin() + begin, order.begin() + end);
    ASSIGN_OR_RETURN(Array chunk, TakeRows(values, idx));
    chunk_ids.clear();
    for (int64_t i : idx) chunk_ids.push_back(ids[static_cast<size_t>(i)]);
    RETURN_IF_ERROR(sink(chunk, chunk_ids));
  }
  return Status::OK();
}

}  // namespace

Status ExternalSorter::SpillRun() {
  if (values_.empty()) return Status::OK();
  if (!dir_) {
    ASSIGN_OR_RETURN(dir_, table::SpillDir::Make(spill_parent_));
  }
  ASSIGN_OR_RETURN(Held h, SortHeld());
  const std::string path = dir_->path() + "/run-" + std::to_string(runs_.size()) + ".lance";
  format::FileWriterOptions opts;
  opts.enable_fsst = false;  // read back once; not worth training
  ASSIGN_OR_RETURN(auto writer, format::FileWriter::Open(io::LocalFileSystem(false), path, RunSchema(type_), opts));
  const Schema& schema = writer->schema();
  RETURN_IF_ERROR(EmitHeld(h.values, h.order, ids_, kSpillWriteRows,
                           [&](const Array& values, std::span<const uint64_t> ids) -> Status {
                             std::vector<uint64_t> copy(ids.begin(), ids.end());
                             ASSIGN_OR_RETURN(Array id_array, ArrayFromVector(MakeType(TypeId::kUInt64), copy));
                             RecordBatch b{schema, values.length, {values, id_array}};
                             return writer->Write(b);
                           }));
  RETURN_IF_ERROR(writer->Finish().status());
  ids_.clear();
  ids_.shrink_to_fit();
  runs_.push_back(path);
  return Status::OK();
}

Status ExternalSorter::Finish(int64_t chunk_rows, const Sink& sink) {
  if (runs_.empty()) {
    if (values_.empty()) return Status::OK();
    ASSIGN_OR_RETURN(Held h, SortHeld());
    RETURN_IF_ERROR(EmitHeld(h.values, h.order, ids_, chunk_rows, sink));
    ids_.clear();
    return Status::OK();
  }
  RETURN_IF_ERROR(SpillRun());
  auto local = io::LocalFileSystem(false);
  std::vector<RunCursor> runs(runs_.size());
  for (size_t r = 0; r < runs_.size(); ++r) {
    ASSIGN_OR_RETURN(auto file, local->OpenRead(runs_[r]));
    ASSIGN_OR_RETURN(runs[r].file, format::FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file))));
  }
  // Equal values leave in run order, and runs hold rows in the order they were added.
  auto after = [&runs](size_t a, size_t b) {
    const int c = CompareValues(runs[a].values, runs[a].pos, runs[b].values, runs[b].pos);
    return c != 0 ? c > 0 : a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(after)> heap(after);
  for (size_t r = 0; r < runs.size(); ++r) {
    ASSIGN_OR_RETURN(bool any, runs[r].Load());
    if (any) heap.push(r);
  }
  ChunkAssembler chunk;
  while (!heap.empty()) {
    const size_t r = heap.top();
    heap.pop();
    RunCursor& run = runs[r];
    chunk.Add(run);
    bool more = ++run.pos < run.values.length;
    if (!more) {
      ASSIGN_OR_RETURN(more, run.Load());
    }
    if (more) heap.push(r);
    if (chunk.size() == chunk_rows) {
      RETURN_IF_ERROR(chunk.Flush(sink));
      for (RunCursor& c : runs) c.part = -1;
    }
  }
  RETURN_IF_ERROR(chunk.Flush(sink));
  runs.clear();
  runs_.clear();
  dir_.reset();
  return Status::OK();
}

}  // namespace lancet::index
