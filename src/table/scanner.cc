// The scan reader: plans batches (fragment, live offsets) lazily, keeps a bounded
// window of them in flight on the CPU pool, and hands them out in order (or as they
// finish). Offset and limit are applied while planning when there is no filter, so
// skipped and unwanted rows are never read; with a filter they apply to the output
// and planning stops once the limit is met.
#include "table/scanner.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>

#include "table/scan_task.h"
#include "util/thread_pool.h"

namespace lancet::table {
namespace {

// Rows [begin, begin + length) of `batch`.
Result<RecordBatch> SliceRows(const RecordBatch& batch, int64_t begin, int64_t length) {
  std::vector<int64_t> idx(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) idx[static_cast<size_t>(i)] = begin + i;
  RecordBatch out;
  out.schema = batch.schema;
  out.num_rows = length;
  for (const Array& col : batch.columns) {
    ASSIGN_OR_RETURN(Array taken, TakeRows(col, idx));
    out.columns.push_back(std::move(taken));
  }
  return out;
}

enum class ScanSlotState : uint8_t { kPending, kRunning, kDone, kAbandoned };

struct ScanSlot {
  ScanTask task;
  ScanSlotState state = ScanSlotState::kPending;
  bool submitted = false;
  Result<RecordBatch> result = Status::Internal("not run");
};

// What pool jobs share with the reader; they hold it so a reader may go away while
// jobs it submitted are still queued (those then return without reading).
struct ScanShared {
  ScanContext context;
  std::mutex mu;
  std::condition_variable cv;
  size_t submitted = 0;  // jobs queued or running
  size_t running = 0;    // tasks executing now, in a job or in the consumer
  bool cancelled = false;
};

// Picks the next batch's rows; exact offset/limit when the scan has no filter.
class ScanPlanner {
 public:
  ScanPlanner(const Dataset& dataset, const ScanSource& source, std::vector<size_t> frags, uint64_t batch_size,
              uint64_t batch_bytes, uint64_t offset, std::optional<uint64_t> limit, std::vector<Field> range_fields)
      : dataset_(dataset),
        source_(source),
        frags_(std::move(frags)),
        range_fields_(std::move(range_fields)),
        batch_size_(batch_size),
        batch_bytes_(batch_bytes),
        skip_(offset),
        left_(limit.value_or(std::numeric_limits<uint64_t>::max())) {}

  Result<std::optional<ScanTask>> Next() {
    while (next_frag_ < frags_.size() && left_ > 0) {
      const size_t frag_idx = frags_[next_frag_];
      const FragmentInfo& info = dataset_.fragments()[frag_idx];
      if (!started_) {
        // Whole fragments inside the offset are skipped without reading their deletions.
        const uint64_t live = info.physical_rows - info.deleted_rows;
        if (skip_ >= live) {
          skip_ -= live;
          ++next_frag_;
          continue;
        }
        picked_ = nullptr;
        if (selection_) {
          auto it = selection_->fragments.find(info.id);
          if (it != selection_->fragments.end()) picked_ = &it->second;
        }
        if (picked_ && picked_->ranges.empty()) {
          ++next_frag_;
          continue;
        }
        ASSIGN_OR_RETURN(deleted_, source_.FragmentDeletions(frag_idx));
        range_ = 0;
        pos_ = picked_ ? picked_->ranges[0].first : 0;
        started_ = true;
        frag_batch_ = RowsPerBatch(info);
        ASSIGN_OR_RETURN(breaks_, source_.FragmentBatchBreaks(frag_idx, range_fields_));
      }
      ScanTask task;
      task.frag_idx = frag_idx;
      task.exact = picked_ && picked_->exact;
      const uint64_t want = std::min(frag_batch_, left_);
      // Selected rows are cut into tasks by the physical rows they span too, so a sparse
      // selection keeps a filtered scan's parallelism and per-task read sizes.
      uint64_t span_end = 0, cut = UINT64_MAX;
      bool done = false;
      while (task.offsets.size() < want) {
        if (!NextOffset(info)) {
          done = true;
          break;
        }
        if (picked_ && !task.offsets.empty() && pos_ >= span_end) break;
        if (!task.offsets.empty() && pos_ >= cut) break;
        const uint64_t o = pos_++;
        if (deleted_ && deleted_->contains(static_cast<uint32_t>(o))) continue;
        if (skip_ > 0) {
          --skip_;
          continue;
        }
        if (task.offsets.empty()) {
          span_end = o + frag_batch_;
          cut = CutAfter(o);
        }
        task.offsets.push_back(o);
      }
      if (done || !NextOffset(info)) {
        started_ = false;
        ++next_frag_;
      }
      if (task.offsets.empty()) continue;
      left_ -= task.offsets.size();
      return std::optional<ScanTask>(std::move(task));
    }
    return std::optional<ScanTask>();
  }

