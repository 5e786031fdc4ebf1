// IndexMetadata: one index segment as the manifest's index section records it, and the
// CreateIndex commit that adds, replaces or drops segments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::table {

class Dataset;

struct IndexFileInfo {
  std::string path;  // relative to the segment's directory
  uint64_t size_bytes = 0;
};

/// \brief One index segment (lance.table.IndexMetadata).
struct IndexMetadata {
  std::string uuid;                    // hyphenated lowercase: the _indices/<uuid>/ directory
  std::string name;                    // unique per version; segments of one index share it
  std::vector<int32_t> fields;         // field ids
  uint64_t dataset_version = 0;        // the version it was built from
  std::vector<uint64_t> fragment_ids;  // fragment_bitmap: the fragments it covers
  std::string type_url;                // index_details.type_url, e.g. "/lance.table.BTreeIndexDetails"
  std::string details;                 // index_details.value (serialized details message)
  std::optional<int32_t> index_version;
  std::optional<uint64_t> created_at_ms;
  std::optional<uint32_t> base_id;
  std::vector<IndexFileInfo> files;
};

/// \brief Commits a CreateIndex transaction read at `dataset`'s version: `added` join the
/// index section and the segments named by `removed_uuids` leave it.
///
/// CommitConflict when a removed segment is gone from the latest version (another
/// writer replaced it) or the table was overwritten or restored since the read;
/// AlreadyExists when an added name belongs to another index that stays. Returns the
/// committed version.
Result<uint64_t> CommitIndexChange(const Dataset& dataset, std::vector<IndexMetadata> added,
                                   const std::vector<std::string>& removed_uuids, int max_commit_attempts = 20);

}  // namespace lancet::table
