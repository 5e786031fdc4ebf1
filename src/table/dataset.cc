// Dataset: opening a version of a Lance table and reading it (docs/format §1-§5, §10).
#include "lancet/table/dataset.h"
#include "util/thread_pool.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <unordered_map>

#include <roaring/roaring.hh>

#include "format/lance_schema.h"
#include "lancet/format/file_reader.h"
#include "lancet/io/uri.h"
#include "table/blob.h"
#include "table/blob_info.h"
#include "table/blob_read.h"
#include "table/commit.h"
#include "table/deletion.h"
#include "table/external_stores.h"
#include "table/index_section.h"
#include "table/manifest.h"
#include "table/refs.h"
#include "table/row_id_sequence.h"
#include "table/row_meta.h"
#include "table/scan_projection.h"
#include "table/scanner.h"
#include "util/allocator_tuning.h"
#include "util/array_builder.h"
#include "util/interleave.h"

namespace lancet::table {
namespace {

using lance::table::DataFile;
using lance::table::DataFragment;
using lance::table::Manifest;

constexpr const char* kDataDir = "data";

uint64_t RowAddress(uint64_t fragment_id, uint64_t offset) { return (fragment_id << 32) | offset; }

void CollectLeaves(const Field& field, std::vector<const Field*>* out) {
  if (format::IsLeafField(field)) {
    out->push_back(&field);
    return;
  }
  for (const Field& child : field.type.children) CollectLeaves(child, out);
}

// A data file path must stay inside the directory it is resolved against.
Status CheckRelativePath(std::string_view path, const std::string& manifest_path, std::string_view what) {
  if (path.empty() || path.front() == '/' || path == ".." || path.starts_with("../") ||
      path.find("/../") != std::string_view::npos || path.ends_with("/..")) {
    return Status::Corruption(manifest_path + ": " + std::string(what) + " path '" + std::string(path) +
                              "' is empty, absolute or leaves its directory");
  }
  return Status::OK();
}

// Per fragment: the manifest message plus what we derive from it at open.
struct FragmentState {
  const DataFragment* pb = nullptr;
  std::vector<std::string> file_paths;  // full path of each DataFile
  std::vector<std::string> file_dirs;   // directory each DataFile sits in
  // Field id → (index into files, column index). Only ids with a column.
  std::unordered_map<int32_t, std::pair<int, int>> columns;
  std::optional<RowIdSequence> row_ids;
  // Stable row ids only: per-row versions, or why they cannot be read (reported when
  // asked for, so a bad sequence does not stop plain scans).
  RowVersions created_at, last_updated;
  Status lineage = Status::OK();
  std::string deletion_path;
};

class DatasetImpl final : public Dataset, public ScanSource {
 public:
  // `uri` is the URI the dataset was opened by ("" for a store and root).
  static Result<std::unique_ptr<Dataset>> Make(std::shared_ptr<io::ObjectStore> store, std::string root,
                                               const OpenOptions& options, std::string uri = "");

  const std::string& uri() const override { return uri_.empty() ? root_ : uri_; }
  const std::string& root() const override { return root_; }
  const std::string& branch() const override { return branch_; }
  const std::string& table_root() const override { return table_root_; }
  uint64_t version() const override { return manifest_.version(); }
  const Schema& schema() const override { return schema_; }
  const Schema& read_schema() const override { return read_schema_; }
  std::shared_ptr<io::ObjectStore> store() const override { return store_; }

  Result<std::vector<VersionInfo>> ListVersions() const override;
  Result<std::map<std::string, uint64_t>> ListTags() const override;
  Result<std::unique_ptr<Dataset>> Checkout(uint64_t version) const override {
    OpenOptions o = Reopen();
    o.version = version;
    o.branch = branch_;
    return Make(store_, table_root_, o, TableUri());
  }
  Result<std::unique_ptr<Dataset>> CheckoutTag(const std::string& tag) const override {
    OpenOptions o = Reopen();
    o.tag = tag;
    return Make(store_, table_root_, o, TableUri());
  }
  Result<std::unique_ptr<io::RandomAccessFile>> OpenBlobObject(const std::string& object) const override {
    return externals_->OpenRead(object);
  }

  const std::vector<FragmentInfo>& fragments() const override { return fragment_infos_; }
  uint64_t CountRows() const override { return num_rows_; }
  std::map<std::string, std::string> Describe() const override;

  Result<std::unique_ptr<RecordBatchReader>> NewScan(const ScanOptions& options) const override {
    return MakeScanner(*this, *this, options);
  }
  // ScanSource: the scanner reads through the same paths as take.
  Result<std::shared_ptr<const Roaring>> FragmentDeletions(size_t frag_idx) const override {
    return Deletions(frag_idx);
  }
  Result<Array> ReadFragmentRange(size_t frag_idx, const Field& field, uint64_t begin, uint64_t end) const override {
    return ReadFieldRange(frags_[frag_idx], field, begin, end);
  }
  Result<Array> ReadFragmentOffsets(size_t frag_idx, const Field& field,
                                    std::span<const uint64_t> offsets) const override {
    return ReadFieldRows(frags_[frag_idx], field, offsets);
  }
  Result<std::vector<uint64_t>> FragmentBatchBreaks(size_t frag_idx, std::span<const Field> fields) const override;
  std::vector<uint64_t> FragmentRowIds(size_t frag_idx, std::span<const uint64_t> offsets) const override {
    const FragmentState& frag = frags_[frag_idx];
    std::vector<uint64_t> ids;
    ids.reserve(offsets.size());
    for (uint64_t o : offsets) ids.push_back(frag.row_ids ? frag.row_ids->Get(o) : RowAddress(frag.pb->id(), o));
    return ids;
  }
  bool HasStableRowIds() const override { return stable_row_ids_; }
  bool stable_row_ids() const override { return stable_row_ids_; }
  Result<std::vector<IndexMetadata>> ListIndices() const override;
  Result<std::string> IndexDirectory(const IndexMetadata& index) const override {
    if (!index.base_id) return JoinPath(root_, "_indices/" + index.uuid);
    ASSIGN_OR_RETURN(std::string dir, BaseDir(*index.base_id, /*for_deletion=*/true));
    return JoinPath(dir, "_indices/" + index.uuid);
  }
  Result<std::vector<uint64_t>> FragmentRowVersions(size_t frag_idx, RowMeta which,
                                                    std::span<const uint64_t> offsets) const override {
    const FragmentState& frag = frags_[frag_idx];
    RETURN_IF_ERROR(frag.lineage);
    const RowVersions& v = which == RowMeta::kCreatedAt ? frag.created_at : frag.last_updated;
    std::vector<uint64_t> out;
    out.reserve(offsets.size());
    for (uint64_t o : offsets) out.push_back(v.Get(o));
    return out;
  }
  Result<RecordBatch> TakeRowAddresses(std::span<const uint64_t> addresses,
                                       const std::vector<std::string>& columns) const override {
    return Take(addresses, nullptr, columns);
  }
  Result<RecordBatch> TakeRowIds(std::span<const uint64_t> row_ids,
                                 const std::vector<std::string>& columns) const override {
    ASSIGN_OR_RETURN(std::vector<uint64_t> addresses, RowIdsToAddresses(row_ids));
    return Take(addresses, &row_ids, columns);
  }
  Result<std::vector<uint64_t>> RowIdsToAddresses(std::span<const uint64_t> row_ids) const override;
  Result<std::vector<std::optional<BlobLocation>>> LocateBlobs(const std::string& column,
                                                               std::span<const uint64_t> rows,
                                                               RowKey key) const override {
    BlobObjects objects;
    return Locate(column, rows, key, &objects);
  }
  Result<std::vector<std::optional<BufferPtr>>> TakeBlobs(const std::string& column, std::span<const uint64_t> rows,
                                                          RowKey key) const override {
    BlobObjects objects;
    ASSIGN_OR_RETURN(auto locations, Locate(column, rows, key, &objects));
    return ReadBlobLocations(locations, objects);
  }

