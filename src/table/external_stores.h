// Stores for external Blob V2 objects (kind 3) that live outside the dataset's store.
// Internal to the table layer.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "lancet/io/object_store.h"
#include "lancet/io/storage_options.h"
#include "lancet/result.h"

namespace lancet::table {

/// True for the external URI schemes read through a store of their own (s3://, s3a://).
bool IsRemoteBlobUri(std::string_view uri);

/// \brief Opens the objects blob locations name. Thread-safe.
///
/// An s3:// URI goes to an S3 store for its bucket, made once with `options` (the
/// storage options the dataset was opened or written with, as lance 12 resolves an
/// external URI with the dataset's store parameters); the dataset's own store serves
/// its bucket when `home_bucket` names it. Every other object is a path in `home`.
class ExternalStores {
 public:
  ExternalStores(std::shared_ptr<io::ObjectStore> home, std::string home_bucket, io::StorageOptions options)
      : home_(std::move(home)), home_bucket_(std::move(home_bucket)), options_(std::move(options)) {}

  /// The store holding `object` and its path there.
  Result<std::pair<std::shared_ptr<io::ObjectStore>, std::string>> Resolve(const std::string& object) const;
  Result<std::unique_ptr<io::RandomAccessFile>> OpenRead(const std::string& object) const;
  Result<uint64_t> Size(const std::string& object) const;

 private:
  std::shared_ptr<io::ObjectStore> home_;
  std::string home_bucket_;
  io::StorageOptions options_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::shared_ptr<io::ObjectStore>> buckets_;
};

/// The bucket of an s3:// dataset URI, or "" for any other URI.
std::string BucketOfUri(std::string_view uri);

/// Checks the key of an s3:// URI: a bucket and a non-empty key without "." or ".."
/// components or empty segments. InvalidArgument naming `where` otherwise.
Status CheckRemoteBlobUri(std::string_view uri, const std::string& where);

}  // namespace lancet::table
