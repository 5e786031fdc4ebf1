// ReadBlobRanges: many byte ranges of many blobs with few requests.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"
#include "lancet/table/blob_location.h"
#include "lancet/table/dataset.h"

namespace lancet::blob {

/// Bytes [offset, offset + length) of the blob at `row`.
struct BlobRange {
  uint64_t row = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct BlobReadOptions {
  /// Whether BlobRange::row is a row id or a row address.
  table::RowKey key = table::RowKey::kRowId;
  /// How ranges of one object are merged into requests.
  io::ReadOptions io;
  /// Objects read at once.
  int parallel_objects = 8;
};

/// \brief Reads `ranges` of blob column `column` (dotted path for nested blobs).
///
/// Returns one buffer per range, in input order (views into merged reads). Each row is
/// located once; ranges become object ranges, grouped per object, where overlapping,
/// adjacent and near ranges (options.io) share a request; objects are read in parallel.
/// Errors: as Dataset::LocateBlobs; InvalidArgument for parallel_objects < 1, a null
/// blob (naming the row), or a range that overflows or ends past its blob (naming the
/// row and the range).
Result<std::vector<BufferPtr>> ReadBlobRanges(const table::Dataset& dataset, const std::string& column,
                                              std::span<const BlobRange> ranges, const BlobReadOptions& options = {});

}  // namespace lancet::blob
