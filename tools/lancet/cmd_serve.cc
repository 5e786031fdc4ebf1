// `lancet serve`: the REST namespace server (lance-namespace spec) over a directory
// namespace (catalog::RestServer in front of catalog::RestRouter), and with --ui a
// read-only browser view of it (serve_ui.h).
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "lancet/catalog/namespace.h"
#include "lancet/catalog/rest_router.h"
#include "lancet/catalog/rest_server.h"
#include "lancet/column_plugin.h"
#include "lancet/commands.h"
#include "lancet/serve_ui.h"

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
  bool ui = false;

  int Run() const;
};

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Blocks signals in the calling thread (and the threads it starts) while alive.
class SignalMask {
 public:
  explicit SignalMask(const sigset_t& signals) { pthread_sigmask(SIG_BLOCK, &signals, &old_); }
  ~SignalMask() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalMask(const SignalMask&) = delete;
  SignalMask& operator=(const SignalMask&) = delete;

 private:
  sigset_t old_;
};

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

int ServeState::Run() const {
  // SIGINT/SIGTERM are blocked in every thread and taken by one waiter, which stops the
  // server: in-flight requests finish, then Run returns. Blocked first, before any code
  // that might start a thread (a pool started earlier would keep them unblocked, and one
  // delivered to such a thread ends the process at once).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  const SignalMask mask(signals);
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
  std::shared_ptr<catalog::Namespace> shared_ns(std::move(*ns));
  auto router = std::make_shared<const catalog::RestRouter>(shared_ns, options);

  catalog::RestServerOptions server_options;
  server_options.host = host;
  server_options.port = port;
  server_options.tls_cert = tls_cert;
  server_options.tls_key = tls_key;
  server_options.threads = threads;
  server_options.timeout_sec = timeout_sec;
  server_options.access_log = !quiet;
  // An IPv6 literal is bracketed in URLs and Host headers.
  const std::string url_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (ui) {
    UiOptions ui_options;
    ui_options.token = options.token;
    if (options.token.empty()) {  // then the host is a loopback one (checked above)
      ui_options.loopback_hosts = {"127.0.0.1", "localhost", "[::1]", url_host};
    }
    std::error_code exe_ec;
    ui_options.plugin_dirs = InstallPluginDirs(std::filesystem::read_symlink("/proc/self/exe", exe_ec).string());
    auto routes = std::make_shared<const UiRoutes>(shared_ns, std::move(ui_options));
    server_options.get_hook = [routes](const catalog::RestRequest& request) { return routes->Handle(request); };
  }

  auto server = catalog::RestServer::Bind(std::move(router), server_options);
  if (!server.ok()) return ReportError(server.status());
  const std::string url =
      std::string(tls_cert.empty() ? "http" : "https") + "://" + url_host + ":" + std::to_string((*server)->port());
  std::printf("lancet serve: listening on %s (root %s%s)\n", url.c_str(), root.c_str(),
              options.token.empty() ? "" : ", token required");
  if (ui) std::printf("lancet serve: browser view at %s/ui/\n", url.c_str());
  std::fflush(stdout);

  std::atomic<bool> stopping = false;
  catalog::RestServer* raw = server->get();
  std::thread waiter([&signals, &stopping, raw] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (!stopping.exchange(true)) {
      std::fprintf(stderr, "lancet serve: signal %d, shutting down\n", sig);
      raw->Stop();
    }
  });
  const Status ran = raw->Run();
  if (!stopping.exchange(true)) pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter
  waiter.join();
  if (!ran.ok()) return ReportError(ran);
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
  app->add_flag("--ui", state->ui,
                "Also serve a read-only browser view at /ui/: tables, schema, versions, rows, images, video frames");
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
