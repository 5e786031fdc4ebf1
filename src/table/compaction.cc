// Compaction (reference: rust/lance/src/dataset/optimize.rs): runs of adjacent small
// fragments, and fragments with many deleted rows, are rewritten into new fragments and
// committed as one Rewrite.
#include "lancet/table/compaction.h"

#include <algorithm>
#include <map>

#include "table/blob_info.h"
#include "table/blob_input.h"
#include "table/commit.h"
#include "table/compaction_blobs.h"
#include "table/compaction_row_ids.h"
#include "table/evolution_io.h"
#include "table/index_section.h"
#include "table/manifest.h"

namespace lancet::table {
namespace {

using lance::table::DataFragment;
using lance::table::Manifest;

constexpr uint64_t kMaxRowsPerFragment = uint64_t{1} << 32;

// Fragment ids to rewrite together, in id order (optimize.rs `plan_compaction`).
std::vector<std::vector<uint64_t>> PlanGroups(const std::vector<FragmentInfo>& frags,
                                              const CompactionOptions& options) {
  struct Bin {
    std::vector<uint64_t> ids;
    std::vector<uint64_t> rows;
    bool itself = false;  // some member is worth rewriting even alone
  };
  std::vector<Bin> bins;
  std::optional<Bin> current;
  for (const FragmentInfo& f : frags) {
    double deleted =
        f.physical_rows == 0 ? 0.0 : static_cast<double>(f.deleted_rows) / static_cast<double>(f.physical_rows);
    bool itself =
        options.materialize_deletions && f.deleted_rows > 0 && deleted > options.materialize_deletions_threshold;
    bool small = f.physical_rows < options.target_rows_per_fragment;
    if (!itself && !small) {
      if (current) bins.push_back(std::move(*current));
      current.reset();
      continue;
    }
    if (!current) current.emplace();
    current->ids.push_back(f.id);
    current->rows.push_back(f.physical_rows - f.deleted_rows);
    current->itself = current->itself || itself;
  }
  if (current) bins.push_back(std::move(*current));

  std::vector<std::vector<uint64_t>> groups;
  for (Bin& bin : bins) {
    // One small fragment alone gains nothing from a rewrite.
    if (bin.ids.size() == 1 && !bin.itself) continue;
    // Split into groups of at least target rows, the remainder going to the last one.
    size_t begin = 0;
    while (begin < bin.ids.size()) {
      size_t end = begin;
      uint64_t rows = 0;
      while (end < bin.ids.size() && rows < options.target_rows_per_fragment) rows += bin.rows[end++];
      uint64_t rest = 0;
      for (size_t k = end; k < bin.ids.size(); ++k) rest += bin.rows[k];
      if (rest < options.target_rows_per_fragment) end = bin.ids.size();
      groups.emplace_back(bin.ids.begin() + static_cast<std::ptrdiff_t>(begin),
                          bin.ids.begin() + static_cast<std::ptrdiff_t>(end));
      begin = end;
    }
  }
  return groups;
}

// The per-row versions (created_at or last_updated_at) of an old fragment; rows of
// fragments without them count as created at version 1 (optimize.rs
// `recalc_versions_for_rewritten_fragments`).
Result<std::vector<uint64_t>> OldVersions(const DataFragment& frag, bool created, const std::string& context) {
  if (created ? frag.has_inline_created_at_versions() : frag.has_inline_last_updated_at_versions()) {
    return DecodeRowVersions(created ? frag.inline_created_at_versions() : frag.inline_last_updated_at_versions(),
                             frag.physical_rows(), context);
  }
  if (!created) return OldVersions(frag, true, context);
  return std::vector<uint64_t>(frag.physical_rows(), 1);
}

// Writes the rows of one group into new fragments of at most `target` rows each.
class GroupWriter {
 public:
  GroupWriter(const Dataset& dataset, uint64_t target, bool stable, std::vector<std::string>* written)
      : dataset_(dataset), target_(target), stable_(stable), written_(written) {
    for (size_t c = 0; c < dataset.schema().fields.size(); ++c) {
      const Field& f = dataset.schema().fields[c];
      if (!IsBlobV2Field(f)) continue;
      blob_columns_.push_back(c);
      // Thresholds were checked when the column was written; placement only needs
      // sane values, so unreadable metadata falls back to the defaults.
      auto thresholds = BlobThresholdsOf(f);
      blob_thresholds_.push_back(thresholds.ok() ? *thresholds : BlobThresholds{});
    }
  }

