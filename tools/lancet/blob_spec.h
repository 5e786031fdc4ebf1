// `--blob COLUMN[:inline=N,dedicated=N,pack=N]`: which input columns `lancet import`
// stores as Blob V2 columns, and with which size thresholds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"
#include "lancet/table/blob_write.h"

namespace lancet::cli {

/// Parses "4096", "64k", "4m", "1g" (suffixes in KiB units, either case) into bytes.
/// InvalidArgument for anything else or a value past 2^64.
Result<uint64_t> ParseByteSize(const std::string& text);

struct BlobColumnSpec {
  std::string column;
  /// Thresholds the spec sets; unset ones keep the field's own (or the defaults).
  std::optional<uint64_t> inline_max, dedicated_min, pack_file_max;

  /// `base` with the thresholds this spec sets. InvalidArgument (naming the column)
  /// when the result is one the writer refuses (zero dedicated or pack threshold,
  /// inline above dedicated).
  Result<table::BlobThresholds> Apply(const table::BlobThresholds& base) const;
};

/// Parses one --blob value. InvalidArgument with the expected syntax on a bad one.
Result<BlobColumnSpec> ParseBlobSpec(const std::string& text);

/// \brief Makes the columns named by `specs` Blob V2 columns of a write of `schema`.
///
/// A top-level binary/large_binary column goes to `options->binary_as_blob`; a
/// struct<data: large_binary, uri: utf8> column gets the lance.blob.v2 extension and
/// the threshold metadata on its field in `schema` (the writer takes the field from
/// the schema it is given, so batches need no change). InvalidArgument naming the
/// column when it is missing, named twice or of another type.
Status ApplyBlobSpecs(const std::vector<BlobColumnSpec>& specs, Schema* schema, table::BlobWriteOptions* options);

/// `field` (a Blob V2 field) with its effective thresholds written into its metadata,
/// so a later import of the field places values as this dataset did.
Field WithThresholdMetadata(Field field, const table::BlobThresholds& thresholds);

}  // namespace lancet::cli
