// RowRewriter: rewritten rows go to new fragments, their old copies to deletion files,
// and the commit is one Update transaction (lineage-notes §2.2, §3).
#include "table/row_rewrite.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <roaring/roaring.hh>

#include "lancet/io/object_store.h"
#include "table/blob.h"
#include "table/blob_info.h"
#include "table/blob_input.h"
#include "table/blob_sink.h"
#include "table/commit.h"
#include "table/compaction_blobs.h"
#include "table/compaction_row_ids.h"
#include "table/deletion.h"
#include "table/deletion_writer.h"
#include "table/evolution_io.h"
#include "table/external_stores.h"
#include "table/manifest.h"
#include "table/row_id_sequence.h"

namespace lancet::table {
namespace {

using lance::table::DataFragment;
using lance::table::Manifest;

constexpr uint64_t kRewriteMaxRowsPerFile = uint64_t{1} << 32;

// A scanned Blob V2 column holds descriptors (kind, position, ...); an input column
// holds the bytes or a URI.
bool IsDescriptorShape(const DataType& type) {
  return type.id == TypeId::kStruct && !type.children.empty() && type.children[0].name == "kind";
}

bool SameDeletionFile(const DataFragment& a, const DataFragment& b) {
  if (a.has_deletion_file() != b.has_deletion_file()) return false;
  return !a.has_deletion_file() || a.deletion_file().SerializeAsString() == b.deletion_file().SerializeAsString();
}

// What leaves one base fragment.
struct Touched {
  const DataFragment* base = nullptr;
  Roaring base_deleted;  // its deletion vector in the base version
  Roaring ours;          // offsets this edit replaces or removes
};

// A finished data file and, with stable row ids, its rows' lineage in compact form:
// the preserved ids (RowIdSequence), the created_at versions (inserted rows hold 0
// until the commit knows its version) and the positions of inserted rows.
struct WrittenFragment {
  DataFragment frag;
  std::string preserved_ids;
  std::string created;
  Roaring inserted;
};

// Data-file writes run on one thread behind the caller, so that encoding rewritten
// rows overlaps producing the next ones (a merge's join and takes, an update's scan).
// At most kDepth batches wait, which bounds the memory they hold. After a failure
// the remaining writes are dropped and the failure is returned by the next call.
class RewriteWriteBehind {
 public:
  static constexpr size_t kDepth = 2;

  ~RewriteWriteBehind() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  Status Submit(std::function<Status()> write) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
    cv_.wait(lock, [this] { return tasks_.size() < kDepth || !error_.ok(); });
    if (!error_.ok()) return error_;
    tasks_.push_back(std::move(write));
    cv_.notify_all();
    return Status::OK();
  }

  /// Waits for every submitted write; the first failure, if any.
  Status Drain() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return tasks_.empty() && !busy_; });
    return error_;
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      std::function<Status()> write = std::move(tasks_.front());
      tasks_.pop_front();
      if (!error_.ok()) continue;
      busy_ = true;
      lock.unlock();
      Status st = write();
      lock.lock();
      busy_ = false;
      if (!st.ok()) error_ = std::move(st);
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<Status()>> tasks_;
  bool busy_ = false;
  bool stop_ = false;
  Status error_;
  std::thread thread_;
};

class RowRewriterImpl final : public RowRewriter {
 public:
  RowRewriterImpl(const Dataset& base, const WriteParams& params, VersionManifest read)
      : base_(base), params_(params), store_(base.store()), root_(base.root()), read_(std::move(read)) {
    stable_ = (read_.manifest.reader_feature_flags() & kFlagStableRowIds) != 0;
    for (const DataFragment& f : read_.manifest.fragments()) by_id_[f.id()] = &f;
    for (const auto& f : read_.manifest.fields()) modified_fields_.push_back(static_cast<uint32_t>(f.id()));
  }

  ~RowRewriterImpl() override {
    // Nothing may still be writing to the files deleted here.
    (void)writes_.Drain();
    if (!committed_) DeletePaths(*store_, written_);
  }

