// The directory namespace's __manifest: a Lance table with one row per namespace and
// table (namespace-notes §1.3), read whole (it is small) and changed through the table
// layer's commits. Internal to the catalog layer.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::catalog {

inline constexpr const char* kManifestDirName = "__manifest";
inline constexpr const char* kTypeNamespace = "namespace";
inline constexpr const char* kTypeTable = "table";
/// The field metadata the reference puts on object_id (observed in lance 12).
inline constexpr const char* kPrimaryKeyPositionKey = "lance-schema:unenforced-primary-key:position";

struct ManifestRow {
  std::string object_id;  // the id joined with '$'
  std::string object_type;
  std::optional<std::string> location;  // tables: the directory relative to the root
  std::optional<std::string> metadata;  // namespaces: properties as a JSON object
};

/// The schema Lancet creates __manifest with (the reference's columns).
Schema ManifestSchema();

/// \brief Reads and changes the __manifest table at `uri`. Thread-safe: changes made
/// in this process are serialised; across processes the commit decides.
class ManifestTable {
 public:
  explicit ManifestTable(std::string uri) : uri_(std::move(uri)) {}

  /// The rows of the latest version (no table yet: none). Should two rows share an
  /// object_id (a writer that lost a race and died before removing its row), the one
  /// committed first is kept.
  Result<std::vector<ManifestRow>> Read() const;

  /// \brief Adds `row` (creating the table if needed). AlreadyExists when a row with
  /// its object_id is there, including when a concurrent writer committed one first:
  /// after committing, the row is looked up at the committed version and, if an
  /// earlier row has the id, this one is deleted again.
  Status Insert(const ManifestRow& row);

  /// Deletes the rows `remove` picks in one commit; returns how many.
  Result<size_t> Remove(const std::function<bool(const ManifestRow&)>& remove);

  /// Sets the metadata of the row `object_id` (null when nullopt). NotFound without it.
  Status SetMetadata(const std::string& object_id, const std::optional<std::string>& metadata);

 private:
  std::string uri_;
};

}  // namespace lancet::catalog
