// AWS Signature Version 4 for S3 requests, written against the published algorithm so
// that the exact bytes signed are ours to control (curl's built-in signer disagrees
// with radosgw on valueless and unsorted query parameters).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lancet::io::s3 {

/// Access key, secret and optional session token. Never logged.
struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  bool empty() const { return access_key_id.empty() && secret_access_key.empty(); }
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

/// A request to sign. `path` is the decoded object path ("/bucket/key"); query values
/// are decoded too (a valueless parameter has an empty value and signs as "key=").
struct SignInput {
  std::string method;
  std::string path;
  HeaderList query;
  /// Every header to sign, including host and x-amz-date.
  HeaderList headers;
  /// Hex SHA-256 of the body, or "UNSIGNED-PAYLOAD".
  std::string payload_hash;
};

struct SignOutput {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;
  std::string signature;
  std::string authorization;  // the Authorization header value
};

/// RFC 3986 encoding as SigV4 wants it: unreserved bytes kept, everything else %XX
/// (upper-case hex); '/' kept when `keep_slash`.
std::string UriEncode(std::string_view s, bool keep_slash);
/// The canonical query string: encoded pairs sorted by key then value, "k=v&...".
/// The same string must be sent on the wire.
std::string CanonicalQuery(const HeaderList& query);
std::string Sha256Hex(std::span<const uint8_t> bytes);
inline std::string Sha256Hex(std::string_view s) {
  return Sha256Hex({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}
/// "YYYYMMDDTHHMMSSZ" for seconds since the Unix epoch.
std::string AmzDate(int64_t unix_seconds);
/// Base64 of the MD5 of `bytes`: the Content-MD5 header DeleteObjects requires.
std::string Md5Base64(std::span<const uint8_t> bytes);

/// Signs `in` for `region`/`service` at `amz_date` (YYYYMMDDTHHMMSSZ).
SignOutput SignV4(const SignInput& in, const Credentials& creds, std::string_view region, std::string_view service,
                  std::string_view amz_date);

}  // namespace lancet::io::s3