  Status Init() {
    const Schema& logical = base_.schema();
    size_t blobs = 0;
    for (const Field& f : logical.fields) {
      if (IsBlobV2Field(f)) {
        ++blobs;
      } else if (HasBlobField(f)) {
        return Status::NotSupported(root_ + ": rewriting rows with a Blob V2 column inside '" + f.name +
                                    "' is not supported yet (top-level blob columns are)");
      }
    }
    blob_columns_ = blobs;
    if (blobs == 0) return Status::OK();
    for (const auto& bp : read_.manifest.base_paths()) {
      if (bp.is_dataset_root()) continue;
      auto dir = NormalizeBaseDir(bp.path());
      if (dir.ok()) context_.bases.push_back({bp.id(), *dir});
    }
    context_.blob_info = (read_.manifest.reader_feature_flags() & kFlagBlobInfo) != 0;
    context_.allow_outside_bases = params_.blobs.allow_external_outside_bases;
    context_.uri_mode = params_.blobs.uri_mode;
    context_.sources = io::LocalFileSystem(/*map_reads=*/false);
    context_.externals = std::make_shared<ExternalStores>(context_.sources, "", params_.storage_options);
    return Status::OK();
  }

  Status Add(const RecordBatch& rows, std::span<const uint64_t> replaces) override {
    if (committed_) return Status::InvalidArgument(root_ + ": rows added after the rewrite was committed");
    const Schema& schema = base_.read_schema();
    if (rows.columns.size() != schema.fields.size()) {
      return Status::InvalidArgument(root_ + ": rewritten rows have " + std::to_string(rows.columns.size()) +
                                     " columns but the dataset has " + std::to_string(schema.fields.size()));
    }
    if (replaces.size() != static_cast<size_t>(rows.num_rows)) {
      return Status::InvalidArgument(root_ + ": " + std::to_string(rows.num_rows) + " rewritten rows but " +
                                     std::to_string(replaces.size()) + " replaced addresses");
    }
    for (size_t c = 0; c < rows.columns.size(); ++c) {
      if (rows.columns[c].length != rows.num_rows) {
        return Status::InvalidArgument(root_ + ": rewritten column " + schema.fields[c].name + " has " +
                                       std::to_string(rows.columns[c].length) + " rows, not " +
                                       std::to_string(rows.num_rows));
      }
    }
    std::vector<uint64_t> base_ids(replaces.size(), 0);
    for (size_t i = 0; i < replaces.size(); ++i) {
      if (replaces[i] == kInsertedRow) {
        ++counts_.inserted;
        if (stable_) {
          ids_.push_back(kInsertedRow);
          created_.push_back(0);
        }
        continue;
      }
      RETURN_IF_ERROR(Claim(replaces[i]));
      ++counts_.updated;
      ASSIGN_OR_RETURN(base_ids[i], BaseRowId(replaces[i]));
      if (stable_) {
        ids_.push_back(base_ids[i]);
        ASSIGN_OR_RETURN(uint64_t created, CreatedAt(replaces[i]));
        created_.push_back(created);
      }
    }
    return Write(rows, base_ids, replaces);
  }

  Status Remove(std::span<const uint64_t> addresses) override {
    if (committed_) return Status::InvalidArgument(root_ + ": rows removed after the rewrite was committed");
    for (uint64_t a : addresses) {
      RETURN_IF_ERROR(Claim(a));
      ++counts_.deleted;
    }
    return Status::OK();
  }

  Result<uint64_t> Commit() override {
    if (committed_) return Status::InvalidArgument(root_ + ": the rewrite was already committed");
    if (file_.writer) RETURN_IF_ERROR(Cut());
    if (fragments_.empty() && touched_.empty()) {
      committed_ = true;
      return base_.version();
    }
    CommitBuilder build = [this](const CommitBase& base) -> Result<PreparedCommit> {
      std::vector<std::string> attempt;
      auto prep = Build(base, &attempt);
      if (!prep.ok()) {
        DeletePaths(*store_, attempt);
        return prep.status();
      }
      prep->attempt_files = std::move(attempt);
      return prep;
    };
    ASSIGN_OR_RETURN(uint64_t version,
                     CommitWithRetry(*store_, root_, base_.version(), build, params_.max_commit_attempts));
    committed_ = true;
    return version;
  }

  const RewriteCounts& counts() const override { return counts_; }
  void set_modified_fields(std::vector<uint32_t> field_ids) override { modified_fields_ = std::move(field_ids); }

 private:
  std::string Where(uint64_t address) const {
    return root_ + ": row address " + std::to_string(address) + " (fragment " + std::to_string(address >> 32) +
           ", offset " + std::to_string(address & 0xFFFFFFFFu) + ")";
  }

