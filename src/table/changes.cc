// Changes(): CDC from row lineage and fragment metadata (lineage-notes §4).
#include "lancet/table/changes.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <roaring/roaring.hh>
#include <roaring/roaring64map.hh>

#include "table/commit.h"
#include "table/row_meta.h"
#include "util/array_builder.h"

namespace lancet::table {
namespace {

constexpr const char* kOldPrefix = "old_";

Status RequireStableIds(const Dataset& ds) {
  auto d = ds.Describe();
  if (d["stable_row_ids"] != "true") {
    return Status::InvalidArgument(ds.uri() + " has no stable row ids at version " + std::to_string(ds.version()) +
                                   "; changes are only tracked when the table is created with stable row ids");
  }
  return Status::OK();
}

uint64_t NextRowId(const Dataset& ds) {
  auto d = ds.Describe();
  auto it = d.find("next_row_id");
  return it == d.end() ? 0 : std::stoull(it->second);
}

// Streams `scan` (one or two uint64 columns) and hands each row's values to `each`
// (0 for an absent second column).
template <typename F>
Status ForEachValue(const Dataset& ds, ScanOptions scan, F&& each) {
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, ds.NewScan(scan));
  for (;;) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
    if (!batch) return Status::OK();
    const uint64_t* a = batch->columns[0].values<uint64_t>();
    const uint64_t* b = batch->columns.size() > 1 ? batch->columns[1].values<uint64_t>() : nullptr;
    for (int64_t r = 0; r < batch->num_rows; ++r) each(a[r], b ? b[r] : 0);
  }
}

// NotSupported when `cur` restores rows `prev` had already lost (lineage-notes §4.2,
// Restore): its transaction says so, or, for writers that keep no transaction file, a
// fragment comes back (new fragments always get ids above every live one) or loses
// deletions.
Status CheckNoRestore(const Dataset& prev, const Dataset& cur) {
  auto restored = [&](const std::string& why) {
    return Status::NotSupported(cur.uri() + ": version " + std::to_string(cur.version()) +
                                " restores an older version (" + why +
                                "); row lineage goes back with it, so changes across it cannot be derived from "
                                "it; compare the two snapshots instead");
  };
  lance::table::Manifest named;
  named.set_transaction_file(cur.Describe()["transaction_file"]);
  std::optional<lance::table::Transaction> txn = LoadTransaction(*cur.store(), cur.root(), named);
  if (txn && txn->has_restore()) return restored("to version " + std::to_string(txn->restore().version()));
  std::map<uint64_t, const FragmentInfo*> before;
  std::optional<uint64_t> max_live;
  for (const FragmentInfo& f : prev.fragments()) {
    before[f.id] = &f;
    max_live = std::max(max_live.value_or(0), f.id);
  }
  for (const FragmentInfo& f : cur.fragments()) {
    auto it = before.find(f.id);
    bool back = it == before.end() ? max_live && f.id < *max_live : f.deleted_rows < it->second->deleted_rows;
    if (back) return restored("fragment " + std::to_string(f.id) + " comes back");
  }
  return Status::OK();
}

