// Turns Blob V2 input values (struct<data, uri[, position, size]>) into stored
// descriptors while a data file is written (docs/format §10). Internal to the table layer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/table/blob_write.h"
#include "table/blob_sink.h"
#include "table/external_stores.h"

namespace lancet::table {

/// A registered external base: Manifest.base_paths id and its absolute local directory
/// or s3:// prefix.
struct ExternalBase {
  uint32_t id = 0;
  std::string dir;  // normalized, no trailing slash
};

/// What every data file of one write shares.
struct BlobWriteContext {
  std::vector<ExternalBase> bases;
  bool allow_outside_bases = false;
  BlobUriMode uri_mode = BlobUriMode::kReference;
  /// Where kCopy reads source files: a local store that does not map files.
  std::shared_ptr<io::ObjectStore> sources;
  /// Where s3:// references are sized and kCopy reads them: stores made with the
  /// write's storage options.
  std::shared_ptr<const ExternalStores> externals;
  /// Format 2.3: descriptors carry blob_info (the read schema has the sixth member).
  bool blob_info = false;
  /// By dotted blob column path (format 2.3 only).
  std::map<std::string, std::shared_ptr<const BlobTransform>> transforms;
};

/// True if `field` is or contains a Blob V2 field.
bool HasBlobField(const Field& field);

/// InvalidArgument unless every Blob V2 field of `schema` has a valid input shape
/// (struct<data: binary|large_binary, uri: utf8|large_utf8> plus optional uint64
/// position and size) and valid thresholds; NotSupported for a blob inside a list.
Status CheckBlobInputSchema(const Schema& schema);

/// Writes the payloads of `batch` (logical schema) through `sink` and returns the
/// batch with every blob field replaced by its descriptor struct (the read schema).
Result<RecordBatch> StoreBlobs(const RecordBatch& batch, const Schema& read_schema, const BlobWriteContext& context,
                               BlobSink* sink);

/// Rewrites the top-level binary/large_binary columns named in `columns` as Blob V2
/// input columns (MakeBlobField with the given thresholds) in `schema` and `batches`.
/// InvalidArgument for an unknown column or one that is not binary.
Status ConvertBinaryToBlob(const std::map<std::string, BlobThresholds>& columns, Schema* schema,
                           std::vector<RecordBatch>* batches);

/// Normalizes an external base directory (absolute, no "." or ".." parts) or s3://
/// prefix (no trailing '/').
Result<std::string> NormalizeBaseDir(const std::string& dir);

}  // namespace lancet::table
