// From resolved blob descriptors to exact locations and bytes (docs/format §10.3).
// Internal to the table layer.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
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
using BlobObjects = std::map<std::string, std::shared_ptr<io::RandomAccessFile>>;

/// \brief A dataset's own blob objects (data files and sidecars), kept open between calls.
///
/// Lance never rewrites a data file or sidecar once written, so a handle (and the size it
/// learned with a HEAD on object stores) stays valid for the dataset's lifetime: repeated
/// extraction from the same rows then costs only its range reads. External objects are
/// never kept, since they may change. At most `capacity` handles (oldest dropped first),
/// so a dataset of a million sidecars holds no million descriptors. Thread-safe.
class OpenedObjects {
 public:
  explicit OpenedObjects(size_t capacity = 256) : capacity_(capacity) {}
  std::shared_ptr<io::RandomAccessFile> Find(const std::string& path) const;
  void Put(const std::string& path, std::shared_ptr<io::RandomAccessFile> file);

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<io::RandomAccessFile>> files_;
  std::deque<std::string> order_;  // insertion order, for dropping the oldest
};

/// \brief Checks every resolved blob against its object and returns exact locations.
///
/// Opens each distinct object once (several at a time, through `stores`: the
/// dataset's store, or another for an s3:// external URI) to learn its size;
/// zero-length ranges that are not whole-object external blobs open nothing. `context` (dataset and
/// column) prefixes open errors. NotFound for a missing object (naming its path),
/// Corruption (naming the object) for a range past its end. With `cache`, the dataset's
/// own objects come from it when already open and are added to it otherwise.
Result<std::vector<std::optional<BlobLocation>>> FinalizeBlobLocations(
    const ExternalStores& stores, std::span<const std::optional<ResolvedBlob>> resolved, const std::string& context,
    BlobObjects* objects, OpenedObjects* cache = nullptr);

/// Reads every location from `objects` (as filled by FinalizeBlobLocations): one
/// ReadMany per object, different objects in parallel unless reads are cheap.
Result<std::vector<std::optional<BufferPtr>>> ReadBlobLocations(std::span<const std::optional<BlobLocation>> locations,
                                                                const BlobObjects& objects);

}  // namespace lancet::table
