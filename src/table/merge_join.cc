#include "table/merge_join.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <utility>

#include "lancet/expr/filter.h"
#include "table/blob.h"
#include "table/blob_info.h"
#include "table/blob_input.h"
#include "table/row_rewrite.h"

namespace lancet::table {
namespace {

// Matched pairs and by-source deletions are handled this many at a time, which bounds
// the target rows fetched at once.
constexpr size_t kMergeChunkRows = 16384;

Array MergeStructColumn(const Schema& schema, const std::vector<Array>& columns, int64_t rows) {
  Array a;
  a.type = StructOf(schema.fields);
  a.length = rows;
  a.buffers = {nullptr};
  a.children = columns;
  return a;
}

Result<std::vector<Array>> MergeTakeColumns(const std::vector<Array>& columns, const std::vector<int64_t>& rows) {
  std::vector<Array> out;
  out.reserve(columns.size());
  for (const Array& c : columns) {
    ASSIGN_OR_RETURN(Array taken, TakeRows(c, rows));
    out.push_back(std::move(taken));
  }
  return out;
}

std::vector<int64_t> MergeTrueRows(const std::vector<bool>& mask) {
  std::vector<int64_t> rows;
  for (size_t i = 0; i < mask.size(); ++i) {
    if (mask[i]) rows.push_back(static_cast<int64_t>(i));
  }
  return rows;
}

class MergeJoiner {
 public:
  MergeJoiner(const Dataset& target, const MergeSource& source, const MergeInsertOptions& options, MergeSink& sink)
      : target_(target), source_(source), options_(options), sink_(sink) {}

  Status Prepare();
  Status CheckBlobSource(const Field& target, const Field& source, const std::string& where) const;
  Result<MergeCounts> Run();

 private:
  Status JoinPartition(const std::vector<RecordBatch>& chunks, RecordBatchReader& target_keys);
  Status EmitInSourceOrder(const std::vector<RecordBatch>& chunks, const std::vector<bool>& matched, bool inserts);
  Status EmitSourceRows(const RecordBatch& chunk, const std::vector<int64_t>& pick,
                        const std::vector<uint64_t>& replaces);
  Status FlushMatched(const RecordBatch& rows);
  Status FlushDeletes();
  Status Insert(const RecordBatch& rows, const std::vector<bool>& matched);
  Status EmitInsertsInSourceOrder();
  Result<std::unique_ptr<RecordBatchReader>> ScanTargetKeys() const;

