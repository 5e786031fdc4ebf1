// Where the bytes of one Blob V2 value live, so any program can read them from storage.
#pragma once

#include <cstdint>
#include <string>

namespace lancet::table {

/// On-disk values of the descriptor's `kind` (lance 12 writes 0-3).
enum class BlobKind : uint8_t { kInline = 0, kPacked = 1, kDedicated = 2, kExternal = 3 };

/// \brief [offset, offset + length) of `object`.
///
/// `object` is a path in the dataset's object store (a data file for inline blobs, a
/// sidecar for packed and dedicated ones) or, for external blobs, the absolute path
/// or URI the descriptor resolves to. `length` is always exact: an external
/// descriptor of size 0 ("the whole object") is resolved against the object's size.
struct BlobLocation {
  BlobKind kind = BlobKind::kInline;
  std::string object;
  uint64_t offset = 0;
  uint64_t length = 0;
};

/// How a span of row keys names rows.
enum class RowKey : uint8_t { kRowId, kRowAddress };

}  // namespace lancet::table