  void set_selection(std::shared_ptr<const RowSelection> selection) { selection_ = std::move(selection); }

 private:
  // Moves pos_ to the next offset to look at (the next selected range when pos_ left
  // one); false when the fragment has none left. Offsets past the fragment's rows (an
  // index of another version) end it.
  bool NextOffset(const FragmentInfo& info) {
    if (picked_) {
      while (range_ < picked_->ranges.size() && pos_ >= picked_->ranges[range_].second) {
        if (++range_ < picked_->ranges.size()) pos_ = std::max(pos_, picked_->ranges[range_].first);
      }
      if (range_ >= picked_->ranges.size()) return false;
    }
    return pos_ < info.physical_rows;
  }

  // Where a batch that starts at offset `first` ends early: at the first page end of
  // breaks_ after it, when that leaves the batch at least a quarter of its rows (so
  // small pages do not make small batches). UINT64_MAX for no cut.
  uint64_t CutAfter(uint64_t first) const {
    const uint64_t min_rows = std::max<uint64_t>(1, frag_batch_ / 4);
    auto it = std::upper_bound(breaks_.begin(), breaks_.end(), first);
    while (it != breaks_.end() && *it - first < min_rows) ++it;
    if (it == breaks_.end() || *it - first >= frag_batch_) return UINT64_MAX;
    return *it;
  }

  uint64_t RowsPerBatch(const FragmentInfo& info) const {
    if (batch_bytes_ == 0 || info.physical_rows == 0) return batch_size_;
    uint64_t file_bytes = 0;
    for (const DataFileInfo& f : info.files) file_bytes += f.size_bytes;
    const uint64_t row_bytes = std::max<uint64_t>(1, file_bytes / info.physical_rows);
    return std::clamp<uint64_t>(batch_bytes_ / row_bytes, 1, batch_size_);
  }

  const Dataset& dataset_;
  const ScanSource& source_;
  std::vector<size_t> frags_;
  std::vector<Field> range_fields_;  // the fields batches read as ranges
  std::vector<uint64_t> breaks_;     // the current fragment's (FragmentBatchBreaks)
  uint64_t batch_size_;
  uint64_t batch_bytes_;
  uint64_t frag_batch_ = 0;
  uint64_t skip_;
  uint64_t left_;
  size_t next_frag_ = 0;
  bool started_ = false;
  uint64_t pos_ = 0;
  std::shared_ptr<const Roaring> deleted_;
  std::shared_ptr<const RowSelection> selection_;
  const FragmentSelection* picked_ = nullptr;  // the current fragment's, if selected
  size_t range_ = 0;                           // into picked_->ranges
};

class ScanReader final : public RecordBatchReader {
 public:
  ScanReader(std::shared_ptr<ScanShared> shared, ScanPlanner planner, const ScanOptions& options)
      : shared_(std::move(shared)),
        planner_(std::move(planner)),
        ordered_(options.ordered),
        parallelism_(options.io_parallelism ? options.io_parallelism : ThreadPool::Cpu().size()),
        window_size_(parallelism_ + (options.batch_readahead ? options.batch_readahead : parallelism_)) {
    if (shared_->context.filter) {
      skip_ = options.offset;
      left_ = options.limit;
    }
  }