// Row ids live at `prev` but not at `cur`, restricted to ids below `id_limit` (the ids
// that existed at the range's start), from fragment metadata: only fragments that
// vanished or whose deletion file changed can lose rows, and ids reappearing in new
// fragments moved rather than died (lineage-notes §4.3).
Result<Roaring64Map> DeletedBetween(const Dataset& prev, const Dataset& cur, uint64_t id_limit) {
  std::map<uint64_t, const FragmentInfo*> after;
  for (const FragmentInfo& f : cur.fragments()) after[f.id] = &f;
  std::set<uint64_t> before;
  Roaring64Map lost;
  for (const FragmentInfo& f : prev.fragments()) {
    before.insert(f.id);
    auto it = after.find(f.id);
    if (it != after.end() && it->second->deletion_file == f.deletion_file) continue;
    Roaring live_after;  // offsets still live at `cur`
    ScanOptions scan;
    scan.fragment_ids = {f.id};
    scan.columns = {"_rowaddr"};
    if (it != after.end()) {
      RETURN_IF_ERROR(ForEachValue(cur, scan, [&](uint64_t addr, uint64_t) {
        live_after.add(static_cast<uint32_t>(addr & 0xFFFFFFFFu));
      }));
    }
    scan.columns = {"_rowid", "_rowaddr"};
    RETURN_IF_ERROR(ForEachValue(prev, scan, [&](uint64_t id, uint64_t addr) {
      if (id < id_limit && !live_after.contains(static_cast<uint32_t>(addr & 0xFFFFFFFFu))) lost.add(id);
    }));
  }
  if (lost.isEmpty()) return lost;
  std::vector<uint64_t> fresh;
  for (const FragmentInfo& f : cur.fragments()) {
    if (!before.count(f.id)) fresh.push_back(f.id);
  }
  if (fresh.empty()) return lost;
  ScanOptions scan;
  scan.fragment_ids = fresh;
  scan.columns = {"_rowid"};
  RETURN_IF_ERROR(ForEachValue(cur, scan, [&](uint64_t id, uint64_t) { lost.remove(id); }));
  return lost;
}

Result<Array> OpArray(const std::vector<const char*>& ops) {
  std::vector<std::optional<std::string>> values(ops.begin(), ops.end());
  return MakeBinaryArray(MakeType(TypeId::kUtf8), values);
}

class ChangesReader final : public RecordBatchReader {
 public:
  ChangesReader(std::unique_ptr<Dataset> from, std::unique_ptr<Dataset> to, ChangesOptions options)
      : from_(std::move(from)), to_(std::move(to)), options_(std::move(options)) {}

  Status Init() {
    const Schema& to_schema = to_->read_schema();
    if (options_.columns.empty()) {
      for (const Field& f : to_schema.fields) options_.columns.push_back(f.name);
    }
    schema_.fields = {MakeField("op", MakeType(TypeId::kUtf8), false), RowMetaField(RowMeta::kRowId),
                      MakeField("version", MakeType(TypeId::kUInt64), false)};
    std::set<std::string> seen;
    for (const std::string& name : options_.columns) {
      if (!seen.insert(name).second) {
        return Status::InvalidArgument(to_->uri() + ": column '" + name + "' is listed twice");
      }
      int idx = to_schema.FieldIndex(name);
      if (idx < 0 || RowMetaFromName(name)) {
        return Status::NotFound(to_->uri() + ": version " + std::to_string(to_->version()) +
                                " has no column named '" + name + "'");
      }
      Field f = to_schema.fields[static_cast<size_t>(idx)];
      f.nullable = true;
      values_.push_back(f);
      schema_.fields.push_back(f);
    }
    if (options_.with_old_values) {
      for (const Field& now : values_) {
        int idx = from_->read_schema().FieldIndex(now.name);
        Field f = idx >= 0 ? from_->read_schema().fields[static_cast<size_t>(idx)] : now;
        if (idx >= 0) old_columns_.push_back(now.name);
        old_present_.push_back(idx >= 0);
        f.name = kOldPrefix + now.name;
        f.nullable = true;
        old_.push_back(f);
        schema_.fields.push_back(f);
      }
    }
    ScanOptions scan;
    scan.columns = options_.columns;
    scan.columns.push_back("_rowid");
    scan.columns.push_back("_row_created_at_version");
    scan.columns.push_back("_row_last_updated_at_version");
    scan.filter = "_row_last_updated_at_version > " + std::to_string(from_->version());
    scan.batch_size = options_.batch_size;
    ASSIGN_OR_RETURN(upserts_, to_->NewScan(scan));
    id_limit_ = NextRowId(*from_);
    step_ = from_->version();
    // Refused before any record goes out (metadata only, one manifest per version).
    std::unique_ptr<Dataset> prev;
    for (uint64_t v = from_->version() + 1; v <= to_->version(); ++v) {
      ASSIGN_OR_RETURN(std::unique_ptr<Dataset> cur, to_->Checkout(v));
      RETURN_IF_ERROR(CheckNoRestore(prev ? *prev : *from_, *cur));
      prev = std::move(cur);
    }
    return Status::OK();
  }

