// The HTTP(S) transport in front of a RestRouter: what `lancet serve` runs and what tests
// start on 127.0.0.1 to drive the REST namespace client against a real server.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "lancet/catalog/rest_router.h"
#include "lancet/result.h"

namespace lancet::catalog {

struct RestServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port (see RestServer::port)
  /// PEM certificate and key: serve HTTPS. Both or neither.
  std::string tls_cert, tls_key;
  /// Worker threads; an open keep-alive connection holds one until it idles out (1 s).
  size_t threads = 8;
  int timeout_sec = 10;  // read and write timeout per request
  /// One line per request on stderr: method, path without the query, status. Never
  /// headers (they carry the token) nor bodies.
  bool access_log = false;
  /// Consulted for every GET (and HEAD) request before the router: an answer it returns
  /// is sent as is, nullopt passes the request on. For routes outside the REST protocol
  /// (`lancet serve --ui`); it checks tokens itself. Called concurrently; must not throw.
  std::function<std::optional<RestResponse>(const RestRequest&)> get_hook;
};

/// \brief An HTTP server bound on creation; Run serves until Stop. Thread-safe: Stop may
/// be called from any thread (a signal waiter, a test), also before Run.
class RestServer {
 public:
  /// Binds host:port. IOError when the address cannot be bound, InvalidArgument when the
  /// TLS files cannot be loaded.
  static Result<std::unique_ptr<RestServer>> Bind(std::shared_ptr<const RestRouter> router,
                                                  const RestServerOptions& options);
  ~RestServer();

  int port() const;
  /// Serves requests until Stop; in-flight requests finish first. IOError when the
  /// server stopped for another reason.
  Status Run();
  void Stop();

 private:
  struct Impl;
  explicit RestServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lancet::catalog
