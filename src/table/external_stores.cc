#include "table/external_stores.h"

#include "lancet/io/uri.h"

namespace lancet::table {

bool IsRemoteBlobUri(std::string_view uri) { return uri.starts_with("s3://") || uri.starts_with("s3a://"); }

std::string BucketOfUri(std::string_view uri) {
  if (!IsRemoteBlobUri(uri)) return "";
  uri.remove_prefix(uri.find("://") + 3);
  return std::string(uri.substr(0, uri.find('/')));
}

Status CheckRemoteBlobUri(std::string_view uri, const std::string& where) {
  std::string_view rest = uri.substr(uri.find("://") + 3);
  const size_t slash = rest.find('/');
  auto bad = [&](const char* why) {
    return Status::InvalidArgument(where + ": external blob URI '" + std::string(uri) + "' " + why);
  };
  if (slash == 0 || slash == std::string_view::npos || slash + 1 == rest.size()) return bad("names no bucket and key");
  std::string_view key = rest.substr(slash + 1);
  while (!key.empty()) {
    const size_t end = key.find('/');
    std::string_view part = key.substr(0, end);
    if (part.empty() || part == "." || part == "..") return bad("has an empty, '.' or '..' key segment");
    if (end == std::string_view::npos) break;
    key.remove_prefix(end + 1);
    if (key.empty()) return bad("ends with '/'");
  }
  return Status::OK();
}

Result<std::pair<std::shared_ptr<io::ObjectStore>, std::string>> ExternalStores::Resolve(
    const std::string& object) const {
  if (!IsRemoteBlobUri(object)) return std::make_pair(home_, object);
  std::string bucket = BucketOfUri(object);
  std::string key = object.substr(object.find("://") + 3 + bucket.size());
  if (!key.empty()) key.erase(0, 1);
  if (!home_bucket_.empty() && bucket == home_bucket_) return std::make_pair(home_, key);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buckets_.find(bucket);
  if (it == buckets_.end()) {
    // ResolveUri builds the store from the options exactly as a dataset URI would.
    auto resolved = io::ResolveUri("s3://" + bucket, options_);
    if (!resolved.ok()) return resolved.status().WithContext("external blob " + object);
    it = buckets_.emplace(bucket, std::move(resolved->store)).first;
  }
  return std::make_pair(it->second, key);
}

Result<std::unique_ptr<io::RandomAccessFile>> ExternalStores::OpenRead(const std::string& object) const {
  ASSIGN_OR_RETURN(auto where, Resolve(object));
  return where.first->OpenRead(where.second);
}

Result<uint64_t> ExternalStores::Size(const std::string& object) const {
  ASSIGN_OR_RETURN(auto where, Resolve(object));
  return where.first->Size(where.second);
}

}  // namespace lancet::table
