// RestServer: cpp-httplib carries HTTP(S); RestRouter does the protocol.
#include "lancet/catalog/rest_server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <thread>

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

void Handle(const RestRouter& router, const httplib::Request& req, httplib::Response& res) {
  RestRequest request;
  request.method = req.method;
  // The raw target: httplib's req.path is already decoded, and the router must see the
  // escapes to tell "%24" (a delimiter) and "%2F" from the real characters.
  const size_t q = req.target.find('?');
  request.path = req.target.substr(0, q);
  if (q != std::string::npos) request.query = req.target.substr(q + 1);
  request.headers.assign(req.headers.begin(), req.headers.end());
  request.body = req.body;
  RestResponse response = router.Handle(request);
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
  // Larger bodies are refused by httplib before they are read; the router repeats the
  // check with the spec's error body.
  server.set_payload_max_length(impl->router->options().max_body_bytes);

  const RestRouter* r = impl->router.get();
  const auto handler = [r](const httplib::Request& req, httplib::Response& res) { Handle(*r, req, res); };
  const std::string any = R"([\s\S]*)";
  server.Get(any, handler);
  server.Post(any, handler);
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
