// Clones: a new dataset made from one version of another.
#pragma once

#include <cstdint>
#include <string>

#include "lancet/io/storage_options.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

struct CloneOptions {
  /// false: the clone's manifest names the source's files through a base path (only
  /// metadata is written). true: every file the version uses is copied.
  bool deep = false;
};

struct CloneStats {
  uint64_t version = 0;        // the clone's first version (= the source's)
  uint64_t files_written = 0;  // manifests, transactions and copied files
  uint64_t bytes_written = 0;
};

/// \brief Writes a new dataset at `target_uri` (a local directory) holding the version
/// `source` is opened at, under the same version number. Writes to the clone land in
/// the clone. A shallow clone keeps reading the source's files: cleaning up the source
/// does not know about it (as in the reference), so keep the source's version tagged.
/// AlreadyExists if the target is a dataset; NotSupported for remote stores.
Result<CloneStats> CloneDataset(const Dataset& source, const std::string& target_uri, const CloneOptions& options = {});

}  // namespace lancet::table
