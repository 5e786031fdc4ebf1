// blob_info: Lancet's format-2.3 extension of the Blob V2 descriptor with a media
// plugin's stream metadata and position index. Internal to the table layer.
//
// Readers see a sixth, nullable descriptor member
//   blob_info: struct<blob_type: u8, stream_info: binary, entries: binary>.
// On disk the descriptor stays one packed full-zip column whose three extra members are
// stored flat after the five standard ones; blob_type 0 means "no blob_info", since
// packed members cannot be null.
#pragma once

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::table {

/// The read-side type of the blob_info member.
DataType BlobInfoType();

/// Read shape of `logical`'s descriptor with blob_info (6 members).
Field BlobInfoReadField(const Field& logical);

/// Replaces every Blob V2 field in `logical` (at any struct depth) by its read shape
/// with blob_info.
Field ToBlobInfoReadField(const Field& logical);

/// True if `field` is or contains (in structs) a descriptor with blob_info.
bool HasBlobDescriptor(const Field& field);

/// True if `field` is a descriptor in read shape with blob_info.
bool IsBlobInfoDescriptor(const Field& field);

/// Replaces every blob_info descriptor in `read` (at any struct depth) by its on-disk
/// shape (8 flat packed members).
Field ToBlobInfoPhysical(const Field& read);

/// On-disk arrays of `read_field` → read shape (blob_info null where blob_type is 0).
Result<Array> BlobInfoToRead(const Field& read_field, const Array& physical);

/// Read-shape arrays of `read_field` → on-disk shape.
Result<Array> BlobInfoToPhysical(const Field& read_field, const Array& read);

}  // namespace lancet::table
