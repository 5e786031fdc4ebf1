// Cleanup: remove old manifests, then files no kept version references (the rules of the
// reference's dataset/cleanup.rs, plus blob sidecars).
#include "lancet/table/cleanup.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "table/commit.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/refs.h"

namespace lancet::table {
namespace {

using lance::table::Manifest;

// A file no manifest names may belong to a commit still being written; only this old can
// it be assumed abandoned (cleanup.rs UNVERIFIED_THRESHOLD_DAYS).
constexpr int64_t kUnverifiedAgeMs = int64_t{7} * 24 * 3600 * 1000;

// Paths (relative to the dataset root) that a set of manifests references.
struct References {
  std::set<std::string> files;        // data/, _deletions/, _transactions/ paths
  std::set<std::string> index_uuids;  // _indices/<uuid>/
};

Status AddReferences(const io::ObjectStore& store, const ManifestLocation& loc, const Manifest& m, References* refs) {
  for (const auto& frag : m.fragments()) {
    // Files under other base paths live outside this dataset's directory: never ours to remove.
    for (const auto& file : frag.files()) {
      if (!file.has_base_id()) refs->files.insert("data/" + file.path());
    }
    if (frag.has_deletion_file() && !frag.deletion_file().has_base_id()) {
      refs->files.insert(DeletionFileName(frag.id(), frag.deletion_file()));
    }
  }
  if (!m.transaction_file().empty()) refs->files.insert("_transactions/" + m.transaction_file());
  ASSIGN_OR_RETURN(std::vector<uint8_t> section, ReadIndexSection(store, loc.path, m));
  if (!section.empty()) {
    lance::table::IndexSection indices;
    if (!indices.ParseFromArray(section.data(), static_cast<int>(section.size()))) {
      return Status::Corruption(loc.path + ": index section is not a valid lance.table.IndexSection");
    }
    for (const auto& index : indices.indices()) refs->index_uuids.insert(FormatIndexUuid(index.uuid().uuid()));
  }
  return Status::OK();
}

// What other branches need from the dataset's directory (the reference keeps these,
// docs/format-notes/branches.md): the versions forked from, and every file one of their
// manifests reaches through a base path naming this directory.
Status AddBranchReferences(const Dataset& dataset, References* kept, std::set<uint64_t>* pinned) {
  const io::ObjectStore& store = *dataset.store();
  ASSIGN_OR_RETURN(std::vector<BranchInfo> branches, ReadBranches(store, dataset.table_root()));
  if (branches.empty()) return Status::OK();
  ASSIGN_OR_RETURN(std::string dir, AbsoluteDatasetDir(dataset.uri(), dataset.root()));
  for (const BranchInfo& b : branches) {
    if (b.name == dataset.branch()) continue;
    if (b.parent_branch == dataset.branch()) pinned->insert(b.parent_version);
    auto manifests = ListManifests(store, BranchRoot(dataset.table_root(), b.name));
    if (manifests.status().IsNotFound()) continue;
    RETURN_IF_ERROR(manifests.status());
    for (const ManifestLocation& loc : *manifests) {
      ASSIGN_OR_RETURN(Manifest m, ReadManifest(store, loc.path, loc.size));
      std::set<uint32_t> ours;
      for (const auto& bp : m.base_paths()) {
        if (bp.is_dataset_root() && bp.path() == dir) ours.insert(bp.id());
      }
      if (ours.empty()) continue;
      for (const auto& frag : m.fragments()) {
        for (const auto& file : frag.files()) {
          if (file.has_base_id() && ours.count(file.base_id())) kept->files.insert("data/" + file.path());
        }
        const auto& del = frag.deletion_file();
        if (frag.has_deletion_file() && del.has_base_id() && ours.count(del.base_id())) {
          kept->files.insert(DeletionFileName(frag.id(), del));
        }
      }
      ASSIGN_OR_RETURN(std::vector<uint8_t> section, ReadIndexSection(store, loc.path, m));
      lance::table::IndexSection indices;
      if (!section.empty() && !indices.ParseFromArray(section.data(), static_cast<int>(section.size()))) {
        return Status::Corruption(loc.path + ": index section is not a valid lance.table.IndexSection");
      }
      for (const auto& index : indices.indices()) {
        if (index.has_base_id() && ours.count(index.base_id())) {
          kept->index_uuids.insert(FormatIndexUuid(index.uuid().uuid()));
        }
      }
    }
  }
  return Status::OK();
}

struct ListedFile {
  std::string rel;  // relative to the dataset root
  uint64_t size = 0;
  std::optional<int64_t> modified_ms;
};

// Every file under `<root>/<dir>` (recursively); nothing if the directory is absent.
Status ListTree(const io::ObjectStore& store, const std::string& root, const std::string& dir,
                std::vector<ListedFile>* out) {
  auto listed = store.List(JoinPath(root, dir));
  if (listed.status().IsNotFound()) return Status::OK();
  RETURN_IF_ERROR(listed.status());
  for (const io::ObjectInfo& info : *listed) {
    std::string rel = dir + "/" + info.path;
    if (info.is_dir) {
      RETURN_IF_ERROR(ListTree(store, root, rel, out));
    } else {
      out->push_back({rel, info.size, info.modified_ms});
    }
  }
  return Status::OK();
}

// Temporary objects of an interrupted Put/PutIfAbsent (our local store's
// "<name>.tmp-<pid>-…" and the reference's "_versions/.tmp…").
bool IsTempFile(std::string_view rel) {
  std::string_view name = rel.substr(rel.rfind('/') + 1);
  return name.starts_with(".tmp") || name.find(".tmp-") != std::string_view::npos;
}

enum class Ref : uint8_t { kKept, kVerified, kUnverified, kNotOurs };

// What references `rel`: a kept manifest, only removed ones, or none. Files cleanup does
// not manage (manifests, tags, unknown kinds) are kNotOurs.
Ref Classify(std::string_view rel, const References& kept, const References& removed) {
  auto lookup = [&](const std::string& key) {
    if (kept.files.count(key)) return Ref::kKept;
    return removed.files.count(key) ? Ref::kVerified : Ref::kUnverified;
  };
  if (IsTempFile(rel)) return Ref::kUnverified;
  if (rel.starts_with("_indices/")) {
    std::string_view rest = rel.substr(9);
    std::string uuid(rest.substr(0, rest.find('/')));
    if (uuid.size() == rest.size()) return Ref::kNotOurs;  // a stray file, not an index directory
    if (kept.index_uuids.count(uuid)) return Ref::kKept;
    return removed.index_uuids.count(uuid) ? Ref::kVerified : Ref::kUnverified;
  }
  if (rel.starts_with("data/")) {
    if (rel.ends_with(".lance")) return lookup(std::string(rel));
    // Blob sidecars live in data/<data file name without .lance>/ and share its fate.
    if (rel.ends_with(".blob")) {
      std::string_view dir = rel.substr(0, rel.rfind('/'));
      if (dir == "data") return Ref::kNotOurs;
      return lookup(std::string(dir) + ".lance");
    }
    return Ref::kNotOurs;
  }
  if (rel.starts_with("_deletions/") && (rel.ends_with(".arrow") || rel.ends_with(".bin"))) {
    return lookup(std::string(rel));
  }
  if (rel.starts_with("_transactions/") && rel.ends_with(".txn")) return lookup(std::string(rel));
  return Ref::kNotOurs;
}

// Slices of a DeleteMany, so a long cleanup can say how far it got; each slice is still
// one batched request series for the store.
Result<std::vector<bool>> DeleteReporting(io::ObjectStore& store, const std::vector<std::string>& paths,
                                          const CleanupOptions& options, std::string_view phase) {
  constexpr size_t kSlice = 1000;
  std::vector<bool> gone;
  gone.reserve(paths.size());
  for (size_t begin = 0; begin < paths.size(); begin += kSlice) {
    const size_t end = std::min(paths.size(), begin + kSlice);
    ASSIGN_OR_RETURN(std::vector<bool> part,
                     store.DeleteMany(std::vector<std::string>(paths.begin() + static_cast<std::ptrdiff_t>(begin),
                                                               paths.begin() + static_cast<std::ptrdiff_t>(end))));
    gone.insert(gone.end(), part.begin(), part.end());
    if (options.progress) options.progress(phase, end, paths.size());
  }
  return gone;
}

}  // namespace

Result<CleanupStats> Cleanup(const Dataset& dataset, const CleanupOptions& options) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  if (options.older_than.count() < 0) return Status::InvalidArgument(root + ": cleanup older_than is negative");
  // Nanoseconds, as manifests record them: with older_than = 0 even a version committed a moment ago is old.
  const int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const int64_t now_ms = now_ns / 1000000;
  // 128 bits: neither a huge older_than nor a hostile manifest timestamp can overflow.
  const __int128 cutoff_ns = __int128{now_ns} - __int128{options.older_than.count()} * 1000000000;
  ASSIGN_OR_RETURN(auto tags, ReadTags(*store, dataset.table_root()));
  std::set<uint64_t> tagged;
  for (const auto& [name, tag] : tags) {
    if (tag.branch == dataset.branch() || (tag.branch == "main" && dataset.branch().empty()))
      tagged.insert(tag.version);
  }
  References kept, removed;
  RETURN_IF_ERROR(AddBranchReferences(dataset, &kept, &tagged));

  ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(*store, root));
  std::vector<const ManifestLocation*> old;
  uint64_t manifests_read = 0;
  for (const ManifestLocation& loc : manifests) {
    if (options.progress) options.progress("reading manifests", manifests_read++, manifests.size());
    // An unreadable manifest stops the cleanup: guessing could delete files it needs.
    ASSIGN_OR_RETURN(Manifest m, ReadManifest(*store, loc.path, loc.size));
    __int128 ts_ns = __int128{m.timestamp().seconds()} * 1000000000 + m.timestamp().nanos();
    // Versions from the opened one on are kept even if old: newer ones may have been
    // committed after the caller looked (cleanup.rs is_latest).
    bool keep = loc.version >= dataset.version() || tagged.count(loc.version) || ts_ns >= cutoff_ns;
    RETURN_IF_ERROR(AddReferences(*store, loc, m, keep ? &kept : &removed));
    if (!keep) old.push_back(&loc);
  }

  CleanupStats stats;
  // Manifests first: if cleanup stops half way, the files it did not reach are orphans of
  // removed versions, never files a remaining manifest still names.
  std::vector<std::string> doomed;
  std::vector<uint64_t> sizes;
  for (const ManifestLocation* loc : old) {
    doomed.push_back(loc->path);
    sizes.push_back(loc->size != 0 ? loc->size : store->Size(loc->path).ValueOr(0));
  }
  ASSIGN_OR_RETURN(std::vector<bool> gone, DeleteReporting(*store, doomed, options, "deleting old manifests"));
  for (size_t i = 0; i < gone.size(); ++i) {
    if (!gone[i]) continue;  // a concurrent cleanup was first
    ++stats.old_versions;
    ++stats.files_removed;
    stats.bytes_removed += sizes[i];
  }

  auto may_be_in_progress = [&](const std::optional<int64_t>& modified_ms) {
    // Of unknown age counts as young.
    return !options.delete_unverified && (!modified_ms || *modified_ms > now_ms - kUnverifiedAgeMs);
  };
  std::vector<ListedFile> files;
  for (const char* dir : {"data", "_deletions", "_transactions", "_indices", "_versions"}) {
    RETURN_IF_ERROR(ListTree(*store, root, dir, &files));
  }
  doomed.clear();
  sizes.clear();
  for (const ListedFile& f : files) {
    Ref ref = Classify(f.rel, kept, removed);
    if (ref == Ref::kKept || ref == Ref::kNotOurs) continue;
    if (ref == Ref::kUnverified && may_be_in_progress(f.modified_ms)) continue;
    doomed.push_back(JoinPath(root, f.rel));
    sizes.push_back(f.size);
  }
  ASSIGN_OR_RETURN(gone, DeleteReporting(*store, doomed, options, "deleting unused files"));
  for (size_t i = 0; i < gone.size(); ++i) {
    if (!gone[i]) continue;  // removed by someone else meanwhile
    ++stats.files_removed;
    stats.bytes_removed += sizes[i];
  }

  // A writer that crashed mid-upload leaves parts no listing shows; like an unreferenced
  // file, an upload may belong to a commit in progress until it is old.
  ASSIGN_OR_RETURN(std::vector<io::PendingUpload> uploads, store->ListUploads(root));
  for (const io::PendingUpload& u : uploads) {
    if (may_be_in_progress(u.initiated_ms)) continue;
    Status st = store->AbortUpload(u);
    if (st.IsNotFound()) continue;
    RETURN_IF_ERROR(st);
    ++stats.uploads_aborted;
  }
  return stats;
}

}  // namespace lancet::table
