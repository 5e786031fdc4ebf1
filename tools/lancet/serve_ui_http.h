// Answers and query parameters of the UI's routes (serve_ui.cc, serve_ui_media.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "lancet/catalog/rest_router.h"
#include "lancet/result.h"

namespace lancet::cli {

/// A 200 JSON answer the browser must not cache (tables change under the server).
catalog::RestResponse UiJson(std::string body);
/// `{"error": message}` with HTTP status `http`.
catalog::RestResponse UiError(int http, std::string_view message);
/// The answer for a failed request: 400 for InvalidArgument, 404 for NotFound, 415 for
/// NotSupported, 500 otherwise.
catalog::RestResponse UiErrorFor(const Status& status);

using UiQuery = std::map<std::string, std::string>;

/// The decimal value of `key` in [0, max], `fallback` when absent. InvalidArgument
/// naming the key otherwise.
Result<uint64_t> UiQueryU64(const UiQuery& query, const std::string& key, uint64_t fallback, uint64_t max);
/// The value of `key` (required), at most `max_bytes` long.
Result<std::string> UiQueryText(const UiQuery& query, const std::string& key, size_t max_bytes);

}  // namespace lancet::cli
