// A small HTTP/1.1 client over libcurl: one pool of easy handles per client, so
// sequential requests to one endpoint reuse their connections.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "io/s3_sigv4.h"

namespace lancet::io::s3 {

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
};

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
  explicit HttpClient(HttpTimeouts timeouts);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResponse Send(const HttpRequest& request) const;

 private:
  void* Acquire() const;
  void Release(void* handle) const;

  HttpTimeouts timeouts_;
  mutable std::mutex mu_;
  mutable std::vector<void*> idle_;
};

}  // namespace lancet::io::s3
