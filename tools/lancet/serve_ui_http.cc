#include "lancet/serve_ui_http.h"

#include <charconv>

#include "lancet/json_writer.h"

namespace lancet::cli {

catalog::RestResponse UiJson(std::string body) {
  catalog::RestResponse r;
  r.body = std::move(body);
  r.headers = {{"Cache-Control", "no-store"}, {"X-Content-Type-Options", "nosniff"}};
  return r;
}

catalog::RestResponse UiError(int http, std::string_view message) {
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("error");
  w.String(message);
  w.EndObject();
  catalog::RestResponse r = UiJson(std::move(body));
  r.status = http;
  return r;
}

catalog::RestResponse UiErrorFor(const Status& status) {
  if (status.IsInvalidArgument()) return UiError(400, status.message());
  if (status.IsNotFound()) return UiError(404, status.message());
  if (status.code() == StatusCode::kNotSupported) return UiError(415, status.message());
  return UiError(500, status.message());
}

Result<uint64_t> UiQueryU64(const UiQuery& query, const std::string& key, uint64_t fallback, uint64_t max) {
  auto it = query.find(key);
  if (it == query.end() || it->second.empty()) return fallback;
  const std::string& text = it->second;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument("'" + key + "' must be a whole number");
  }
  if (value > max) return Status::InvalidArgument("'" + key + "' must be at most " + std::to_string(max));
  return value;
}

Result<std::string> UiQueryText(const UiQuery& query, const std::string& key, size_t max_bytes) {
  auto it = query.find(key);
  if (it == query.end() || it->second.empty()) return Status::InvalidArgument("'" + key + "' is required");
  if (it->second.size() > max_bytes) {
    return Status::InvalidArgument("'" + key + "' is longer than " + std::to_string(max_bytes) + " bytes");
  }
  return it->second;
}

}  // namespace lancet::cli
