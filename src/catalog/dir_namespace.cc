// The directory namespace. Every call loads the manifest's rows (a small table) and,
// for root tables, lists the root directory, then answers from both (compatibility
// mode, namespace-notes §1.3); changes go through ManifestTable.
#include "lancet/catalog/dir_namespace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <system_error>

#include "catalog/manifest_table.h"
#include "lancet/catalog/names.h"

namespace lancet::catalog {
namespace fs = std::filesystem;
namespace {

constexpr const char* kTableSuffix = ".lance";
constexpr const char* kReservedMarker = ".lance-reserved";
constexpr const char* kDeregisteredMarker = ".lance-deregistered";
constexpr std::string_view kReservedContent = "reserved";

bool ParseBool(const std::string& text, bool fallback) {
  if (text == "true" || text == "True" || text == "TRUE" || text == "1") return true;
  if (text == "false" || text == "False" || text == "FALSE" || text == "0") return false;
  return fallback;
}

std::string Parent(const std::string& object_id) {
  const size_t at = object_id.rfind('$');
  return at == std::string::npos ? std::string() : object_id.substr(0, at);
}
std::string LastPart(const std::string& object_id) {
  const size_t at = object_id.rfind('$');
  return at == std::string::npos ? object_id : object_id.substr(at + 1);
}
bool IsUnder(const std::string& object_id, const std::string& prefix) {
  return object_id.size() > prefix.size() + 1 && object_id.compare(0, prefix.size(), prefix) == 0 &&
         object_id[prefix.size()] == '$';
}

std::string Describe(const Id& id) {
  return id.empty() ? std::string("the root namespace") : "'" + JoinId(id, ".") + "'";
}

Page MakePage(std::set<std::string> names, const PageRequest& request) {
  Page page;
  auto it = request.token.empty() ? names.begin() : names.upper_bound(request.token);
  const size_t limit = request.limit && *request.limit > 0 ? *request.limit : std::numeric_limits<size_t>::max();
  for (; it != names.end() && page.names.size() < limit; ++it) page.names.push_back(*it);
  if (it != names.end() && !page.names.empty()) page.next_token = page.names.back();
  return page;
}

Result<Properties> ParseProperties(const std::optional<std::string>& metadata) {
  Properties out;
  if (!metadata || metadata->empty()) return out;
  const nlohmann::json doc = nlohmann::json::parse(*metadata, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return NamespaceError(ErrorCode::kInternal, "namespace metadata is not a JSON object: " + metadata->substr(0, 80));
  }
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    out[it.key()] = it.value().is_string() ? it.value().get<std::string>()
                                           : it.value().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return out;
}

std::optional<std::string> PropertiesJson(const Properties& properties) {
  if (properties.empty()) return std::nullopt;
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [k, v] : properties) doc[k] = v;
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The directory name of a nested table: 8 random hex digits, '_', the object id (the
// reference's scheme; the random part keeps a re-created name off the old directory).
std::string NestedDirName(const std::string& object_id) {
  static std::mutex mutex;
  static std::mt19937_64 rng(std::random_device{}());
  uint32_t bits;
  {
    std::lock_guard<std::mutex> lock(mutex);
    bits = static_cast<uint32_t>(rng());
  }
  char hex[16];
  std::snprintf(hex, sizeof(hex), "%08x", bits);
  return std::string(hex) + "_" + object_id;
}

Status WriteMarker(const fs::path& dir, const char* name, std::string_view content) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir.string() + ": " + ec.message());
  const fs::path path = dir / name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Status::IOError("cannot write " + path.string());
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  if (std::fclose(f) != 0 || !ok) return Status::IOError("cannot write " + path.string());
  return Status::OK();
}

}  // namespace

class DirectoryNamespace::Impl {
 public:
  Impl(DirectoryNamespaceOptions options, std::string root)
      : options_(std::move(options)), root_(std::move(root)), manifest_(root_ + "/" + kManifestDirName) {}