  Status Add(const DataFragment& old) {
    std::string context = dataset_.uri() + ": fragment " + std::to_string(old.id());
    if (old.has_external_row_ids() || old.has_external_created_at_versions() ||
        old.has_external_last_updated_at_versions()) {
      return Status::NotSupported(context + " keeps its row ids or row versions in an external file");
    }
    std::vector<uint64_t> created, updated;
    if (stable_) {
      ASSIGN_OR_RETURN(created, OldVersions(old, true, context));
      ASSIGN_OR_RETURN(updated, OldVersions(old, false, context));
    }
    ScanOptions scan;
    scan.fragment_ids = {old.id()};
    scan.with_row_id = stable_ || !blob_columns_.empty();
    scan.with_row_addr = stable_;
    ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, dataset_.Scan(scan));
    const size_t data_cols = dataset_.schema().fields.size();
    for (RecordBatch& b : batches) {
      std::span<const uint64_t> batch_ids;
      if (scan.with_row_id) batch_ids = {b.columns[data_cols].values<uint64_t>(), static_cast<size_t>(b.num_rows)};
      if (stable_) {
        const Array& ids = b.columns[data_cols];
        const Array& addrs = b.columns[data_cols + 1];
        for (int64_t i = 0; i < b.num_rows; ++i) {
          row_ids_.push_back(ids.values<uint64_t>()[i]);
          uint64_t offset = addrs.values<uint64_t>()[i] & 0xFFFFFFFFu;
          created_.push_back(created[offset]);
          updated_.push_back(updated[offset]);
        }
      }
      RETURN_IF_ERROR(Write(b, batch_ids));
    }
    return Status::OK();
  }

  Result<std::vector<DataFragment>> Finish() {
    if (file_.writer) RETURN_IF_ERROR(Cut());
    return std::move(out_);
  }

 private:
  // Writes the data columns of `batch` (blob columns as scanned descriptors, `row_ids`
  // naming its rows) into files of at most target_ rows.
  Status Write(const RecordBatch& batch, std::span<const uint64_t> row_ids) {
    const Schema& schema = dataset_.read_schema();
    int64_t offset = 0;
    while (offset < batch.num_rows) {
      if (!file_.writer) {
        ASSIGN_OR_RETURN(file_, OpenDataFile(dataset_.store(), dataset_.root(), schema, written_));
        if (!blob_columns_.empty()) {
          std::string stem = file_.name.substr(0, file_.name.size() - std::string_view(".lance").size());
          sink_ = std::make_unique<BlobSink>(dataset_.store(), JoinPath(dataset_.root(), "data/" + stem),
                                             file_.writer.get(), written_, nullptr);
        }
      }
      int64_t take = static_cast<int64_t>(
          std::min<uint64_t>(static_cast<uint64_t>(batch.num_rows - offset), target_ - rows_in_file_));
      RecordBatch slice{schema, take, {}};
      for (size_t c = 0; c < schema.fields.size(); ++c) {
        if (offset == 0 && take == batch.num_rows) {
          slice.columns.push_back(batch.columns[c]);
        } else {
          ASSIGN_OR_RETURN(Array piece, TakeRows(batch.columns[c], Iota(offset, take)));
          slice.columns.push_back(std::move(piece));
        }
      }
      for (size_t k = 0; k < blob_columns_.size(); ++k) {
        const size_t c = blob_columns_[k];
        ASSIGN_OR_RETURN(slice.columns[c],
                         ReplaceBlobs(dataset_, schema.fields[c].name, slice.columns[c],
                                      row_ids.subspan(static_cast<size_t>(offset), static_cast<size_t>(take)),
                                      blob_thresholds_[k], k, sink_.get()));
      }
      if (file_.minor_version == 3) {
        for (size_t c = 0; c < slice.columns.size(); ++c) {
          ASSIGN_OR_RETURN(slice.columns[c], BlobInfoToPhysical(schema.fields[c], slice.columns[c]));
        }
        slice.schema = file_.writer->schema();
      }
      RETURN_IF_ERROR(file_.writer->Write(slice));
      offset += take;
      rows_in_file_ += static_cast<uint64_t>(take);
      if (rows_in_file_ == target_) RETURN_IF_ERROR(Cut());
    }
    return Status::OK();
  }