 private:
  DatasetImpl() = default;
  // uri_ without the branch's tree/<name> suffix Make added.
  std::string TableUri() const {
    if (branch_.empty() || uri_.empty()) return uri_;
    return uri_.substr(0, uri_.size() - BranchRoot("", branch_).size() - 1);
  }

  // What a checkout keeps of the options this version was opened with.
  OpenOptions Reopen() const {
    OpenOptions o;
    o.max_storage_version = max_storage_version_;
    o.storage_options = storage_options_;
    return o;
  }

  Status Init();
  Status InitFragment(const DataFragment& frag, FragmentState* state, FragmentInfo* info);
  Status InitLineage(const DataFragment& frag, const std::string& where, FragmentState* state) const;
  Result<std::string> BaseDir(uint32_t base_id, bool for_deletion) const;

  Result<std::shared_ptr<format::FileReader>> Reader(const FragmentState& frag, int file_idx) const;
  /// Whether the fragment's data files live on a store where reads wait (S3).
  Result<bool> Remote(const FragmentState& frag) const;
  Result<std::shared_ptr<const Roaring>> Deletions(size_t frag_idx) const;
  // Which file holds `field`'s leaves in `frag`, and the leaf columns (-1 = absent).
  // file index -1 means no leaf is present: the field reads as nulls.
  Result<std::pair<int, std::vector<int>>> PlanField(const FragmentState& frag, const Field& field) const;
  Result<Array> ReadFieldRange(const FragmentState& frag, const Field& field, uint64_t begin, uint64_t end) const;
  Result<Array> ReadFieldRows(const FragmentState& frag, const Field& field, std::span<const uint64_t> rows) const;
  Result<RecordBatch> Take(std::span<const uint64_t> addresses, const std::span<const uint64_t>* row_ids,
                           const std::vector<std::string>& columns) const;
  Result<std::pair<size_t, uint64_t>> LocateAddress(uint64_t address) const;
  // Blob column `column`'s descriptors at `rows`, resolved to objects (nullopt = null).
  // With `infos` null, a row whose blob_info is set is an error.
  Result<std::vector<std::optional<ResolvedBlob>>> ResolveBlobs(
      const std::string& column, std::span<const uint64_t> rows, RowKey key,
      std::vector<std::optional<BlobInfoValue>>* infos = nullptr) const;
  Result<std::vector<std::optional<BlobLocation>>> Locate(const std::string& column, std::span<const uint64_t> rows,
                                                          RowKey key, BlobObjects* objects) const {
    ASSIGN_OR_RETURN(auto resolved, ResolveBlobs(column, rows, key));
    return FinalizeBlobLocations(*externals_, resolved, uri() + ": blob column '" + column + "'", objects,
                                 &blob_objects_);
  }

 public:
  Result<std::vector<std::optional<BlobWithInfo>>> LocateBlobsWithInfo(const std::string& column,
                                                                       std::span<const uint64_t> rows,
                                                                       RowKey key) const override {
    std::vector<std::optional<BlobInfoValue>> infos;
    ASSIGN_OR_RETURN(auto resolved, ResolveBlobs(column, rows, key, &infos));
    BlobObjects objects;
    ASSIGN_OR_RETURN(auto located,
                     FinalizeBlobLocations(*externals_, resolved, uri() + ": blob column '" + column + "'", &objects,
                                           &blob_objects_));
    std::vector<std::optional<BlobWithInfo>> out(located.size());
    for (size_t i = 0; i < located.size(); ++i) {
      if (!located[i]) continue;
      auto it = objects.find(located[i]->object);
      std::shared_ptr<io::RandomAccessFile> file = it == objects.end() ? nullptr : it->second;
      out[i] = BlobWithInfo{std::move(*located[i]), std::move(infos[i]), std::move(file)};
    }
    return out;
  }

 private:
  std::shared_ptr<io::ObjectStore> store_;
  std::string root_;
  std::string table_root_;
  std::string branch_;  // empty: main
  std::string uri_;
  io::StorageOptions storage_options_;
  std::shared_ptr<ExternalStores> externals_;
  std::string manifest_path_;
  Manifest manifest_;
  Schema schema_;
  Schema read_schema_;
  StorageVersion max_storage_version_ = StorageVersion::k2_3;
  bool blob_info_ = false;            // format 2.3: descriptors carry blob_info
  std::vector<FragmentState> frags_;  // ascending by fragment id
  std::vector<FragmentInfo> fragment_infos_;
  std::unordered_map<uint64_t, size_t> frag_index_;
  uint64_t num_rows_ = 0;
  bool stable_row_ids_ = false;

