// BlobFile: a file-like handle on one Blob V2 value, read lazily by ranges.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lancet/buffer.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"
#include "lancet/table/blob_location.h"
#include "lancet/table/dataset.h"

namespace lancet::blob {

struct BlobFileOptions {
  /// Bytes read past a request and kept for the next read, so small sequential reads
  /// (a decoder parsing a container) do not each cost a request.
  uint64_t read_ahead = 64 * 1024;
};

/// \brief A seekable reader over the bytes of one blob.
///
/// Never loads the whole blob: each read that misses the cached window fetches
/// [pos, min(pos + max(n, read_ahead), size())) in one request; reads inside the
/// window issue none. Keeps its object open for its lifetime. Not thread-safe.
class BlobFile {
 public:
  /// Opens the blob of `column` (dotted path for nested blobs) at `row` (a row id or
  /// address as `key` says). Errors as Dataset::LocateBlobs, plus NotFound naming the
  /// column and row when the blob is null.
  static Result<std::unique_ptr<BlobFile>> Open(const table::Dataset& dataset, const std::string& column, uint64_t row,
                                                table::RowKey key = table::RowKey::kRowId,
                                                const BlobFileOptions& options = {});

  /// Opens a blob located before (Dataset::LocateBlobs) through `file`, its object
  /// already open (may be null for an empty blob): no descriptor read and no open, for
  /// callers that read the same blob many times. InvalidArgument when `file` is null
  /// for a non-empty blob.
  static Result<std::unique_ptr<BlobFile>> Open(table::BlobLocation location, std::shared_ptr<io::RandomAccessFile> file,
                                                const BlobFileOptions& options = {});

  /// The blob's length in bytes.
  uint64_t size() const { return location_.length; }
  /// The position the next read() starts at.
  uint64_t tell() const { return position_; }
  /// Moves the read position; InvalidArgument past size() (size() itself is allowed).
  Status seek(uint64_t position);
  /// Up to `n` bytes from tell(), advancing it; an empty buffer at the end.
  Result<BufferPtr> read(uint64_t n);
  /// Bytes [start, end) of the blob, leaving tell() alone. InvalidArgument if
  /// start > end or end > size().
  Result<BufferPtr> read_range(uint64_t start, uint64_t end);
  /// Where the bytes live in storage.
  const table::BlobLocation& location() const { return location_; }

 private:
  BlobFile(table::BlobLocation location, std::shared_ptr<io::RandomAccessFile> file, const BlobFileOptions& options)
      : location_(std::move(location)), file_(std::move(file)), options_(options) {}
  // [start, end) of the blob through the read-ahead window. REQUIRES: start <= end <= size().
  Result<BufferPtr> Fetch(uint64_t start, uint64_t end);

  table::BlobLocation location_;
  std::shared_ptr<io::RandomAccessFile> file_;  // null for an empty blob
  BlobFileOptions options_;
  uint64_t position_ = 0;
  BufferPtr window_;  // blob bytes [window_start_, window_start_ + window_->size())
  uint64_t window_start_ = 0;
};

}  // namespace lancet::blob
