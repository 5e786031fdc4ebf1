// Blob V2 descriptors and where their bytes live (docs/format §10.2-10.3).
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lance_proto/table.pb.h"
#include "lancet/data_type.h"
#include "lancet/result.h"
#include "lancet/table/blob_location.h"

namespace lancet::table {

/// The descriptor struct a data file stores for a Blob V2 field named `name`:
/// struct<kind u8, position u64, size u64, blob_id u32, blob_uri utf8>, children
/// non-null, marked lance-encoding:blob and lance-encoding:packed, keeping the
/// logical field's name, nullability and id.
Field BlobDescriptorField(const Field& logical);

/// Replaces every Blob V2 field in `field` (itself or nested, at any depth) by its
/// descriptor field.
Field ToReadField(const Field& field);

/// Name of the sidecar holding blob `blob_id`: its 32 bits least significant first,
/// then ".blob" (lance-core utils/blob.rs `blob_path`).
std::string BlobSidecarFileName(uint32_t blob_id);

/// One decoded descriptor row.
struct BlobDescriptor {
  uint8_t kind = 0;
  uint64_t position = 0;
  uint64_t size = 0;
  uint32_t blob_id = 0;
  std::string_view uri;
};

/// Where a blob's bytes are according to its descriptor alone: [offset, offset +
/// length) of `object`, or, when `to_end` is set, [offset, end of object). Not yet
/// checked against the object's size (see blob_read.h).
struct ResolvedBlob {
  BlobKind kind = BlobKind::kInline;
  std::string object;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool to_end = false;
};

/// Resolves the paths of `uri` strings and base paths: strips file://, refuses
/// other schemes with NotSupported (only the dataset's store is reachable).
Result<std::string> LocalPathOfUri(std::string_view uri, const std::string& context);

/// Where `desc`'s bytes live. `data_file` is the full path of the owning data file,
/// `data_dir` the directory it sits in. Empty blobs resolve to a zero-length range.
/// Corruption for an unknown kind or an overflowing range, naming `data_file`.
Result<ResolvedBlob> ResolveBlob(const BlobDescriptor& desc, const std::string& data_file, const std::string& data_dir,
                                 const lance::table::Manifest& manifest);

}  // namespace lancet::table
