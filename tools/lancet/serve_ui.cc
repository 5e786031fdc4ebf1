// The UI's routing, token check and page files, and the catalog answers: the tables
// of the namespace and one table's schema, versions, tags and indexes.
#include "lancet/serve_ui.h"

#include <algorithm>
#include <cctype>
#include <deque>

#include "lancet/catalog/names.h"
#include "lancet/index/scalar_index.h"
#include "lancet/index_json.h"
#include "lancet/json_writer.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/serve_ui_http.h"

namespace lancet::cli {
namespace {

// A walk of a large catalog stops here: the page is for looking, not for inventories.
constexpr size_t kMaxListedTables = 2000;
constexpr size_t kMaxNamespaceDepth = 8;
constexpr size_t kMaxListedNamespaces = 500;
constexpr size_t kMaxTableIdBytes = 2048;
// Versions listed per table, newest first.
constexpr size_t kMaxListedVersions = 200;

std::string_view UiHeader(const catalog::RestRequest& request, std::string_view name) {
  for (const auto& [k, v] : request.headers) {
    if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      return v;
    }
  }
  return {};
}

// Tokens are taken from headers only, never from the query: URLs end up in logs and
// browser history.
bool UiAuthorized(const catalog::RestRequest& request, const std::string& token) {
  if (token.empty()) return true;
  const std::string_view bearer = UiHeader(request, "authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (bearer.starts_with(kBearer) && catalog::ConstantTimeEquals(bearer.substr(kBearer.size()), token)) return true;
  const std::string_view key = UiHeader(request, "x-api-key");
  return !key.empty() && catalog::ConstantTimeEquals(key, token);
}

// The host name of a Host header: "[::1]:8080" → "[::1]", "localhost:80" → "localhost".
std::string_view HostName(std::string_view host) {
  const size_t colon = host.rfind(':');
  if (colon == std::string_view::npos || host.find(']', colon) != std::string_view::npos) return host;
  return host.substr(0, colon);
}

// Browsers always send Host; a request without one is no browser's, so rebinding does not
// apply to it.
bool UiHostAllowed(const catalog::RestRequest& request, const std::vector<std::string>& hosts) {
  if (hosts.empty()) return true;
  const std::string_view host = UiHeader(request, "host");
  if (host.empty()) return true;
  const std::string_view name = HostName(host);
  return std::any_of(hosts.begin(), hosts.end(), [&](const std::string& h) {
    return h.size() == name.size() && std::equal(h.begin(), h.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  });
}

catalog::RestResponse Redirect(const std::string& to) {
  catalog::RestResponse r;
  r.status = 302;
  r.content_type = "text/plain";
  r.body = "see " + to + "\n";
  r.headers = {{"Location", to}};
  return r;
}

catalog::RestResponse AssetResponse(const UiAsset& asset) {
  catalog::RestResponse r;
  r.content_type = asset.content_type;
  r.body = asset.body;
  // The page only talks to this server and shows blob: URLs it made from our answers;
  // a value in a table can never run as script.
  r.headers = {{"Content-Security-Policy",
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
                "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
               {"X-Content-Type-Options", "nosniff"},
               {"Cache-Control", "no-cache"}};
  return r;
}

// "ns1$ns2$t" (the REST wire's delimiter, which no name may hold) → its parts, each a
// valid name.
Result<catalog::Id> ParseTableId(const std::string& text) {
  catalog::Id id;
  size_t begin = 0;
  while (true) {
    const size_t end = text.find('$', begin);
    id.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (Status st = catalog::ValidateName(id.back()); !st.ok()) {
      return Status::InvalidArgument("bad table id '" + text + "': " + st.message());
    }
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return id;
}

std::string JoinId(const catalog::Id& id) {
  std::string s;
  for (const std::string& part : id) s += (s.empty() ? "" : "$") + part;
  return s;
}

// Every page of a namespace listing.
template <typename ListFn>
Status ListAll(ListFn&& list, size_t budget, std::vector<std::string>& out) {
  catalog::PageRequest page;
  while (out.size() < budget) {
    ASSIGN_OR_RETURN(catalog::Page got, list(page));
    out.insert(out.end(), got.names.begin(), got.names.end());
    if (got.next_token.empty() || got.names.empty()) break;
    page.token = got.next_token;
  }
  return Status::OK();
}

}  // namespace

UiRoutes::UiRoutes(std::shared_ptr<catalog::Namespace> ns, UiOptions options)
    : ns_(std::move(ns)), options_(std::move(options)), frame_slots_(std::max(1, options_.max_concurrent_frames)) {}

std::optional<catalog::RestResponse> UiRoutes::Handle(const catalog::RestRequest& request) const {
  const std::string& path = request.path;
  if (path == "/" || path == "/ui") return Redirect("/ui/");
  if (path == "/favicon.ico") {  // browsers ask on their own; no icon, and no error either
    catalog::RestResponse none;
    none.status = 204;
    return none;
  }
  constexpr std::string_view kUi = "/ui/";
  if (!path.starts_with(kUi)) return std::nullopt;
  const std::string rest = path.substr(kUi.size());
  constexpr std::string_view kApi = "api/";
  if (rest.starts_with(kApi)) {
    if (!UiAuthorized(request, options_.token)) return UiError(401, "a token is required (x-api-key)");
    if (options_.token.empty() && !UiHostAllowed(request, options_.loopback_hosts)) {
      return UiError(403, "the Host header names no loopback address of this server");
    }
    auto query = catalog::ParseQuery(request.query);
    if (!query.ok()) return UiErrorFor(query.status());
    return Api(rest.substr(kApi.size()), *query);
  }
  const UiAsset* asset = FindUiAsset(rest.empty() ? "index.html" : rest);
  if (asset == nullptr) return UiError(404, "no such page");
  return AssetResponse(*asset);
}

catalog::RestResponse UiRoutes::Api(const std::string& route, const Query& query) const {
  Result<catalog::RestResponse> answer = Status::NotFound("no such UI route");
  if (route == "tables") {
    answer = Tables();
  } else if (route == "table") {
    answer = Table(query);
  } else if (route == "rows") {
    answer = Rows(query);
  } else if (route == "blob") {
    answer = Blob(query);
  } else if (route == "video") {
    answer = Video(query);
  } else if (route == "frame") {
    answer = Frame(query);
  }
  return answer.ok() ? std::move(*answer) : UiErrorFor(answer.status());
}

Result<std::unique_ptr<table::Dataset>> UiRoutes::OpenTable(const Query& query) const {
  ASSIGN_OR_RETURN(std::string text, UiQueryText(query, "table", kMaxTableIdBytes));
  ASSIGN_OR_RETURN(catalog::Id id, ParseTableId(text));
  ASSIGN_OR_RETURN(catalog::TableInfo info, ns_->DescribeTable(id));
  if (info.only_declared) return Status::NotFound("table '" + text + "' holds no data yet");
  return table::Dataset::Open(info.location);
}

Result<catalog::RestResponse> UiRoutes::Tables() const {
  std::vector<catalog::Id> tables;
  std::deque<catalog::Id> pending = {catalog::Id{}};
  bool truncated = false;
  size_t visited = 0;
  while (!pending.empty()) {
    // Each namespace costs two catalog calls: a catalog of many small namespaces is cut
    // short like one of many tables.
    if (++visited > kMaxListedNamespaces) {
      truncated = true;
      break;
    }
    catalog::Id parent = std::move(pending.front());
    pending.pop_front();
    std::vector<std::string> names;
    RETURN_IF_ERROR(
        ListAll([&](const catalog::PageRequest& p) { return ns_->ListTables(parent, p); }, kMaxListedTables, names));
    for (const std::string& n : names) {
      if (tables.size() >= kMaxListedTables) {
        truncated = true;
        break;
      }
      tables.push_back(parent);
      tables.back().push_back(n);
    }
    if (parent.size() >= kMaxNamespaceDepth || tables.size() >= kMaxListedTables) {
      truncated = truncated || parent.size() >= kMaxNamespaceDepth;
      continue;
    }
    std::vector<std::string> children;
    RETURN_IF_ERROR(ListAll([&](const catalog::PageRequest& p) { return ns_->ListNamespaces(parent, p); },
                            kMaxListedTables, children));
    for (const std::string& c : children) {
      pending.push_back(parent);
      pending.back().push_back(c);
    }
  }
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("tables");
  w.BeginArray();
  for (const catalog::Id& id : tables) {
    w.BeginObject();
    w.Key("id");
    w.String(JoinId(id));
    w.Key("path");
    w.BeginArray();
    for (const std::string& part : id) w.String(part);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("truncated");
  w.Bool(truncated);
  w.EndObject();
  return UiJson(std::move(body));
}

Result<catalog::RestResponse> UiRoutes::Table(const Query& query) const {
  ASSIGN_OR_RETURN(auto ds, OpenTable(query));
  ASSIGN_OR_RETURN(std::vector<table::VersionInfo> versions, ds->ListVersions());
  ASSIGN_OR_RETURN(auto tags, ds->ListTags());
  ASSIGN_OR_RETURN(std::vector<index::IndexStats> indexes, index::DescribeIndices(*ds));
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("version");
  w.UInt(ds->version());
  w.Key("rows");
  w.UInt(ds->CountRows());
  w.Key("fields");
  w.BeginArray();
  for (const Field& f : ds->schema().fields) {
    w.BeginObject();
    w.Key("name");
    w.String(f.name);
    w.Key("type");
    w.String(IsBlobV2Field(f) ? "blob" : f.type.ToString());
    w.Key("nullable");
    w.Bool(f.nullable);
    w.Key("blob");
    w.Bool(IsBlobV2Field(f));
    auto plugin = f.metadata.find(media::kMediaPluginKey);
    w.Key("plugin");
    if (plugin == f.metadata.end()) {
      w.Null();
    } else {
      w.String(plugin->second);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("versions");
  w.BeginArray();
  std::sort(versions.begin(), versions.end(),
            [](const table::VersionInfo& a, const table::VersionInfo& b) { return a.version > b.version; });
  if (versions.size() > kMaxListedVersions) versions.resize(kMaxListedVersions);
  for (const table::VersionInfo& v : versions) {
    w.BeginObject();
    w.Key("version");
    w.UInt(v.version);
    w.Key("timestamp_ms");
    w.Int(v.timestamp_ms);
    w.Key("rows");
    w.UInt(v.num_rows);
    w.EndObject();
  }
  w.EndArray();
  w.Key("tags");
  w.BeginArray();
  for (const auto& [name, version] : tags) {
    w.BeginObject();
    w.Key("name");
    w.String(name);
    w.Key("version");
    w.UInt(version);
    w.EndObject();
  }
  w.EndArray();
  w.Key("indexes");
  w.BeginArray();
  for (const index::IndexStats& s : indexes) WriteIndexStatsJson(w, s);
  w.EndArray();
  w.EndObject();
  return UiJson(std::move(body));
}

}  // namespace lancet::cli
