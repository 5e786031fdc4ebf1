#include "io/s3_client.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "io/s3_xml.h"

namespace lancet::io::s3 {
namespace {

// Bodies up to this size are hashed into the signature; larger ones (multipart parts)
// go UNSIGNED-PAYLOAD so an upload does not pay a second pass over its bytes.
constexpr size_t kMaxHashedBody = 1 << 20;
constexpr int64_t kBackoffCapMs = 5000;
const std::string kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  return rng;
}

bool Retryable(const HttpResponse& r) {
  if (r.status == 0) return true;  // connect failure, reset, timeout
  if (r.status >= 500 || r.status == 429) return true;
  if (r.status == 400) {
    // S3 answers a slow upload with 400 RequestTimeout; throttling can come as 400 too.
    auto code = XmlText(r.body, "Code");
    return code && (*code == "RequestTimeout" || *code == "SlowDown" || *code == "Throttling");
  }
  return false;
}

}  // namespace

S3Client::S3Client(std::string bucket, S3Options options) : bucket_(std::move(bucket)), options_(std::move(options)) {
  std::string_view ep = options_.endpoint;
  auto sep = ep.find("://");
  scheme_ = std::string(ep.substr(0, sep));
  ep.remove_prefix(sep + 3);
  while (!ep.empty() && ep.back() == '/') ep.remove_suffix(1);
  host_ = std::string(ep);
  HttpTimeouts t;
  t.connect_ms = options_.connect_timeout_ms;
  t.low_speed_seconds = options_.low_speed_seconds;
  t.total_ms = options_.request_timeout_ms;
  http_ = std::make_unique<HttpClient>(t);
}

Result<std::unique_ptr<S3Client>> MakeS3Client(const std::string& bucket, S3Options options) {
  if (bucket.empty() || bucket.find('/') != std::string::npos) {
    return Status::InvalidArgument("s3: '" + bucket + "' is not a bucket name");
  }
  if (options.endpoint.empty()) options.endpoint = "https://s3." + options.region + ".amazonaws.com";
  const bool http = options.endpoint.starts_with("http://");
  if (!http && !options.endpoint.starts_with("https://")) {
    return Status::InvalidArgument("s3: endpoint '" + options.endpoint + "' is not an http(s) URL");
  }
  if (http && !options.allow_http) {
    return Status::InvalidArgument("s3: endpoint " + options.endpoint +
                                   " is plain http; set AWS_ALLOW_HTTP=true (or allow_http) to use it");
  }
  if (options.access_key_id.empty() || options.secret_access_key.empty()) {
    return Status::InvalidArgument("s3://" + bucket +
                                   ": no credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                                   "AWS_PROFILE, or the aws_access_key_id/aws_secret_access_key options)");
  }
  if (options.part_size < (5ULL << 20)) options.part_size = 5ULL << 20;
  return std::make_unique<S3Client>(bucket, std::move(options));
}

HttpResponse S3Client::SendOnce(const S3Request& req) const {
  std::string host = host_;
  std::string path = "/";
  if (options_.virtual_hosted_style) {
    host = bucket_ + "." + host_;
    path += req.key;
  } else {
    path += bucket_;
    if (!req.key.empty()) path += "/" + req.key;
  }
  SignInput in;
  in.method = req.method;
  in.path = path;
  in.query = req.query;
  in.payload_hash = req.body.empty()                    ? kEmptySha256
                    : req.body.size() <= kMaxHashedBody ? Sha256Hex(req.body)
                                                        : "UNSIGNED-PAYLOAD";
  const auto now = std::chrono::system_clock::now();
  const std::string date = AmzDate(std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
  in.headers = req.headers;
  in.headers.emplace_back("host", host);
  in.headers.emplace_back("x-amz-date", date);
  in.headers.emplace_back("x-amz-content-sha256", in.payload_hash);
  if (!options_.session_token.empty()) in.headers.emplace_back("x-amz-security-token", options_.session_token);
  Credentials creds{options_.access_key_id, options_.secret_access_key, options_.session_token};
  SignOutput sig = SignV4(in, creds, options_.region, "s3", date);

  HttpRequest http;
  http.method = req.method;
  // The wire form of path and query is exactly the signed one.
  http.url = scheme_ + "://" + host + UriEncode(path, true);
  std::string query = CanonicalQuery(req.query);
  if (!query.empty()) http.url += "?" + query;
  for (const auto& h : in.headers) {
    if (h.first != "host") http.headers.push_back(h);
  }
  http.headers.emplace_back("Authorization", sig.authorization);
  http.body = req.body;
  http.into = req.into;
  requests_sent_.fetch_add(1, std::memory_order_relaxed);
  HttpResponse r = http_->Send(http);
  // A body shorter than the range asked for (a proxy or server that cut it and fixed up
  // Content-Length) must never pass as data: it is a failed attempt, retried like a reset.
  if (!req.into.empty() && r.status >= 200 && r.status < 300 && r.body_size != req.into.size()) {
    r.error = "response body of " + std::to_string(r.body_size) + " bytes, expected " + std::to_string(req.into.size());
    r.status = 0;
  }
  if (!req.xml_root.empty() && r.status >= 200 && r.status < 300 && !XmlClosed(r.body, req.xml_root)) {
    r.error = "answer of " + std::to_string(r.body.size()) + " bytes was cut before the end of <" +
              std::string(req.xml_root) + ">";
    r.status = 0;
  }
  return r;
}

Result<HttpResponse> S3Client::Send(const S3Request& req, int* attempts) const {
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    HttpResponse r = SendOnce(req);
    if (attempts != nullptr) *attempts = attempt + 1;
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    if (!Retryable(r) || attempt >= options_.max_retries || elapsed >= options_.retry_budget_ms) {
      if (r.status == 0) {
        std::string what = Uri(req.key);
        for (const auto& [k, v] : req.query) {
          if (k == "prefix") what += " (prefix " + v + ")";
        }
        return Status::IOError(what + ": " + req.method + " failed after " + std::to_string(attempt + 1) +
                               " attempt(s): " + r.error);
      }
      return r;
    }
    // Jittered: between half and all of base * 2^attempt, so throttled clients spread out.
    int64_t cap = std::min<int64_t>(kBackoffCapMs, options_.retry_base_ms << std::min(attempt, 20));
    int64_t wait = std::uniform_int_distribution<int64_t>(cap / 2, cap)(Rng());
    wait = std::min<int64_t>(wait, std::max<int64_t>(0, options_.retry_budget_ms - elapsed));
    retries_.fetch_add(1, std::memory_order_relaxed);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
}

Status S3Client::ErrorFor(const HttpResponse& r, std::string_view op, const std::string& key) const {
  std::string code = XmlText(r.body, "Code").value_or("");
  std::string what = Uri(key) + ": " + std::string(op) + " failed: HTTP " + std::to_string(r.status) +
                     (code.empty() ? "" : " " + code);
  if (r.status == 404) return Status::NotFound(what);
  if (r.status == 412) return Status::AlreadyExists(what);
  return Status::IOError(what);
}

}  // namespace lancet::io::s3
