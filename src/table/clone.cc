// Shallow and deep clones (docs/format-notes/branches.md).
#include "lancet/table/clone.h"

#include <chrono>
#include <set>

#include "lancet/io/uri.h"
#include "table/blob.h"
#include "table/clone_write.h"
#include "table/commit.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/refs.h"

namespace lancet::table {
namespace {

using lance::table::Manifest;
using lance::table::Transaction;

constexpr uint64_t kFlagMultipleBases = 16;
constexpr uint64_t kCloneCopyChunk = 8 << 20;

struct SourceVersion {
  Manifest manifest;
  std::vector<uint8_t> index_section;
  std::string dir;  // absolute local directory of the source dataset
};

Result<SourceVersion> LoadSourceVersion(const Dataset& source) {
  const io::ObjectStore& store = *source.store();
  ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(store, source.root()));
  const ManifestLocation* loc = nullptr;
  for (const ManifestLocation& m : manifests) {
    if (m.version == source.version()) loc = &m;
  }
  if (loc == nullptr) {
    return Status::NotFound(source.root() + ": version " + std::to_string(source.version()) +
                            " disappeared before it could be cloned");
  }
  SourceVersion out;
  ASSIGN_OR_RETURN(out.manifest, ReadManifest(store, loc->path, loc->size));
  ASSIGN_OR_RETURN(out.index_section, ReadIndexSection(store, loc->path, out.manifest));
  ASSIGN_OR_RETURN(out.dir, AbsoluteDatasetDir(source.uri(), source.root()));
  return out;
}

Status CheckCloneTarget(const io::ObjectStore& store, const std::string& target_root) {
  auto listed = ListManifests(store, target_root);
  if (listed.ok() && !listed->empty()) {
    return Status::AlreadyExists(target_root + ": a dataset already exists there (latest version " +
                                 std::to_string(listed->back().version) + ")");
  }
  if (!listed.ok() && !listed.status().IsNotFound()) return listed.status();
  return Status::OK();
}

void StampCloneManifest(Manifest* m, const std::string& txn_name) {
  auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  m->mutable_timestamp()->set_seconds(nanos / 1000000000);
  m->mutable_timestamp()->set_nanos(static_cast<int32_t>(nanos % 1000000000));
  m->mutable_writer_version()->Clear();
  m->mutable_writer_version()->set_library(kWriterLibrary);
  m->mutable_writer_version()->set_version(kWriterLibraryVersion);
  m->set_transaction_file(txn_name);
  m->clear_tag();
}

// Writes the transaction file, the manifest (create-if-absent) and the version hint.
Status PutCloneVersion(io::ObjectStore& store, const std::string& root, Manifest m,
                       const std::vector<uint8_t>& index_section, Transaction txn, CloneStats* stats) {
  const std::string txn_name = std::to_string(m.version()) + "-" + txn.uuid() + ".txn";
  StampCloneManifest(&m, txn_name);
  std::string txn_bytes = txn.SerializeAsString();
  RETURN_IF_ERROR(store.Put(JoinPath(root, "_transactions/" + txn_name),
                            std::span(reinterpret_cast<const uint8_t*>(txn_bytes.data()), txn_bytes.size())));
  std::vector<uint8_t> file = EncodeManifestFile(m, index_section, &txn);
  std::string path = JoinPath(root, "_versions/" + ManifestFileNameV2(m.version()));
  Status put = store.PutIfAbsent(path, file);
  if (!put.ok()) {
    (void)store.Delete(JoinPath(root, "_transactions/" + txn_name));
    if (put.code() == StatusCode::kAlreadyExists)
      return Status::AlreadyExists(path + ": the clone target was written concurrently");
    return put;
  }
  std::string hint = "{\"version\":" + std::to_string(m.version()) + "}";
  (void)store.Put(JoinPath(root, "_versions/latest_version_hint.json"),
                  std::span(reinterpret_cast<const uint8_t*>(hint.data()), hint.size()));
  stats->version = m.version();
  stats->files_written += 2;
  stats->bytes_written += txn_bytes.size() + file.size();
  return Status::OK();
}

Transaction CloneTransaction(const Dataset& source, const std::string& source_dir, bool shallow,
                             const std::string& branch) {
  Transaction txn;
  txn.set_read_version(source.version());
  txn.set_uuid(NewUuid());
  Transaction::Clone* clone = txn.mutable_clone();
  clone->set_is_shallow(shallow);
  if (!source.branch().empty()) clone->set_ref_name(source.branch());
  clone->set_ref_version(source.version());
  clone->set_ref_path(source_dir);
  if (!branch.empty()) clone->set_branch_name(branch);
  return txn;
}

// The base id naming `dir` as a dataset root in `m`, added (as the reference numbers
// them: one past the largest, 0 for the first) when absent.
uint32_t RootBaseId(Manifest* m, const std::string& dir, const std::string& name) {
  uint32_t next = 0;
  for (const auto& bp : m->base_paths()) {
    if (bp.is_dataset_root() && bp.path() == dir) return bp.id();
    next = std::max(next, bp.id() + 1);
  }
  lance::table::BasePath* bp = m->add_base_paths();
  bp->set_id(next);
  if (!name.empty()) bp->set_name(name);
  bp->set_is_dataset_root(true);
  bp->set_path(dir);
  return next;
}

Result<std::vector<uint8_t>> RebaseIndexSection(const std::vector<uint8_t>& section, uint32_t base_id,
                                                const std::string& what) {
  if (section.empty()) return section;
  lance::table::IndexSection indices;
  if (!indices.ParseFromArray(section.data(), static_cast<int>(section.size()))) {
    return Status::Corruption(what + ": index section is not a valid lance.table.IndexSection");
  }
  for (auto& index : *indices.mutable_indices()) {
    if (!index.has_base_id()) index.set_base_id(base_id);
  }
  std::string bytes = indices.SerializeAsString();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

// Where a file of `m` with `base` lives: `dir` for no base, else the base's directory.
Result<std::string> CloneFileDir(const Manifest& m, const std::string& dir, bool has_base, uint32_t base,
                                 const char* sub) {
  if (!has_base) return JoinPath(dir, sub);
  for (const auto& bp : m.base_paths()) {
    if (bp.id() != base) continue;
    ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(bp.path(), dir));
    return bp.is_dataset_root() ? JoinPath(path, sub) : path;
  }
  return Status::Corruption(dir + ": base path id " + std::to_string(base) + " is not defined");
}

Status CopyObject(io::ObjectStore& store, const std::string& from, const std::string& to, CloneStats* stats) {
  ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> in, store.OpenRead(from));
  ASSIGN_OR_RETURN(uint64_t size, in->Size());
  ASSIGN_OR_RETURN(std::unique_ptr<io::ObjectWriter> out, store.OpenWrite(to));
  for (uint64_t pos = 0; pos < size; pos += kCloneCopyChunk) {
    ASSIGN_OR_RETURN(BufferPtr chunk, in->ReadAt(pos, std::min(kCloneCopyChunk, size - pos)));
    RETURN_IF_ERROR(out->Append(std::span(chunk->data(), chunk->size())));
  }
  RETURN_IF_ERROR(out->Close());
  ++stats->files_written;
  stats->bytes_written += size;
  return Status::OK();
}