  const Schema& schema() const override { return schema_; }

  Result<std::optional<RecordBatch>> Next() override {
    if (!status_.ok()) return status_;
    auto next = NextBatch();
    if (!next.ok()) status_ = next.status();
    return next;
  }

 private:
  Result<std::optional<RecordBatch>> NextBatch() {
    while (upserts_) {
      ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, upserts_->Next());
      if (!batch) {
        upserts_.reset();
        break;
      }
      if (batch->num_rows == 0) continue;
      ASSIGN_OR_RETURN(RecordBatch out, Upserts(*batch));
      return std::optional<RecordBatch>(std::move(out));
    }
    for (;;) {
      if (pending_.empty()) {
        if (step_ >= to_->version()) return std::optional<RecordBatch>();
        RETURN_IF_ERROR(NextStep());
        continue;
      }
      size_t n = std::min<size_t>(pending_.size() - pending_pos_, std::max<uint64_t>(options_.batch_size, 1));
      std::vector<uint64_t> ids(pending_.begin() + static_cast<std::ptrdiff_t>(pending_pos_),
                                pending_.begin() + static_cast<std::ptrdiff_t>(pending_pos_ + n));
      pending_pos_ += n;
      if (pending_pos_ == pending_.size()) {
        pending_.clear();
        pending_pos_ = 0;
      }
      ASSIGN_OR_RETURN(RecordBatch out, Deletes(ids));
      return std::optional<RecordBatch>(std::move(out));
    }
  }

  // Moves to the next version and collects the ids it deleted.
  Status NextStep() {
    ASSIGN_OR_RETURN(std::unique_ptr<Dataset> cur, to_->Checkout(step_ + 1));
    const Dataset& prev = prev_ ? *prev_ : *from_;
    ASSIGN_OR_RETURN(Roaring64Map gone, DeletedBetween(prev, *cur, id_limit_));
    pending_.assign(gone.cardinality(), 0);
    pending_pos_ = 0;
    gone.toUint64Array(pending_.data());
    pending_version_ = cur->version();
    ++step_;
    prev_ = std::move(cur);
    return Status::OK();
  }

  Result<RecordBatch> Upserts(const RecordBatch& batch) {
    const size_t nvals = values_.size();
    const uint64_t* ids = batch.columns[nvals].values<uint64_t>();
    const uint64_t* created = batch.columns[nvals + 1].values<uint64_t>();
    const uint64_t* updated = batch.columns[nvals + 2].values<uint64_t>();
    const uint64_t from = from_->version();
    std::vector<const char*> ops;
    std::vector<uint64_t> versions, updated_ids;
    std::vector<int64_t> updated_rows;
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      bool insert = created[r] > from;
      ops.push_back(insert ? "insert" : "update");
      versions.push_back(insert ? created[r] : updated[r]);
      if (!insert) {
        updated_ids.push_back(ids[r]);
        updated_rows.push_back(r);
      }
    }
    RecordBatch out;
    out.schema = schema_;
    out.num_rows = batch.num_rows;
    ASSIGN_OR_RETURN(Array op, OpArray(ops));
    out.columns.push_back(std::move(op));
    out.columns.push_back(batch.columns[nvals]);
    out.columns.push_back(UInt64Array(versions));
    for (size_t c = 0; c < nvals; ++c) out.columns.push_back(batch.columns[c]);
    if (options_.with_old_values) {
      // Old values exist only for updates; inserts get nulls, placed by an index past
      // the taken rows.
      std::vector<int64_t> where(static_cast<size_t>(batch.num_rows), static_cast<int64_t>(updated_ids.size()));
      for (size_t k = 0; k < updated_rows.size(); ++k) where[static_cast<size_t>(updated_rows[k])] = static_cast<int64_t>(k);
      RETURN_IF_ERROR(AppendOld(updated_ids, where, &out));
    }
    return out;
  }

  Result<RecordBatch> Deletes(const std::vector<uint64_t>& ids) {
    RecordBatch out;
    out.schema = schema_;
    out.num_rows = static_cast<int64_t>(ids.size());
    ASSIGN_OR_RETURN(Array op, OpArray(std::vector<const char*>(ids.size(), "delete")));
    out.columns.push_back(std::move(op));
    out.columns.push_back(UInt64Array(ids));
    out.columns.push_back(UInt64Array(std::vector<uint64_t>(ids.size(), pending_version_)));
    for (const Field& f : values_) {
      ASSIGN_OR_RETURN(Array nulls, MakeNullArray(f.type, out.num_rows));
      out.columns.push_back(std::move(nulls));
    }
    if (options_.with_old_values) {
      std::vector<int64_t> where(ids.size());
      for (size_t k = 0; k < ids.size(); ++k) where[k] = static_cast<int64_t>(k);
      RETURN_IF_ERROR(AppendOld(ids, where, &out));
    }
    return out;
  }

  // The values at `from` of rows `ids`, spread so output row r gets taken row
  // where[r] (== ids.size(): null).
  Status AppendOld(const std::vector<uint64_t>& ids, const std::vector<int64_t>& where, RecordBatch* out) {
    RecordBatch taken;
    if (!ids.empty() && !old_columns_.empty()) {
      ASSIGN_OR_RETURN(taken, from_->TakeRowIds(ids, old_columns_));
    }
    for (size_t c = 0, t = 0; c < old_.size(); ++c) {
      if (!old_present_[c]) {
        ASSIGN_OR_RETURN(Array nulls, MakeNullArray(old_[c].type, out->num_rows));
        out->columns.push_back(std::move(nulls));
        continue;
      }
      ASSIGN_OR_RETURN(Array null_row, MakeNullArray(old_[c].type, 1));
      Array source = null_row;
      if (!ids.empty()) {
        ASSIGN_OR_RETURN(source, Concatenate({taken.columns[t], null_row}));
      }
      ++t;
      std::vector<int64_t> index = where;
      if (ids.empty()) std::fill(index.begin(), index.end(), 0);
      ASSIGN_OR_RETURN(Array col, TakeRows(source, index));
      out->columns.push_back(std::move(col));
    }
    return Status::OK();
  }

  std::unique_ptr<Dataset> from_, to_, prev_;
  ChangesOptions options_;
  Schema schema_;
  std::vector<Field> values_, old_;
  std::vector<std::string> old_columns_;  // value columns `from` has
  std::vector<bool> old_present_;
  std::unique_ptr<RecordBatchReader> upserts_;
  uint64_t id_limit_ = 0;
  uint64_t step_ = 0;  // deletes are collected up to this version
  std::vector<uint64_t> pending_;
  size_t pending_pos_ = 0;
  uint64_t pending_version_ = 0;
  Status status_ = Status::OK();
};

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> Changes(const Dataset& dataset, uint64_t from, uint64_t to,
                                                   const ChangesOptions& options) {
  if (from > to) {
    return Status::InvalidArgument(dataset.uri() + ": changes from version " + std::to_string(from) + " to " +
                                   std::to_string(to) + ": the start is after the end");
  }
  if (options.batch_size == 0) return Status::InvalidArgument(dataset.uri() + ": batch_size must be positive");
  ASSIGN_OR_RETURN(std::unique_ptr<Dataset> from_ds, dataset.Checkout(from));
  ASSIGN_OR_RETURN(std::unique_ptr<Dataset> to_ds, dataset.Checkout(to));
  RETURN_IF_ERROR(RequireStableIds(*from_ds));
  RETURN_IF_ERROR(RequireStableIds(*to_ds));
  auto reader = std::make_unique<ChangesReader>(std::move(from_ds), std::move(to_ds), options);
  RETURN_IF_ERROR(reader->Init());
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

}  // namespace lancet::table
