// Deletion vectors of fragments (docs/format §4.3). Internal to the table layer.
#pragma once

#include <cstdint>
#include <string>

#include <roaring/roaring.hh>

#include "lance_proto/table.pb.h"
#include "lancet/buffer.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"

namespace lancet::table {

/// `_deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}`, relative to the
/// directory that holds `_deletions` (deletion.rs `deletion_file_path`).
std::string DeletionFileName(uint64_t fragment_id, const lance::table::DeletionFile& file);

/// Decodes a 32-bit Roaring bitmap in the portable format that fills `bytes` exactly.
/// Corruption starting with `what` otherwise.
Result<Roaring> ParsePortableRoaring(std::span<const uint8_t> bytes, const std::string& what);

/// Decodes a `.bin` deletion file: a 32-bit Roaring bitmap in the portable format.
/// Corruption naming `path` if it is not one, or has bytes after the bitmap.
Result<Roaring> ParseDeletionBitmap(std::span<const uint8_t> bytes, const std::string& path);

/// Decodes an `.arrow` deletion file: an Arrow IPC file with one batch of one non-null
/// UInt32 column of deleted offsets. Corruption naming `path` otherwise.
Result<Roaring> ParseDeletionArrow(BufferPtr bytes, const std::string& path);

/// Reads and decodes the deletion file at `path` of type `type`, and checks that every
/// deleted offset is below `physical_rows` and that the count equals
/// `expected_deleted` (the manifest's num_deleted_rows, which row counts rely on).
Result<Roaring> ReadDeletionFile(const io::ObjectStore& store, const std::string& path,
                                 lance::table::DeletionFile::DeletionFileType type, uint64_t physical_rows,
                                 uint64_t expected_deleted);

}  // namespace lancet::table
