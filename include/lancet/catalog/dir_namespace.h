// DirectoryNamespace: a catalog kept in a directory, laid out as the reference's
// `connectNamespace("dir", {root})` lays it out (namespace-notes §1.3): root tables as
// <root>/<name>.lance, nested namespaces and tables in the <root>/__manifest Lance table.
#pragma once

#include <memory>
#include <string>

#include "lancet/catalog/namespace.h"

namespace lancet::catalog {

struct DirectoryNamespaceOptions {
  /// The root directory: a local path or file:// URI. It is created on the first write.
  std::string root;
  /// Keep the __manifest table (V2): needed for child namespaces, registered tables
  /// and renames. Property `manifest_enabled`.
  bool manifest_enabled = true;
  /// List <name>.lance directories in the root as tables (V1). Property
  /// `dir_listing_enabled`.
  bool dir_listing_enabled = true;
};

/// \brief The directory namespace. Thread-safe; writers in one process are serialised
/// and writers in several processes are kept consistent by the manifest's atomic
/// commit (a lost race on a name gives kTableAlreadyExists/kNamespaceAlreadyExists).
///
/// Table locations it returns are absolute local paths. Names are checked with
/// ValidateName (names.h), and a table directory that resolves outside the root (a
/// symlink, a manifest location with "..") is refused with kInvalidInput.
/// Properties are kept for namespaces (the row's `metadata` JSON); the root namespace
/// and tables have none. RenameTable works when the manifest is enabled (the
/// reference's lance 12 refuses it for dir namespaces); the data stays where it is.
/// Pages: PageRequest::limit 0 means no limit.
class DirectoryNamespace final : public Namespace {
 public:
  /// InvalidArgument for an empty root or one that exists but is not a directory;
  /// NotSupported for a URI scheme other than file://.
  static Result<std::unique_ptr<DirectoryNamespace>> Open(const DirectoryNamespaceOptions& options);
  /// From the reference's properties: `root` (unless `root` is given), `manifest_enabled`,
  /// `dir_listing_enabled` ("true"/"false"); others (storage.*) are ignored.
  static Result<std::unique_ptr<DirectoryNamespace>> Open(const std::string& root, const Properties& properties = {});

  ~DirectoryNamespace() override;

  /// The root as an absolute local path, without a trailing '/'.
  const std::string& root() const;

  Result<Page> ListNamespaces(const Id& parent, const PageRequest& page) override;
  Result<Properties> CreateNamespace(const Id& id, CreateMode mode, const Properties& properties) override;
  Result<Properties> DescribeNamespace(const Id& id) override;
  Status DropNamespace(const Id& id, DropMode mode, DropBehavior behavior) override;
  Status NamespaceExists(const Id& id) override;

  Result<Page> ListTables(const Id& parent, const PageRequest& page) override;
  Result<TableInfo> DeclareTable(const Id& id, const Properties& properties) override;
  Result<TableInfo> DescribeTable(const Id& id) override;
  Status TableExists(const Id& id) override;
  Result<TableInfo> DropTable(const Id& id) override;
  Result<TableInfo> RegisterTable(const Id& id, const std::string& location, const Properties& properties) override;
  Result<TableInfo> DeregisterTable(const Id& id) override;
  Status RenameTable(const Id& id, const Id& new_namespace, const std::string& new_name) override;

 private:
  class Impl;
  explicit DirectoryNamespace(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lancet::catalog
