// Schema evolution: add, drop, rename and cast columns (reference:
// rust/lance/src/dataset/schema_evolution.rs). Changes that carry data commit a Merge
// (every fragment gains one data file); metadata-only ones a Merge without new files
// (added all-null columns) or a Project (drop, rename).
#include "lancet/table/evolution.h"

#include <map>
#include <set>

#include "format/lance_schema.h"
#include "table/blob_input.h"
#include "table/commit.h"
#include "table/compaction_row_ids.h"
#include "table/evolution_cast.h"
#include "table/evolution_io.h"
#include "table/manifest.h"

namespace lancet::table {
namespace {

using lance::table::DataFile;
using lance::table::DataFragment;
using lance::table::Manifest;
using LanceFields = google::protobuf::RepeatedPtrField<lance::file::Field>;

constexpr const char* kRowAddr = "_rowaddr";

bool IsBlobField(const lance::file::Field& f) {
  if (f.extension_name() == kBlobV2ExtensionName) return true;
  auto it = f.metadata().find(kArrowExtensionName);
  return it != f.metadata().end() && it->second == kBlobV2ExtensionName;
}

bool AllNullable(const Field& f) {
  if (!f.nullable) return false;
  for (const Field& c : f.type.children) {
    if (!AllNullable(c)) return false;
  }
  return true;
}

// Index in `fields` of the field at dotted `path` (struct members only), or -1. A
// top-level name that itself contains dots wins over the dotted reading.
int FindField(const LanceFields& fields, const std::string& path) {
  for (int i = 0; i < fields.size(); ++i) {
    if (fields[i].parent_id() == -1 && fields[i].name() == path) return i;
  }
  int32_t parent = -1;
  int found = -1;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    found = -1;
    for (int i = 0; i < fields.size(); ++i) {
      if (fields[i].parent_id() == parent && fields[i].name() == part) found = i;
    }
    if (found < 0) return -1;
    if (dot == std::string::npos) return found;
    if (fields[found].logical_type() != "struct") return -1;
    parent = fields[found].id();
    start = dot + 1;
  }
  return -1;
}

// True if the field at `index` or one of its ancestors is a Blob V2 column.
bool InsideBlob(const LanceFields& fields, int index) {
  std::map<int32_t, int> by_id;
  for (int i = 0; i < fields.size(); ++i) by_id[fields[i].id()] = i;
  for (int i = index; i >= 0;) {
    if (IsBlobField(fields[i])) return true;
    auto it = by_id.find(fields[i].parent_id());
    i = it == by_id.end() ? -1 : it->second;
  }
  return false;
}

// `id` and all its descendants.
std::set<int32_t> Subtree(const LanceFields& fields, int32_t id) {
  std::set<int32_t> out{id};
  // Pre-order lists parents before children, so one pass finds every descendant.
  for (const auto& f : fields) {
    if (out.count(f.parent_id())) out.insert(f.id());
  }
  return out;
}

Status CheckNewNames(const Dataset& dataset, const std::vector<Field>& fields) {
  std::set<std::string> names;
  for (const Field& f : dataset.schema().fields) names.insert(f.name);
  for (const Field& f : fields) {
    if (f.name.empty()) return Status::InvalidArgument(dataset.uri() + ": a new column has an empty name");
    if (!names.insert(f.name).second) {
      return Status::InvalidArgument(dataset.uri() + ": column '" + f.name + "' already exists");
    }
    if (HasBlobField(f)) {
      return Status::NotSupported(dataset.uri() + ": column '" + f.name +
                                  "': adding Blob V2 columns is not supported yet");
    }
  }
  return Status::OK();
}

// A change built on the schema it read: another schema change committed meanwhile makes
// it meaningless (the reference calls Merge/Project after Merge/Project a retryable
// conflict; here the caller retries).
Status CheckSchemaUnchanged(const CommitBase& base, const Manifest& read, const std::string& root) {
  RETURN_IF_ERROR(CheckNotReplaced(base, root));
  if (!SameFields(*base.latest, read)) {
    return Status::CommitConflict(root + ": the schema changed after version " + std::to_string(read.version()) +
                                  " was read");
  }
  return Status::OK();
}

// Keeps the data files that still hold a column of `fields` (transaction.rs, Project).
void DropUnusedFiles(const LanceFields& fields, Manifest* m) {
  std::set<int32_t> ids = FieldIdsOf(fields);
  for (DataFragment& frag : *m->mutable_fragments()) {
    google::protobuf::RepeatedPtrField<DataFile> kept;
    for (const DataFile& file : frag.files()) {
      bool used = false;
      for (int32_t id : file.fields()) used = used || ids.count(id) > 0;
      if (used) *kept.Add() = file;
    }
    frag.mutable_files()->Swap(&kept);
  }
}

// The visible row offsets of fragment `id`, ascending.
Result<std::vector<uint64_t>> LiveOffsets(const std::vector<RecordBatch>& batches) {
  std::vector<uint64_t> offsets;
  for (const RecordBatch& b : batches) {
    const Array& addr = b.columns.back();
    for (int64_t i = 0; i < addr.length; ++i) offsets.push_back(addr.values<uint64_t>()[i] & 0xFFFFFFFFu);
  }
  return offsets;
}

// One value per physical row from one value per visible row: a fragment's data files
// all hold physical_rows rows, so deleted offsets get a copy of the first visible value
// (updater.rs `add_blanks`); the deletion vector keeps hiding them.
Result<Array> SpreadOverPhysical(const Array& live, const std::vector<uint64_t>& offsets, uint64_t physical) {
  if (offsets.size() == physical) return live;
  if (offsets.empty()) return MakeNullArray(live.type, static_cast<int64_t>(physical));
  std::vector<int64_t> idx(physical, 0);
  for (size_t k = 0; k < offsets.size(); ++k) idx[offsets[k]] = static_cast<int64_t>(k);
  return TakeRows(live, idx);
}

// Writes `columns` (one value per visible row) as a new data file of the fragment.
Result<DataFile> WriteFragmentColumns(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                                      const Schema& schema, const std::vector<Array>& columns, const FragmentInfo& frag,
                                      const std::vector<uint64_t>& offsets, std::vector<std::string>* written) {
  RecordBatch batch{schema, static_cast<int64_t>(frag.physical_rows), {}};
  for (const Array& col : columns) {
    ASSIGN_OR_RETURN(Array full, SpreadOverPhysical(col, offsets, frag.physical_rows));
    batch.columns.push_back(std::move(full));
  }
  ASSIGN_OR_RETURN(NewDataFile file, OpenDataFile(store, root, schema, written));
  if (batch.num_rows > 0) RETURN_IF_ERROR(file.writer->Write(batch));
  uint64_t rows = 0;
  return FinishDataFile(&file, &rows);
}

// Hands out the caller's rows fragment by fragment.
class InputCursor {
 public:
  explicit InputCursor(const std::vector<RecordBatch>& batches) : batches_(batches) {}

