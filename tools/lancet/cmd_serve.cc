// `lancet serve`: the REST namespace server (lance-namespace spec) over a directory
// namespace. cpp-httplib carries HTTP(S); catalog::RestRouter does the protocol. Built
// outside the CLI's unity batches: httplib.h is large and has its own detail names.
#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "lancet/catalog/namespace.h"
#include "lancet/catalog/rest_router.h"
#include "lancet/commands.h"

namespace lancet::cli {
namespace {

struct ServeState {
  std::string root_arg;
  std::string host = "127.0.0.1";
  int port = 2333;
  std::string token_file;
  std::string tls_cert;
  std::string tls_key;
  size_t max_body_mib = 16;
  size_t threads = 8;
  int timeout_sec = 10;
  bool quiet = false;

  int Run() const;
};

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// The token: the file's first line without surrounding whitespace.
Result<std::string> ReadToken(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read the token file " + path);
  std::string token;
  std::getline(in, token);
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!token.empty() && space(token.back())) token.pop_back();
  size_t begin = 0;
  while (begin < token.size() && space(token[begin])) ++begin;
  token.erase(0, begin);
  if (token.empty()) return Status::InvalidArgument("the token file " + path + " holds no token");
  return token;
}

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

void Handle(const catalog::RestRouter& router, const httplib::Request& req, httplib::Response& res) {
  catalog::RestRequest request;
  request.method = req.method;
  // The raw target: httplib's req.path is already decoded, and the router must see the
  // escapes to tell "%24" (a delimiter) and "%2F" from the real characters.
  const size_t q = req.target.find('?');
  request.path = req.target.substr(0, q);
  if (q != std::string::npos) request.query = req.target.substr(q + 1);
  request.headers.assign(req.headers.begin(), req.headers.end());
  request.body = req.body;
  catalog::RestResponse response = router.Handle(request);
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

int ServeState::Run() const {
  catalog::RestRouterOptions options;
  if (!token_file.empty()) {
    auto token = ReadToken(token_file);
    if (!token.ok()) return ReportError(token.status());
    options.token = *token;
  } else if (!IsLoopbackHost(host)) {
    return ReportUsage("without --token-file the server binds only to loopback (127.0.0.1, ::1, localhost), not " +
                       host);
  }
  if (tls_cert.empty() != tls_key.empty()) return ReportUsage("--tls-cert and --tls-key go together");
  if (max_body_mib == 0 || max_body_mib > 4096) return ReportUsage("--max-body-mib must be in 1..4096");
  if (threads == 0 || threads > 1024) return ReportUsage("--threads must be in 1..1024");

  // An absolute root: locations handed to clients must not depend on our cwd.
  std::error_code ec;
  std::filesystem::create_directories(root_arg, ec);
  if (ec) return ReportError(Status::IOError("cannot create the root " + root_arg + ": " + ec.message()));
  const std::string root = std::filesystem::absolute(root_arg, ec).lexically_normal().string();
  auto ns = catalog::OpenNamespace(root);
  if (!ns.ok()) return ReportError(ns.status(), root);
  options.max_body_bytes = max_body_mib << 20;
  options.location_root = root;
  const catalog::RestRouter router(std::shared_ptr<catalog::Namespace>(std::move(*ns)), options);

  std::unique_ptr<httplib::Server> server;
  if (!tls_cert.empty()) {
    server = std::make_unique<httplib::SSLServer>(tls_cert.c_str(), tls_key.c_str());
    if (!server->is_valid()) {
      return ReportError(
          Status::InvalidArgument("cannot load the TLS certificate " + tls_cert + " and key " + tls_key));
    }
  } else {
    server = std::make_unique<httplib::Server>();
  }
  const size_t pool = threads;
  server->new_task_queue = [pool] { return new httplib::ThreadPool(pool); };
  server->set_read_timeout(timeout_sec, 0);
  server->set_write_timeout(timeout_sec, 0);
  // Small JSON answers must not wait for the client's delayed ACK (40 ms a request).
  server->set_tcp_nodelay(true);
  // An idle keep-alive connection holds a worker thread: let it go after a second.
  server->set_keep_alive_timeout(1);
  server->set_keep_alive_max_count(1000);
  // Larger bodies are refused by httplib before they are read; the router repeats the
  // check with the spec's error body.
  server->set_payload_max_length(options.max_body_bytes);

  const auto handler = [&router](const httplib::Request& req, httplib::Response& res) { Handle(router, req, res); };
  const std::string any = R"([\s\S]*)";
  server->Get(any, handler);
  server->Post(any, handler);
  server->Put(any, handler);
  server->Patch(any, handler);
  server->Delete(any, handler);
  server->Options(any, handler);
  // What httplib answers itself (413, 400 on a malformed request, unknown methods) gets
  // the spec's error body too: the client parses every error as JSON.
  server->set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const int code = res.status == 404 || res.status == 405 ? 0 : res.status == 413 || res.status == 400 ? 13 : 18;
    res.set_content(JsonError(code, "HTTP " + std::to_string(res.status)), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));
  server->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(JsonError(18, "internal error"), "application/json");
  });
  if (!quiet) {
    // Method, raw path, status: never headers (they carry the token) nor bodies.
    server->set_logger([](const httplib::Request& req, const httplib::Response& res) {
      const size_t q = req.target.find('?');
      std::fprintf(stderr, "lancet serve: %s %s %d\n", Printable(req.method).c_str(),
                   Printable(std::string_view(req.target).substr(0, q)).c_str(), res.status);
    });
  }

  // SIGINT/SIGTERM are blocked in every thread (the pool's inherit the mask) and taken
  // by one waiter, which stops the server: in-flight requests finish, then Run returns.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigset_t old_mask;
  pthread_sigmask(SIG_BLOCK, &signals, &old_mask);

  const int bound = port == 0 ? server->bind_to_any_port(host) : (server->bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    return ReportError(Status::IOError("cannot listen on " + host + ":" + std::to_string(port)));
  }
  const bool v6 = host.find(':') != std::string::npos;
  std::printf("lancet serve: listening on %s://%s%s%s:%d (root %s%s)\n", tls_cert.empty() ? "http" : "https",
              v6 ? "[" : "", host.c_str(), v6 ? "]" : "", bound, root.c_str(),
              options.token.empty() ? "" : ", token required");
  std::fflush(stdout);

  std::atomic<bool> stopping = false;
  httplib::Server* raw = server.get();
  std::thread waiter([&signals, &stopping, raw] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (!stopping.exchange(true)) {
      std::fprintf(stderr, "lancet serve: signal %d, shutting down\n", sig);
      raw->stop();
    }
  });
  const bool ok = server->listen_after_bind();
  if (!stopping.exchange(true)) pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter
  waiter.join();
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (!ok && !stopping) return ReportError(Status::IOError("the server stopped unexpectedly"));
  std::fprintf(stderr, "lancet serve: stopped\n");
  return kExitOk;
}

}  // namespace

Command AddServeCommand(CLI::App& root) {
  auto state = std::make_shared<ServeState>();
  CLI::App* app = root.add_subcommand("serve", "Serve a directory namespace over the Lance REST namespace API");
  app->add_option("--root", state->root_arg, "Namespace root directory (created if missing)")->required();
  app->add_option("--host", state->host, "Address to bind (only loopback without --token-file)")->capture_default_str();
  app->add_option("--port", state->port, "Port; 0 picks a free one (printed on start)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  app->add_option("--token-file", state->token_file,
                  "File whose first line is the token every request must present (Authorization: Bearer or "
                  "x-api-key)");
  app->add_option("--tls-cert", state->tls_cert, "PEM certificate: serve HTTPS");
  app->add_option("--tls-key", state->tls_key, "PEM private key of --tls-cert");
  app->add_option("--max-body-mib", state->max_body_mib, "Largest request body, MiB")->capture_default_str();
  app->add_option("--threads", state->threads, "Worker threads (one per open connection)")->capture_default_str();
  app->add_option("--timeout", state->timeout_sec, "Read and write timeout per request, seconds")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  app->add_flag("--quiet,-q", state->quiet, "No access log on stderr");
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
