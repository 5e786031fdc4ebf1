// S3Client: signed, retried S3 requests against one bucket; the store's plumbing.
#pragma once

#include <atomic>
#include <memory>
#include <span>
#include <string>

#include "io/http_client.h"
#include "io/s3_sigv4.h"
#include "lancet/io/s3_store.h"
#include "lancet/status.h"

namespace lancet::io::s3 {

struct S3Request {
  std::string method;
  std::string key;  // object key, no leading '/'; empty for bucket-level requests
  HeaderList query;
  HeaderList headers;  // extra headers (Range, If-None-Match, ...), signed too
  std::span<const uint8_t> body;
  std::span<uint8_t> into;  // see HttpRequest::into
  /// For XML answers: the root element a complete 2xx answer closes (`</Name>` or
  /// `<Name .../>`). One that does not was cut on the way (by a proxy that fixed up
  /// Content-Length) and is retried like a reset.
  std::string_view xml_root = {};
};

class S3Client {
 public:
  S3Client(std::string bucket, S3Options options);

  /// Sends `request`, retrying transport failures, 5xx and throttling with jittered
  /// exponential backoff (bounded in count and time). Returns the last response,
  /// whatever its status; an IOError only when every attempt failed below HTTP.
  /// `attempts`, if given, receives how many times the request was sent.
  Result<HttpResponse> Send(const S3Request& request, int* attempts = nullptr) const;

  /// The error for a failed response: NotFound for 404, AlreadyExists for 412,
  /// IOError otherwise; the message names s3://bucket/key, the operation, the HTTP
  /// status and S3's error code (never S3's message, which may echo signing input).
  Status ErrorFor(const HttpResponse& response, std::string_view op, const std::string& key) const;

  std::string Uri(const std::string& key) const { return "s3://" + bucket_ + "/" + key; }
  const std::string& bucket() const { return bucket_; }
  const S3Options& options() const { return options_; }
  /// Requests sent, including retries (HEAD and LIST too); for tests and benchmarks.
  uint64_t requests_sent() const { return requests_sent_.load(std::memory_order_relaxed); }
  uint64_t retries() const { return retries_.load(std::memory_order_relaxed); }

 private:
  HttpResponse SendOnce(const S3Request& request) const;

  std::string bucket_;
  S3Options options_;
  std::string scheme_;  // "http" or "https"
  std::string host_;    // host[:port] of the endpoint
  std::unique_ptr<HttpClient> http_;
  mutable std::atomic<uint64_t> requests_sent_{0};
  mutable std::atomic<uint64_t> retries_{0};
};

/// Checks options and makes a client: InvalidArgument for an http endpoint without
/// allow_http, a malformed endpoint, or missing credentials.
Result<std::unique_ptr<S3Client>> MakeS3Client(const std::string& bucket, S3Options options);

}  // namespace lancet::io::s3