  // The next `n` rows, one array per column.
  Result<std::vector<Array>> Next(uint64_t n, const Schema& schema) {
    const size_t num_columns = schema.fields.size();
    std::vector<std::vector<Array>> parts(num_columns);
    while (n > 0) {
      if (batch_ >= batches_.size()) return Status::Internal("the new columns ran out of rows before the fragments");
      const RecordBatch& b = batches_[batch_];
      int64_t take = std::min<int64_t>(static_cast<int64_t>(n), b.num_rows - offset_);
      for (size_t c = 0; c < num_columns; ++c) {
        if (offset_ == 0 && take == b.num_rows) {
          parts[c].push_back(b.columns[c]);
        } else {
          ASSIGN_OR_RETURN(Array piece, TakeRows(b.columns[c], Iota(offset_, take)));
          parts[c].push_back(std::move(piece));
        }
      }
      offset_ += take;
      n -= static_cast<uint64_t>(take);
      if (offset_ == b.num_rows) {
        ++batch_;
        offset_ = 0;
      }
    }
    std::vector<Array> out;
    for (size_t c = 0; c < num_columns; ++c) {
      std::vector<Array>& p = parts[c];
      if (p.empty()) {
        ASSIGN_OR_RETURN(Array none, MakeNullArray(schema.fields[c].type, 0));
        out.push_back(std::move(none));
      } else if (p.size() == 1) {
        out.push_back(std::move(p[0]));
      } else {
        ASSIGN_OR_RETURN(Array joined, Concatenate(p));
        out.push_back(std::move(joined));
      }
    }
    return out;
  }

