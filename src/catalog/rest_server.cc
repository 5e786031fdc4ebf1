// RestServer: cpp-httplib carries HTTP(S); RestRouter does the protocol.
#include "lancet/catalog/rest_server.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <thread>

#include "catalog/byte_pipe.h"

namespace lancet::catalog {
namespace {

// An access-log field with anything unprintable shown as '?' (requests are untrusted).
std::string Printable(std::string_view s) {
  std::string out(s.substr(0, 300));
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) c = '?';
  }
  return out;
}

std::string JsonError(int code, const std::string& message) {
  // Messages here are fixed ASCII text: no escaping needed.
  return "{\"error\":\"" + message + "\",\"code\":" + std::to_string(code) + "}";
}

RestRequest ToRequest(const httplib::Request& req) {
  RestRequest request;
  request.method = req.method;
  // The raw target: httplib's req.path is already decoded, and the router must see the
  // escapes to tell "%24" (a delimiter) and "%2F" from the real characters.
  const size_t q = req.target.find('?');
  request.path = req.target.substr(0, q);
  if (q != std::string::npos) request.query = req.target.substr(q + 1);
  request.headers.assign(req.headers.begin(), req.headers.end());
  return request;
}

void Respond(RestResponse response, httplib::Response& res) {
  res.status = response.status;
  for (const auto& [k, v] : response.headers) res.set_header(k, v);
  if (response.stream) {
    // Chunked: the scan's batches go out as they are encoded. Returning false drops the
    // connection, so a scan error mid-way is a truncated stream, never a short success.
    auto stream = std::move(response.stream);
    res.set_chunked_content_provider(response.content_type, [stream](size_t, httplib::DataSink& sink) {
      const bool ok = stream([&sink](std::string_view chunk) { return sink.write(chunk.data(), chunk.size()); });
      if (ok) sink.done();
      return ok;
    });
    return;
  }
  res.set_content(std::move(response.body), response.content_type);
}

bool IsInsert(const RestRequest& request) {
  constexpr std::string_view kSuffix = "/insert";
  return request.path.size() > kSuffix.size() && request.path.ends_with(kSuffix);
}

// A POST: its body is read here, not by httplib, so that an insert's streams through a
// pipe into the table writer (running on a second thread) and any other body stops
// being kept past the router's limit.
void HandlePost(const RestRouter& router, const httplib::Request& req, httplib::Response& res,
                const httplib::ContentReader& content_reader) {
  RestRequest request = ToRequest(req);
  const size_t limit = router.options().max_body_bytes;
  if (!IsInsert(request)) {
    // One byte past the limit is kept so the router answers 413; the rest is drained.
    const bool read = content_reader([&](const char* data, size_t n) {
      if (request.body.size() <= limit) request.body.append(data, std::min(n, limit + 1 - request.body.size()));
      return true;
    });
    if (!read) return;  // the client went away
    Respond(router.Handle(request), res);
    return;
  }
  auto pipe = std::make_shared<internal::BytePipe>();
  request.body_stream = pipe->Reader("the request body");
  RestResponse response;
  std::thread handler([&router, &request, &response] {
    response = router.Handle(request);
    request.body_stream.reset();  // tells the reading side below that nothing more is wanted
  });
  // Once the router stopped reading (an error before or in the body) the rest is drained
  // up to the limit, so the client gets the answer; past it the connection is dropped.
  size_t unwanted = 0;
  const bool read = content_reader([&](const char* data, size_t n) {
    if (pipe->Write(std::string_view(data, n))) return true;
    unwanted += n;
    return unwanted <= limit;
  });
  pipe->Close(read ? Status::OK() : Status::IOError("the client stopped sending the body"));
  handler.join();
  Respond(std::move(response), res);
}

}  // namespace

struct RestServer::Impl {
  std::shared_ptr<const RestRouter> router;
  std::unique_ptr<httplib::Server> server;
  int port = -1;
  std::atomic<bool> stopped = false;
  std::atomic<bool> in_run = false;
};

RestServer::RestServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestServer::~RestServer() { Stop(); }

int RestServer::port() const { return impl_->port; }