  // Marks the row at `address` as leaving its fragment.
  Status Claim(uint64_t address) {
    const uint64_t frag = address >> 32;
    const uint32_t offset = static_cast<uint32_t>(address & 0xFFFFFFFFu);
    auto it = touched_.find(frag);
    if (it == touched_.end()) {
      auto b = by_id_.find(frag);
      if (b == by_id_.end()) {
        return Status::InvalidArgument(Where(address) + " is not in version " + std::to_string(base_.version()));
      }
      Touched t;
      t.base = b->second;
      if (t.base->has_deletion_file()) {
        if (t.base->deletion_file().has_base_id()) {
          return Status::NotSupported(root_ + ": fragment " + std::to_string(frag) +
                                      " keeps its deletion file under another base path");
        }
        ASSIGN_OR_RETURN(t.base_deleted,
                         ReadDeletionFile(*store_, JoinPath(root_, DeletionFileName(frag, t.base->deletion_file())),
                                          t.base->deletion_file().file_type(), t.base->physical_rows(),
                                          t.base->deletion_file().num_deleted_rows()));
      }
      it = touched_.emplace(frag, std::move(t)).first;
    }
    Touched& t = it->second;
    if (offset >= t.base->physical_rows() || t.base_deleted.contains(offset)) {
      return Status::InvalidArgument(Where(address) + " is not a live row of version " +
                                     std::to_string(base_.version()));
    }
    if (t.ours.contains(offset)) return Status::InvalidArgument(Where(address) + " is replaced or removed twice");
    t.ours.add(offset);
    return Status::OK();
  }