 private:
  const std::vector<RecordBatch>& batches_;
  size_t batch_ = 0;
  int64_t offset_ = 0;
};

Status CheckBatches(const Dataset& dataset, const Schema& schema, std::vector<RecordBatch>* batches) {
  uint64_t total = 0;
  std::vector<RecordBatch> nonempty;
  for (size_t b = 0; b < batches->size(); ++b) {
    RecordBatch& batch = (*batches)[b];
    if (batch.columns.size() != schema.fields.size()) {
      return Status::InvalidArgument(dataset.uri() + ": batch " + std::to_string(b) + " has " +
                                     std::to_string(batch.columns.size()) + " columns but the new schema has " +
                                     std::to_string(schema.fields.size()));
    }
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      if (batch.columns[c].length != batch.num_rows) {
        return Status::InvalidArgument(dataset.uri() + ": batch " + std::to_string(b) + " column '" +
                                       schema.fields[c].name + "' has " + std::to_string(batch.columns[c].length) +
                                       " rows, not " + std::to_string(batch.num_rows));
      }
    }
    total += static_cast<uint64_t>(batch.num_rows);
    if (batch.num_rows > 0) nonempty.push_back(std::move(batch));
  }
  if (total != dataset.CountRows()) {
    return Status::InvalidArgument(dataset.uri() + ": the new columns have " + std::to_string(total) +
                                   " rows but version " + std::to_string(dataset.version()) + " has " +
                                   std::to_string(dataset.CountRows()));
  }
  *batches = std::move(nonempty);
  return Status::OK();
}

// Builds the Merge that adds one data file per fragment. Every fragment the change read
// must still be there with the same data files (a concurrent delete is fine: its
// deletion vector is kept), and no fragment may have been added since (its rows would
// have no values for the new column).
Result<PreparedCommit> MergeNewFiles(const CommitBase& base, const VersionManifest& read,
                                     const std::map<uint64_t, DataFile>& new_files, const std::string& root,
                                     const io::ObjectStore& store) {
  RETURN_IF_ERROR(CheckSchemaUnchanged(base, read.manifest, root));
  std::map<uint64_t, const DataFragment*> read_frags;
  for (const DataFragment& f : read.manifest.fragments()) read_frags[f.id()] = &f;
  PreparedCommit prep;
  Manifest& m = prep.manifest;
  m = *base.latest;
  m.clear_fragments();
  size_t seen = 0;
  for (const DataFragment& frag : base.latest->fragments()) {
    auto it = new_files.find(frag.id());
    auto was = read_frags.find(frag.id());
    if (it == new_files.end() || was == read_frags.end()) {
      return Status::CommitConflict(root + ": fragment " + std::to_string(frag.id()) + " was added after version " +
                                    std::to_string(read.manifest.version()) + " was read");
    }
    if (!SameDataFiles(frag, *was->second)) {
      return Status::CommitConflict(root + ": fragment " + std::to_string(frag.id()) + " was rewritten after version " +
                                    std::to_string(read.manifest.version()) + " was read");
    }
    DataFragment updated = frag;
    *updated.add_files() = it->second;
    if (m.reader_feature_flags() & kFlagStableRowIds) {
      // Writing a column counts as updating every row: the reference's add_columns and
      // alter_columns stamp last_updated with their version and keep created_at.
      updated.set_inline_last_updated_at_versions(
          EncodeConstantRowVersions(frag.physical_rows(), base.latest_version + 1));
    }
    *m.add_fragments() = std::move(updated);
    ++seen;
  }
  if (seen != new_files.size()) {
    return Status::CommitConflict(root + ": a fragment was removed after version " +
                                  std::to_string(read.manifest.version()) + " was read");
  }
  ASSIGN_OR_RETURN(prep.index_section, ReadIndexSection(store, base.latest_path, *base.latest));
  return prep;
}

