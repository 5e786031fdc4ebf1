// The files `lancet ingest` stores: a directory walked recursively.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::cli {

struct WalkedFile {
  std::string relative;  // to the walked directory, '/'-separated
  std::string absolute;
  uint64_t size = 0;
};

/// \brief The regular files under `dir` (recursively, symbolic links not followed
/// nor listed), sorted by relative path (bytewise).
///
/// `glob` (empty = all) is matched with fnmatch(3) against the relative path, without
/// FNM_PATHNAME, so "*.jpg" matches "a/b.jpg". Errors: NotFound / InvalidArgument
/// when `dir` is missing or not a directory, IOError naming the entry that could not
/// be read.
Result<std::vector<WalkedFile>> WalkFiles(const std::string& dir, const std::string& glob);

}  // namespace lancet::cli