  mutable std::mutex mu_;
  mutable std::optional<std::vector<IndexMetadata>> indices_;  // read on first use
  mutable std::map<std::string, std::shared_ptr<format::FileReader>> readers_;
  mutable std::map<size_t, std::shared_ptr<const Roaring>> deletions_;
  mutable OpenedObjects blob_objects_;
};

Result<std::unique_ptr<Dataset>> DatasetImpl::Make(std::shared_ptr<io::ObjectStore> store, std::string root,
                                                   const OpenOptions& options, std::string uri) {
  TuneAllocatorOnce();
  if (options.version && options.tag) {
    return Status::InvalidArgument(root + ": open with either a version or a tag, not both");
  }
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  while (uri.size() > 1 && uri.back() == '/') uri.pop_back();
  const std::string table_root = root;
  std::optional<uint64_t> wanted = options.version;
  std::string branch = options.branch == "main" ? "" : options.branch;
  if (options.tag) {
    RETURN_IF_ERROR(ValidateTagName(*options.tag));
    std::string tag_path = JoinPath(root, "_refs/tags/" + *options.tag + ".json");
    auto file = store->OpenRead(tag_path);
    if (!file.ok()) {
      if (file.status().IsNotFound()) return Status::NotFound(tag_path + ": tag '" + *options.tag + "' not found");
      return file.status();
    }
    ASSIGN_OR_RETURN(uint64_t size, (*file)->Size());
    constexpr uint64_t kMaxTagFile = 1 << 20;
    if (size > kMaxTagFile) return Status::Corruption(tag_path + ": tag file is implausibly large");
    ASSIGN_OR_RETURN(BufferPtr bytes, (*file)->ReadAt(0, size));
    ASSIGN_OR_RETURN(TagContents tag, ParseTagJson(bytes->view(), tag_path));
    wanted = tag.version;
    branch = tag.branch == "main" ? "" : tag.branch;
  }
  if (!branch.empty()) {
    // The ref, not the directory, makes a branch: a deleted branch's leftovers stay closed.
    RETURN_IF_ERROR(ReadBranch(*store, table_root, branch).status());
    root = BranchRoot(table_root, branch);
    if (!uri.empty()) uri = BranchRoot(uri, branch);
  }
  ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(*store, root));
  const ManifestLocation* loc = nullptr;
  if (wanted) {
    for (const ManifestLocation& m : manifests) {
      if (m.version == *wanted) loc = &m;
    }
    if (loc == nullptr) {
      return Status::NotFound(JoinPath(root, "_versions/" + ManifestFileNameV1(*wanted)) + ": version " +
                              std::to_string(*wanted) + " of the dataset was not found");
    }
  } else {
    if (manifests.empty()) {
      return Status::NotFound(JoinPath(root, "_versions") + ": no manifests; " + root + " is not a Lance dataset");
    }
    loc = &manifests.back();
  }
  std::unique_ptr<DatasetImpl> ds(new DatasetImpl());
  ds->store_ = std::move(store);
  ds->root_ = root;
  ds->table_root_ = table_root;
  ds->branch_ = branch;
  ds->uri_ = std::move(uri);
  ds->storage_options_ = options.storage_options;
  ds->externals_ = std::make_shared<ExternalStores>(ds->store_, BucketOfUri(ds->uri_), options.storage_options);
  ds->manifest_path_ = loc->path;
  ds->max_storage_version_ = options.max_storage_version;
  ASSIGN_OR_RETURN(ds->manifest_, ReadManifest(*ds->store_, loc->path, loc->size));
  if (ds->manifest_.version() != loc->version) {
    return Status::Corruption(loc->path + ": manifest says version " + std::to_string(ds->manifest_.version()) +
                              " but its file name is version " + std::to_string(loc->version));
  }
  RETURN_IF_ERROR(ds->Init());
  return std::unique_ptr<Dataset>(std::move(ds));
}

Result<std::vector<IndexMetadata>> DatasetImpl::ListIndices() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (indices_) return *indices_;
  }
  ASSIGN_OR_RETURN(std::vector<uint8_t> section, ReadIndexSection(*store_, manifest_path_, manifest_));
  ASSIGN_OR_RETURN(std::vector<IndexMetadata> parsed, ParseIndexSection(section, manifest_path_));
  std::lock_guard<std::mutex> lock(mu_);
  indices_ = std::move(parsed);
  return *indices_;
}

Result<std::string> DatasetImpl::BaseDir(uint32_t base_id, bool for_deletion) const {
  for (const auto& base : manifest_.base_paths()) {
    if (base.id() != base_id) continue;
    ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(base.path(), manifest_path_));
    if (for_deletion) {
      if (!base.is_dataset_root()) {
        return Status::Corruption(manifest_path_ + ": deletion file names base path " + std::to_string(base_id) +
                                  ", which is not a dataset root");
      }
      return path;
    }
    return base.is_dataset_root() ? JoinPath(path, kDataDir) : path;
  }
  return Status::Corruption(manifest_path_ + ": base path id " + std::to_string(base_id) + " is not defined");
}

Status DatasetImpl::Init() {
  const std::string& mp = manifest_path_;
  RETURN_IF_ERROR(CheckReaderFeatureFlags(manifest_, mp));
  stable_row_ids_ = (manifest_.reader_feature_flags() & kFlagStableRowIds) != 0;
  blob_info_ = (manifest_.reader_feature_flags() & kFlagBlobInfo) != 0;
  if (blob_info_ && max_storage_version_ < StorageVersion::k2_3) {
    return Status::NotSupported(mp +
                                ": the dataset uses storage version 2.3 (Blob V2 descriptors with blob_info), "
                                "newer than the 2.2 this reader was limited to");
  }
  ASSIGN_OR_RETURN(schema_, format::SchemaFromLance(manifest_.fields(), manifest_.schema_metadata(), mp));
  read_schema_.metadata = schema_.metadata;
  for (const Field& f : schema_.fields) {
    read_schema_.fields.push_back(blob_info_ ? ToBlobInfoReadField(f) : ToReadField(f));
  }

  std::vector<const DataFragment*> order;
  for (const DataFragment& f : manifest_.fragments()) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(),
                   [](const DataFragment* a, const DataFragment* b) { return a->id() < b->id(); });
  frags_.resize(order.size());
  fragment_infos_.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    if (!frag_index_.emplace(order[i]->id(), i).second) {
      return Status::Corruption(mp + ": fragment id " + std::to_string(order[i]->id()) + " appears twice");
    }
    RETURN_IF_ERROR(InitFragment(*order[i], &frags_[i], &fragment_infos_[i]));
    num_rows_ += fragment_infos_[i].physical_rows - fragment_infos_[i].deleted_rows;
  }
  return Status::OK();
}

