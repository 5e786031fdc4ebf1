// Branches (docs/format-notes/branches.md): a branch is a shallow clone under
// tree/<name>/ plus its ref, which is what makes it exist.
#include "lancet/table/branch.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>

#include "table/clone_write.h"
#include "table/commit.h"
#include "table/manifest.h"
#include "table/refs.h"

namespace lancet::table {
namespace {

// The reference's branch identifier: the parent's version mapping plus this fork point
// under a fresh id (32 hex digits, no hyphens).
Result<nlohmann::json> BranchVersionMapping(const Dataset& from) {
  nlohmann::json mapping = nlohmann::json::array();
  if (!from.branch().empty()) {
    std::string path = JoinPath(from.table_root(), BranchRefPath(from.branch()));
    ASSIGN_OR_RETURN(std::string text, ReadRefFile(*from.store(), path, "branch"));
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_object() && doc.contains("identifier") && doc["identifier"].is_object()) {
      const nlohmann::json& parent = doc["identifier"]["version_mapping"];
      if (parent.is_array()) mapping = parent;
    }
  }
  std::string id = NewUuid();
  std::erase(id, '-');
  mapping.push_back(nlohmann::json::array({from.version(), id}));
  return mapping;
}

Result<uint64_t> ManifestFileSize(const Dataset& ds) {
  ASSIGN_OR_RETURN(std::vector<ManifestLocation> manifests, ListManifests(*ds.store(), ds.root()));
  for (const ManifestLocation& m : manifests) {
    if (m.version != ds.version()) continue;
    if (m.size != 0) return m.size;
    return ds.store()->Size(m.path);
  }
  return Status::NotFound(ds.root() + ": version " + std::to_string(ds.version()) + " not found");
}

// Every object under `dir` except the directories in `skip` (nested branches).
Status CollectBranchFiles(const io::ObjectStore& store, const std::string& dir, const std::set<std::string>& skip,
                          std::vector<std::string>* out) {
  auto listed = store.List(dir);
  if (listed.status().IsNotFound()) return Status::OK();
  RETURN_IF_ERROR(listed.status());
  for (const io::ObjectInfo& info : *listed) {
    std::string path = JoinPath(dir, info.path);
    if (!info.is_dir) {
      out->push_back(std::move(path));
    } else if (!skip.count(path)) {
      RETURN_IF_ERROR(CollectBranchFiles(store, path, skip, out));
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<BranchInfo>> ListBranches(const Dataset& dataset) {
  return ReadBranches(*dataset.store(), dataset.table_root());
}

Result<std::unique_ptr<Dataset>> CreateBranch(const Dataset& from, const std::string& name) {
  RETURN_IF_ERROR(ValidateBranchName(name));
  const std::string& table_root = from.table_root();
  io::ObjectStore& store = *from.store();
  auto existing = ReadBranch(store, table_root, name);
  if (existing.ok())
    return Status::AlreadyExists(JoinPath(table_root, BranchRefPath(name)) + ": branch '" + name + "' exists");
  if (!existing.status().IsNotFound()) return existing.status();
  ASSIGN_OR_RETURN(nlohmann::json mapping, BranchVersionMapping(from));
  ASSIGN_OR_RETURN(uint64_t manifest_size, ManifestFileSize(from));
  // The manifest goes first: its create-if-absent decides between concurrent creators,
  // and a ref is never visible before the branch can be read.
  RETURN_IF_ERROR(WriteShallowClone(from, store, BranchRoot(table_root, name), name).status());
  auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  nlohmann::json ref = {
      {"parentBranch", from.branch().empty() ? nlohmann::json(nullptr) : nlohmann::json(from.branch())},
      {"identifier", {{"version_mapping", mapping}}},
      {"parentVersion", from.version()},
      {"createAt", now.count()},
      {"manifestSize", manifest_size},
      {"metadata", nlohmann::json::object()},
  };
  std::string text = ref.dump(2);
  std::string path = JoinPath(table_root, BranchRefPath(name));
  Status put = store.PutIfAbsent(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  if (put.code() == StatusCode::kAlreadyExists) return Status::AlreadyExists(path + ": branch '" + name + "' exists");
  RETURN_IF_ERROR(put);
  OpenOptions o;
  o.branch = name;
  o.version = from.version();
  return Dataset::Open(from.store(), table_root, o);
}

Status DeleteBranch(const Dataset& dataset, const std::string& name) {
  const std::string& table_root = dataset.table_root();
  io::ObjectStore& store = *dataset.store();
  auto ref = ReadBranch(store, table_root, name);
  if (!ref.ok() && !ref.status().IsNotFound()) return ref.status();
  ASSIGN_OR_RETURN(std::vector<BranchInfo> branches, ReadBranches(store, table_root));
  std::set<std::string> nested;
  for (const BranchInfo& b : branches) {
    if (b.parent_branch == name) {
      return Status::InvalidArgument(table_root + ": branch '" + b.name + "' was forked from '" + name +
                                     "' and reads its files; delete it first");
    }
    if (b.name != name) nested.insert(BranchRoot(table_root, b.name));
  }
  std::vector<std::string> files;
  RETURN_IF_ERROR(CollectBranchFiles(store, BranchRoot(table_root, name), nested, &files));
  if (!ref.ok()) {
    // No ref but files: what a create killed between its manifest and its ref leaves
    // (the name stays taken until they go).
    if (files.empty()) return ref.status();
    return store.DeleteMany(files).status();
  }
  // The ref first: once it is gone the branch no longer exists, whatever files remain.
  RETURN_IF_ERROR(store.Delete(JoinPath(table_root, BranchRefPath(name))));
  return store.DeleteMany(files).status();
}

}  // namespace lancet::table
