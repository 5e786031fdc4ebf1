// CommitIndexChange: a CreateIndex transaction on top of whatever others committed
// since the read, as long as the indexed fields and the replaced segments still exist.
#include <algorithm>
#include <set>

#include "lancet/table/dataset.h"
#include "lancet/table/index_metadata.h"
#include "table/commit.h"
#include "table/evolution_io.h"
#include "table/index_section.h"

namespace lancet::table {
namespace {

// A column update since the read changed values in place: an index built from the read
// version would miss them.
Status CheckValuesUnchanged(const CommitBase& base, const std::vector<IndexMetadata>& added, const std::string& root,
                            uint64_t read_version) {
  std::set<uint32_t> indexed;
  for (const IndexMetadata& m : added) indexed.insert(m.fields.begin(), m.fields.end());
  for (const auto& [version, txn] : base.since_read) {
    if (!txn || !txn->has_update()) continue;
    for (uint32_t f : txn->update().fields_modified()) {
      if (indexed.count(f)) {
        return Status::CommitConflict(root + ": version " + std::to_string(version) +
                                      " rewrote an indexed column after version " + std::to_string(read_version) +
                                      " was read");
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<uint64_t> CommitIndexChange(const Dataset& dataset, std::vector<IndexMetadata> added,
                                   const std::vector<std::string>& removed_uuids, int max_commit_attempts) {
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const std::string& root = dataset.root();
  std::vector<lance::table::IndexMetadata> added_pb;
  for (const IndexMetadata& m : added) {
    ASSIGN_OR_RETURN(lance::table::IndexMetadata pb, IndexToProto(m));
    added_pb.push_back(std::move(pb));
  }
  CommitBuilder build = [&](const CommitBase& base) -> Result<PreparedCommit> {
    RETURN_IF_ERROR(CheckNotReplaced(base, root));
    RETURN_IF_ERROR(CheckValuesUnchanged(base, added, root, dataset.version()));
    std::set<int32_t> field_ids;
    for (const auto& f : base.latest->fields()) field_ids.insert(f.id());
    for (const IndexMetadata& m : added) {
      for (int32_t f : m.fields) {
        if (!field_ids.count(f)) {
          return Status::CommitConflict(root + ": the column of index '" + m.name +
                                        "' was dropped or changed after version " + std::to_string(dataset.version()) +
                                        " was read");
        }
      }
    }
    ASSIGN_OR_RETURN(std::vector<uint8_t> raw, ReadIndexSection(*store, base.latest_path, *base.latest));
    lance::table::IndexSection section;
    if (!raw.empty() && !section.ParseFromArray(raw.data(), static_cast<int>(raw.size()))) {
      return Status::Corruption(base.latest_path + ": index section is not a valid lance.table.IndexSection");
    }
    PreparedCommit prep;
    prep.manifest = *base.latest;
    auto* txn = prep.transaction.mutable_create_index();
    lance::table::IndexSection next;
    std::set<std::string> found;
    for (const auto& pb : section.indices()) {
      ASSIGN_OR_RETURN(IndexMetadata m, IndexFromProto(pb, base.latest_path));
      if (std::find(removed_uuids.begin(), removed_uuids.end(), m.uuid) != removed_uuids.end()) {
        found.insert(m.uuid);
        *txn->add_removed_indices() = pb;
        continue;
      }
      for (const IndexMetadata& a : added) {
        if (a.name == m.name) {
          return Status::AlreadyExists(root + ": an index named '" + m.name + "' already exists");
        }
      }
      *next.add_indices() = pb;
    }
    for (const std::string& uuid : removed_uuids) {
      if (!found.count(uuid)) {
        return Status::CommitConflict(root + ": index segment " + uuid + " is not in version " +
                                      std::to_string(base.latest_version) + " (replaced or dropped meanwhile)");
      }
    }
    for (const auto& pb : added_pb) {
      *next.add_indices() = pb;
      *txn->add_new_indices() = pb;
    }
    if (next.indices_size() > 0) {
      prep.index_section.resize(next.ByteSizeLong());
      next.SerializeToArray(prep.index_section.data(), static_cast<int>(prep.index_section.size()));
    }
    return prep;
  };
  return CommitWithRetry(*store, root, dataset.version(), build, max_commit_attempts);
}

}  // namespace lancet::table
