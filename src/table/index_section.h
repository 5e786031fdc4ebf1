// The manifest's index section as IndexMetadata values. Internal to the table layer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lance_proto/table.pb.h"
#include "lance_proto/transaction.pb.h"
#include "lancet/result.h"
#include "lancet/table/index_metadata.h"

namespace lancet::table {

/// Decodes a serialized IndexSection (empty = no indices); `path` names the manifest in
/// errors (an unparsable section, a uuid that is not 16 bytes, a bad fragment bitmap).
Result<std::vector<IndexMetadata>> ParseIndexSection(std::span<const uint8_t> section, const std::string& path);

Result<IndexMetadata> IndexFromProto(const lance::table::IndexMetadata& pb, const std::string& path);
/// InvalidArgument for a uuid that is not 32 hex digits (hyphens aside).
Result<lance::table::IndexMetadata> IndexToProto(const IndexMetadata& index);

/// Rewrites the fragment bitmaps of serialized `section` (in place) for a compaction's
/// `rewrite`: replaced fragments leave every bitmap; with stable row ids a BTree, Bitmap
/// or LabelList index that covered all of a group's old fragments covers its new ones,
/// because the rows keep their ids and values (zone indexes name physical offsets).
Status RemapIndexFragments(bool stable_row_ids, const lance::table::Transaction::Rewrite& rewrite,
                           std::vector<uint8_t>* section, const std::string& path);

}  // namespace lancet::table
