// Fuzzes the REST namespace router: the input is split at 0x00 bytes into method, path,
// query, body and a header value, handed to one RestRouter (token required, small body
// and depth limits) over an in-memory namespace that keeps its state across inputs, so
// sequences of creates, declares, drops and renames are explored. Checked on every
// answer: a JSON object body; errors carry an integer code whose HTTP status is the
// adapter's (the Iceberg routes: their own error object); every location in a 2xx answer
// lies inside the root.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "../tests/catalog/memory_namespace.h"
#include "lancet/catalog/rest_router.h"

namespace {

using namespace lancet::catalog;
using Json = nlohmann::json;

const std::string& Root() {
  static const std::string root = [] {
    const auto dir = std::filesystem::temp_directory_path() / "lancet-rest-router-fuzz" / "wh";
    std::filesystem::create_directories(dir);
    return std::filesystem::weakly_canonical(dir).string();
  }();
  return root;
}

RestRouter& Router() {
  static RestRouter router = [] {
    RestRouterOptions options;
    options.token = "fuzz-token";
    options.max_body_bytes = 4096;
    options.max_json_depth = 8;
    options.location_root = Root();
    return RestRouter(std::make_shared<testing::MemoryNamespace>(Root()), options);
  }();
  return router;
}

[[noreturn]] void Fail(const char* what, const RestResponse& r) {
  std::fprintf(stderr, "rest_router_fuzz: %s (status %d): %s\n", what, r.status, r.body.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string parts[5];
  for (auto& part : parts) {
    const size_t cut = in.find('\0');
    part = std::string(in.substr(0, cut));
    in = cut == std::string_view::npos ? std::string_view() : in.substr(cut + 1);
  }
  RestRequest request;
  static const char* kMethods[] = {"GET", "POST"};
  // A short method field picks GET or POST, so most inputs reach the routes.
  request.method = parts[0].size() <= 1 ? kMethods[parts[0].empty() ? 0 : parts[0][0] & 1] : parts[0];
  request.path = parts[1].rfind("/v1/", 0) == 0 || parts[1].empty() ? parts[1] : "/v1/" + parts[1];
  request.query = parts[2];
  request.body = parts[3];
  // Mostly the right key, sometimes the fuzzer's.
  request.headers.emplace_back("x-api-key", parts[4].empty() ? "fuzz-token" : parts[4]);

  const RestResponse r = Router().Handle(request);
  if (r.content_type != "application/json") Fail("not JSON", r);
  const Json body = Json::parse(r.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) Fail("body is not a JSON object", r);
  if (const auto err = body.find("error"); r.status >= 400 && err != body.end() && err->is_object()) {
    // The Iceberg routes' error shape: {"error": {"message", "type", "code" = the status}}.
    const auto code = err->find("code");
    if (code == err->end() || !code->is_number_integer() || code->get<int>() != r.status) Fail("Iceberg error code", r);
    if (!err->contains("type") || !err->contains("message")) Fail("Iceberg error without type or message", r);
  } else if (r.status >= 400) {
    const auto code = body.find("code");
    if (code == body.end() || !code->is_number_integer()) Fail("error without a code", r);
    const int c = code->get<int>();
    if (r.status != HttpStatusForCode(c) && r.status != 404 && r.status != 405 && r.status != 413) {
      Fail("status does not match the code", r);
    }
  } else if (r.status < 200 || r.status > 299) {
    Fail("status out of range", r);
  } else if (const auto loc = body.find("location"); loc != body.end() && loc->is_string()) {
    const std::string& l = loc->get_ref<const std::string&>();
    // Registered locations are as given (relative ones under the root).
    const std::filesystem::path p = l.rfind("file://", 0) == 0 ? l.substr(7) : l;
    const std::string full = p.is_relative() ? Root() + "/" + l : p.string();
    const std::string resolved = std::filesystem::weakly_canonical(full).string();
    if (resolved.rfind(Root() + "/", 0) != 0) Fail("a location outside the root", r);
  }
  return 0;
}