  const Dataset& target_;
  const MergeSource& source_;
  const MergeInsertOptions& options_;
  MergeSink& sink_;
  MergeKeys source_keys_, target_keys_;
  // Per target column: the source column that overwrites it in a matched row, or -1.
  std::vector<int> update_from_;
  // Per target column: the source column an inserted row takes, or -1 (null).
  std::vector<int> insert_from_;
  // The target's schema, but a blob column a source feeds keeps the source's shape
  // (the width of its data child): spilled inserts are written with the types they have.
  Schema insert_schema_;
  bool needs_target_rows_ = false;
  std::optional<expr::Filter> matched_condition_, by_source_condition_;
  Schema condition_schema_;
  std::vector<std::string> target_columns_;
  std::vector<std::pair<uint64_t, int64_t>> matched_;  // (target address, source row)
  // For matched rows written in source order: each source row's target address (or
  // kNoMatch), and further (source row, address) pairs of rows matching several.
  static constexpr uint64_t kNoMatch = ~uint64_t{0} - 1;
  std::vector<uint64_t> match_addr_;
  std::vector<std::pair<int64_t, uint64_t>> more_matches_;
  std::vector<uint64_t> deletes_;
  MergeCounts counts_;
  // With a spilled source, inserts wait here (each row with its source position) until
  // every partition is joined, then go out in source order: the reference gives new
  // rows their ids in that order.
  std::unique_ptr<PartitionedSpill> inserts_;
  uint32_t partition_ = 0;
  size_t insert_batch_rows_ = kMergeChunkRows;
};

// A source column for the Blob V2 column `target`: new bytes in the input shape
// (struct<data, uri>; plain bytes were wrapped by MergeInsert). A format 2.3 column's
// values carry blob_info only a media plugin can make.
Status MergeJoiner::CheckBlobSource(const Field& target, const Field& source, const std::string& where) const {
  const Field& read = target_.read_schema().fields[static_cast<size_t>(target_.read_schema().FieldIndex(target.name))];
  if (IsBlobInfoDescriptor(read)) {
    return Status::InvalidArgument(where + "the source has blob column '" + target.name +
                                   "': in a format 2.3 dataset its values carry blob_info from a media plugin; "
                                   "leave it out of the source (matched rows keep their blobs) or ingest the rows");
  }
  Field as_input = target;
  as_input.type = source.type;
  Schema one;
  one.fields.push_back(std::move(as_input));
  Status shape = CheckBlobInputSchema(one);
  if (!shape.ok()) {
    return Status::InvalidArgument(where + "the source column '" + source.name + "' has type " +
                                   source.type.ToString() + ", which is not bytes for the blob column '" + target.name +
                                   "' (" + shape.message() + ")");
  }
  return Status::OK();
}

Status MergeJoiner::Prepare() {
  const Schema& ts = target_.schema();
  const Schema& ss = source_.schema();
  const std::string where = "merge insert into " + target_.uri() + ": ";
  for (const Field& f : ts.fields) target_columns_.push_back(f.name);
  auto source_keys = MergeKeys::Make(ss, options_.on, "source");
  if (!source_keys.ok()) return Status::InvalidArgument(where + source_keys.status().message());
  source_keys_ = std::move(source_keys).value();
  auto target_keys = MergeKeys::Make(ts, options_.on, "dataset");
  if (!target_keys.ok()) return Status::InvalidArgument(where + target_keys.status().message());
  target_keys_ = std::move(target_keys).value();
  for (const Field& f : ss.fields) {
    int t = ts.FieldIndex(f.name);
    if (t < 0) return Status::InvalidArgument(where + "the source column '" + f.name + "' is not in the dataset");
    if (IsBlobV2Field(ts.fields[t])) {
      RETURN_IF_ERROR(CheckBlobSource(ts.fields[t], f, where));
      continue;
    }
    // By text: nested types carry Lance field ids on the dataset side only.
    if (ts.fields[t].type.ToString() != f.type.ToString()) {
      return Status::InvalidArgument(where + "the source column '" + f.name + "' has type " + f.type.ToString() +
                                     ", the dataset's has " + ts.fields[t].type.ToString());
    }
  }
  for (const std::string& c : options_.update_columns) {
    if (ss.FieldIndex(c) < 0) return Status::InvalidArgument(where + "update column '" + c + "' is not in the source");
  }
  insert_schema_ = ts;
  for (const Field& f : ts.fields) {
    int s = ss.FieldIndex(f.name);
    if (s >= 0 && IsBlobV2Field(f)) insert_schema_.fields[insert_from_.size()].type = ss.fields[s].type;
    insert_from_.push_back(s);
    bool copy = s >= 0 && (options_.when_matched == WhenMatched::kUpdateAll ||
                           std::find(options_.update_columns.begin(), options_.update_columns.end(), f.name) !=
                               options_.update_columns.end());
    update_from_.push_back(copy ? s : -1);
    // Matched rows that are left alone need nothing of the target.
    if (!copy && options_.when_matched != WhenMatched::kDoNothing) needs_target_rows_ = true;
    if (s < 0 && !f.nullable && options_.when_not_matched == WhenNotMatched::kInsert) {
      return Status::InvalidArgument(where + "the source lacks the non-nullable column '" + f.name +
                                     "', which inserted rows would leave null");
    }
  }
  if (!options_.when_matched_condition.empty()) {
    // Old rows come as a scan reads them: a blob column as descriptors.
    condition_schema_.fields = {MakeField("target", StructOf(target_.read_schema().fields)),
                                MakeField("source", StructOf(ss.fields))};
    auto bound = expr::Filter::Bind(options_.when_matched_condition, condition_schema_);
    if (!bound.ok()) return Status::InvalidArgument(where + "when-matched condition: " + bound.status().message());
    matched_condition_ = std::move(bound).value();
    needs_target_rows_ = true;
  }
  if (!options_.by_source_condition.empty()) {
    auto bound = expr::Filter::Bind(options_.by_source_condition, ts);
    if (!bound.ok())
      return Status::InvalidArgument(where + "not-matched-by-source condition: " + bound.status().message());
    by_source_condition_ = std::move(bound).value();
  }
  return Status::OK();
}

Result<std::unique_ptr<RecordBatchReader>> MergeJoiner::ScanTargetKeys() const {
  ScanOptions scan;
  scan.columns = options_.on;
  scan.columns.push_back("_rowaddr");
  return target_.NewScan(scan);
}

Result<MergeCounts> MergeJoiner::Run() {
  const uint32_t parts = source_.partitions();
  if (parts == 1) {
    ASSIGN_OR_RETURN(std::vector<RecordBatch> rows, source_.Load(0, needs_target_rows_));
    ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> keys, ScanTargetKeys());
    RETURN_IF_ERROR(JoinPartition(rows, *keys));
    return counts_;
  }
  // One pass over the target routes its keys to the source's partitions.
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> scan, ScanTargetKeys());
  ASSIGN_OR_RETURN(std::unique_ptr<PartitionedSpill> spill,
                   PartitionedSpill::Open(source_.spill_dir()->path(), "target-v" + std::to_string(target_.version()),
                                          scan->schema(), parts));
  while (true) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, scan->Next());
    if (!batch) break;
    RETURN_IF_ERROR(spill->Write(*batch, RowPartitions(*batch, target_keys_, true, parts)));
  }
  RETURN_IF_ERROR(spill->Finish());
  Schema with_seq = insert_schema_;
  with_seq.fields.push_back(MakeField(kMergeSeqColumn, MakeType(TypeId::kUInt64), false));
  ASSIGN_OR_RETURN(inserts_, PartitionedSpill::Open(source_.spill_dir()->path(),
                                                    "inserts-v" + std::to_string(target_.version()), with_seq, parts));
  for (partition_ = 0; partition_ < parts; ++partition_) {
    ASSIGN_OR_RETURN(std::vector<RecordBatch> rows, source_.Load(partition_, true));
    ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> keys, spill->Read(partition_));
    RETURN_IF_ERROR(JoinPartition(rows, *keys));
  }
  RETURN_IF_ERROR(inserts_->Finish());
  RETURN_IF_ERROR(EmitInsertsInSourceOrder());
  return counts_;
}

