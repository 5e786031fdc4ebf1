// What schema evolution and compaction share: the manifest of the version a change
// read, field ids, writing new data files and carrying indices. Internal to the table
// layer.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lance_proto/table.pb.h"
#include "lancet/array.h"
#include "lancet/format/file_writer.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"
#include "table/commit.h"

namespace lancet::table {

/// The manifest of `version` of the dataset at `root` and its path.
struct VersionManifest {
  lance::table::Manifest manifest;
  std::string path;
};
/// NotFound if `version` does not exist; NotSupported for unknown writer features.
Result<VersionManifest> ReadVersionManifest(const io::ObjectStore& store, const std::string& root, uint64_t version);

/// The largest field id the schema or any data file uses (-1 if none): new fields must
/// go above it, because data files keep the ids of dropped columns (manifest.rs
/// `max_field_id`).
int32_t MaxFieldId(const lance::table::Manifest& manifest);

/// Gives `field` and its descendants fresh ids counting up from *next, in pre-order
/// (the item of a fixed_size_list gets none, as in SchemaToLance).
void AssignNewFieldIds(Field* field, int32_t* next);

/// Every field id of `fields` (parents included).
std::set<int32_t> FieldIdsOf(const google::protobuf::RepeatedPtrField<lance::file::Field>& fields);

/// True if the fields (names, ids, types, metadata) are identical.
bool SameFields(const lance::table::Manifest& a, const lance::table::Manifest& b);

/// True if the fragment has the same data files (and row count) in both.
bool SameDataFiles(const lance::table::DataFragment& a, const lance::table::DataFragment& b);
/// True if the fragment has the same data files and deletion file in both.
bool SameFragmentFiles(const lance::table::DataFragment& a, const lance::table::DataFragment& b);

/// CommitConflict if a version committed after the read replaced the table.
Status CheckNotReplaced(const CommitBase& base, const std::string& root);

/// \brief A data file under `<root>/data/` being written.
struct NewDataFile {
  std::unique_ptr<format::FileWriter> writer;
  std::string name;  // relative to data/
  uint16_t minor_version = 2;
};
/// Opens a new data file for `schema` (fields carry their Lance ids) and records its
/// full path in `written`. Blob descriptors with blob_info make it a 2.3 file, written
/// with their on-disk shape (the caller converts arrays with BlobInfoToPhysical).
Result<NewDataFile> OpenDataFile(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                                 const Schema& schema, std::vector<std::string>* written);
/// Finishes `file` and returns its manifest entry; *rows gets its row count.
Result<lance::table::DataFile> FinishDataFile(NewDataFile* file, uint64_t* rows);

/// The serialized IndexSection `section` without the indices on a field that is not in
/// `field_ids` (reference: Transaction::retain_relevant_indices).
Result<std::vector<uint8_t>> KeepIndicesOn(const std::vector<uint8_t>& section, const std::set<int32_t>& field_ids,
                                           const std::string& path);

/// Deletes every path (best effort: they are unreferenced).
void DeletePaths(io::ObjectStore& store, const std::vector<std::string>& paths);

/// The row indices [begin, begin + n), for TakeRows.
std::vector<int64_t> Iota(int64_t begin, int64_t n);

}  // namespace lancet::table
