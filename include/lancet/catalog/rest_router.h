// The REST namespace protocol (lance-namespace spec, as the reference's client speaks
// it; docs: shared namespace-notes §2) on top of any catalog::Namespace, plus the
// spec's data routes for thin clients (count_rows, query, insert), without a
// transport: a request's method, raw path, raw query, headers and body in; a status,
// content type and body out. `lancet serve` puts an HTTP server in front of it; tests
// and the fuzzer call it directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lancet/catalog/namespace.h"
#include "lancet/io/input_stream.h"
#include "lancet/result.h"

namespace lancet::catalog {

struct RestRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // raw (still percent-encoded), e.g. "/v1/namespace/%24/list"
  std::string query;   // raw, without the '?': "delimiter=%24&limit=2"
  /// Header names in any case (HTTP names are case-insensitive); values as received.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// When set, the body (an insert's Arrow IPC stream) arrives through this while the
  /// request is handled, and `body` is empty: the transport passes bodies of any size
  /// without holding them.
  std::shared_ptr<io::InputStream> body_stream;
};

struct RestResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers
  /// Set for a streamed answer (a query's Arrow IPC stream); `body` is then unused. The
  /// transport calls it once with a writer that sends a chunk and returns false once the
  /// client is gone; it returns false when the output broke off, and the transport then
  /// drops the connection so the client sees a truncated stream, not a short success.
  std::function<bool(const std::function<bool(std::string_view)>& write)> stream;
};

struct RestRouterOptions {
  /// When set, every request must carry `Authorization: Bearer <token>` or
  /// `x-api-key: <token>` (compared in constant time); 401 code 16 otherwise.
  std::string token;
  /// Request bodies larger than this are refused (413, code 13); streamed insert bodies
  /// are not held, so they are not bounded by it.
  size_t max_body_bytes = size_t{16} << 20;
  /// JSON nested deeper than this (objects and arrays) is refused (400, code 13).
  int max_json_depth = 32;
  /// When set (a local directory), every table location the router hands out or
  /// registers must lie inside it once symlinks are resolved; others are refused.
  std::string location_root;
};

/// Routes requests to a Namespace. Thread-safe when the Namespace is.
class RestRouter {
 public:
  RestRouter(std::shared_ptr<Namespace> ns, RestRouterOptions options);
  RestResponse Handle(const RestRequest& request) const;
  const RestRouterOptions& options() const { return options_; }

 private:
  std::shared_ptr<Namespace> ns_;
  RestRouterOptions options_;
  std::string canonical_root_;  // location_root with symlinks resolved ("" when unset)
};

/// OK if `name`, as decoded from a request, can be one part of a namespace or table id:
/// the catalog's ValidateName (names.h) plus the wire's rules: valid UTF-8 and no '%'
/// (names are decoded once; one still holding an escape was encoded twice). Otherwise
/// InvalidInput (code 13) saying why.
Status ValidateWireName(std::string_view name);

/// Decodes `%XX` escapes and, when `plus_is_space`, '+' as a space (the client writes
/// spaces in path segments as '+'). A '%' not followed by two hex digits is an error.
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space);

/// A raw query string ("a=1&b=%24") as key → value, both decoded as PercentDecode with
/// '+' as a space; a later key replaces an earlier one. InvalidInput on a bad escape.
Result<std::map<std::string, std::string>> ParseQuery(std::string_view raw);

/// The HTTP status the reference adapter sends for a spec error code.
int HttpStatusForCode(int code);

/// Compares a presented secret with the expected one in time that depends only on the
/// expected one's length.
bool ConstantTimeEquals(std::string_view presented, std::string_view expected);

}  // namespace lancet::catalog