Status MergeJoiner::JoinPartition(const std::vector<RecordBatch>& chunks, RecordBatchReader& target_keys) {
  // Source rows are numbered across the chunks.
  int64_t total = 0;
  for (const RecordBatch& c : chunks) total += c.num_rows;
  // Source rows by key; rows sharing a key are chained through `next`.
  MergeKeyIndex first(static_cast<size_t>(total));
  std::vector<int64_t> next(static_cast<size_t>(total), -1);
  MergeKeyRun run;
  // Backwards, so that each chain runs in source order.
  int64_t chunk_end = total;
  for (size_t c = chunks.size(); c-- > 0;) {
    const RecordBatch& rows = chunks[c];
    const int64_t base = chunk_end - rows.num_rows;
    for (int64_t end = rows.num_rows; end > 0; end -= kMergeKeyRunRows) {
      const int64_t begin = std::max<int64_t>(0, end - kMergeKeyRunRows);
      source_keys_.EncodeRun(rows, false, begin, end, &run);
      for (size_t i = run.size(); i-- > 0;) {
        if (i >= 8) first.Prefetch(run.hashes[i - 8]);
        if (!run.valid[i]) continue;
        const int64_t row = base + begin + static_cast<int64_t>(i);
        bool fresh = false;
        int64_t* head = first.FindOrInsert(run, i, row, &fresh);
        if (!fresh) {
          next[row] = *head;
          *head = row;
        }
      }
    }
    chunk_end = base;
  }
  std::vector<bool> matched(static_cast<size_t>(total), false);
  const bool updates = options_.when_matched != WhenMatched::kDoNothing;
  const bool deletes = options_.when_not_matched_by_source == WhenNotMatchedBySource::kDelete;
  // Without old rows to fetch, matched rows go out in source order after the scan:
  // the source's runs of rows are then written as they are, not gathered.
  const bool in_source_order = updates && !needs_target_rows_;
  if (in_source_order) {
    match_addr_.assign(static_cast<size_t>(total), kNoMatch);
    more_matches_.clear();
  }
  std::vector<int64_t> found(static_cast<size_t>(kMergeKeyRunRows));
  while (true) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, target_keys.Next());
    if (!batch) break;
    const uint64_t* addr = batch->columns.back().values<uint64_t>();
    for (int64_t begin = 0; begin < batch->num_rows; begin += kMergeKeyRunRows) {
      const int64_t end = std::min(batch->num_rows, begin + kMergeKeyRunRows);
      target_keys_.EncodeRun(*batch, true, begin, end, &run);
      first.FindRun(run, found.data());
      for (int64_t r = begin; r < end; ++r) {
        const int64_t s = found[static_cast<size_t>(r - begin)];
        if (s < 0) {
          if (deletes) deletes_.push_back(addr[r]);
          if (deletes_.size() >= kMergeChunkRows) RETURN_IF_ERROR(FlushDeletes());
          continue;
        }
        if (updates && next[s] >= 0) {
          int64_t c = 0, local = s;
          while (local >= chunks[c].num_rows) local -= chunks[c++].num_rows;
          return Status::InvalidArgument("merge insert into " + target_.uri() +
                                         ": Ambiguous merge inserts are prohibited: multiple source rows match the "
                                         "same target row on (" +
                                         source_keys_.Describe(chunks[c], local) +
                                         "). Please ensure each target row is matched by at most one source row.");
        }
        for (int64_t j = s; j >= 0; j = next[j]) matched[j] = true;
        if (!updates) continue;
        if (in_source_order) {
          // A source row matching several target rows (a key repeated in the target)
          // updates each of them.
          uint64_t& slot = match_addr_[static_cast<size_t>(s)];
          if (slot == kNoMatch) {
            slot = addr[r];
          } else {
            more_matches_.emplace_back(s, addr[r]);
          }
          continue;
        }
        matched_.emplace_back(addr[r], s);
        if (matched_.size() >= kMergeChunkRows) RETURN_IF_ERROR(FlushMatched(chunks[0]));
      }
    }
  }
  RETURN_IF_ERROR(FlushDeletes());
  const bool inserts = options_.when_not_matched == WhenNotMatched::kInsert;
  if (!needs_target_rows_) {
    // In memory, inserts go out with the updates, in one pass over the source.
    RETURN_IF_ERROR(EmitInSourceOrder(chunks, matched, inserts && !inserts_));
    if (inserts && inserts_) RETURN_IF_ERROR(Insert(chunks[0], matched));
    return Status::OK();
  }
  RETURN_IF_ERROR(FlushMatched(chunks[0]));
  if (inserts) RETURN_IF_ERROR(Insert(chunks[0], matched));
  return Status::OK();
}