Status DatasetImpl::InitFragment(const DataFragment& frag, FragmentState* state, FragmentInfo* info) {
  const std::string& mp = manifest_path_;
  std::string where = mp + ": fragment " + std::to_string(frag.id());
  state->pb = &frag;
  info->id = frag.id();
  info->physical_rows = frag.physical_rows();
  // Row addresses give a fragment 32 bits of offset.
  if (frag.id() > std::numeric_limits<uint32_t>::max() || frag.physical_rows() > (uint64_t{1} << 32)) {
    return Status::Corruption(where + " has an id or row count beyond the 32-bit row address range");
  }
  std::optional<std::pair<int, int>> default_version;
  if (manifest_.has_data_format() && !manifest_.data_format().version().empty()) {
    const std::string& v = manifest_.data_format().version();
    if (v == "2.0") default_version = {2, 0};
    if (v == "2.1") default_version = {2, 1};
    if (v == "2.2") default_version = {2, 2};
    if (v == "2.3") default_version = {2, 3};
  }
  bool mixed_ok = (manifest_.reader_feature_flags() & kFlagMixedDataFileVersions) != 0;
  for (int file_idx = 0; file_idx < frag.files_size(); ++file_idx) {
    const DataFile& df = frag.files(file_idx);
    RETURN_IF_ERROR(CheckRelativePath(df.path(), mp, "data file"));
    std::string fwhere = where + " data file '" + df.path() + "'";
    uint32_t major = df.file_major_version(), minor = df.file_minor_version();
    // The manifest records 2.0 files as 2.0 (their footer says 0.3); accept both spellings.
    if (major == 0 && minor == 3) major = 2, minor = 0;
    // 2.3 files belong to blob_info datasets only, which carry the feature flag.
    if (major != 2 || minor > (blob_info_ ? 3u : 2u)) {
      std::string name = (major == 0 && minor < 3) ? "legacy v1" : std::to_string(major) + "." + std::to_string(minor);
      return Status::NotSupported(fwhere + " uses Lance file format " + name + "; only 2.0, 2.1 and 2.2" +
                                  (blob_info_ ? std::string(" and 2.3") : std::string()) + " are supported here");
    }
    // A 2.3 dataset may hold 2.2 files (those of columns added without blobs, say).
    const bool within_23 = default_version == std::make_pair(2, 3) && major == 2 && minor == 2;
    if (default_version && !mixed_ok && !within_23 &&
        (static_cast<int>(major) != default_version->first || static_cast<int>(minor) != default_version->second)) {
      return Status::Corruption(fwhere + " has version " + std::to_string(major) + "." + std::to_string(minor) +
                                " but the manifest's storage version is " + manifest_.data_format().version() +
                                " and mixed data-file versions are not enabled");
    }
    if (df.fields_size() != df.column_indices_size()) {
      return Status::Corruption(fwhere + " has " + std::to_string(df.fields_size()) + " field ids but " +
                                std::to_string(df.column_indices_size()) + " column indices");
    }
    std::string dir = JoinPath(root_, kDataDir);
    if (df.has_base_id()) {
      ASSIGN_OR_RETURN(dir, BaseDir(df.base_id(), false));
    }
    state->file_dirs.push_back(dir);
    state->file_paths.push_back(JoinPath(dir, df.path()));
    DataFileInfo dfi;
    dfi.path = df.path();
    dfi.location = state->file_paths.back();
    dfi.fields.assign(df.fields().begin(), df.fields().end());
    dfi.column_indices.assign(df.column_indices().begin(), df.column_indices().end());
    dfi.major = major;
    dfi.minor = minor;
    dfi.size_bytes = df.file_size_bytes();
    info->files.push_back(std::move(dfi));
    for (int i = 0; i < df.fields_size(); ++i) {
      // Negative ids are tombstones of replaced columns; -1 columns are non-leaf parents.
      if (df.fields(i) < 0 || df.column_indices(i) < 0) continue;
      // A later data file overrides an earlier one for the same field.
      state->columns[df.fields(i)] = {file_idx, df.column_indices(i)};
    }
  }
  if (frag.has_deletion_file()) {
    const auto& del = frag.deletion_file();
    if (del.num_deleted_rows() > frag.physical_rows()) {
      return Status::Corruption(where + " deletes " + std::to_string(del.num_deleted_rows()) + " of its " +
                                std::to_string(frag.physical_rows()) + " rows");
    }
    std::string dir = root_;
    if (del.has_base_id()) {
      ASSIGN_OR_RETURN(dir, BaseDir(del.base_id(), true));
    }
    state->deletion_path = JoinPath(dir, DeletionFileName(frag.id(), del));
    info->deletion_file = DeletionFileName(frag.id(), del);
    info->deleted_rows = del.num_deleted_rows();
  }
  if (stable_row_ids_) {
    std::string context = where + " row ids";
    if (frag.has_inline_row_ids()) {
      const std::string& bytes = frag.inline_row_ids();
      ASSIGN_OR_RETURN(RowIdSequence seq,
                       RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, context));
      state->row_ids = std::move(seq);
    } else if (frag.has_external_row_ids()) {
      const auto& ext = frag.external_row_ids();
      RETURN_IF_ERROR(CheckRelativePath(ext.path(), mp, "external row id"));
      std::string path = JoinPath(root_, ext.path());
      ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, store_->OpenRead(path));
      ASSIGN_OR_RETURN(BufferPtr bytes, file->ReadAt(ext.offset(), ext.size()));
      ASSIGN_OR_RETURN(RowIdSequence seq, RowIdSequence::Parse(bytes->span(), path));
      state->row_ids = std::move(seq);
    } else {
      return Status::Corruption(where + " has no row id sequence although the dataset uses stable row ids");
    }
    if (state->row_ids->size() != frag.physical_rows()) {
      return Status::Corruption(context + ": " + std::to_string(state->row_ids->size()) + " row ids for " +
                                std::to_string(frag.physical_rows()) + " physical rows");
    }
    state->lineage = InitLineage(frag, where, state);
  }
  return Status::OK();
}

