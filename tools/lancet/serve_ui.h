// `lancet serve --ui`: a read-only browser view of the served namespace. The page (one
// HTML, JS and CSS file embedded in the binary) is served at /ui/; it reads JSON, image
// blobs and PNG video frames from the GET routes under /ui/api/ that this answers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string>
#include <vector>

#include "lancet/catalog/namespace.h"
#include "lancet/catalog/rest_router.h"
#include "lancet/media/plugin_host.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::cli {

struct UiOptions {
  /// When set, every /ui/api/ request must carry it as the REST routes do
  /// (`Authorization: Bearer` or `x-api-key`); the page's files need none.
  std::string token;
  /// Without a token: the host names (no port) a request's Host header may carry, e.g.
  /// 127.0.0.1 and localhost; others get 403. Empty: any. Keeps a page from another site
  /// that rebinds its DNS name to 127.0.0.1 from reading tables through the browser.
  std::vector<std::string> loopback_hosts;
  /// Where video plugins named by a column's metadata are looked up
  /// (InstallPluginDirs of the running executable).
  std::vector<std::string> plugin_dirs;
  /// Bounds on what one request may ask for.
  uint64_t max_rows = 200;
  uint32_t max_frame_width = 1280;
  uint64_t max_blob_bytes = uint64_t{64} << 20;
  /// Frames decoded at once across all requests (decoding is the costly part).
  int max_concurrent_frames = 2;
};

/// \brief The UI's routes, for RestServerOptions::get_hook. Thread-safe.
///
/// Answers `/` (a redirect to /ui/), `/favicon.ico` (204), `/ui` and everything below
/// it; nullopt for any other path. Bad input is a 4xx JSON answer `{"error": "..."}`,
/// never a crash; nothing here writes to a table.
class UiRoutes {
 public:
  UiRoutes(std::shared_ptr<catalog::Namespace> ns, UiOptions options);

  std::optional<catalog::RestResponse> Handle(const catalog::RestRequest& request) const;

 private:
  using Query = std::map<std::string, std::string>;
  catalog::RestResponse Api(const std::string& route, const Query& query) const;
  Result<std::unique_ptr<table::Dataset>> OpenTable(const Query& query) const;
  Result<catalog::RestResponse> Tables() const;
  Result<catalog::RestResponse> Table(const Query& query) const;
  Result<catalog::RestResponse> Rows(const Query& query) const;
  Result<catalog::RestResponse> Blob(const Query& query) const;
  Result<catalog::RestResponse> Video(const Query& query) const;
  Result<catalog::RestResponse> Frame(const Query& query) const;
  Result<std::shared_ptr<media::MediaPlugin>> Plugin(const table::Dataset& ds, const std::string& column) const;

  std::shared_ptr<catalog::Namespace> ns_;
  UiOptions options_;
  mutable std::mutex plugins_mutex_;
  mutable std::map<std::string, std::shared_ptr<media::MediaPlugin>> plugins_;  // by library path
  mutable std::counting_semaphore<> frame_slots_;
};

/// The embedded page files (generated from tools/lancet/ui/ at build time).
struct UiAsset {
  const char* path;  // "index.html", "app.js", "app.css"
  const char* content_type;
  const char* body;
};
/// The asset at `path` (relative to /ui/), or null.
const UiAsset* FindUiAsset(const std::string& path);

}  // namespace lancet::cli
