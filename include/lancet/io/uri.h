// ResolveUri: a dataset URI to the store that holds it and the root inside that store.
#pragma once

#include <memory>
#include <string>

#include "lancet/io/object_store.h"
#include "lancet/io/storage_options.h"
#include "lancet/result.h"

namespace lancet::io {

struct ResolvedUri {
  std::shared_ptr<ObjectStore> store;
  /// The path inside `store`: a local path, or an S3 key prefix without a leading '/'.
  std::string root;
};

/// Local paths and file:///path give the local file system; s3://bucket/prefix gives
/// an S3 store for the bucket (options from S3OptionsFrom(options)) and root "prefix".
/// NotSupported for other schemes, InvalidArgument for an empty path or bucket.
Result<ResolvedUri> ResolveUri(const std::string& uri, const StorageOptions& options = {});

/// True for URIs ResolveUri sends to a remote store (s3://).
bool IsRemoteUri(const std::string& uri);

}  // namespace lancet::io