  const std::string& root() const { return root_; }

  // What one call sees: the manifest's rows by object id.
  struct Snapshot {
    std::map<std::string, ManifestRow> rows;
    const ManifestRow* Find(const std::string& object_id, const char* type) const {
      auto it = rows.find(object_id);
      return it != rows.end() && it->second.object_type == type ? &it->second : nullptr;
    }
  };

  Result<Snapshot> Load() const {
    Snapshot snap;
    if (!options_.manifest_enabled) return snap;
    ASSIGN_OR_RETURN(std::vector<ManifestRow> rows, manifest_.Read());
    for (ManifestRow& r : rows) snap.rows.emplace(r.object_id, std::move(r));
    return snap;
  }

  bool NamespaceIn(const Snapshot& snap, const Id& id) const {
    return id.empty() || snap.Find(JoinId(id), kTypeNamespace) != nullptr;
  }

  Status RequireNamespace(const Snapshot& snap, const Id& id) const {
    if (NamespaceIn(snap, id)) return Status::OK();
    return NamespaceError(ErrorCode::kNamespaceNotFound, "namespace " + Describe(id) + " not found");
  }

  Status RequireManifest(const std::string& what) const {
    if (options_.manifest_enabled) return Status::OK();
    return NamespaceError(ErrorCode::kUnsupported, what + " need the manifest (manifest_enabled=true)");
  }

  // `relative` (a manifest location) as an absolute path inside the root; kInvalidInput
  // for locations that are absolute, climb with "..", or resolve outside the root.
  Result<std::string> Resolve(const std::string& relative) const {
    const fs::path rel(relative);
    bool climbs = false;
    for (const fs::path& part : rel) climbs |= part == "..";
    if (relative.empty() || rel.is_absolute() || climbs || relative.find('\\') != std::string::npos ||
        relative.find('\0') != std::string::npos) {
      return NamespaceError(ErrorCode::kInvalidInput, "table location '" + relative + "' is not inside the root");
    }
    const std::string path = root_ + "/" + relative;
    RETURN_IF_ERROR(CheckInsideRoot(path));
    return path;
  }

  // Symlinks followed: `path` must stay under the root.
  Status CheckInsideRoot(const std::string& path) const {
    std::error_code ec;
    const fs::path real_root = fs::weakly_canonical(root_, ec);
    if (ec) return Status::IOError("cannot resolve " + root_ + ": " + ec.message());
    const fs::path real = fs::weakly_canonical(path, ec);
    if (ec) return Status::IOError("cannot resolve " + path + ": " + ec.message());
    const std::string r = real_root.string(), p = real.string();
    if (p.size() > r.size() && p.compare(0, r.size(), r) == 0 && (p[r.size()] == '/' || r == "/")) {
      return Status::OK();
    }
    return NamespaceError(ErrorCode::kInvalidInput,
                          "table directory " + path + " resolves to " + p + ", outside the namespace root " + r);
  }

  // <root>/<name>.lance as a V1 table: a directory with at least one entry and no
  // deregistration marker.
  bool IsV1Table(const std::string& name) const {
    std::error_code ec;
    const fs::path dir = fs::path(root_) / (name + kTableSuffix);
    if (!fs::is_directory(dir, ec)) return false;
    if (fs::exists(dir / kDeregisteredMarker, ec)) return false;
    fs::directory_iterator it(dir, ec);
    return !ec && it != fs::directory_iterator();
  }