  // The stable row id and created_at versions of one base fragment, decoded when a row
  // of it is first met (scans meet fragments one after the other).
  Status LoadLineage(uint64_t frag_id) {
    if (lineage_frag_ == frag_id) return Status::OK();
    const DataFragment& f = *by_id_.at(frag_id);
    std::string context = root_ + ": fragment " + std::to_string(frag_id);
    if (f.has_external_row_ids() || f.has_external_created_at_versions()) {
      return Status::NotSupported(context + " keeps its row ids or row versions in an external file");
    }
    if (!f.has_inline_row_ids()) return Status::Corruption(context + " has no row ids but stable row ids are on");
    const std::string& bytes = f.inline_row_ids();
    ASSIGN_OR_RETURN(RowIdSequence seq,
                     RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, context));
    if (seq.size() != f.physical_rows()) {
      return Status::Corruption(context + " has " + std::to_string(seq.size()) + " row ids for " +
                                std::to_string(f.physical_rows()) + " rows");
    }
    // The reference reads a missing created_at sequence as version 1.
    std::vector<uint64_t> created(f.physical_rows(), 1);
    if (f.has_inline_created_at_versions()) {
      ASSIGN_OR_RETURN(created, DecodeRowVersions(f.inline_created_at_versions(), f.physical_rows(), context));
    }
    lineage_seq_ = std::move(seq);
    lineage_created_ = std::move(created);
    lineage_frag_ = frag_id;
    return Status::OK();
  }

  Result<uint64_t> BaseRowId(uint64_t address) {
    if (!stable_) return address;
    RETURN_IF_ERROR(LoadLineage(address >> 32));
    return lineage_seq_->Get(address & 0xFFFFFFFFu);
  }

  Result<uint64_t> CreatedAt(uint64_t address) {
    RETURN_IF_ERROR(LoadLineage(address >> 32));
    return lineage_created_[address & 0xFFFFFFFFu];
  }

  // Blob columns of one slice to descriptors: input values are stored, scanned
  // descriptors move their row's bytes. Sink columns: input columns first (StoreBlobs
  // numbers them), moved ones after, so no two columns share a pack.
  Result<RecordBatch> PlaceBlobs(const RecordBatch& slice, std::span<const uint64_t> base_ids,
                                 std::span<const uint64_t> replaces) {
    const Schema& read = base_.read_schema();
    const Schema& logical = base_.schema();
    Schema as_given;
    std::vector<size_t> moved;
    for (size_t c = 0; c < read.fields.size(); ++c) {
      const Field& f = logical.fields[c];
      if (IsBlobV2Field(f) && !IsDescriptorShape(slice.columns[c].type)) {
        as_given.fields.push_back(f);
        continue;
      }
      // Passed through by StoreBlobs unchanged.
      as_given.fields.push_back(MakeField(f.name, slice.columns[c].type));
      if (IsBlobV2Field(f)) moved.push_back(c);
    }
    RecordBatch in{as_given, slice.num_rows, slice.columns};
    ASSIGN_OR_RETURN(RecordBatch out, StoreBlobs(in, read, context_, sink_.get()));
    for (size_t k = 0; k < moved.size(); ++k) {
      const size_t c = moved[k];
      const Array& col = out.columns[c];
      for (int64_t i = 0; i < col.length; ++i) {
        if (col.IsValid(i) && replaces[static_cast<size_t>(i)] == kInsertedRow) {
          return Status::InvalidArgument(root_ + ": blob column '" + read.fields[c].name +
                                         "' of an inserted row holds a descriptor; a descriptor only moves with "
                                         "the row it was read from, give new values as data or uri");
        }
      }
      // Placement only needs sane values; unreadable metadata falls back to defaults.
      auto thresholds = BlobThresholdsOf(logical.fields[c]);
      ASSIGN_OR_RETURN(out.columns[c],
                       ReplaceBlobs(base_, read.fields[c].name, col, base_ids,
                                    thresholds.ok() ? *thresholds : BlobThresholds{}, blob_columns_ + k, sink_.get()));
    }
    return out;
  }

  Status Write(const RecordBatch& batch, std::span<const uint64_t> base_ids, std::span<const uint64_t> replaces) {
    const Schema& schema = base_.read_schema();
    const uint64_t max_rows = params_.max_rows_per_file;
    int64_t offset = 0;
    while (offset < batch.num_rows) {
      if (!file_.writer) {
        ASSIGN_OR_RETURN(file_, OpenDataFile(store_, root_, schema, &written_));
        if (blob_columns_ > 0) {
          std::string stem = file_.name.substr(0, file_.name.size() - std::string_view(".lance").size());
          sink_ = std::make_unique<BlobSink>(store_, JoinPath(root_, "data/" + stem), file_.writer.get(), &written_,
                                             nullptr);
        }
      }
      const int64_t take = static_cast<int64_t>(
          std::min<uint64_t>(static_cast<uint64_t>(batch.num_rows - offset), max_rows - rows_in_file_));
      RecordBatch slice{batch.schema, take, {}};
      for (const Array& col : batch.columns) {
        if (offset == 0 && take == batch.num_rows) {
          slice.columns.push_back(col);
        } else {
          ASSIGN_OR_RETURN(Array piece, TakeRows(col, Iota(offset, take)));
          slice.columns.push_back(std::move(piece));
        }
      }
      const size_t from = static_cast<size_t>(offset), n = static_cast<size_t>(take);
      if (blob_columns_ > 0) {
        ASSIGN_OR_RETURN(slice, PlaceBlobs(slice, base_ids.subspan(from, n), replaces.subspan(from, n)));
      }
      slice.schema = schema;
      if (file_.minor_version == 3) {
        for (size_t c = 0; c < slice.columns.size(); ++c) {
          ASSIGN_OR_RETURN(slice.columns[c], BlobInfoToPhysical(schema.fields[c], slice.columns[c]));
        }
        slice.schema = file_.writer->schema();
      }
      if (blob_columns_ > 0) {
        // The blob sink writes into the same file as it goes: kept in order inline.
        RETURN_IF_ERROR(file_.writer->Write(slice));
      } else {
        // Refused here rather than by the deferred write, so that Add reports it.
        const Schema& file_schema = file_.writer->schema();
        for (size_t c = 0; c < slice.columns.size(); ++c) {
          if (slice.columns[c].type != file_schema.fields[c].type) {
            return Status::InvalidArgument(root_ + ": rewritten column " + file_schema.fields[c].name + " is " +
                                           slice.columns[c].type.ToString() + ", the dataset's is " +
                                           file_schema.fields[c].type.ToString());
          }
        }
        RETURN_IF_ERROR(
            writes_.Submit([writer = file_.writer.get(), slice = std::move(slice)] { return writer->Write(slice); }));
      }
      offset += take;
      rows_in_file_ += static_cast<uint64_t>(take);
      if (rows_in_file_ == max_rows) RETURN_IF_ERROR(Cut());
    }
    return Status::OK();
  }

  Status Cut() {
    RETURN_IF_ERROR(writes_.Drain());
    if (sink_) {
      RETURN_IF_ERROR(sink_->Finish());
      sink_.reset();
    }
    WrittenFragment w;
    uint64_t rows = 0;
    ASSIGN_OR_RETURN(*w.frag.add_files(), FinishDataFile(&file_, &rows));
    w.frag.set_physical_rows(rows);
    if (stable_) {
      // The file's rows lead the per-row vectors (a batch may continue into the next file).
      const auto end = ids_.begin() + static_cast<std::ptrdiff_t>(rows);
      std::vector<uint64_t> preserved;
      for (auto it = ids_.begin(); it != end; ++it) {
        if (*it == kInsertedRow) {
          w.inserted.add(static_cast<uint32_t>(it - ids_.begin()));
        } else {
          preserved.push_back(*it);
        }
      }
      if (!preserved.empty()) w.preserved_ids = EncodeRowIds(preserved);
      w.created = EncodeRowVersions({created_.data(), static_cast<size_t>(rows)});
      ids_.erase(ids_.begin(), end);
      created_.erase(created_.begin(), created_.begin() + static_cast<std::ptrdiff_t>(rows));
    }
    rows_in_file_ = 0;
    fragments_.push_back(std::move(w));
    return Status::OK();
  }

  // One commit attempt on top of `base` (lineage-notes §3.3): fragments this edit
  // touches must still hold the rows it read; deletions others added to them are
  // merged unless they hit one of our rows.
  Result<PreparedCommit> Build(const CommitBase& base, std::vector<std::string>* attempt) {
    const uint64_t read_version = base_.version();
    if (!base.latest) return Status::NotFound(root_ + ": the dataset has no versions any more");
    for (const auto& [version, txn] : base.since_read) {
      if (txn && (txn->has_overwrite() || txn->has_restore())) {
        return Status::CommitConflict(root_ + ": version " + std::to_string(version) +
                                      " replaced the table (overwrite or restore) after version " +
                                      std::to_string(read_version) + " was read");
      }
      if (txn && txn->has_merge()) {
        return Status::CommitConflict(root_ + ": version " + std::to_string(version) + " changed the columns after " +
                                      "version " + std::to_string(read_version) + " was read");
      }
    }
    const Manifest& latest = *base.latest;
    if (!SameFields(read_.manifest, latest)) {
      return Status::CommitConflict(root_ + ": the schema changed after version " + std::to_string(read_version) +
                                    " was read");
    }
    if (((latest.reader_feature_flags() & kFlagStableRowIds) != 0) != stable_) {
      return Status::CommitConflict(root_ + ": stable row ids were switched after version " +
                                    std::to_string(read_version) + " was read");
    }
    PreparedCommit prep;
    Manifest& m = prep.manifest;
    m = latest;
    m.clear_fragments();
    auto* update = prep.transaction.mutable_update();
    std::set<uint64_t> seen;
    for (const DataFragment& frag : latest.fragments()) {
      auto t = touched_.find(frag.id());
      if (t == touched_.end()) {
        *m.add_fragments() = frag;
        continue;
      }
      seen.insert(frag.id());
      const Touched& touched = t->second;
      if (!SameDataFiles(frag, *touched.base)) {
        return Status::CommitConflict(root_ + ": fragment " + std::to_string(frag.id()) +
                                      " was rewritten after version " + std::to_string(read_version) + " was read");
      }
      Roaring current = touched.base_deleted;
      if (!SameDeletionFile(frag, *touched.base)) {
        if (frag.deletion_file().has_base_id()) {
          return Status::NotSupported(root_ + ": fragment " + std::to_string(frag.id()) +
                                      " keeps its deletion file under another base path");
        }
        ASSIGN_OR_RETURN(current,
                         ReadDeletionFile(*store_, JoinPath(root_, DeletionFileName(frag.id(), frag.deletion_file())),
                                          frag.deletion_file().file_type(), frag.physical_rows(),
                                          frag.deletion_file().num_deleted_rows()));
        if (current.intersect(touched.ours)) {
          return Status::CommitConflict(root_ + ": a concurrent commit deleted or rewrote rows of fragment " +
                                        std::to_string(frag.id()) + " that this change rewrites");
        }
      }
      Roaring merged = current | touched.ours;
      if (merged.cardinality() >= frag.physical_rows()) {
        update->add_removed_fragment_ids(frag.id());
        continue;
      }
      DataFragment changed = frag;
      std::string path;
      auto file = WriteDeletionFile(*store_, root_, frag.id(), read_version, merged, &path);
      if (!path.empty()) attempt->push_back(path);
      if (!file.ok()) return file.status();
      *changed.mutable_deletion_file() = *file;
      *m.add_fragments() = changed;
      *update->add_updated_fragments() = std::move(changed);
    }
    for (const auto& [id, touched] : touched_) {
      if (!seen.count(id)) {
        return Status::CommitConflict(root_ + ": fragment " + std::to_string(id) + " was removed after version " +
                                      std::to_string(read_version) + " was read");
      }
    }
    // New fragments: ids after everything used so far; with stable row ids, replaced
    // rows keep id and created_at, inserted ones get fresh ids, and every row is
    // stamped with this version (stamped per attempt: the version is known only now).
    const uint64_t version = base.latest_version + 1;
    std::optional<uint64_t> max = MaxFragmentId(latest);
    uint64_t next_id = max ? *max + 1 : 0;
    uint64_t next_row_id = latest.next_row_id();
    for (const WrittenFragment& w : fragments_) {
      DataFragment f = w.frag;
      f.set_id(next_id++);
      DataFragment txn_frag = w.frag;
      if (stable_) {
        const uint64_t n = f.physical_rows();
        if (w.inserted.isEmpty()) {
          f.set_inline_row_ids(w.preserved_ids);
          f.set_inline_created_at_versions(w.created);
        } else {
          // Fresh ids and this version for the inserted rows, in row order.
          std::optional<RowIdSequence> preserved;
          if (!w.preserved_ids.empty()) {
            ASSIGN_OR_RETURN(preserved, RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(w.preserved_ids.data()),
                                                              w.preserved_ids.size()},
                                                             root_ + ": rewritten row ids"));
          }
          ASSIGN_OR_RETURN(std::vector<uint64_t> created, DecodeRowVersions(w.created, n, root_ + ": created_at"));
          std::vector<uint64_t> ids(n);
          uint64_t kept = 0;
          for (uint64_t i = 0; i < n; ++i) {
            if (w.inserted.contains(static_cast<uint32_t>(i))) {
              ids[i] = next_row_id++;
              created[i] = version;
            } else {
              ids[i] = preserved->Get(kept++);
            }
          }
          f.set_inline_row_ids(EncodeRowIds(ids));
          f.set_inline_created_at_versions(EncodeRowVersions(created));
        }
        f.set_inline_last_updated_at_versions(EncodeRowVersions(std::vector<uint64_t>(n, version)));
        // The transaction carries only the ids already fixed (lineage-notes §1.2).
        if (!w.preserved_ids.empty()) txn_frag.set_inline_row_ids(w.preserved_ids);
      }
      *m.add_fragments() = f;
      *update->add_new_fragments() = std::move(txn_frag);
    }
    if (next_id > 0) m.set_max_fragment_id(static_cast<uint32_t>(next_id - 1));
    if (stable_) m.set_next_row_id(next_row_id);
    for (uint32_t id : modified_fields_) update->add_fields_for_preserving_frag_bitmap(id);
    ASSIGN_OR_RETURN(prep.index_section, ReadIndexSection(*store_, base.latest_path, latest));
    return prep;
  }

  const Dataset& base_;
  const WriteParams params_;
  std::shared_ptr<io::ObjectStore> store_;
  const std::string root_;
  const VersionManifest read_;
  bool stable_ = false;
  bool committed_ = false;
  std::map<uint64_t, const DataFragment*> by_id_;
  std::map<uint64_t, Touched> touched_;
  std::vector<uint32_t> modified_fields_;
  RewriteCounts counts_;

  size_t blob_columns_ = 0;  // top-level Blob V2 columns
  BlobWriteContext context_;
  std::unique_ptr<BlobSink> sink_;

  NewDataFile file_;
  uint64_t rows_in_file_ = 0;
  std::vector<WrittenFragment> fragments_;
  std::vector<std::string> written_;

  // Per row not yet in a finished file (stable row ids only): base row id or
  // kInsertedRow, and created_at.
  std::vector<uint64_t> ids_, created_;
  std::optional<uint64_t> lineage_frag_;
  std::optional<RowIdSequence> lineage_seq_;
  std::vector<uint64_t> lineage_created_;

  RewriteWriteBehind writes_;
};

}  // namespace

Result<std::unique_ptr<RowRewriter>> RowRewriter::Make(const Dataset& base, const WriteParams& params) {
  if (params.max_rows_per_file == 0 || params.max_rows_per_file > kRewriteMaxRowsPerFile) {
    return Status::InvalidArgument(base.root() + ": max_rows_per_file must be in [1, 2^32]");
  }
  ASSIGN_OR_RETURN(VersionManifest read, ReadVersionManifest(*base.store(), base.root(), base.version()));
  auto rewriter = std::make_unique<RowRewriterImpl>(base, params, std::move(read));
  RETURN_IF_ERROR(rewriter->Init());
  return std::unique_ptr<RowRewriter>(std::move(rewriter));
}

}  // namespace lancet::table
