// A small HTTP/1.1 client over libcurl: one pool of easy handles per client, so
// sequential requests to one endpoint reuse their connections. The S3 store and the
// REST namespace client (catalog layer) speak through it.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lancet::io {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpTimeouts {
  long connect_ms = 5000;
  /// A transfer slower than low_speed_bytes per second for low_speed_seconds is aborted,
  /// so a stalled connection fails (and is retried) instead of hanging.
  long low_speed_bytes = 1024;
  long low_speed_seconds = 15;
  /// Whole-request bound; 0 = none (large parts may legitimately take long).
  long total_ms = 0;
};

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string url;
  HeaderList headers;
  /// Request body, sent from the caller's memory without a copy.
  std::span<const uint8_t> body;
  /// When non-empty, a 2xx response body is written straight here; a longer body is an error.
  std::span<uint8_t> into;
  /// When set, a 2xx response body is handed here as it arrives (not kept in the
  /// response); returning false aborts the transfer.
  std::function<bool(std::string_view)> on_body;
  /// When set, the body is pulled from here instead of `body` and sent chunked: it fills
  /// the span and returns the bytes written, 0 at the end, kBodySourceFailed to abort.
  std::function<size_t(std::span<uint8_t>)> body_source;
};

inline constexpr size_t kBodySourceFailed = static_cast<size_t>(-1);

struct HttpResponse {
  /// 0 when the request failed below HTTP (connect, reset, timeout): see `error`.
  long status = 0;
  std::string error;
  HeaderList headers;  // lower-case names
  /// The body, unless it went to HttpRequest::into (then body_size counts it).
  std::string body;
  uint64_t body_size = 0;
  /// The value of header `name` (lower-case), or "".
  std::string Header(std::string_view name) const;
};

/// \brief Thread-safe: each Send borrows an idle handle (or makes one) and returns it.
class HttpClient {
 public:
  /// `ca_file`: a PEM bundle to verify HTTPS servers against instead of the system's.
  explicit HttpClient(HttpTimeouts timeouts, std::string ca_file = "");
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResponse Send(const HttpRequest& request) const;

 private:
  void* Acquire() const;
  void Release(void* handle) const;

  HttpTimeouts timeouts_;
  std::string ca_file_;
  mutable std::mutex mu_;
  mutable std::vector<void*> idle_;
};

}  // namespace lancet::io