void FillMerge(PreparedCommit* prep) {
  auto* merge = prep->transaction.mutable_merge();
  *merge->mutable_fragments() = prep->manifest.fragments();
  *merge->mutable_schema() = prep->manifest.fields();
  *merge->mutable_schema_metadata() = prep->manifest.schema_metadata();
}

// Commits a schema-only change: `edit` rewrites the fields of the latest manifest.
Result<uint64_t> CommitProject(const Dataset& dataset, const VersionManifest& read,
                               const std::function<Status(LanceFields*)>& edit, int max_commit_attempts) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    RETURN_IF_ERROR(CheckSchemaUnchanged(base, read.manifest, root));
    PreparedCommit prep;
    prep.manifest = *base.latest;
    RETURN_IF_ERROR(edit(prep.manifest.mutable_fields()));
    DropUnusedFiles(prep.manifest.fields(), &prep.manifest);
    ASSIGN_OR_RETURN(std::vector<uint8_t> indices, ReadIndexSection(*store, base.latest_path, *base.latest));
    ASSIGN_OR_RETURN(prep.index_section, KeepIndicesOn(indices, FieldIdsOf(prep.manifest.fields()), base.latest_path));
    *prep.transaction.mutable_project()->mutable_schema() = prep.manifest.fields();
    return prep;
  };
  return CommitWithRetry(*store, root, dataset.version(), build, max_commit_attempts);
}

}  // namespace

Result<uint64_t> AddColumns(const Dataset& dataset, const Schema& schema, std::vector<RecordBatch> batches,
                            int max_commit_attempts) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  if (schema.fields.empty()) return Status::InvalidArgument(root + ": AddColumns needs at least one column");
  RETURN_IF_ERROR(CheckNewNames(dataset, schema.fields));
  RETURN_IF_ERROR(CheckBatches(dataset, schema, &batches));
  ASSIGN_OR_RETURN(VersionManifest read, ReadVersionManifest(*store, root, dataset.version()));

  Schema write_schema = schema;
  int32_t next_id = MaxFieldId(read.manifest) + 1;
  for (Field& f : write_schema.fields) AssignNewFieldIds(&f, &next_id);
  ASSIGN_OR_RETURN(std::vector<lance::file::Field> new_fields, format::SchemaToLance(write_schema));

  std::vector<std::string> written;
  std::map<uint64_t, DataFile> new_files;
  Status wrote = [&]() -> Status {
    InputCursor input(batches);
    for (const FragmentInfo& frag : dataset.fragments()) {
      ScanOptions scan;
      scan.columns = {kRowAddr};
      scan.fragment_ids = {frag.id};
      ASSIGN_OR_RETURN(std::vector<RecordBatch> addrs, dataset.Scan(scan));
      ASSIGN_OR_RETURN(std::vector<uint64_t> offsets, LiveOffsets(addrs));
      ASSIGN_OR_RETURN(std::vector<Array> columns, input.Next(offsets.size(), write_schema));
      ASSIGN_OR_RETURN(new_files[frag.id],
                       WriteFragmentColumns(store, root, write_schema, columns, frag, offsets, &written));
    }
    return Status::OK();
  }();
  if (!wrote.ok()) {
    DeletePaths(*store, written);
    return wrote;
  }

  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    ASSIGN_OR_RETURN(PreparedCommit prep, MergeNewFiles(base, read, new_files, root, *store));
    for (const auto& f : new_fields) *prep.manifest.add_fields() = f;
    FillMerge(&prep);
    return prep;
  };
  auto committed = CommitWithRetry(*store, root, dataset.version(), build, max_commit_attempts);
  if (!committed.ok()) DeletePaths(*store, written);
  return committed;
}