Status DatasetImpl::InitLineage(const DataFragment& frag, const std::string& where, FragmentState* state) const {
  if (frag.has_external_created_at_versions() || frag.has_external_last_updated_at_versions()) {
    return Status::NotSupported(where + " keeps its row version sequences in an external file");
  }
  // Newer writers may spill lineage into hidden columns (fields 12-14, lineage-notes
  // §1.4); this protobuf predates them, so they arrive as unknown fields.
  const auto& unknown = frag.GetReflection()->GetUnknownFields(frag);
  for (int i = 0; i < unknown.field_count(); ++i) {
    if (unknown.field(i).number() >= 12 && unknown.field(i).number() <= 14) {
      return Status::NotSupported(where + " keeps its row lineage in data file columns");
    }
  }
  const uint64_t rows = frag.physical_rows();
  // Missing sequences read as the reference reads them: created at 1, and last
  // updated when created (optimize.rs does the same when it rewrites them).
  if (frag.has_inline_created_at_versions()) {
    ASSIGN_OR_RETURN(state->created_at,
                     RowVersions::Parse(frag.inline_created_at_versions(), rows, where + " created_at versions"));
  } else {
    state->created_at = RowVersions::Constant(rows, 1);
  }
  if (frag.has_inline_last_updated_at_versions()) {
    ASSIGN_OR_RETURN(state->last_updated, RowVersions::Parse(frag.inline_last_updated_at_versions(), rows,
                                                             where + " last_updated versions"));
  } else {
    state->last_updated = state->created_at;
  }
  return Status::OK();
}

Result<std::vector<VersionInfo>> DatasetImpl::ListVersions() const {
  ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(*store_, root_));
  std::vector<VersionInfo> out;
  for (const ManifestLocation& loc : manifests) {
    ASSIGN_OR_RETURN(Manifest m, ReadManifest(*store_, loc.path, loc.size));
    VersionInfo info;
    info.version = loc.version;
    if (m.has_timestamp()) {
      info.timestamp_ms = m.timestamp().seconds() * 1000 + m.timestamp().nanos() / 1000000;
    }
    for (const DataFragment& f : m.fragments()) {
      uint64_t deleted = f.has_deletion_file() ? f.deletion_file().num_deleted_rows() : 0;
      if (deleted > f.physical_rows()) {
        return Status::Corruption(loc.path + ": fragment " + std::to_string(f.id()) + " deletes more rows than it has");
      }
      info.num_rows += f.physical_rows() - deleted;
    }
    out.push_back(info);
  }
  return out;
}

Result<std::map<std::string, uint64_t>> DatasetImpl::ListTags() const {
  ASSIGN_OR_RETURN(auto tags, ReadTags(*store_, table_root_));
  std::map<std::string, uint64_t> out;
  for (const auto& [name, tag] : tags) out[name] = tag.version;
  return out;
}

std::map<std::string, std::string> DatasetImpl::Describe() const {
  std::map<std::string, std::string> d;
  d["uri"] = uri();
  d["manifest"] = manifest_path_;
  d["version"] = std::to_string(manifest_.version());
  if (manifest_.has_timestamp()) {
    d["timestamp_ms"] =
        std::to_string(manifest_.timestamp().seconds() * 1000 + manifest_.timestamp().nanos() / 1000000);
  }
  if (manifest_.has_writer_version()) {
    d["writer"] = manifest_.writer_version().library() + " " + manifest_.writer_version().version();
  }
  if (manifest_.has_data_format()) {
    d["data_format"] = manifest_.data_format().file_format() + " " + manifest_.data_format().version();
  }
  d["reader_feature_flags"] = std::to_string(manifest_.reader_feature_flags());
  d["writer_feature_flags"] = std::to_string(manifest_.writer_feature_flags());
  d["stable_row_ids"] = stable_row_ids_ ? "true" : "false";
  d["num_fragments"] = std::to_string(frags_.size());
  d["num_rows"] = std::to_string(num_rows_);
  uint64_t deleted = 0, files = 0;
  for (const FragmentInfo& f : fragment_infos_) {
    deleted += f.deleted_rows;
    files += f.files.size();
  }
  d["num_deleted_rows"] = std::to_string(deleted);
  d["num_data_files"] = std::to_string(files);
  if (manifest_.has_max_fragment_id()) d["max_fragment_id"] = std::to_string(manifest_.max_fragment_id());
  if (stable_row_ids_) d["next_row_id"] = std::to_string(manifest_.next_row_id());
  if (!manifest_.transaction_file().empty()) d["transaction_file"] = manifest_.transaction_file();
  if (!manifest_.tag().empty()) d["tag"] = manifest_.tag();
  if (manifest_.has_branch()) d["branch"] = manifest_.branch();
  for (const auto& [k, v] : manifest_.config()) d["config." + k] = v;
  for (const auto& base : manifest_.base_paths()) {
    d["base_path." + std::to_string(base.id())] = base.path() + (base.is_dataset_root() ? " (dataset root)" : "");
  }
  return d;
}

Result<std::shared_ptr<format::FileReader>> DatasetImpl::Reader(const FragmentState& frag, int file_idx) const {
  const std::string& path = frag.file_paths[file_idx];
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = readers_.find(path);
    if (it != readers_.end()) return it->second;
  }
  auto file = store_->OpenRead(path);
  if (!file.ok()) {
    return file.status().WithContext(manifest_path_ + ": data file of fragment " + std::to_string(frag.pb->id()));
  }
  std::shared_ptr<io::RandomAccessFile> shared(std::move(*file));
  ASSIGN_OR_RETURN(std::unique_ptr<format::FileReader> reader,
                   format::FileReader::Open(shared, frag.pb->files(file_idx).file_size_bytes()));
  if (reader->num_rows() != frag.pb->physical_rows()) {
    return Status::Corruption(path + ": data file has " + std::to_string(reader->num_rows()) + " rows but fragment " +
                              std::to_string(frag.pb->id()) + " of " + manifest_path_ + " has " +
                              std::to_string(frag.pb->physical_rows()));
  }
  std::shared_ptr<format::FileReader> out(std::move(reader));
  std::lock_guard<std::mutex> lock(mu_);
  return readers_.emplace(path, out).first->second;
}