// Copies every object under `from` (recursively) to `to`; nothing if it is absent.
Status CopyTree(io::ObjectStore& store, const std::string& from, const std::string& to, CloneStats* stats) {
  auto listed = store.List(from);
  if (listed.status().IsNotFound()) return Status::OK();
  RETURN_IF_ERROR(listed.status());
  for (const io::ObjectInfo& info : *listed) {
    std::string src = JoinPath(from, info.path), dst = JoinPath(to, info.path);
    RETURN_IF_ERROR(info.is_dir ? CopyTree(store, src, dst, stats) : CopyObject(store, src, dst, stats));
  }
  return Status::OK();
}

// Copies the version's data files (with blob sidecars), deletion files and indices into
// `target`, so that none of them needs a dataset-root base any more.
Status DeepCopyFiles(io::ObjectStore& store, SourceVersion* src, const std::string& target, CloneStats* stats) {
  Manifest& m = src->manifest;
  std::set<uint32_t> external;
  for (const auto& bp : m.base_paths()) {
    if (!bp.is_dataset_root()) external.insert(bp.id());
  }
  for (auto& frag : *m.mutable_fragments()) {
    for (auto& file : *frag.mutable_files()) {
      if (file.has_base_id() && external.count(file.base_id())) continue;
      ASSIGN_OR_RETURN(std::string dir, CloneFileDir(m, src->dir, file.has_base_id(), file.base_id(), "data"));
      std::string from = JoinPath(dir, file.path()), to = JoinPath(target, "data/" + file.path());
      RETURN_IF_ERROR(CopyObject(store, from, to, stats));
      std::string stem = file.path().substr(0, file.path().size() - std::string_view(".lance").size());
      RETURN_IF_ERROR(CopyTree(store, JoinPath(dir, stem), JoinPath(target, "data/" + stem), stats));
      file.clear_base_id();
    }
    if (frag.has_deletion_file()) {
      auto* del = frag.mutable_deletion_file();
      ASSIGN_OR_RETURN(std::string dir, CloneFileDir(m, src->dir, del->has_base_id(), del->base_id(), ""));
      std::string name = DeletionFileName(frag.id(), *del);
      RETURN_IF_ERROR(CopyObject(store, JoinPath(dir, name), JoinPath(target, name), stats));
      del->clear_base_id();
    }
  }
  if (!src->index_section.empty()) {
    lance::table::IndexSection indices;
    if (!indices.ParseFromArray(src->index_section.data(), static_cast<int>(src->index_section.size()))) {
      return Status::Corruption(src->dir + ": index section is not a valid lance.table.IndexSection");
    }
    for (auto& index : *indices.mutable_indices()) {
      ASSIGN_OR_RETURN(std::string dir, CloneFileDir(m, src->dir, index.has_base_id(), index.base_id(), "_indices"));
      std::string uuid = FormatIndexUuid(index.uuid().uuid());
      RETURN_IF_ERROR(CopyTree(store, JoinPath(dir, uuid), JoinPath(target, "_indices/" + uuid), stats));
      index.clear_base_id();
    }
    std::string bytes = indices.SerializeAsString();
    src->index_section.assign(bytes.begin(), bytes.end());
  }
  // Dataset-root bases are unused now; external blob bases still name files outside.
  auto* bases = m.mutable_base_paths();
  for (int i = bases->size() - 1; i >= 0; --i) {
    if (bases->Get(i).is_dataset_root()) bases->DeleteSubrange(i, 1);
  }
  if (bases->empty()) {
    m.set_reader_feature_flags(m.reader_feature_flags() & ~kFlagMultipleBases);
    m.set_writer_feature_flags(m.writer_feature_flags() & ~kFlagMultipleBases);
  }
  return Status::OK();
}

}  // namespace

