// Table writer: WriteDataset, DeleteRows, Restore and tags (docs/format §1, §2, §4, §5).
#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>
#include <roaring/roaring.hh>

#include "lancet/io/uri.h"
#include "lancet/record_batch_reader.h"
#include "lancet/table/write.h"
#include "table/commit.h"
#include "table/deletion.h"
#include "table/deletion_writer.h"
#include "table/manifest.h"
#include "table/write_plan.h"

namespace lancet::table {
namespace {

using lance::table::DataFragment;
using lance::table::Manifest;

std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

Result<uint64_t> WriteDataset(std::shared_ptr<io::ObjectStore> store, const std::string& root, RecordBatchReader& input,
                              const WriteParams& params) {
  ASSIGN_OR_RETURN(WritePlan plan, PlanWrite(store, root, input, params));
  RecordBatchReader& batches = plan.converted ? *plan.converted : input;
  std::vector<std::string> data_files;
  auto frags = WriteDataFiles(store, plan, batches, params.max_rows_per_file, &data_files);
  if (!frags.ok()) {
    // Nothing references these files yet.
    DeleteAll(*store, data_files);
    return frags.status();
  }
  WriteCommitInput in;
  in.root = plan.root;
  in.mode = params.mode;
  in.append = plan.append;
  in.had_read = plan.read.has_value();
  in.lance_fields = plan.lance_fields;
  in.schema_metadata = plan.write_schema.metadata;
  in.fragments = std::move(*frags);
  in.new_bases = plan.new_bases;
  in.blob_info = plan.blobs.blob_info;
  in.enable_stable_row_ids = params.enable_stable_row_ids;
  auto committed =
      CommitWithRetry(*store, plan.root, plan.read_version, BuildWriteCommit(*store, in), params.max_commit_attempts);
  if (!committed.ok()) DeleteAll(*store, data_files);
  return committed;
}

Result<uint64_t> WriteDataset(std::shared_ptr<io::ObjectStore> store, const std::string& root, const Schema& schema,
                              std::vector<RecordBatch> batches, const WriteParams& params) {
  std::unique_ptr<RecordBatchReader> reader = MakeBatchVectorReader(schema, std::move(batches));
  return WriteDataset(std::move(store), root, *reader, params);
}

Result<uint64_t> WriteDataset(const std::string& uri, RecordBatchReader& batches, const WriteParams& params) {
  if (uri.empty()) return Status::InvalidArgument("WriteDataset needs a path");
  ASSIGN_OR_RETURN(io::ResolvedUri where, io::ResolveUri(uri, params.storage_options));
  return WriteDataset(std::move(where.store), where.root, batches, params);
}

Result<uint64_t> WriteDataset(const std::string& uri, const Schema& schema, std::vector<RecordBatch> batches,
                              const WriteParams& params) {
  std::unique_ptr<RecordBatchReader> reader = MakeBatchVectorReader(schema, std::move(batches));
  return WriteDataset(uri, *reader, params);
}

Result<uint64_t> DeleteRows(const Dataset& dataset, std::span<const uint64_t> row_addresses, int max_commit_attempts) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  const uint64_t read_version = dataset.version();
  // Offsets to delete per fragment, checked against the version the caller saw.
  std::map<uint64_t, Roaring> targets;
  std::map<uint64_t, std::vector<std::string>> read_files;
  std::map<uint64_t, uint64_t> physical;
  for (const FragmentInfo& f : dataset.fragments()) {
    physical[f.id] = f.physical_rows;
    for (const DataFileInfo& d : f.files) read_files[f.id].push_back(d.path);
  }
  for (uint64_t addr : row_addresses) {
    uint64_t frag = addr >> 32, offset = addr & 0xFFFFFFFFu;
    auto it = physical.find(frag);
    if (it == physical.end() || offset >= it->second) {
      return Status::NotFound(root + ": row address " + std::to_string(addr) + " (fragment " + std::to_string(frag) +
                              ", offset " + std::to_string(offset) + ") is not in version " +
                              std::to_string(read_version));
    }
    targets[frag].add(static_cast<uint32_t>(offset));
  }

  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    if (!base.latest) return Status::NotFound(root + ": the dataset has no versions any more");
    std::set<uint64_t> gone_by_delete;
    for (const auto& [version, txn] : base.since_read) {
      if (IsReplacement(txn)) return Status::CommitConflict(DescribeReplacement(root, version));
      if (txn && txn->has_delete_()) {
        for (uint64_t id : txn->delete_().deleted_fragment_ids()) gone_by_delete.insert(id);
      }
    }
    PreparedCommit prep;
    Manifest& m = prep.manifest;
    m = *base.latest;
    m.clear_fragments();
    auto* del = prep.transaction.mutable_delete_();
    std::set<uint64_t> seen;
    for (const DataFragment& frag : base.latest->fragments()) {
      auto t = targets.find(frag.id());
      if (t == targets.end()) {
        *m.add_fragments() = frag;
        continue;
      }
      seen.insert(frag.id());
      // The offsets name rows of the data files the caller read; a rewrite (update,
      // compaction) moved those rows elsewhere.
      std::vector<std::string> now;
      for (const auto& d : frag.files()) now.push_back(d.path());
      if (now != read_files[frag.id()]) {
        return Status::CommitConflict(root + ": fragment " + std::to_string(frag.id()) +
                                      " was rewritten after version " + std::to_string(read_version));
      }
      Roaring merged = t->second;
      uint64_t already = 0;
      if (frag.has_deletion_file()) {
        if (frag.deletion_file().has_base_id()) {
          return Status::NotSupported(root + ": fragment " + std::to_string(frag.id()) +
                                      " keeps its deletion file under another base path");
        }
        std::string path = JoinPath(root, DeletionFileName(frag.id(), frag.deletion_file()));
        ASSIGN_OR_RETURN(Roaring current,
                         ReadDeletionFile(*store, path, frag.deletion_file().file_type(), frag.physical_rows(),
                                          frag.deletion_file().num_deleted_rows()));
        already = current.cardinality();
        merged |= current;
      }
      if (merged.cardinality() == already) {  // nothing new for this fragment
        *m.add_fragments() = frag;
        continue;
      }
      if (merged.cardinality() >= frag.physical_rows()) {
        // Every row is gone: the fragment leaves the manifest (peer README).
        del->add_deleted_fragment_ids(frag.id());
        continue;
      }
      DataFragment updated = frag;
      std::string written;
      ASSIGN_OR_RETURN(*updated.mutable_deletion_file(),
                       WriteDeletionFile(*store, root, frag.id(), read_version, merged, &written));
      prep.attempt_files.push_back(written);
      *m.add_fragments() = updated;
      *del->add_updated_fragments() = updated;
    }
    for (const auto& [id, offsets] : targets) {
      if (!seen.count(id) && !gone_by_delete.count(id)) {
        return Status::CommitConflict(root + ": fragment " + std::to_string(id) + " was removed after version " +
                                      std::to_string(read_version));
      }
    }
    ASSIGN_OR_RETURN(prep.index_section, ReadIndexSection(*store, base.latest_path, *base.latest));
    return prep;
  };
  return CommitWithRetry(*store, root, read_version, build, max_commit_attempts);
}

