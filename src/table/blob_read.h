// From resolved blob descriptors to exact locations and bytes (docs/format §10.3).
// Internal to the table layer.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/io/object_store.h"
#include "lancet/table/blob_location.h"
#include "table/blob.h"
#include "table/external_stores.h"

namespace lancet::table {

/// Objects opened while locating blobs, by path, so reading them needs no second open.
using BlobObjects = std::map<std::string, std::unique_ptr<io::RandomAccessFile>>;

/// \brief Checks every resolved blob against its object and returns exact locations.
///
/// Opens each distinct object once (several at a time, through `stores`: the
/// dataset's store, or another for an s3:// external URI) to learn its size;
/// zero-length ranges that are not whole-object external blobs open nothing. `context` (dataset and
/// column) prefixes open errors. NotFound for a missing object (naming its path),
/// Corruption (naming the object) for a range past its end.
Result<std::vector<std::optional<BlobLocation>>> FinalizeBlobLocations(
    const ExternalStores& stores, std::span<const std::optional<ResolvedBlob>> resolved, const std::string& context,
    BlobObjects* objects);

/// Reads every location from `objects` (as filled by FinalizeBlobLocations): one
/// ReadMany per object, different objects in parallel unless reads are cheap.
Result<std::vector<std::optional<BufferPtr>>> ReadBlobLocations(std::span<const std::optional<BlobLocation>> locations,
                                                                const BlobObjects& objects);

}  // namespace lancet::table