Result<std::unique_ptr<RestServer>> RestServer::Bind(std::shared_ptr<const RestRouter> router,
                                                     const RestServerOptions& options) {
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return Status::InvalidArgument("a TLS certificate and key go together");
  }
  auto impl = std::make_unique<Impl>();
  impl->router = std::move(router);
  if (!options.tls_cert.empty()) {
    impl->server = std::make_unique<httplib::SSLServer>(options.tls_cert.c_str(), options.tls_key.c_str());
    if (!impl->server->is_valid()) {
      return Status::InvalidArgument("cannot load the TLS certificate " + options.tls_cert + " and key " +
                                     options.tls_key);
    }
  } else {
    impl->server = std::make_unique<httplib::Server>();
  }
  httplib::Server& server = *impl->server;
  const size_t pool = options.threads == 0 ? 1 : options.threads;
  server.new_task_queue = [pool] { return new httplib::ThreadPool(pool); };
  server.set_read_timeout(options.timeout_sec, 0);
  server.set_write_timeout(options.timeout_sec, 0);
  // Small JSON answers must not wait for the client's delayed ACK (40 ms a request).
  server.set_tcp_nodelay(true);
  // An idle keep-alive connection holds a worker thread: let it go after a second.
  server.set_keep_alive_timeout(1);
  server.set_keep_alive_max_count(1000);
  // POST bodies are read by HandlePost under the router's limit (inserts without one); no
  // other method has a body worth reading, so one is refused before it is read.
  const RestRouter* r = impl->router.get();
  const size_t limit = r->options().max_body_bytes;
  server.set_pre_routing_handler([limit](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "POST") return httplib::Server::HandlerResponse::Unhandled;
    const bool chunked = req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos;
    const uint64_t length = req.get_header_value<uint64_t>("Content-Length");
    if (!chunked && length <= limit) return httplib::Server::HandlerResponse::Unhandled;
    res.status = 413;
    res.set_header("Connection", "close");
    res.set_content(JsonError(13, "no body expected for " + Printable(req.method)), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
  const auto handler = [r, hook = options.get_hook](const httplib::Request& req, httplib::Response& res) {
    RestRequest request = ToRequest(req);
    request.body = req.body;
    std::optional<RestResponse> answer;
    if (hook && (req.method == "GET" || req.method == "HEAD")) answer = hook(request);
    Respond(answer ? std::move(*answer) : r->Handle(request), res);
  };
  const std::string any = R"([\s\S]*)";
  server.Get(any, handler);
  server.Post(any, [r](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    HandlePost(*r, req, res, reader);
  });
  server.Put(any, handler);
  server.Patch(any, handler);
  server.Delete(any, handler);
  server.Options(any, handler);
  // What httplib answers itself (413, 400 on a malformed request, unknown methods) gets
  // the spec's error body too: the client parses every error as JSON.
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const int code = res.status == 404 || res.status == 405 ? 0 : res.status == 413 || res.status == 400 ? 13 : 18;
    res.set_content(JsonError(code, "HTTP " + std::to_string(res.status)), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(JsonError(18, "internal error"), "application/json");
  });
  if (options.access_log) {
    server.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      const size_t q = req.target.find('?');
      std::fprintf(stderr, "lancet serve: %s %s %d\n", Printable(req.method).c_str(),
                   Printable(std::string_view(req.target).substr(0, q)).c_str(), res.status);
    });
  }
  impl->port = options.port == 0 ? server.bind_to_any_port(options.host)
                                 : (server.bind_to_port(options.host, options.port) ? options.port : -1);
  if (impl->port < 0) {
    return Status::IOError("cannot listen on " + options.host + ":" + std::to_string(options.port));
  }
  return std::unique_ptr<RestServer>(new RestServer(std::move(impl)));
}

Status RestServer::Run() {
  impl_->in_run = true;
  const bool ok = impl_->stopped || impl_->server->listen_after_bind();
  impl_->in_run = false;
  if (!ok && !impl_->stopped) return Status::IOError("the server stopped unexpectedly");
  return Status::OK();
}

void RestServer::Stop() {
  impl_->stopped = true;
  // httplib's stop() does nothing until the listen loop runs: a Stop racing a Run that
  // has not reached it yet waits for it (or for Run to see `stopped` and return).
  while (impl_->in_run && !impl_->server->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server->stop();
}

}  // namespace lancet::catalog