Result<uint64_t> AddNullColumns(const Dataset& dataset, const std::vector<Field>& fields, int max_commit_attempts) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  if (fields.empty()) return Status::InvalidArgument(root + ": AddNullColumns needs at least one column");
  RETURN_IF_ERROR(CheckNewNames(dataset, fields));
  for (const Field& f : fields) {
    if (!AllNullable(f)) {
      return Status::InvalidArgument(root + ": column '" + f.name +
                                     "' reads as null everywhere, so it and "
                                     "its children must be nullable");
    }
  }
  ASSIGN_OR_RETURN(VersionManifest read, ReadVersionManifest(*store, root, dataset.version()));
  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    RETURN_IF_ERROR(CheckSchemaUnchanged(base, read.manifest, root));
    PreparedCommit prep;
    prep.manifest = *base.latest;
    Schema added{fields, {}};
    int32_t next_id = MaxFieldId(*base.latest) + 1;
    for (Field& f : added.fields) AssignNewFieldIds(&f, &next_id);
    ASSIGN_OR_RETURN(std::vector<lance::file::Field> new_fields, format::SchemaToLance(added));
    for (const auto& f : new_fields) *prep.manifest.add_fields() = f;
    ASSIGN_OR_RETURN(prep.index_section, ReadIndexSection(*store, base.latest_path, *base.latest));
    FillMerge(&prep);
    return prep;
  };
  return CommitWithRetry(*store, root, dataset.version(), build, max_commit_attempts);
}

Result<uint64_t> DropColumns(const Dataset& dataset, const std::vector<std::string>& columns, int max_commit_attempts) {
  const std::string& root = dataset.root();
  if (columns.empty()) return Status::InvalidArgument(root + ": DropColumns needs at least one column");
  ASSIGN_OR_RETURN(VersionManifest read, ReadVersionManifest(*dataset.store(), root, dataset.version()));
  const LanceFields& fields = read.manifest.fields();
  std::set<int32_t> removed;
  for (const std::string& c : columns) {
    int idx = FindField(fields, c);
    if (idx < 0) return Status::NotFound(root + ": no column named '" + c + "'");
    if (fields[idx].parent_id() != -1 && InsideBlob(fields, idx)) {
      return Status::InvalidArgument(root + ": '" + c + "' is part of a Blob V2 column; drop the whole column");
    }
    std::set<int32_t> sub = Subtree(fields, fields[idx].id());
    removed.insert(sub.begin(), sub.end());
  }
  bool any_left = false;
  for (const auto& f : fields) {
    if (removed.count(f.id())) continue;
    any_left = any_left || f.parent_id() == -1;
    if (f.logical_type() != "struct") continue;
    bool has_member = false;
    for (const auto& g : fields) has_member = has_member || (g.parent_id() == f.id() && !removed.count(g.id()));
    if (!has_member) {
      return Status::InvalidArgument(root + ": dropping would leave struct '" + f.name() + "' without members");
    }
  }
  if (!any_left) return Status::InvalidArgument(root + ": cannot drop every column of the dataset");
  auto edit = [&](LanceFields* out) -> Status {
    LanceFields kept;
    for (const auto& f : *out) {
      if (!removed.count(f.id())) *kept.Add() = f;
    }
    out->Swap(&kept);
    return Status::OK();
  };
  return CommitProject(dataset, read, edit, max_commit_attempts);
}

Result<uint64_t> RenameColumn(const Dataset& dataset, const std::string& from, const std::string& to,
                              int max_commit_attempts) {
  const std::string& root = dataset.root();
  if (to.empty() || to.find('.') != std::string::npos) {
    return Status::InvalidArgument(root + ": '" + to + "' is not a valid column name (empty or has a '.')");
  }
  ASSIGN_OR_RETURN(VersionManifest read, ReadVersionManifest(*dataset.store(), root, dataset.version()));
  const LanceFields& fields = read.manifest.fields();
  int idx = FindField(fields, from);
  if (idx < 0) return Status::NotFound(root + ": no column named '" + from + "'");
  if (fields[idx].parent_id() != -1 && InsideBlob(fields, idx)) {
    return Status::InvalidArgument(root + ": '" + from + "' is part of a Blob V2 column and keeps its name");
  }
  for (const auto& f : fields) {
    if (f.parent_id() == fields[idx].parent_id() && f.id() != fields[idx].id() && f.name() == to) {
      return Status::InvalidArgument(root + ": cannot rename '" + from + "': a column named '" + to + "' exists");
    }
  }
  int32_t id = fields[idx].id();
  auto edit = [&](LanceFields* out) -> Status {
    for (auto& f : *out) {
      if (f.id() == id) f.set_name(to);
    }
    return Status::OK();
  };
  return CommitProject(dataset, read, edit, max_commit_attempts);
}