  ~ScanReader() override {
    std::unique_lock<std::mutex> lock(shared_->mu);
    shared_->cancelled = true;
    // Running tasks read through the dataset, which may go away after us.
    shared_->cv.wait(lock, [&] { return shared_->running == 0; });
  }

  const Schema& schema() const override { return shared_->context.projection.schema; }

  Result<std::optional<RecordBatch>> Next() override {
    if (!error_.ok()) return error_;
    while (!finished_ && left_.value_or(1) > 0) {
      if (Status st = Fill(); !st.ok()) return Fail(st);
      if (window_.empty()) break;
      std::shared_ptr<ScanSlot> slot = Take();
      Result<RecordBatch> r = std::move(slot->result);
      if (!r.ok()) return Fail(r.status());
      RecordBatch batch = r.MoveValue();
      if (batch.num_rows == 0) continue;
      if (skip_ >= static_cast<uint64_t>(batch.num_rows)) {
        skip_ -= static_cast<uint64_t>(batch.num_rows);
        continue;
      }
      int64_t begin = static_cast<int64_t>(skip_), length = batch.num_rows - begin;
      skip_ = 0;
      if (left_) {
        length = static_cast<int64_t>(std::min<uint64_t>(*left_, static_cast<uint64_t>(length)));
        *left_ -= static_cast<uint64_t>(length);
        if (*left_ == 0) Finish();
      }
      if (begin != 0 || length != batch.num_rows) {
        auto sliced = SliceRows(batch, begin, length);
        if (!sliced.ok()) return Fail(sliced.status());
        batch = sliced.MoveValue();
      }
      return std::optional<RecordBatch>(std::move(batch));
    }
    Finish();
    return std::optional<RecordBatch>();
  }

 private:
  Status Fail(Status st) {
    error_ = std::move(st);
    Finish();
    return error_;
  }

  // No more batches: tasks not yet started are dropped.
  void Finish() {
    finished_ = true;
    std::lock_guard<std::mutex> lock(shared_->mu);
    for (auto& s : window_) {
      if (s->state == ScanSlotState::kPending) s->state = ScanSlotState::kAbandoned;
    }
    window_.clear();
  }

  // Plans batches up to the window and hands pending ones to the pool.
  Status Fill() {
    while (!planned_all_ && window_.size() < window_size_) {
      ASSIGN_OR_RETURN(std::optional<ScanTask> task, planner_.Next());
      if (!task) {
        planned_all_ = true;
        break;
      }
      auto slot = std::make_shared<ScanSlot>();
      slot->task = std::move(*task);
      window_.push_back(std::move(slot));
    }
    std::lock_guard<std::mutex> lock(shared_->mu);
    Dispatch();
    return Status::OK();
  }

  // REQUIRES: shared_->mu held.
  void Dispatch() {
    for (auto& s : window_) {
      if (shared_->submitted >= parallelism_) break;
      if (s->submitted || s->state != ScanSlotState::kPending) continue;
      s->submitted = true;
      ++shared_->submitted;
      ThreadPool::Cpu().Submit([shared = shared_, slot = s] { RunJob(*shared, *slot); });
    }
  }

  static void Execute(ScanShared& shared, ScanSlot& slot, std::unique_lock<std::mutex>& lock) {
    slot.state = ScanSlotState::kRunning;
    ++shared.running;
    lock.unlock();
    Result<RecordBatch> r = RunScanTask(shared.context, slot.task);
    lock.lock();
    slot.result = std::move(r);
    slot.state = ScanSlotState::kDone;
    --shared.running;
  }

  static void RunJob(ScanShared& shared, ScanSlot& slot) {
    std::unique_lock<std::mutex> lock(shared.mu);
    if (!shared.cancelled && slot.state == ScanSlotState::kPending) Execute(shared, slot, lock);
    --shared.submitted;
    lock.unlock();
    shared.cv.notify_all();
  }