Result<bool> DatasetImpl::Remote(const FragmentState& frag) const {
  if (frag.file_paths.empty()) return false;
  ASSIGN_OR_RETURN(auto reader, Reader(frag, 0));
  return !reader->cheap_reads();
}

Result<std::shared_ptr<const Roaring>> DatasetImpl::Deletions(size_t frag_idx) const {
  const FragmentState& frag = frags_[frag_idx];
  if (frag.deletion_path.empty()) return std::shared_ptr<const Roaring>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = deletions_.find(frag_idx);
    if (it != deletions_.end()) return it->second;
  }
  const auto& del = frag.pb->deletion_file();
  ASSIGN_OR_RETURN(Roaring bitmap, ReadDeletionFile(*store_, frag.deletion_path, del.file_type(),
                                                    frag.pb->physical_rows(), del.num_deleted_rows()));
  auto shared = std::make_shared<const Roaring>(std::move(bitmap));
  std::lock_guard<std::mutex> lock(mu_);
  return deletions_.emplace(frag_idx, shared).first->second;
}

Result<std::pair<int, std::vector<int>>> DatasetImpl::PlanField(const FragmentState& frag, const Field& field) const {
  std::vector<const Field*> leaves;
  CollectLeaves(field, &leaves);
  std::vector<int> cols(leaves.size(), -1);
  int file = -1;
  for (size_t i = 0; i < leaves.size(); ++i) {
    auto it = frag.columns.find(leaves[i]->id);
    if (it == frag.columns.end()) continue;
    if (file >= 0 && it->second.first != file) {
      return Status::NotSupported(manifest_path_ + ": field '" + field.name + "' of fragment " +
                                  std::to_string(frag.pb->id()) + " is split over several data files");
    }
    file = it->second.first;
    cols[i] = it->second.second;
  }
  return std::make_pair(file, std::move(cols));
}

Result<Array> DatasetImpl::ReadFieldRange(const FragmentState& frag, const Field& field, uint64_t begin,
                                          uint64_t end) const {
  ASSIGN_OR_RETURN(auto plan, PlanField(frag, field));
  if (plan.first < 0) {
    // Opening a data file checks the manifest's row count before we produce that many nulls.
    if (!frag.file_paths.empty()) RETURN_IF_ERROR(Reader(frag, 0).status());
    return MakeNullArray(field.type, static_cast<int64_t>(end - begin));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<format::FileReader> reader, Reader(frag, plan.first));
  if (!blob_info_ || !HasBlobDescriptor(field)) return reader->ReadRange(field, plan.second, begin, end);
  ASSIGN_OR_RETURN(Array physical, reader->ReadRange(ToBlobInfoPhysical(field), plan.second, begin, end));
  return BlobInfoToRead(field, physical);
}

Result<std::vector<uint64_t>> DatasetImpl::FragmentBatchBreaks(size_t frag_idx, std::span<const Field> fields) const {
  // Only mapped files turn a page-aligned batch into a view; on an object store the
  // footer read would stall the planner's thread for nothing.
  if (io::IsRemoteUri(uri())) return std::vector<uint64_t>{};
  const FragmentState& frag = frags_[frag_idx];
  uint64_t most = 0;
  std::vector<uint64_t> breaks;
  for (const Field& field : fields) {
    ASSIGN_OR_RETURN(auto plan, PlanField(frag, field));
    if (plan.first < 0) continue;
    ASSIGN_OR_RETURN(std::shared_ptr<format::FileReader> reader, Reader(frag, plan.first));
    for (int column : plan.second) {
      if (column < 0) continue;
      ASSIGN_OR_RETURN(auto pages, reader->ColumnPages(column));
      uint64_t bytes = 0;
      for (const auto& p : pages) bytes += p.bytes;
      if (bytes <= most) continue;
      most = bytes;
      breaks.clear();
      for (const auto& p : pages) breaks.push_back(p.end_row);
    }
  }
  return breaks;
}

Result<Array> DatasetImpl::ReadFieldRows(const FragmentState& frag, const Field& field,
                                         std::span<const uint64_t> rows) const {
  ASSIGN_OR_RETURN(auto plan, PlanField(frag, field));
  if (plan.first < 0) return MakeNullArray(field.type, static_cast<int64_t>(rows.size()));
  ASSIGN_OR_RETURN(std::shared_ptr<format::FileReader> reader, Reader(frag, plan.first));
  if (!blob_info_ || !HasBlobDescriptor(field)) return reader->Take(field, plan.second, rows);
  ASSIGN_OR_RETURN(Array physical, reader->Take(ToBlobInfoPhysical(field), plan.second, rows));
  return BlobInfoToRead(field, physical);
}

Result<std::pair<size_t, uint64_t>> DatasetImpl::LocateAddress(uint64_t address) const {
  uint64_t frag_id = address >> 32, offset = address & 0xFFFFFFFFu;
  auto it = frag_index_.find(frag_id);
  if (it == frag_index_.end()) {
    return Status::NotFound(uri() + ": row address " + std::to_string(address) + " names fragment " +
                            std::to_string(frag_id) + ", which is not in version " +
                            std::to_string(manifest_.version()));
  }
  const FragmentState& frag = frags_[it->second];
  if (offset >= frag.pb->physical_rows()) {
    return Status::NotFound(uri() + ": row address " + std::to_string(address) + " is past the " +
                            std::to_string(frag.pb->physical_rows()) + " rows of fragment " + std::to_string(frag_id));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> deleted, Deletions(it->second));
  if (deleted && deleted->contains(static_cast<uint32_t>(offset))) {
    return Status::NotFound(uri() + ": row address " + std::to_string(address) + " (fragment " +
                            std::to_string(frag_id) + " offset " + std::to_string(offset) + ") is deleted");
  }
  return std::make_pair(it->second, offset);
}

