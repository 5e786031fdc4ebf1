// Branches: writable lines of history forked from a version of another branch, stored
// as shallow clones under <table>/tree/<name>/ and named by _refs/branches/<name>.json
// (docs/format-notes/branches.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

struct BranchInfo {
  std::string name;
  std::string parent_branch;  // empty: forked from main
  uint64_t parent_version = 0;
  int64_t created_at_s = 0;    // unix seconds
  uint64_t manifest_size = 0;  // of the parent's manifest at parent_version
};

/// InvalidArgument unless `name` can name a branch: non-empty, not "main", segments
/// separated by single '/' (nested names are directories under tree/), none "." or "..",
/// no '\\', '%' or control characters.
Status ValidateBranchName(std::string_view name);

/// The directory of branch `name` of the table at `table_root` (a root or a URI).
std::string BranchRoot(std::string_view table_root, std::string_view name);

/// Every branch of `dataset`'s table (whichever branch `dataset` is on), by name.
Result<std::vector<BranchInfo>> ListBranches(const Dataset& dataset);

/// \brief Forks branch `name` from the branch and version `from` is opened at and returns
/// it opened at that version. No data is copied: its first manifest (same version, a
/// Clone transaction) names `from`'s files through base paths.
/// AlreadyExists if the branch exists; NotSupported for a table in a remote store.
Result<std::unique_ptr<Dataset>> CreateBranch(const Dataset& from, const std::string& name);

/// \brief Deletes branch `name`: its ref, then every file under its directory (nested
/// branches' directories excepted). Without a ref it removes what a killed CreateBranch
/// left there, which keeps the name taken. NotFound if there is neither; FailedPrecondition while another branch was
/// forked from it (deleting it would take files that branch reads).
Status DeleteBranch(const Dataset& dataset, const std::string& name);

}  // namespace lancet::table
