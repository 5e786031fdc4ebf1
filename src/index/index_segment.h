// What every index builder needs to name, date and clean up a segment. Internal.
#pragma once

#include <cstdint>
#include <string>

#include "lancet/io/object_store.h"

namespace lancet::index {

/// A random (version 4) uuid, hyphenated lowercase: a new segment's directory name.
std::string RandomUuid();
/// Milliseconds since the epoch, as IndexMetadata.created_at records them.
uint64_t NowMs();
/// Deletes the files of segment directory `dir` (after a failed build or commit).
void DeleteSegment(io::ObjectStore& store, const std::string& dir);

}  // namespace lancet::index