Result<uint64_t> Restore(const Dataset& dataset, uint64_t version, int max_commit_attempts) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(*store, root));
  const ManifestLocation* loc = nullptr;
  for (const ManifestLocation& m : manifests) {
    if (m.version == version) loc = &m;
  }
  if (loc == nullptr) {
    return Status::NotFound(root + ": cannot restore version " + std::to_string(version) + ": it does not exist");
  }
  ASSIGN_OR_RETURN(Manifest old, ReadManifest(*store, loc->path, loc->size));
  RETURN_IF_ERROR(CheckReaderFeatureFlags(old, loc->path));
  ASSIGN_OR_RETURN(std::vector<uint8_t> old_indices, ReadIndexSection(*store, loc->path, old));

  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    PreparedCommit prep;
    Manifest& m = prep.manifest;
    m = old;
    prep.index_section = old_indices;
    if (base.latest) {
      // Ids and stable row ids handed out since `version` must not come back.
      std::optional<uint64_t> a = MaxFragmentId(*base.latest), b = MaxFragmentId(old);
      if (a || b) m.set_max_fragment_id(static_cast<uint32_t>(std::max(a.value_or(0), b.value_or(0))));
      m.set_next_row_id(std::max(old.next_row_id(), base.latest->next_row_id()));
    }
    prep.transaction.mutable_restore()->set_version(version);
    return prep;
  };
  return CommitWithRetry(*store, root, dataset.version(), build, max_commit_attempts);
}

Status CreateTag(const Dataset& dataset, const std::string& name, uint64_t version) {
  RETURN_IF_ERROR(ValidateTagName(name));
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(*store, root));
  const ManifestLocation* loc = nullptr;
  for (const ManifestLocation& m : manifests) {
    if (m.version == version) loc = &m;
  }
  if (loc == nullptr) {
    return Status::NotFound(root + ": cannot tag version " + std::to_string(version) + ": it does not exist");
  }
  uint64_t size = loc->size;
  if (size == 0) {
    ASSIGN_OR_RETURN(size, store->Size(loc->path));
  }
  // lance 12 requires the camelCase key (notes §13.4); other keys are optional.
  // Tags live with the table, whichever branch they name.
  nlohmann::json branch = dataset.branch().empty() ? nlohmann::json(nullptr) : nlohmann::json(dataset.branch());
  nlohmann::json j = {{"branch", branch}, {"version", version}, {"manifestSize", size}};
  std::string text = j.dump();
  std::string path = JoinPath(dataset.table_root(), "_refs/tags/" + name + ".json");
  Status st = store->PutIfAbsent(path, AsBytes(text));
  if (st.code() == StatusCode::kAlreadyExists) return Status::AlreadyExists(path + ": tag '" + name + "' exists");
  return st;
}

Status DeleteTag(const Dataset& dataset, const std::string& name) {
  RETURN_IF_ERROR(ValidateTagName(name));
  std::string path = JoinPath(dataset.table_root(), "_refs/tags/" + name + ".json");
  Status st = dataset.store()->Delete(path);
  if (st.IsNotFound()) return Status::NotFound(path + ": tag '" + name + "' not found");
  return st;
}

}  // namespace lancet::table