Result<CloneStats> WriteShallowClone(const Dataset& source, io::ObjectStore& store, const std::string& target_root,
                                     const std::string& branch) {
  RETURN_IF_ERROR(CheckCloneTarget(store, target_root));
  ASSIGN_OR_RETURN(SourceVersion src, LoadSourceVersion(source));
  Manifest m = std::move(src.manifest);
  const uint32_t base = RootBaseId(&m, src.dir, source.branch());
  for (auto& frag : *m.mutable_fragments()) {
    for (auto& file : *frag.mutable_files()) {
      if (!file.has_base_id()) file.set_base_id(base);
    }
    if (frag.has_deletion_file() && !frag.deletion_file().has_base_id())
      frag.mutable_deletion_file()->set_base_id(base);
  }
  ASSIGN_OR_RETURN(std::vector<uint8_t> index_section, RebaseIndexSection(src.index_section, base, src.dir));
  if (branch.empty()) {
    m.clear_branch();
  } else {
    m.set_branch(branch);
  }
  m.set_reader_feature_flags(m.reader_feature_flags() | kFlagMultipleBases);
  m.set_writer_feature_flags(m.writer_feature_flags() | kFlagMultipleBases);
  CloneStats stats;
  RETURN_IF_ERROR(PutCloneVersion(store, target_root, std::move(m), index_section,
                                  CloneTransaction(source, src.dir, true, branch), &stats));
  return stats;
}

Result<CloneStats> CloneDataset(const Dataset& source, const std::string& target_uri, const CloneOptions& options) {
  if (io::IsRemoteUri(target_uri)) {
    return Status::NotSupported(target_uri + ": clones into remote stores are not supported yet");
  }
  ASSIGN_OR_RETURN(std::string target, AbsoluteDatasetDir(target_uri, target_uri));
  std::shared_ptr<io::ObjectStore> store = source.store();
  if (!options.deep) return WriteShallowClone(source, *store, target, "");
  RETURN_IF_ERROR(CheckCloneTarget(*store, target));
  ASSIGN_OR_RETURN(SourceVersion src, LoadSourceVersion(source));
  CloneStats stats;
  RETURN_IF_ERROR(DeepCopyFiles(*store, &src, target, &stats));
  Manifest m = std::move(src.manifest);
  m.clear_branch();
  RETURN_IF_ERROR(PutCloneVersion(*store, target, std::move(m), src.index_section,
                                  CloneTransaction(source, src.dir, false, ""), &stats));
  return stats;
}

}  // namespace lancet::table
