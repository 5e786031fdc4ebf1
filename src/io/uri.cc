#include "lancet/io/uri.h"

#include "lancet/io/s3_store.h"

namespace lancet::io {

bool IsRemoteUri(const std::string& uri) { return uri.starts_with("s3://") || uri.starts_with("s3a://"); }

Result<ResolvedUri> ResolveUri(const std::string& uri, const StorageOptions& options) {
  std::string_view u = uri;
  if (u.starts_with("s3://") || u.starts_with("s3a://")) {
    u.remove_prefix(u.find("://") + 3);
    auto slash = u.find('/');
    std::string bucket(u.substr(0, slash));
    std::string root = slash == std::string_view::npos ? "" : std::string(u.substr(slash + 1));
    while (!root.empty() && root.back() == '/') root.pop_back();
    if (bucket.empty()) return Status::InvalidArgument(uri + ": no bucket in the S3 URI");
    ASSIGN_OR_RETURN(S3Options s3, S3OptionsFrom(options));
    ASSIGN_OR_RETURN(auto store, NewS3Store(bucket, std::move(s3)));
    return ResolvedUri{std::move(store), std::move(root)};
  }
  if (u.starts_with("file://")) {
    u.remove_prefix(7);
    if (!u.starts_with('/')) {
      return Status::NotSupported(uri + ": file URI with a host is not supported");
    }
  } else if (auto scheme = u.find("://"); scheme != std::string_view::npos) {
    return Status::NotSupported(uri + ": URI scheme '" + std::string(u.substr(0, scheme)) + "' is not supported");
  }
  if (u.empty()) return Status::InvalidArgument("an empty dataset path");
  return ResolvedUri{LocalFileSystem(), std::string(u)};
}

}  // namespace lancet::io
