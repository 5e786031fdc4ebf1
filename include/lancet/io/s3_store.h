// S3ObjectStore: an ObjectStore over the S3 API (AWS S3, Ceph radosgw and others).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lancet/io/object_store.h"
#include "lancet/io/storage_options.h"
#include "lancet/result.h"

namespace lancet::io {

/// How to reach one S3 service. Credentials are never printed: Describe() omits them.
struct S3Options {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  /// "http(s)://host[:port]"; empty = AWS (https://s3.<region>.amazonaws.com).
  std::string endpoint;
  std::string region = "us-east-1";
  /// Plain http endpoints are refused unless this is set (AWS_ALLOW_HTTP, allow_http).
  bool allow_http = false;
  /// bucket.host/key instead of host/bucket/key.
  bool virtual_hosted_style = false;

  /// Multipart part size for OpenWrite; S3 wants at least 5 MiB for all but the last part.
  uint64_t part_size = 8ULL << 20;
  /// Retries of one request after a 5xx, SlowDown, timeout or reset, and the time all
  /// attempts of one request may take together (storage options client_max_retries,
  /// client_retry_timeout).
  int max_retries = 6;
  int64_t retry_budget_ms = 60000;
  /// First backoff; each retry waits a random time below base * 2^attempt (capped at 5 s).
  int64_t retry_base_ms = 50;
  long connect_timeout_ms = 5000;  // storage option connect_timeout
  /// One attempt of one request, connect to last byte; 0 = unbounded, since a large part
  /// may take long (storage option timeout). The low-speed limit catches stalls anyway.
  long request_timeout_ms = 0;
  /// A transfer below 1 KiB/s for this long is aborted and retried.
  long low_speed_seconds = 15;
  /// Keys per DeleteObjects request (S3 takes at most 1000); tests lower it.
  int delete_batch_size = 1000;
  /// ReadMany on S3 files: ranges closer than coalesce_gap merge into one GET, merged
  /// GETs stay below max_request_size, and up to `parallelism` run at once (bounded by
  /// the shared I/O pool: 8 threads plus the caller). A caller's larger gap or
  /// parallelism wins. The measurements behind the defaults: src/io/s3_store.cc.
  uint64_t coalesce_gap = 256ULL << 10;
  uint64_t max_request_size = 8ULL << 20;
  int parallelism = 8;
  /// Keys per ListObjectsV2 page; 0 = the server's default (1000). Tests lower it to
  /// exercise pagination.
  int list_page_size = 0;

  /// Endpoint, region and addressing, without credentials (for `lancet info`, errors).
  std::string Describe() const;
};

/// Options from the environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
/// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_DEFAULT_REGION,
/// AWS_ALLOW_HTTP, AWS_PROFILE with ~/.aws/credentials and ~/.aws/config), then
/// `overrides` (LanceDB's keys) on top: the aws_* keys, allow_http, and the client keys
/// timeout, connect_timeout, client_retry_timeout (durations: "500ms", "5s", "2m", "1h";
/// a bare number is seconds) and client_max_retries. InvalidArgument for an unknown aws_*
/// key, a malformed boolean, duration or count.
Result<S3Options> S3OptionsFrom(const StorageOptions& overrides);

/// A store serving the objects of `bucket`; paths are object keys ("a/b.lance/x").
/// InvalidArgument for an http endpoint without allow_http or missing credentials.
Result<std::shared_ptr<ObjectStore>> NewS3Store(const std::string& bucket, S3Options options);

}  // namespace lancet::io
