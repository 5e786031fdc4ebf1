#include "table/evolution_io.h"

#include <algorithm>

#include "table/blob_info.h"
#include "table/manifest.h"

namespace lancet::table {

Result<VersionManifest> ReadVersionManifest(const io::ObjectStore& store, const std::string& root, uint64_t version) {
  ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(store, root));
  for (const ManifestLocation& loc : manifests) {
    if (loc.version != version) continue;
    VersionManifest out;
    ASSIGN_OR_RETURN(out.manifest, ReadManifest(store, loc.path, loc.size));
    RETURN_IF_ERROR(CheckReaderFeatureFlags(out.manifest, loc.path));
    out.path = loc.path;
    return out;
  }
  return Status::NotFound(root + ": version " + std::to_string(version) + " does not exist");
}

int32_t MaxFieldId(const lance::table::Manifest& manifest) {
  int32_t max = -1;
  for (const auto& f : manifest.fields()) max = std::max(max, f.id());
  for (const auto& frag : manifest.fragments()) {
    for (const auto& file : frag.files()) {
      for (int32_t id : file.fields()) max = std::max(max, id);
    }
  }
  return max;
}

void AssignNewFieldIds(Field* field, int32_t* next) {
  field->id = (*next)++;
  if (field->type.id == TypeId::kFixedSizeList) {
    for (Field& c : field->type.children) c.id = -1;
    return;
  }
  for (Field& c : field->type.children) AssignNewFieldIds(&c, next);
}

std::set<int32_t> FieldIdsOf(const google::protobuf::RepeatedPtrField<lance::file::Field>& fields) {
  std::set<int32_t> ids;
  for (const auto& f : fields) ids.insert(f.id());
  return ids;
}

bool SameFields(const lance::table::Manifest& a, const lance::table::Manifest& b) {
  if (a.fields_size() != b.fields_size()) return false;
  for (int i = 0; i < a.fields_size(); ++i) {
    // Map order inside metadata is not canonical, so compare the maps, not bytes.
    const auto &x = a.fields(i), &y = b.fields(i);
    if (x.id() != y.id() || x.parent_id() != y.parent_id() || x.name() != y.name() ||
        x.logical_type() != y.logical_type() || x.nullable() != y.nullable() ||
        x.extension_name() != y.extension_name() || x.metadata_size() != y.metadata_size()) {
      return false;
    }
    for (const auto& [k, v] : x.metadata()) {
      auto it = y.metadata().find(k);
      if (it == y.metadata().end() || it->second != v) return false;
    }
  }
  return true;
}

bool SameDataFiles(const lance::table::DataFragment& a, const lance::table::DataFragment& b) {
  if (a.files_size() != b.files_size() || a.physical_rows() != b.physical_rows()) return false;
  for (int i = 0; i < a.files_size(); ++i) {
    if (a.files(i).SerializeAsString() != b.files(i).SerializeAsString()) return false;
  }
  return true;
}

bool SameFragmentFiles(const lance::table::DataFragment& a, const lance::table::DataFragment& b) {
  if (!SameDataFiles(a, b)) return false;
  if (a.has_deletion_file() != b.has_deletion_file()) return false;
  return !a.has_deletion_file() || a.deletion_file().SerializeAsString() == b.deletion_file().SerializeAsString();
}

Status CheckNotReplaced(const CommitBase& base, const std::string& root) {
  if (!base.latest) return Status::NotFound(root + ": the dataset has no versions any more");
  for (const auto& [version, txn] : base.since_read) {
    if (txn && (txn->has_overwrite() || txn->has_restore())) {
      return Status::CommitConflict(root + ": version " + std::to_string(version) +
                                    " replaced the table (overwrite or "
                                    "restore) after this change read it");
    }
  }
  return Status::OK();
}

Result<NewDataFile> OpenDataFile(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                                 const Schema& schema, std::vector<std::string>* written) {
  NewDataFile out;
  out.name = NewDataFileName();
  std::string path = JoinPath(root, "data/" + out.name);
  written->push_back(path);
  Schema physical = schema;
  for (Field& f : physical.fields) {
    if (HasBlobDescriptor(f)) {
      f = ToBlobInfoPhysical(f);
      out.minor_version = 3;
    }
  }
  format::FileWriterOptions options;
  options.minor_version = out.minor_version;
  ASSIGN_OR_RETURN(out.writer, format::FileWriter::Open(store, path, physical, options));
  return out;
}

Result<lance::table::DataFile> FinishDataFile(NewDataFile* file, uint64_t* rows) {
  ASSIGN_OR_RETURN(format::FileStats stats, file->writer->Finish());
  file->writer.reset();
  lance::table::DataFile out;
  out.set_path(file->name);
  // 2.1+ files list leaf fields in column order (notes §4.1).
  for (size_t i = 0; i < stats.columns.size(); ++i) {
    out.add_fields(stats.columns[i].field_id);
    out.add_column_indices(static_cast<int32_t>(i));
  }
  out.set_file_major_version(2);
  out.set_file_minor_version(file->minor_version);
  out.set_file_size_bytes(stats.file_size);
  *rows = stats.num_rows;
  return out;
}

Result<std::vector<uint8_t>> KeepIndicesOn(const std::vector<uint8_t>& section, const std::set<int32_t>& field_ids,
                                           const std::string& path) {
  if (section.empty()) return section;
  lance::table::IndexSection indices;
  if (!indices.ParseFromArray(section.data(), static_cast<int>(section.size()))) {
    return Status::Corruption(path + ": index section is not a valid lance.table.IndexSection");
  }
  lance::table::IndexSection kept;
  for (const auto& index : indices.indices()) {
    bool covered =
        std::all_of(index.fields().begin(), index.fields().end(), [&](int32_t id) { return field_ids.count(id) > 0; });
    if (covered) *kept.add_indices() = index;
  }
  if (kept.indices_size() == indices.indices_size()) return section;
  if (kept.indices_size() == 0) return std::vector<uint8_t>{};
  std::string bytes = kept.SerializeAsString();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

void DeletePaths(io::ObjectStore& store, const std::vector<std::string>& paths) {
  for (const std::string& p : paths) (void)store.Delete(p);
}

std::vector<int64_t> Iota(int64_t begin, int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = begin + i;
  return out;
}

}  // namespace lancet::table