Status MergeJoiner::EmitInSourceOrder(const std::vector<RecordBatch>& chunks, const std::vector<bool>& matched,
                                      bool inserts) {
  const bool updates = !match_addr_.empty();
  std::stable_sort(more_matches_.begin(), more_matches_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t more = 0;
  int64_t base = 0;
  std::vector<int64_t> pick;
  std::vector<uint64_t> replaces;
  for (const RecordBatch& chunk : chunks) {
    for (int64_t i = 0; i < chunk.num_rows; ++i) {
      const size_t s = static_cast<size_t>(base + i);
      if (updates && match_addr_[s] != kNoMatch) {
        pick.push_back(i);
        replaces.push_back(match_addr_[s]);
        for (; more < more_matches_.size() && more_matches_[more].first == static_cast<int64_t>(s); ++more) {
          pick.push_back(i);
          replaces.push_back(more_matches_[more].second);
        }
      } else if (inserts && !matched[s]) {
        pick.push_back(i);
        replaces.push_back(kInsertedRow);
      }
      if (pick.size() >= kMergeChunkRows) {
        RETURN_IF_ERROR(EmitSourceRows(chunk, pick, replaces));
        pick.clear();
        replaces.clear();
      }
    }
    RETURN_IF_ERROR(EmitSourceRows(chunk, pick, replaces));
    pick.clear();
    replaces.clear();
    base += chunk.num_rows;
  }
  match_addr_.clear();
  more_matches_.clear();
  return Status::OK();
}

Status MergeJoiner::EmitSourceRows(const RecordBatch& chunk, const std::vector<int64_t>& pick,
                                   const std::vector<uint64_t>& replaces) {
  if (pick.empty()) return Status::OK();
  const int64_t n = static_cast<int64_t>(pick.size());
  // A run of consecutive rows (every row when all are updated or inserted) is a view.
  const bool run =
      std::adjacent_find(pick.begin(), pick.end(), [](int64_t a, int64_t b) { return b != a + 1; }) == pick.end();
  RecordBatch out{target_.schema(), n, {}};
  // Without old rows to fetch, a matched row takes every column from the source, as an
  // inserted one does (which leaves the columns the source lacks null).
  for (size_t c = 0; c < insert_from_.size(); ++c) {
    if (insert_from_[c] < 0) {
      ASSIGN_OR_RETURN(Array nulls, MakeNullArray(target_.schema().fields[c].type, n));
      out.columns.push_back(std::move(nulls));
      continue;
    }
    const Array& from = chunk.columns[static_cast<size_t>(insert_from_[c])];
    if (run) {
      out.columns.push_back(ArraySlice(from, pick.front(), n));
    } else {
      ASSIGN_OR_RETURN(Array taken, TakeRows(from, pick));
      out.columns.push_back(std::move(taken));
    }
  }
  RETURN_IF_ERROR(sink_.Add(out, replaces));
  for (uint64_t r : replaces) ++(r == kInsertedRow ? counts_.inserted : counts_.updated);
  return Status::OK();
}

Status MergeJoiner::FlushMatched(const RecordBatch& rows) {
  if (matched_.empty()) return Status::OK();
  std::vector<uint64_t> addrs;
  std::vector<int64_t> src;
  for (const auto& [a, s] : matched_) {
    addrs.push_back(a);
    src.push_back(s);
  }
  matched_.clear();
  ASSIGN_OR_RETURN(std::vector<Array> src_cols, MergeTakeColumns(rows.columns, src));
  std::vector<Array> old_cols;
  if (needs_target_rows_) {
    ASSIGN_OR_RETURN(RecordBatch old, target_.TakeRowAddresses(addrs, target_columns_));
    old_cols = std::move(old.columns);
  }
  int64_t n = static_cast<int64_t>(addrs.size());
  if (matched_condition_) {
    RecordBatch pair{
        condition_schema_,
        n,
        {MergeStructColumn(target_.read_schema(), old_cols, n), MergeStructColumn(source_.schema(), src_cols, n)}};
    ASSIGN_OR_RETURN(std::vector<bool> keep, matched_condition_->Evaluate(pair));
    std::vector<int64_t> kept = MergeTrueRows(keep);
    if (kept.size() != addrs.size()) {
      ASSIGN_OR_RETURN(src_cols, MergeTakeColumns(src_cols, kept));
      ASSIGN_OR_RETURN(old_cols, MergeTakeColumns(old_cols, kept));
      std::vector<uint64_t> kept_addrs;
      for (int64_t i : kept) kept_addrs.push_back(addrs[i]);
      addrs = std::move(kept_addrs);
      n = static_cast<int64_t>(addrs.size());
    }
  }
  if (n == 0) return Status::OK();
  RecordBatch out{target_.schema(), n, {}};
  for (size_t c = 0; c < update_from_.size(); ++c) {
    out.columns.push_back(update_from_[c] >= 0 ? src_cols[update_from_[c]] : old_cols[c]);
  }
  RETURN_IF_ERROR(sink_.Add(out, addrs));
  counts_.updated += addrs.size();
  return Status::OK();
}

Status MergeJoiner::FlushDeletes() {
  if (deletes_.empty()) return Status::OK();
  std::vector<uint64_t> addrs = std::move(deletes_);
  deletes_.clear();
  if (by_source_condition_) {
    ASSIGN_OR_RETURN(RecordBatch old, target_.TakeRowAddresses(addrs, by_source_condition_->columns()));
    ASSIGN_OR_RETURN(std::vector<bool> keep, by_source_condition_->Evaluate(old));
    std::vector<uint64_t> kept;
    for (size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) kept.push_back(addrs[i]);
    }
    addrs = std::move(kept);
  }
  if (addrs.empty()) return Status::OK();
  RETURN_IF_ERROR(sink_.Remove(addrs));
  counts_.deleted += addrs.size();
  return Status::OK();
}