  // Root-level names of V1 directories, minus directories a manifest row owns (a row
  // with another id, e.g. after a rename, decides what the directory is called).
  std::set<std::string> V1Names(const Snapshot& snap) const {
    std::set<std::string> names;
    if (!options_.dir_listing_enabled) return names;
    std::set<std::string> owned;
    for (const auto& [id, row] : snap.rows) {
      if (row.object_type == kTypeTable && row.location) owned.insert(*row.location);
    }
    std::error_code ec;
    const std::string suffix = kTableSuffix;
    for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string file = it->path().filename().string();
      if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      const std::string name = file.substr(0, file.size() - suffix.size());
      if (!ValidateName(name).ok() || owned.count(file) || !IsV1Table(name)) continue;
      if (!CheckInsideRoot(it->path().string()).ok()) continue;
      names.insert(name);
    }
    return names;
  }

  // The table's location relative to the root, or nullopt when there is no such table.
  std::optional<std::string> FindTable(const Snapshot& snap, const Id& id) const {
    if (const ManifestRow* row = snap.Find(JoinId(id), kTypeTable); row && row->location) return *row->location;
    if (id.size() == 1 && V1Names(snap).count(id[0])) return id[0] + kTableSuffix;
    return std::nullopt;
  }

  Result<TableInfo> Info(const std::string& relative) const {
    ASSIGN_OR_RETURN(std::string path, Resolve(relative));
    TableInfo info;
    info.location = path;
    std::error_code ec;
    info.only_declared =
        fs::exists(fs::path(path) / kReservedMarker, ec) && !fs::exists(fs::path(path) / "_versions", ec);
    return info;
  }

  Status TableNotFound(const Id& id) const {
    return NamespaceError(ErrorCode::kTableNotFound, "table " + Describe(id) + " not found");
  }

  // Loads, checks `id` names a table in an existing namespace; returns its location.
  Result<std::pair<Snapshot, std::string>> Locate(const Id& id) const {
    RETURN_IF_ERROR(ValidateId(id, false));
    ASSIGN_OR_RETURN(Snapshot snap, Load());
    RETURN_IF_ERROR(RequireNamespace(snap, Id(id.begin(), id.end() - 1)));
    std::optional<std::string> location = FindTable(snap, id);
    if (!location) return TableNotFound(id);
    return std::make_pair(std::move(snap), *location);
  }

  // Takes table `id` out of the catalog (its manifest row, when it has one) and returns
  // where its data is: what drop and deregister share.
  Result<std::pair<TableInfo, std::string>> Unlist(const Id& id) {
    ASSIGN_OR_RETURN(auto found, Locate(id));
    ASSIGN_OR_RETURN(TableInfo info, Info(found.second));
    const std::string object_id = JoinId(id);
    if (found.first.rows.count(object_id)) {
      RETURN_IF_ERROR(manifest_.Remove([&](const ManifestRow& row) { return row.object_id == object_id; }).status());
    }
    return std::make_pair(std::move(info), std::move(found.second));
  }

  Status EnsureRoot() const {
    std::error_code ec;
    fs::create_directories(root_, ec);
    if (ec) return Status::IOError("cannot create namespace root " + root_ + ": " + ec.message());
    return Status::OK();
  }

  Status RemoveDirectory(const std::string& path) const {
    RETURN_IF_ERROR(CheckInsideRoot(path));
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec) return Status::IOError("cannot delete " + path + ": " + ec.message());
    return Status::OK();
  }

  DirectoryNamespaceOptions options_;
  std::string root_;
  ManifestTable manifest_;
};