Result<uint64_t> AlterColumnType(const Dataset& dataset, const std::string& column, const DataType& type,
                                 int max_commit_attempts) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  int pos = dataset.schema().FieldIndex(column);
  if (pos < 0) return Status::NotFound(root + ": no top-level column named '" + column + "'");
  const Field& source = dataset.schema().fields[static_cast<size_t>(pos)];
  if (source.type == type) {
    return Status::InvalidArgument(root + ": column '" + column + "' already is " + type.ToString());
  }
  if (!CanCast(source.type, type)) {
    return Status::InvalidArgument(root + ": cannot cast column '" + column + "' from " + source.type.ToString() +
                                   " to " + type.ToString() +
                                   " (supported: integer to integer, float to double "
                                   "and back, utf8/large_utf8, binary/large_binary)");
  }
  ASSIGN_OR_RETURN(VersionManifest read, ReadVersionManifest(*store, root, dataset.version()));
  int idx = -1;
  for (int i = 0; i < read.manifest.fields_size(); ++i) {
    if (read.manifest.fields(i).id() == source.id) idx = i;
  }
  if (idx < 0) return Status::Internal(root + ": column '" + column + "' is not in the manifest it came from");

  // The cast column is a new field: data files never change what an id means.
  Field target = source;
  target.type = type;
  target.id = MaxFieldId(read.manifest) + 1;
  Schema write_schema{{target}, {}};
  ASSIGN_OR_RETURN(std::vector<lance::file::Field> target_fields, format::SchemaToLance(write_schema));

  std::vector<std::string> written;
  std::map<uint64_t, DataFile> new_files;
  Status wrote = [&]() -> Status {
    for (const FragmentInfo& frag : dataset.fragments()) {
      ScanOptions scan;
      scan.columns = {column, kRowAddr};
      scan.fragment_ids = {frag.id};
      ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, dataset.Scan(scan));
      ASSIGN_OR_RETURN(std::vector<uint64_t> offsets, LiveOffsets(batches));
      std::vector<Array> parts;
      for (const RecordBatch& b : batches) parts.push_back(b.columns[0]);
      Array live;
      if (parts.empty()) {
        ASSIGN_OR_RETURN(live, MakeNullArray(type, 0));
      } else {
        ASSIGN_OR_RETURN(Array joined, parts.size() == 1 ? Result<Array>(parts[0]) : Concatenate(parts));
        ASSIGN_OR_RETURN(live, CastArray(joined, type, root + ": " + column));
      }
      ASSIGN_OR_RETURN(new_files[frag.id],
                       WriteFragmentColumns(store, root, write_schema, {live}, frag, offsets, &written));
    }
    return Status::OK();
  }();
  if (!wrote.ok()) {
    DeletePaths(*store, written);
    return wrote;
  }

  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    ASSIGN_OR_RETURN(PreparedCommit prep, MergeNewFiles(base, read, new_files, root, *store));
    // Same position in the schema, so column order does not change (as the reference).
    LanceFields* fields = prep.manifest.mutable_fields();
    (*fields)[idx] = target_fields[0];
    DropUnusedFiles(*fields, &prep.manifest);
    ASSIGN_OR_RETURN(prep.index_section, KeepIndicesOn(prep.index_section, FieldIdsOf(*fields), base.latest_path));
    FillMerge(&prep);
    return prep;
  };
  auto committed = CommitWithRetry(*store, root, dataset.version(), build, max_commit_attempts);
  if (!committed.ok()) DeletePaths(*store, written);
  return committed;
}

}  // namespace lancet::table
