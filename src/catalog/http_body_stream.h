// An HTTP response body read front to back while it downloads: the transfer runs on its
// own thread and hands chunks over through a bounded queue, so a reader pulling a large
// answer (a query's Arrow IPC stream) holds a few MiB, not the answer.
#pragma once

#include <memory>
#include <string>

#include "io/http_client.h"
#include "lancet/io/input_stream.h"
#include "lancet/result.h"

namespace lancet::catalog::internal {

/// What OpenHttpBodyStream found: either the body to read (a 2xx answer), or the
/// finished non-2xx response (its body is the server's error document).
struct HttpBodyStream {
  std::unique_ptr<io::InputStream> body;
  io::HttpResponse error_response;  // meaningful when `body` is null
};

/// Sends `request` (its on_body is taken over) and returns once the status is known.
/// IOError when the request failed below HTTP. A transfer cut off later is an IOError
/// from the stream's Read, never an early end.
Result<HttpBodyStream> OpenHttpBodyStream(std::shared_ptr<const io::HttpClient> client, io::HttpRequest request,
                                          std::string name);

}  // namespace lancet::catalog::internal
