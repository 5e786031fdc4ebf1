// Checks on namespace and table names, shared by every namespace implementation and
// the REST server: a name is one path component under a root, never a way out of it.
#pragma once

#include <string_view>

#include "lancet/catalog/namespace.h"
#include "lancet/status.h"

namespace lancet::catalog {

/// Longest name accepted, in bytes: a directory name made of it (plus the `.lance`
/// suffix or the 9-byte hash prefix of a nested table's directory) stays under the
/// usual 255-byte file name limit.
inline constexpr size_t kMaxNameBytes = 200;

/// \brief OK when `name` can name a namespace or table; otherwise kInvalidInput
/// (NamespaceError) with a message naming the offending character.
///
/// Refused: the empty name, "." and "..", names containing '/', '\\', NUL or another
/// control character (below 0x20, and 0x7f), names containing '$' (the manifest's id
/// delimiter), and names longer than kMaxNameBytes.
Status ValidateName(std::string_view name);

/// ValidateName on every part of `id`; the empty id (the root) only when `allow_root`.
Status ValidateId(const Id& id, bool allow_root);

}  // namespace lancet::catalog