Status MergeJoiner::Insert(const RecordBatch& rows, const std::vector<bool>& matched) {
  if (inserts_ && rows.num_rows > 0) {
    // The merge in source order holds one spilled batch per partition: size them so
    // that all of them together stay near the budget.
    const uint64_t row_bytes = std::max<uint64_t>(1, BatchBytes(rows) / static_cast<uint64_t>(rows.num_rows));
    const uint64_t fit = options_.memory_budget_bytes / (row_bytes * source_.partitions());
    insert_batch_rows_ = static_cast<size_t>(std::clamp<uint64_t>(fit, 64, kMergeChunkRows));
  }
  std::vector<int64_t> pick;
  for (int64_t i = 0; i <= rows.num_rows; ++i) {
    bool last = i == rows.num_rows;
    if (!last && !matched[i]) pick.push_back(i);
    if (pick.empty() || (!last && pick.size() < insert_batch_rows_)) continue;
    const int64_t n = static_cast<int64_t>(pick.size());
    RecordBatch out{insert_schema_, n, {}};
    for (size_t c = 0; c < insert_from_.size(); ++c) {
      if (insert_from_[c] < 0) {
        ASSIGN_OR_RETURN(Array nulls, MakeNullArray(target_.schema().fields[c].type, n));
        out.columns.push_back(std::move(nulls));
      } else {
        ASSIGN_OR_RETURN(Array taken, TakeRows(rows.columns[insert_from_[c]], pick));
        out.columns.push_back(std::move(taken));
      }
    }
    counts_.inserted += pick.size();
    if (inserts_) {
      ASSIGN_OR_RETURN(Array seq, TakeRows(rows.columns.back(), pick));
      out.columns.push_back(std::move(seq));
      out.schema.fields.push_back(MakeField(kMergeSeqColumn, MakeType(TypeId::kUInt64), false));
      RETURN_IF_ERROR(inserts_->Write(out, std::vector<uint32_t>(pick.size(), partition_)));
    } else {
      std::vector<uint64_t> replaces(pick.size(), kInsertedRow);
      RETURN_IF_ERROR(sink_.Add(out, replaces));
    }
    pick.clear();
  }
  return Status::OK();
}

