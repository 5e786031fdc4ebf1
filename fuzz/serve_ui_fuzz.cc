// Fuzzes the routes of `lancet serve --ui` (UiRoutes): the input is split at 0x00 bytes
// into a path below /ui/, a raw query and a Host header, and answered over a directory
// namespace holding one small table (written on the first input). Checked on every
// answer: the API's answers are JSON objects, its errors carry an "error" string and a
// 4xx status (a 5xx means a request reached something it should not), and nothing but a
// PNG or the page's files is served as anything other than JSON.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "lancet/serve_ui.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace {

using lancet::catalog::RestRequest;
using lancet::catalog::RestResponse;

// The namespace root, one per process (fuzzers of two build trees may run at once),
// removed when the fuzzer exits.
struct Root {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("lancet-serve-ui-fuzz-" + std::to_string(getpid()));
  ~Root() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

lancet::cli::UiRoutes& Routes() {
  static Root dir;
  static lancet::cli::UiRoutes* routes = [] {
    const std::filesystem::path& root = dir.path;
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
    std::vector<int64_t> ids;
    std::vector<std::optional<std::string>> names;
    for (int64_t i = 0; i < 20; ++i) {
      ids.push_back(i);
      names.push_back(i % 7 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(i)));
    }
    auto id = lancet::ArrayFromVector(lancet::MakeType(lancet::TypeId::kInt64), ids);
    auto batch = lancet::MakeRecordBatch({"id", "name"}, {*id, lancet::StringArray(names)});
    if (!batch.ok() || !lancet::table::WriteDataset((root / "t.lance").string(), batch->schema, {*batch}, {}).ok()) {
      std::abort();
    }
    auto ns = lancet::catalog::OpenNamespace(root.string());
    if (!ns.ok()) std::abort();
    lancet::cli::UiOptions options;
    options.loopback_hosts = {"127.0.0.1", "localhost"};
    return new lancet::cli::UiRoutes(std::shared_ptr<lancet::catalog::Namespace>(std::move(*ns)), options);
  }();
  return *routes;
}

[[noreturn]] void Fail(const char* what, const RestRequest& q, const RestResponse& r) {
  std::fprintf(stderr, "serve_ui_fuzz: %s (status %d) for %s?%s: %.300s\n", what, r.status, q.path.c_str(),
               q.query.c_str(), r.body.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string parts[3];
  for (auto& part : parts) {
    const size_t cut = in.find('\0');
    part = std::string(in.substr(0, cut));
    in = cut == std::string_view::npos ? std::string_view() : in.substr(cut + 1);
  }
  RestRequest request;
  request.method = "GET";
  request.path = "/ui/" + parts[0];
  request.query = parts[1];
  if (!parts[2].empty()) request.headers.emplace_back("Host", parts[2]);

  const auto answer = Routes().Handle(request);
  if (!answer) Fail("a /ui/ path not answered", request, RestResponse{});
  const RestResponse& r = *answer;
  if (r.status >= 500 && r.status != 503) Fail("a server error", request, r);
  if (r.content_type == "image/png") {
    if (r.status != 200 || r.body.rfind("\x89PNG", 0) != 0) Fail("a PNG answer that is no PNG", request, r);
    return 0;
  }
  if (!request.path.starts_with("/ui/api/")) {
    if (r.status != 200 && r.status != 302 && r.status != 404) Fail("a page status", request, r);
    return 0;
  }
  if (r.content_type != "application/json") Fail("an API answer that is not JSON", request, r);
  const auto body = nlohmann::json::parse(r.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) Fail("a body that is not a JSON object", request, r);
  if (r.status != 200 && !(body.contains("error") && body["error"].is_string()))
    Fail("an error without text", request, r);
  return 0;
}