  // Ends the current file as a new fragment. With stable row ids it carries the ids
  // (and row versions) of the rows it holds, so no row changes identity.
  Status Cut() {
    DataFragment frag;
    uint64_t rows = 0;
    if (sink_) {
      RETURN_IF_ERROR(sink_->Finish());
      sink_.reset();
    }
    ASSIGN_OR_RETURN(*frag.add_files(), FinishDataFile(&file_, &rows));
    frag.set_physical_rows(rows);
    if (stable_) {
      std::span<const uint64_t> ids(row_ids_.data() + first_row_, rows);
      frag.set_inline_row_ids(EncodeRowIds(ids));
      frag.set_inline_created_at_versions(EncodeRowVersions({created_.data() + first_row_, rows}));
      frag.set_inline_last_updated_at_versions(EncodeRowVersions({updated_.data() + first_row_, rows}));
    }
    first_row_ += rows;
    rows_in_file_ = 0;
    out_.push_back(std::move(frag));
    return Status::OK();
  }

  const Dataset& dataset_;
  const uint64_t target_;
  const bool stable_;
  std::vector<std::string>* written_;
  NewDataFile file_;
  uint64_t rows_in_file_ = 0;
  size_t first_row_ = 0;
  std::vector<size_t> blob_columns_;  // top-level Blob V2 columns
  std::vector<BlobThresholds> blob_thresholds_;
  std::unique_ptr<BlobSink> sink_;
  std::vector<uint64_t> row_ids_, created_, updated_;
  std::vector<DataFragment> out_;
};

struct Group {
  std::vector<DataFragment> old_frags;
  std::vector<DataFragment> new_frags;
};

}  // namespace