Status MergeJoiner::EmitInsertsInSourceOrder() {
  // A k-way merge of the partitions' inserts (each already in source order) by position.
  const uint32_t parts = source_.partitions();
  struct Cursor {
    std::unique_ptr<RecordBatchReader> reader;
    int held = -1;  // index in `held` of the current batch
    int64_t row = 0;
  };
  std::vector<RecordBatch> held;
  std::vector<Cursor> cursors(parts);
  using Head = std::pair<uint64_t, uint32_t>;  // (source position, partition)
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  auto seq_at = [&](const Cursor& c) { return held[c.held].columns.back().values<uint64_t>()[c.row]; };
  // Moves `c` to a row, reading batches as needed; false at the end of its partition.
  auto settle = [&](Cursor& c) -> Result<bool> {
    while (c.held < 0 || c.row >= held[c.held].num_rows) {
      ASSIGN_OR_RETURN(std::optional<RecordBatch> next, c.reader->Next());
      if (!next) return false;
      held.push_back(std::move(*next));
      c.held = static_cast<int>(held.size()) - 1;
      c.row = 0;
    }
    return true;
  };
  for (uint32_t p = 0; p < parts; ++p) {
    ASSIGN_OR_RETURN(cursors[p].reader, inserts_->Read(p));
    ASSIGN_OR_RETURN(bool any, settle(cursors[p]));
    if (any) heads.emplace(seq_at(cursors[p]), p);
  }
  std::vector<std::pair<int, int64_t>> picks;  // (held batch, row), in output order
  auto flush = [&]() -> Status {
    if (picks.empty()) return Status::OK();
    // Rows are taken batch by batch, then put in output order with one more take.
    std::map<int, std::vector<int64_t>> by_batch;
    for (const auto& [b, r] : picks) by_batch[b].push_back(r);
    std::map<int, int64_t> base;
    std::map<int, int64_t> next_in_batch;
    int64_t offset = 0;
    for (const auto& [b, rows] : by_batch) {
      base[b] = offset;
      offset += static_cast<int64_t>(rows.size());
    }
    std::vector<int64_t> order;
    order.reserve(picks.size());
    for (const auto& [b, r] : picks) order.push_back(base[b] + next_in_batch[b]++);
    const int64_t n = static_cast<int64_t>(picks.size());
    RecordBatch out{target_.schema(), n, {}};
    for (size_t c = 0; c < target_.schema().fields.size(); ++c) {
      std::vector<Array> pieces;
      for (const auto& [b, rows] : by_batch) {
        ASSIGN_OR_RETURN(Array piece, TakeRows(held[b].columns[c], rows));
        pieces.push_back(std::move(piece));
      }
      ASSIGN_OR_RETURN(Array grouped, Concatenate(pieces));
      ASSIGN_OR_RETURN(Array ordered, TakeRows(grouped, order));
      out.columns.push_back(std::move(ordered));
    }
    std::vector<uint64_t> replaces(picks.size(), kInsertedRow);
    RETURN_IF_ERROR(sink_.Add(out, replaces));
    picks.clear();
    // Only the cursors' current batches are still needed.
    std::vector<RecordBatch> kept;
    std::map<int, int> moved;
    for (Cursor& c : cursors) {
      if (c.held < 0) continue;
      auto [it, fresh] = moved.try_emplace(c.held, static_cast<int>(kept.size()));
      if (fresh) kept.push_back(std::move(held[c.held]));
      c.held = it->second;
    }
    held = std::move(kept);
    return Status::OK();
  };
  while (!heads.empty()) {
    const uint32_t p = heads.top().second;
    heads.pop();
    Cursor& c = cursors[p];
    picks.emplace_back(c.held, c.row++);
    ASSIGN_OR_RETURN(bool more, settle(c));
    if (more) heads.emplace(seq_at(c), p);
    if (picks.size() >= kMergeChunkRows) RETURN_IF_ERROR(flush());
  }
  return flush();
}

}  // namespace

Result<MergeCounts> RunMergeJoin(const Dataset& target, const MergeSource& source, const MergeInsertOptions& options,
                                 MergeSink& sink) {
  MergeJoiner joiner(target, source, options, sink);
  RETURN_IF_ERROR(joiner.Prepare());
  return joiner.Run();
}

}  // namespace lancet::table
