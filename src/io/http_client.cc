#include "io/http_client.h"

#include <curl/curl.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace lancet::io {
namespace {

// Handles beyond this many idle ones are closed rather than pooled.
constexpr size_t kMaxIdleHandles = 64;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] {
    // No OpenSSL cleanup at exit: it would run before the I/O pool's threads end when
    // the pool predates the first S3 store, and their per-thread state would then leak.
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr);
    curl_global_init(CURL_GLOBAL_DEFAULT);
  });
}

struct Transfer {
  CURL* curl = nullptr;
  const HttpRequest* request = nullptr;
  HttpResponse* response = nullptr;
  size_t body_sent = 0;
  bool overflow = false;
  bool receiver_stopped = false;
  bool source_failed = false;
};

bool Is2xx(CURL* curl) {
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  return code >= 200 && code < 300;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * n;
  std::span<uint8_t> into = t->request->into;
  // Error bodies (S3's XML) always go to the string, never into the caller's buffer.
  if (t->request->on_body && Is2xx(t->curl)) {
    t->response->body_size += bytes;
    if (t->request->on_body(std::string_view(data, bytes))) return bytes;
    t->receiver_stopped = true;
    return 0;
  }
  if (!into.empty() && Is2xx(t->curl)) {
    if (t->response->body_size + bytes > into.size()) {
      t->overflow = true;
      return 0;
    }
    std::memcpy(into.data() + t->response->body_size, data, bytes);
    t->response->body_size += bytes;
    return bytes;
  }
  t->response->body.append(data, bytes);
  t->response->body_size += bytes;
  return bytes;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  // A new status line (after 100 Continue or a redirect) starts a new header block.
  if (line.starts_with("HTTP/")) {
    t->response->headers.clear();
    return size * n;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  t->response->headers.emplace_back(std::move(name), std::string(value));
  return size * n;
}

size_t OnRead(char* out, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  if (t->request->body_source) {
    const size_t got = t->request->body_source(std::span<uint8_t>(reinterpret_cast<uint8_t*>(out), size * n));
    if (got != kBodySourceFailed) return got;
    t->source_failed = true;
    return CURL_READFUNC_ABORT;
  }
  const size_t left = t->request->body.size() - t->body_sent;
  const size_t bytes = std::min(left, size * n);
  std::memcpy(out, t->request->body.data() + t->body_sent, bytes);
  t->body_sent += bytes;
  return bytes;
}

// curl may rewind the body to resend it (after an auth challenge or a reused dead connection).
int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* t = static_cast<Transfer*>(user);
  if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > t->request->body.size()) {
    return CURL_SEEKFUNC_FAIL;
  }
  t->body_sent = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

}  // namespace

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return "";
}

HttpClient::HttpClient(HttpTimeouts timeouts, std::string ca_file) : timeouts_(timeouts), ca_file_(std::move(ca_file)) {
  GlobalInit();
}

HttpClient::~HttpClient() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* HttpClient::Acquire() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void HttpClient::Release(void* handle) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < kMaxIdleHandles) {
    idle_.push_back(handle);
    return;
  }
  curl_easy_cleanup(static_cast<CURL*>(handle));
}

HttpResponse HttpClient::Send(const HttpRequest& request) const {
  HttpResponse response;
  CURL* curl = static_cast<CURL*>(Acquire());
  if (curl == nullptr) {
    response.error = "cannot create a curl handle";
    return response;
  }
  // reset keeps the handle's live connections and DNS cache: that is the reuse.
  curl_easy_reset(curl);
  Transfer t{curl, &request, &response};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeouts_.connect_ms);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, timeouts_.low_speed_bytes);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, timeouts_.low_speed_seconds);
  if (timeouts_.total_ms > 0) curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeouts_.total_ms);
  if (!ca_file_.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file_.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);

  curl_slist* headers = nullptr;
  for (const auto& [k, v] : request.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  // No "Expect: 100-continue" round trip before bodies; no default form content type.
  headers = curl_slist_append(headers, "Expect:");
  headers = curl_slist_append(headers, "Content-Type:");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);

  const bool has_body = request.method == "PUT" || request.method == "POST";
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (has_body) {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, OnRead);
    curl_easy_setopt(curl, CURLOPT_READDATA, &t);
    // A pulled body has no size up front (curl sends it chunked) and cannot be rewound.
    if (!request.body_source) {
      curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, OnSeek);
      curl_easy_setopt(curl, CURLOPT_SEEKDATA, &t);
    }
    if (request.method == "POST") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "POST");
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  } else {
    response.status = 0;
    response.error = t.overflow           ? "response body longer than expected"
                     : t.receiver_stopped ? "the receiver stopped reading the response"
                     : t.source_failed
                         ? "the request body's source failed"
                         : std::string(curl_easy_strerror(rc)) + (errbuf[0] ? std::string(": ") + errbuf : "");
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  curl_slist_free_all(headers);
  Release(curl);
  return response;
}

}  // namespace lancet::io