DirectoryNamespace::DirectoryNamespace(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DirectoryNamespace::~DirectoryNamespace() = default;

const std::string& DirectoryNamespace::root() const { return impl_->root(); }

Result<std::unique_ptr<DirectoryNamespace>> DirectoryNamespace::Open(const DirectoryNamespaceOptions& options) {
  std::string root = options.root;
  if (root.rfind("file://", 0) == 0) root = root.substr(7);
  if (root.find("://") != std::string::npos) {
    return Status::NotSupported("directory namespace root " + options.root +
                                ": only local directories and file:// URIs are supported");
  }
  if (root.empty()) return Status::InvalidArgument("directory namespace: the root is empty");
  std::error_code ec;
  fs::path path = fs::absolute(root, ec).lexically_normal();
  if (ec) return Status::InvalidArgument("directory namespace root " + root + ": " + ec.message());
  std::string text = path.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  if (fs::exists(text, ec) && !fs::is_directory(text, ec)) {
    return Status::InvalidArgument("directory namespace root " + text + " is not a directory");
  }
  return std::unique_ptr<DirectoryNamespace>(new DirectoryNamespace(std::make_unique<Impl>(options, text)));
}

Result<std::unique_ptr<DirectoryNamespace>> DirectoryNamespace::Open(const std::string& root,
                                                                     const Properties& properties) {
  DirectoryNamespaceOptions options;
  options.root = root;
  if (auto it = properties.find("root"); root.empty() && it != properties.end()) options.root = it->second;
  if (auto it = properties.find("manifest_enabled"); it != properties.end()) {
    options.manifest_enabled = ParseBool(it->second, true);
  }
  if (auto it = properties.find("dir_listing_enabled"); it != properties.end()) {
    options.dir_listing_enabled = ParseBool(it->second, true);
  }
  return Open(options);
}

// The last parts of the manifest rows of `type` directly below `parent`.
template <typename Rows>
std::set<std::string> ChildNames(const Rows& rows, const Id& parent, const std::string& type) {
  const std::string prefix = JoinId(parent);
  std::set<std::string> names;
  for (const auto& [id, row] : rows) {
    if (row.object_type == type && Parent(id) == prefix) names.insert(LastPart(id));
  }
  return names;
}

Result<Page> DirectoryNamespace::ListNamespaces(const Id& parent, const PageRequest& page) {
  RETURN_IF_ERROR(ValidateId(parent, true));
  ASSIGN_OR_RETURN(Impl::Snapshot snap, impl_->Load());
  RETURN_IF_ERROR(impl_->RequireNamespace(snap, parent));
  return MakePage(ChildNames(snap.rows, parent, kTypeNamespace), page);
}

Result<Properties> DirectoryNamespace::CreateNamespace(const Id& id, CreateMode mode, const Properties& properties) {
  RETURN_IF_ERROR(ValidateId(id, true));
  if (id.empty()) {
    if (mode == CreateMode::kExistOk) return Properties{};
    return NamespaceError(ErrorCode::kNamespaceAlreadyExists, "the root namespace always exists");
  }
  RETURN_IF_ERROR(impl_->RequireManifest("child namespaces"));
  const std::string object_id = JoinId(id);
  for (int attempt = 0; attempt < 2; ++attempt) {
    ASSIGN_OR_RETURN(Impl::Snapshot snap, impl_->Load());
    RETURN_IF_ERROR(impl_->RequireNamespace(snap, Id(id.begin(), id.end() - 1)));
    if (auto it = snap.rows.find(object_id); it != snap.rows.end()) {
      if (it->second.object_type != kTypeNamespace) {
        return NamespaceError(ErrorCode::kNamespaceAlreadyExists, "cannot create namespace " + Describe(id) + ": a " +
                                                                      it->second.object_type + " has that name");
      }
      if (mode == CreateMode::kCreate) {
        return NamespaceError(ErrorCode::kNamespaceAlreadyExists, "namespace " + Describe(id) + " already exists");
      }
      if (mode == CreateMode::kExistOk) return ParseProperties(it->second.metadata);
      RETURN_IF_ERROR(impl_->manifest_.SetMetadata(object_id, PropertiesJson(properties)));
      return properties;
    }
    RETURN_IF_ERROR(impl_->EnsureRoot());
    Status inserted = impl_->manifest_.Insert({object_id, kTypeNamespace, std::nullopt, PropertiesJson(properties)});
    if (inserted.ok()) return properties;
    if (inserted.code() != StatusCode::kAlreadyExists) return inserted;
    if (mode == CreateMode::kCreate) {
      return NamespaceError(ErrorCode::kNamespaceAlreadyExists, "namespace " + Describe(id) + " already exists");
    }
    // A concurrent writer created it: ExistOk/Overwrite go round once more.
  }
  return NamespaceError(ErrorCode::kConcurrentModification, "namespace " + Describe(id) + " kept changing");
}

Result<Properties> DirectoryNamespace::DescribeNamespace(const Id& id) {
  RETURN_IF_ERROR(ValidateId(id, true));
  if (id.empty()) return Properties{};
  ASSIGN_OR_RETURN(Impl::Snapshot snap, impl_->Load());
  RETURN_IF_ERROR(impl_->RequireNamespace(snap, id));
  return ParseProperties(snap.Find(JoinId(id), kTypeNamespace)->metadata);
}

Status DirectoryNamespace::DropNamespace(const Id& id, DropMode mode, DropBehavior behavior) {
  RETURN_IF_ERROR(ValidateId(id, true));
  if (id.empty()) return NamespaceError(ErrorCode::kInvalidInput, "the root namespace cannot be dropped");
  ASSIGN_OR_RETURN(Impl::Snapshot snap, impl_->Load());
  if (!impl_->NamespaceIn(snap, id)) {
    if (mode == DropMode::kSkip) return Status::OK();
    return impl_->RequireNamespace(snap, id);
  }
  const std::string object_id = JoinId(id);
  std::vector<std::string> children, tables;
  for (const auto& [child, row] : snap.rows) {
    if (!IsUnder(child, object_id)) continue;
    children.push_back(child);
    if (row.object_type == kTypeTable && row.location) tables.push_back(*row.location);
  }
  if (!children.empty() && behavior == DropBehavior::kRestrict) {
    return NamespaceError(ErrorCode::kNamespaceNotEmpty,
                          "namespace " + Describe(id) + " is not empty (it holds '" + children.front() + "')");
  }
  // Check every directory before anything changes, so a bad location drops nothing.
  std::vector<std::string> paths;
  for (const std::string& location : tables) {
    ASSIGN_OR_RETURN(std::string path, impl_->Resolve(location));
    paths.push_back(std::move(path));
  }
  RETURN_IF_ERROR(impl_->manifest_
                      .Remove([&](const ManifestRow& row) {
                        return row.object_id == object_id || IsUnder(row.object_id, object_id);
                      })
                      .status());
  for (const std::string& path : paths) RETURN_IF_ERROR(impl_->RemoveDirectory(path));
  return Status::OK();
}

Status DirectoryNamespace::NamespaceExists(const Id& id) {
  RETURN_IF_ERROR(ValidateId(id, true));
  ASSIGN_OR_RETURN(Impl::Snapshot snap, impl_->Load());
  return impl_->RequireNamespace(snap, id);
}

Result<Page> DirectoryNamespace::ListTables(const Id& parent, const PageRequest& page) {
  RETURN_IF_ERROR(ValidateId(parent, true));
  ASSIGN_OR_RETURN(Impl::Snapshot snap, impl_->Load());
  RETURN_IF_ERROR(impl_->RequireNamespace(snap, parent));
  std::set<std::string> names = ChildNames(snap.rows, parent, kTypeTable);
  if (parent.empty()) names.merge(impl_->V1Names(snap));
  return MakePage(std::move(names), page);
}

Result<TableInfo> DirectoryNamespace::DeclareTable(const Id& id, const Properties& properties) {
  RETURN_IF_ERROR(ValidateId(id, false));
  if (id.size() > 1) RETURN_IF_ERROR(impl_->RequireManifest("tables in child namespaces"));
  ASSIGN_OR_RETURN(Impl::Snapshot snap, impl_->Load());
  RETURN_IF_ERROR(impl_->RequireNamespace(snap, Id(id.begin(), id.end() - 1)));
  const std::string object_id = JoinId(id);
  auto exists = [&] {
    return NamespaceError(ErrorCode::kTableAlreadyExists, "table " + Describe(id) + " already exists");
  };
  if (impl_->FindTable(snap, id) || snap.rows.count(object_id)) return exists();
  const std::string location = id.size() == 1 ? id[0] + kTableSuffix : NestedDirName(object_id);
  ASSIGN_OR_RETURN(std::string path, impl_->Resolve(location));
  RETURN_IF_ERROR(impl_->EnsureRoot());
  if (impl_->options_.manifest_enabled) {
    Status inserted = impl_->manifest_.Insert({object_id, kTypeTable, location, std::nullopt});
    if (inserted.code() == StatusCode::kAlreadyExists) return exists();
    RETURN_IF_ERROR(inserted);
  }
  if (id.size() == 1) {
    // A root directory that is not a table (empty, or deregistered) is reused.
    std::error_code ec;
    fs::remove(fs::path(path) / kDeregisteredMarker, ec);
  }
  RETURN_IF_ERROR(WriteMarker(path, kReservedMarker, kReservedContent));
  return impl_->Info(location);
}

Result<TableInfo> DirectoryNamespace::DescribeTable(const Id& id) {
  ASSIGN_OR_RETURN(auto found, impl_->Locate(id));
  return impl_->Info(found.second);
}

Status DirectoryNamespace::TableExists(const Id& id) { return impl_->Locate(id).status(); }

Result<TableInfo> DirectoryNamespace::DropTable(const Id& id) {
  ASSIGN_OR_RETURN(auto unlisted, impl_->Unlist(id));
  RETURN_IF_ERROR(impl_->RemoveDirectory(unlisted.first.location));
  return std::move(unlisted.first);
}

Result<TableInfo> DirectoryNamespace::RegisterTable(const Id& id, const std::string& location,
                                                    const Properties& properties) {
  RETURN_IF_ERROR(ValidateId(id, false));
  ASSIGN_OR_RETURN(Impl::Snapshot snap, impl_->Load());
  RETURN_IF_ERROR(impl_->RequireNamespace(snap, Id(id.begin(), id.end() - 1)));
  const std::string object_id = JoinId(id);
  if (impl_->FindTable(snap, id) || snap.rows.count(object_id)) {
    return NamespaceError(ErrorCode::kTableAlreadyExists, "table " + Describe(id) + " already exists");
  }
  // An absolute location must lie under the root; it is kept relative to it.
  std::string relative = location;
  if (relative.rfind("file://", 0) == 0) relative = relative.substr(7);
  if (!relative.empty() && relative.front() == '/') {
    const std::string prefix = impl_->root() + "/";
    const std::string normal = fs::path(relative).lexically_normal().string();
    if (normal.compare(0, prefix.size(), prefix) != 0) {
      return NamespaceError(ErrorCode::kInvalidInput,
                            "location " + location + " is not inside the namespace root " + impl_->root());
    }
    relative = normal.substr(prefix.size());
  }
  while (!relative.empty() && relative.back() == '/') relative.pop_back();
  ASSIGN_OR_RETURN(std::string path, impl_->Resolve(relative));
  std::error_code ec;
  // An Iceberg table (metadata/version-hint.text, as `lancet iceberg export` writes it)
  // may be listed too: the server's Iceberg REST routes serve it next to Lance tables.
  if (!fs::is_directory(fs::path(path) / "_versions", ec) &&
      !fs::is_regular_file(fs::path(path) / "metadata" / "version-hint.text", ec)) {
    return NamespaceError(ErrorCode::kInvalidInput, "no Lance dataset or Iceberg table at " + path);
  }
  for (const auto& [other, row] : snap.rows) {
    if (row.object_type == kTypeTable && row.location == relative) {
      return NamespaceError(ErrorCode::kInvalidInput, "location " + relative + " is already table '" + other + "'");
    }
  }
  const bool v1_dir = id.size() == 1 && relative == id[0] + kTableSuffix;
  if (!v1_dir) RETURN_IF_ERROR(impl_->RequireManifest("tables registered at other locations"));
  if (impl_->options_.manifest_enabled) {
    Status inserted = impl_->manifest_.Insert({object_id, kTypeTable, relative, std::nullopt});
    if (inserted.code() == StatusCode::kAlreadyExists) {
      return NamespaceError(ErrorCode::kTableAlreadyExists, "table " + Describe(id) + " already exists");
    }
    RETURN_IF_ERROR(inserted);
  }
  if (v1_dir) fs::remove(fs::path(path) / kDeregisteredMarker, ec);
  return impl_->Info(relative);
}

Result<TableInfo> DirectoryNamespace::DeregisterTable(const Id& id) {
  ASSIGN_OR_RETURN(auto unlisted, impl_->Unlist(id));
  const TableInfo& info = unlisted.first;
  // A root <name>.lance directory would be listed again: mark it.
  if (id.size() == 1 && unlisted.second == id[0] + kTableSuffix && impl_->options_.dir_listing_enabled) {
    RETURN_IF_ERROR(WriteMarker(info.location, kDeregisteredMarker, ""));
  }
  return info;
}

Status DirectoryNamespace::RenameTable(const Id& id, const Id& new_namespace, const std::string& new_name) {
  RETURN_IF_ERROR(impl_->RequireManifest("renaming tables"));
  RETURN_IF_ERROR(ValidateId(new_namespace, true));
  RETURN_IF_ERROR(ValidateName(new_name));
  ASSIGN_OR_RETURN(auto found, impl_->Locate(id));
  RETURN_IF_ERROR(impl_->RequireNamespace(found.first, new_namespace));
  Id target = new_namespace;
  target.push_back(new_name);
  const std::string new_id = JoinId(target), old_id = JoinId(id);
  if (new_id == old_id) return Status::OK();
  if (impl_->FindTable(found.first, target) || found.first.rows.count(new_id)) {
    return NamespaceError(ErrorCode::kTableAlreadyExists, "table " + Describe(target) + " already exists");
  }
  // A directory the namespace named after the old id moves with the name: the reference
  // finds root tables by `<name>.lance` (and lists every such directory as one), nested
  // ones through their row. A registered location is left where its owner put it.
  const std::string& old_location = found.second;
  const bool old_v1 = id.size() == 1 && old_location == id[0] + kTableSuffix;
  const bool old_hashed = old_location.size() == 9 + old_id.size() && old_location[8] == '_' &&
                          old_location.compare(9, std::string::npos, old_id) == 0;
  std::string new_location = old_location;
  if (old_v1 || old_hashed) new_location = target.size() == 1 ? new_name + kTableSuffix : NestedDirName(new_id);
  std::string old_path, new_path;
  if (new_location != old_location) {
    ASSIGN_OR_RETURN(old_path, impl_->Resolve(old_location));
    ASSIGN_OR_RETURN(new_path, impl_->Resolve(new_location));
    std::error_code ec;
    if (fs::exists(new_path, ec)) {
      return NamespaceError(ErrorCode::kTableAlreadyExists,
                            "cannot rename to " + Describe(target) + ": " + new_path + " already exists");
    }
  }
  // The new row first, then the directory, then the old row: a crash in between leaves
  // the table under one of its names (the old until the move, the new after), never none.
  Status inserted = impl_->manifest_.Insert({new_id, kTypeTable, new_location, std::nullopt});
  if (inserted.code() == StatusCode::kAlreadyExists) {
    return NamespaceError(ErrorCode::kTableAlreadyExists, "table " + Describe(target) + " already exists");
  }
  RETURN_IF_ERROR(inserted);
  if (new_location != old_location) {
    std::error_code ec;
    fs::rename(old_path, new_path, ec);
    if (ec) {
      // Undo the row: the table stays where and what it was.
      (void)impl_->manifest_.Remove([&](const ManifestRow& row) { return row.object_id == new_id; });
      return Status::IOError("cannot move " + old_path + " to " + new_path + ": " + ec.message());
    }
  }
  return impl_->manifest_.Remove([&](const ManifestRow& row) { return row.object_id == old_id; }).status();
}

}  // namespace lancet::catalog
