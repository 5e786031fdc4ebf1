// What every index builder needs to name, date and clean up a segment. Internal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <functional>

#include "index/scalar_index.h"
#include "lancet/io/object_store.h"
#include "lancet/table/dataset.h"
#include "lancet/table/index_metadata.h"

namespace lancet::index {

/// A random (version 4) uuid, hyphenated lowercase: a new segment's directory name.
std::string RandomUuid();
/// Milliseconds since the epoch, as IndexMetadata.created_at records them.
uint64_t NowMs();
/// Deletes the files of segment directory `dir` (after a failed build or commit).
void DeleteSegment(io::ObjectStore& store, const std::string& dir);
/// The top-level field with Lance field id `id`, or null.
const Field* FieldById(const Schema& schema, int32_t id);

/// Writes a new segment `name` of type `type_url` on `field` over every fragment of
/// `dataset`: `write(dir, meta)` writes its files into `dir` (and may fill in details);
/// their entries and the creation time are recorded. Nothing is committed; the files are
/// deleted if `write` fails.
using SegmentWriter =
    std::function<Result<std::vector<IndexFileEntry>>(const std::string& dir, table::IndexMetadata& meta)>;
Result<table::IndexMetadata> WriteNewSegment(const table::Dataset& dataset, const Field& field, const std::string& name,
                                             const std::string& type_url, int32_t index_version,
                                             const SegmentWriter& write);

/// The uuids of `dataset`'s segments named `name`, which a new index of that name
/// replaces; AlreadyExists if there are some and `replace` is false.
Result<std::vector<std::string>> SegmentsToReplace(const table::Dataset& dataset, const std::string& name,
                                                   bool replace);
/// Commits built segment `meta` in place of `removed`; its files are deleted when the
/// commit fails.
Result<table::IndexMetadata> CommitSegment(const table::Dataset& dataset, table::IndexMetadata meta,
                                           const std::vector<std::string>& removed);

}  // namespace lancet::index