Result<CompactionMetrics> Compact(const Dataset& dataset, const CompactionOptions& options) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  if (options.target_rows_per_fragment == 0 || options.target_rows_per_fragment > kMaxRowsPerFragment) {
    return Status::InvalidArgument(root + ": target_rows_per_fragment must be in [1, 2^32]");
  }
  CompactionMetrics metrics;
  metrics.version = dataset.version();
  for (const Field& f : dataset.schema().fields) {
    if (!IsBlobV2Field(f) && HasBlobField(f)) {
      return Status::NotSupported(root + ": compaction of datasets with a Blob V2 column inside '" + f.name +
                                  "' is not supported yet (top-level blob columns are)");
    }
  }
  std::vector<std::vector<uint64_t>> plan = PlanGroups(dataset.fragments(), options);
  if (plan.empty()) return metrics;

  ASSIGN_OR_RETURN(VersionManifest read, ReadVersionManifest(*store, root, dataset.version()));
  const bool stable = (read.manifest.reader_feature_flags() & kFlagStableRowIds) != 0;
  std::map<uint64_t, const DataFragment*> by_id;
  for (const DataFragment& f : read.manifest.fragments()) by_id[f.id()] = &f;

  uint64_t rows_total = 0, rows_done = 0;
  std::map<uint64_t, uint64_t> live_rows;
  for (const FragmentInfo& f : dataset.fragments()) live_rows[f.id] = f.physical_rows - f.deleted_rows;
  for (const std::vector<uint64_t>& ids : plan) {
    for (uint64_t id : ids) rows_total += live_rows[id];
  }

  std::vector<std::string> written;
  std::vector<Group> groups;
  Status wrote = [&]() -> Status {
    for (const std::vector<uint64_t>& ids : plan) {
      Group g;
      GroupWriter writer(dataset, options.target_rows_per_fragment, stable, &written);
      for (uint64_t id : ids) {
        g.old_frags.push_back(*by_id.at(id));
        RETURN_IF_ERROR(writer.Add(g.old_frags.back()));
        rows_done += live_rows[id];
        if (options.progress) options.progress(rows_done, rows_total);
      }
      ASSIGN_OR_RETURN(g.new_frags, writer.Finish());
      groups.push_back(std::move(g));
    }
    return Status::OK();
  }();
  if (!wrote.ok()) {
    DeletePaths(*store, written);
    return wrote;
  }

  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    RETURN_IF_ERROR(CheckNotReplaced(base, root));
    std::map<uint64_t, const DataFragment*> latest;
    for (const DataFragment& f : base.latest->fragments()) latest[f.id()] = &f;
    // A delete, update or rewrite of a fragment since the read changed rows this
    // rewrite copied (transaction.rs: Rewrite vs Delete/Rewrite of the same fragment).
    std::set<uint64_t> replaced;
    for (const Group& g : groups) {
      for (const DataFragment& old : g.old_frags) {
        auto it = latest.find(old.id());
        if (it == latest.end() || !SameFragmentFiles(*it->second, old)) {
          return Status::CommitConflict(root + ": fragment " + std::to_string(old.id()) +
                                        " was changed or removed after version " +
                                        std::to_string(read.manifest.version()) + " was read");
        }
        replaced.insert(old.id());
      }
    }
    PreparedCommit prep;
    // Without stable row ids the rows' addresses change, so the new fragments count as
    // unindexed (scanned with the filter) until an optimize re-indexes them.
    ASSIGN_OR_RETURN(prep.index_section, ReadIndexSection(*store, base.latest_path, *base.latest));
    Manifest& m = prep.manifest;
    m = *base.latest;
    m.clear_fragments();
    std::vector<DataFragment> frags;
    for (const DataFragment& f : base.latest->fragments()) {
      if (!replaced.count(f.id())) frags.push_back(f);
    }
    std::optional<uint64_t> max = MaxFragmentId(*base.latest);
    uint64_t next = max ? *max + 1 : 0;
    auto* rewrite = prep.transaction.mutable_rewrite();
    for (const Group& g : groups) {
      auto* group = rewrite->add_groups();
      for (const DataFragment& old : g.old_frags) *group->add_old_fragments() = old;
      for (DataFragment f : g.new_frags) {
        f.set_id(next++);
        *group->add_new_fragments() = f;
        frags.push_back(std::move(f));
      }
    }
    // The reference keeps fragments sorted by id (transaction.rs `build_manifest`).
    std::sort(frags.begin(), frags.end(), [](const DataFragment& a, const DataFragment& b) { return a.id() < b.id(); });
    for (DataFragment& f : frags) *m.add_fragments() = std::move(f);
    m.set_max_fragment_id(static_cast<uint32_t>(next - 1));
    RETURN_IF_ERROR(RemapIndexFragments(stable, *rewrite, &prep.index_section, base.latest_path));
    return prep;
  };
  auto committed = CommitWithRetry(*store, root, dataset.version(), build, options.max_commit_attempts);
  if (!committed.ok()) {
    DeletePaths(*store, written);
    return committed.status();
  }
  metrics.version = *committed;
  for (const Group& g : groups) {
    metrics.fragments_removed += g.old_frags.size();
    metrics.fragments_added += g.new_frags.size();
    for (const DataFragment& f : g.old_frags) metrics.files_removed += f.files_size() + f.has_deletion_file();
    for (const DataFragment& f : g.new_frags) metrics.files_added += f.files_size();
  }
  return metrics;
}

}  // namespace lancet::table
