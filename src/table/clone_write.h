// Writing the first manifest of a clone or branch. Internal to the table layer.
#pragma once

#include <string>

#include "lancet/io/object_store.h"
#include "lancet/table/clone.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

/// Writes, at `target_root` in `store`, a manifest of `source`'s version (same number)
/// whose files without a base resolve to `source`'s directory through a base path, with
/// a Clone transaction; `branch` (empty for a plain clone) becomes Manifest.branch.
/// AlreadyExists if the target has manifests.
Result<CloneStats> WriteShallowClone(const Dataset& source, io::ObjectStore& store, const std::string& target_root,
                                     const std::string& branch);

}  // namespace lancet::table
