// Writing deletion vectors of fragments (docs/format §4.3). Internal to the table layer.
#pragma once

#include <cstdint>
#include <string>

#include <roaring/roaring.hh>

#include "lance_proto/table.pb.h"
#include "lancet/buffer.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"

namespace lancet::table {

/// The reference keeps deletions as a set (written as `.arrow`) up to this many rows
/// and as a Roaring bitmap (`.bin`) above it (deletion.rs BITMAP_THRESDHOLD).
inline constexpr uint64_t kDeletionBitmapThreshold = 5000;

/// Encodes `deleted` as an `.arrow` deletion file: an uncompressed Arrow IPC file with
/// one batch of one non-null UInt32 column `row_id`.
Result<BufferPtr> EncodeDeletionArrow(const Roaring& deleted);

/// Encodes `deleted` as a `.bin` deletion file: a portable-format Roaring bitmap
/// without run containers (the form the reference was seen to accept, notes §13.4).
std::vector<uint8_t> EncodeDeletionBitmap(const Roaring& deleted);

/// Writes all of a fragment's deleted offsets as a new deletion file under
/// `<root>/_deletions/` (the type follows kDeletionBitmapThreshold) and returns its
/// manifest entry. REQUIRES: `deleted` is not empty. The store error names the path.
Result<lance::table::DeletionFile> WriteDeletionFile(io::ObjectStore& store, const std::string& root,
                                                     uint64_t fragment_id, uint64_t read_version,
                                                     const Roaring& deleted, std::string* written_path);

}  // namespace lancet::table