  // Removes and returns a finished slot: the oldest when ordered, else any done one.
  // A slot nobody has started yet runs here, so progress never waits on the pool.
  std::shared_ptr<ScanSlot> Take() {
    std::unique_lock<std::mutex> lock(shared_->mu);
    for (;;) {
      auto it = window_.begin();
      if (!ordered_) {
        auto done = std::find_if(window_.begin(), window_.end(),
                                 [](const auto& s) { return s->state == ScanSlotState::kDone; });
        if (done != window_.end()) it = done;
      }
      ScanSlot& slot = **it;
      if (slot.state == ScanSlotState::kPending) Execute(*shared_, slot, lock);
      if (slot.state == ScanSlotState::kDone) {
        std::shared_ptr<ScanSlot> out = std::move(*it);
        window_.erase(it);
        return out;
      }
      shared_->cv.wait(lock);
      Dispatch();  // a job finished: its place in the pool goes to the next batch
    }
  }

  std::shared_ptr<ScanShared> shared_;
  ScanPlanner planner_;
  const bool ordered_;
  const size_t parallelism_;
  const size_t window_size_;
  std::deque<std::shared_ptr<ScanSlot>> window_;  // touched by the consumer thread only
  bool planned_all_ = false;
  bool finished_ = false;
  Status error_;
  uint64_t skip_ = 0;             // filtered scans: output rows still to skip
  std::optional<uint64_t> left_;  // filtered scans: output rows still wanted
};

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> MakeScanner(const Dataset& dataset, const ScanSource& source,
                                                       const ScanOptions& options) {
  if (options.batch_size == 0) return Status::InvalidArgument("scan batch_size must be at least 1");
  auto shared = std::make_shared<ScanShared>();
  ASSIGN_OR_RETURN(shared->context, MakeScanContext(dataset, source, options));
  const auto& infos = dataset.fragments();
  std::vector<size_t> frags;
  for (uint64_t id : options.fragment_ids) {
    auto it = std::find_if(infos.begin(), infos.end(), [&](const FragmentInfo& f) { return f.id == id; });
    if (it == infos.end()) {
      return Status::NotFound(dataset.uri() + ": fragment " + std::to_string(id) + " is not in version " +
                              std::to_string(dataset.version()));
    }
  }
  for (size_t i = 0; i < infos.size(); ++i) {
    if (options.fragment_ids.empty() || std::find(options.fragment_ids.begin(), options.fragment_ids.end(),
                                                  infos[i].id) != options.fragment_ids.end()) {
      frags.push_back(i);
    }
  }
  const bool filtered = shared->context.filter.has_value();
  if (options.selection && !filtered) {
    return Status::InvalidArgument(dataset.uri() + ": a scan with a row selection needs its filter");
  }
  // A filtered scan reads its filter's columns as ranges (the rest only for the rows
  // that pass); an unfiltered one every projected column.
  std::vector<Field> range_fields;
  if (filtered) {
    const ScanContext& c = shared->context;
    for (size_t i = 0; i < c.filter_schema.fields.size(); ++i) {
      if (!c.filter_meta[i]) range_fields.push_back(c.filter_schema.fields[i]);
    }
  } else {
    range_fields = shared->context.projection.fields;
  }
  ScanPlanner planner(dataset, source, std::move(frags), options.batch_size, options.batch_bytes,
                      filtered ? 0 : options.offset, filtered ? std::nullopt : options.limit, std::move(range_fields));
  planner.set_selection(options.selection);
  return std::unique_ptr<RecordBatchReader>(new ScanReader(std::move(shared), std::move(planner), options));
}

Result<std::vector<RecordBatch>> Dataset::Scan(const ScanOptions& options) const {
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, NewScan(options));
  return ReadAllBatches(*reader);
}

}  // namespace lancet::table