Result<RecordBatch> DatasetImpl::Take(std::span<const uint64_t> addresses, const std::span<const uint64_t>* row_ids,
                                      const std::vector<std::string>& columns) const {
  ASSIGN_OR_RETURN(ScanProjection proj, PlanProjection(read_schema_, columns, false, false, uri()));
  for (RowMeta m : proj.meta) {
    if (IsLineage(m) && !stable_row_ids_) return NoLineageError(uri(), m);
  }
  // Group by fragment, keeping for each request its position in the output.
  std::map<size_t, std::pair<std::vector<uint64_t>, std::vector<size_t>>> groups;
  for (size_t i = 0; i < addresses.size(); ++i) {
    ASSIGN_OR_RETURN(auto loc, LocateAddress(addresses[i]));
    auto& g = groups[loc.first];
    g.first.push_back(loc.second);
    g.second.push_back(i);
  }
  RecordBatch batch;
  batch.schema = proj.schema;
  batch.num_rows = static_cast<int64_t>(addresses.size());
  // Output row i is row where[i].second of fragment part where[i].first.
  std::vector<std::pair<uint32_t, int64_t>> where(addresses.size());
  {
    uint32_t part = 0;
    for (auto& [frag_idx, g] : groups) {
      for (size_t k = 0; k < g.second.size(); ++k) where[g.second[k]] = {part, static_cast<int64_t>(k)};
      ++part;
    }
  }
  std::vector<Result<Array>> cols(proj.fields.size(), Status::Internal("not decoded"));
  bool remote = false;
  if (!groups.empty() && !proj.fields.empty()) {
    ASSIGN_OR_RETURN(remote, Remote(frags_[groups.begin()->first]));
  }
  // One task per column and fragment, so a take spread over fragments keeps every
  // thread busy even when one column costs far more than the others. On a remote store
  // a task mostly waits for its requests, so they all go out at once on the I/O pool.
  std::vector<const std::vector<uint64_t>*> frag_rows;
  std::vector<size_t> frag_of;
  for (auto& [frag_idx, g] : groups) frag_rows.push_back(&g.first), frag_of.push_back(frag_idx);
  const size_t nfrag = frag_rows.size();
  std::vector<Result<Array>> parts_of(proj.fields.size() * nfrag, Status::Internal("not decoded"));
  const size_t tasks = parts_of.size();
  ParallelFor(remote ? ThreadPool::Io() : ThreadPool::Cpu(), tasks, remote ? tasks : ThreadPool::Cpu().size(),
              [&](size_t t) {
                const Field& field = proj.fields[t / nfrag];
                parts_of[t] = ReadFieldRows(frags_[frag_of[t % nfrag]], field, *frag_rows[t % nfrag]);
              });
  ParallelFor(ThreadPool::Cpu(), proj.fields.size(), ThreadPool::Cpu().size(), [&](size_t i) {
    cols[i] = [&]() -> Result<Array> {
      const Field& field = proj.fields[i];
      std::vector<Array> parts;
      for (size_t f = 0; f < nfrag; ++f) {
        Result<Array>& part = parts_of[i * nfrag + f];
        RETURN_IF_ERROR(part.status());
        parts.push_back(part.MoveValue());
      }
      if (parts.empty()) return MakeNullArray(field.type, 0);
      // One fragment's rows come back in the order asked for: nothing to reorder.
      if (parts.size() == 1) return std::move(parts[0]);
      return InterleaveRows(parts, where);
    }();
  });
  for (int slot : proj.order) {
    if (slot >= 0) {
      Result<Array>& col = cols[static_cast<size_t>(slot)];
      RETURN_IF_ERROR(col.status());
      batch.columns.push_back(col.MoveValue());
      continue;
    }
    const RowMeta meta = proj.meta[static_cast<size_t>(-1 - slot)];
    if (meta == RowMeta::kRowId && row_ids != nullptr) {
      batch.columns.push_back(UInt64Array(std::vector<uint64_t>(row_ids->begin(), row_ids->end())));
    } else if (meta == RowMeta::kRowAddr) {
      batch.columns.push_back(UInt64Array(std::vector<uint64_t>(addresses.begin(), addresses.end())));
    } else {
      std::vector<uint64_t> values(addresses.size());
      for (auto& [frag_idx, g] : groups) {
        ASSIGN_OR_RETURN(Array part, ComputeRowMeta(*this, frag_idx, frags_[frag_idx].pb->id(), meta, g.first));
        const uint64_t* v = part.values<uint64_t>();
        for (size_t k = 0; k < g.first.size(); ++k) values[g.second[k]] = v[k];
      }
      batch.columns.push_back(UInt64Array(values));
    }
  }
  return batch;
}

Result<std::vector<uint64_t>> DatasetImpl::RowIdsToAddresses(std::span<const uint64_t> row_ids) const {
  std::vector<uint64_t> out;
  out.reserve(row_ids.size());
  if (!stable_row_ids_) {
    for (uint64_t id : row_ids) {
      RETURN_IF_ERROR(LocateAddress(id).status());
      out.push_back(id);
    }
    return out;
  }
  std::vector<uint64_t> positions;
  for (uint64_t id : row_ids) {
    std::optional<uint64_t> found;
    for (size_t frag_idx = 0; frag_idx < frags_.size() && !found; ++frag_idx) {
      const FragmentState& frag = frags_[frag_idx];
      positions.clear();
      frag.row_ids->Find(id, &positions);
      if (positions.empty()) continue;
      ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> deleted, Deletions(frag_idx));
      for (uint64_t p : positions) {
        if (!deleted || !deleted->contains(static_cast<uint32_t>(p))) {
          found = RowAddress(frag.pb->id(), p);
          break;
        }
      }
    }
    if (!found) {
      return Status::NotFound(uri() + ": row id " + std::to_string(id) + " is not a live row of version " +
                              std::to_string(manifest_.version()));
    }
    out.push_back(*found);
  }
  return out;
}

