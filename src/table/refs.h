// Refs of a table: tags (_refs/tags/) and branches (_refs/branches/, tree/<name>/).
// Internal to the table layer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lancet/io/object_store.h"
#include "lancet/result.h"
#include "lancet/table/branch.h"
#include "table/manifest.h"

namespace lancet::table {

/// An index's UUID bytes in hyphenated lowercase form (its _indices/ directory name).
std::string FormatIndexUuid(const std::string& bytes);

/// `_refs/branches/<name>.json` relative to the table root; '/' in the name is %2F.
std::string BranchRefPath(std::string_view name);

/// The text of a small ref file (at most 1 MiB); `what` names its kind in errors.
Result<std::string> ReadRefFile(const io::ObjectStore& store, const std::string& path, const char* what);

/// Every tag of the table at `table_root`, by name.
Result<std::map<std::string, TagContents>> ReadTags(const io::ObjectStore& store, const std::string& table_root);

/// The branch `name` of the table at `table_root`; NotFound naming its ref if absent.
Result<BranchInfo> ReadBranch(const io::ObjectStore& store, const std::string& table_root, const std::string& name);

/// Every branch of the table at `table_root`, by name.
Result<std::vector<BranchInfo>> ReadBranches(const io::ObjectStore& store, const std::string& table_root);

/// The absolute, normalised local directory of `root` (base paths name dataset roots
/// that way, as the reference writes them); NotSupported when `uri` names a remote store.
Result<std::string> AbsoluteDatasetDir(const std::string& uri, const std::string& root);

}  // namespace lancet::table