Result<std::vector<std::optional<ResolvedBlob>>> DatasetImpl::ResolveBlobs(
    const std::string& column, std::span<const uint64_t> rows, RowKey key,
    std::vector<std::optional<BlobInfoValue>>* infos) const {
  // Walk the dotted path through structs, remembering child indexes.
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = column.find('.', start);
    parts.push_back(column.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  int top = schema_.FieldIndex(parts[0]);
  if (top < 0) return Status::NotFound(uri() + ": no column named '" + parts[0] + "'");
  const Field* logical = &schema_.fields[top];
  std::vector<int> path;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (logical->type.id != TypeId::kStruct || IsBlobV2Field(*logical)) {
      return Status::NotSupported(uri() + ": blob column path '" + column + "' expects a struct before '" + parts[i] +
                                  "' but '" + logical->name + "' is " + logical->type.ToString());
    }
    int found = -1;
    for (size_t c = 0; c < logical->type.children.size(); ++c) {
      if (logical->type.children[c].name == parts[i]) found = static_cast<int>(c);
    }
    if (found < 0) return Status::NotFound(uri() + ": no column named '" + column + "'");
    path.push_back(found);
    logical = &logical->type.children[found];
  }
  if (!IsBlobV2Field(*logical)) {
    return Status::InvalidArgument(uri() + ": column '" + column + "' is not a blob v2 column");
  }
  const Field& top_read = read_schema_.fields[top];
  std::vector<uint64_t> addresses;
  if (key == RowKey::kRowId) {
    ASSIGN_OR_RETURN(addresses, RowIdsToAddresses(rows));
  } else {
    addresses.assign(rows.begin(), rows.end());
  }

  std::vector<std::optional<ResolvedBlob>> out(rows.size());
  if (infos != nullptr) infos->assign(rows.size(), std::nullopt);
  std::map<size_t, std::pair<std::vector<uint64_t>, std::vector<size_t>>> groups;
  for (size_t i = 0; i < addresses.size(); ++i) {
    ASSIGN_OR_RETURN(auto loc, LocateAddress(addresses[i]));
    groups[loc.first].first.push_back(loc.second);
    groups[loc.first].second.push_back(i);
  }
  for (auto& [frag_idx, g] : groups) {
    const FragmentState& frag = frags_[frag_idx];
    auto it = frag.columns.find(logical->id);
    if (it == frag.columns.end()) continue;  // column added later: every row is null
    int file_idx = it->second.first;
    // Read only the blob's own column: the other leaves of an enclosing struct are -1.
    std::vector<const Field*> leaves;
    CollectLeaves(top_read, &leaves);
    std::vector<int> cols(leaves.size(), -1);
    for (size_t l = 0; l < leaves.size(); ++l) {
      if (leaves[l]->id == logical->id) cols[l] = it->second.second;
    }
    ASSIGN_OR_RETURN(std::shared_ptr<format::FileReader> reader, Reader(frag, file_idx));
    Array arr;
    if (blob_info_) {
      ASSIGN_OR_RETURN(Array physical, reader->Take(ToBlobInfoPhysical(top_read), cols, g.first));
      ASSIGN_OR_RETURN(arr, BlobInfoToRead(top_read, physical));
    } else {
      ASSIGN_OR_RETURN(arr, reader->Take(top_read, cols, g.first));
    }
    if (arr.length != static_cast<int64_t>(g.first.size())) {
      return Status::Internal(frag.file_paths[file_idx] + ": blob column decoded the wrong number of rows");
    }
    const std::string& data_file = frag.file_paths[file_idx];
    for (size_t k = 0; k < g.first.size(); ++k) {
      // Descend to the descriptor, honouring the parents' validity and offsets.
      const Array* a = &arr;
      int64_t row = static_cast<int64_t>(k);
      bool valid = a->IsValid(row);
      for (int child : path) {
        if (!valid) break;
        row += a->offset;
        if (child >= static_cast<int>(a->children.size())) {
          return Status::Internal(data_file + ": decoded struct lacks child " + std::to_string(child));
        }
        a = &a->children[child];
        valid = a->IsValid(row);
      }
      if (!valid) continue;
      if (a->type.id != TypeId::kStruct || a->children.size() != (blob_info_ ? 6u : 5u)) {
        return Status::Corruption(data_file + ": blob column '" + column + "' did not decode as a descriptor struct");
      }
      int64_t r = row + a->offset;
      const Array& kind = a->children[0];
      const Array& position = a->children[1];
      const Array& size = a->children[2];
      const Array& blob_id = a->children[3];
      const Array& uri = a->children[4];
      if (kind.IsNull(r)) continue;  // a null kind is a null blob (blob.md)
      if (blob_info_ && a->children[5].IsValid(r)) {
        if (infos == nullptr) {
          return Status::InvalidArgument(
              this->uri() + ": blob column '" + column + "' " + (key == RowKey::kRowId ? "row id " : "row address ") +
              std::to_string(rows[g.second[k]]) +
              " carries blob_info: its stored bytes are a media plugin's stream, not the original file; read it "
              "with extract");
        }
        const Array& info = a->children[5];
        const int64_t j = r + info.offset;
        BlobInfoValue v;
        v.blob_type = info.children[0].values<uint8_t>()[j];
        v.stream_info = Buffer::Copy(info.children[1].GetView(j));
        v.entries = Buffer::Copy(info.children[2].GetView(j));
        (*infos)[g.second[k]] = std::move(v);
      }
      BlobDescriptor desc;
      desc.kind = kind.values<uint8_t>()[r];
      desc.position = position.values<uint64_t>()[r];
      desc.size = size.values<uint64_t>()[r];
      desc.blob_id = blob_id.values<uint32_t>()[r];
      desc.uri = uri.IsValid(r) ? uri.GetView(r) : std::string_view();
      ASSIGN_OR_RETURN(out[g.second[k]], ResolveBlob(desc, data_file, frag.file_dirs[file_idx], manifest_));
    }
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<Dataset>> Dataset::Open(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                               const OpenOptions& options) {
  if (!store) return Status::InvalidArgument("Dataset::Open needs an object store");
  return DatasetImpl::Make(std::move(store), root, options);
}

Result<std::unique_ptr<Dataset>> Dataset::Open(const std::string& uri, const OpenOptions& options) {
  if (uri.empty()) return Status::InvalidArgument("Dataset::Open needs a path");
  ASSIGN_OR_RETURN(io::ResolvedUri where, io::ResolveUri(uri, options.storage_options));
  // The URI, not the key prefix, names an S3 dataset in uri() and errors; ResolveUri
  // takes credentials from the options and the environment only, never from the URI.
  std::string shown = uri;
  if (!io::IsRemoteUri(uri)) shown = where.root;
  return DatasetImpl::Make(std::move(where.store), where.root, options, shown);
}

}  // namespace lancet::table
