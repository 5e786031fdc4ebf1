#include "catalog/rest_iceberg.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "lancet/table/dataset.h"

namespace lancet::catalog::internal {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

// Metadata files larger than this are not loaded into an answer.
constexpr uintmax_t kMaxMetadataBytes = uintmax_t{64} << 20;
// Multi-level namespaces travel as one path segment joined by the unit separator.
constexpr char kNamespaceSeparator = '\x1F';

RestResponse Answer(int status, const Json& body) {
  RestResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  return r;
}

RestResponse Error(int status, const char* type, const std::string& message) {
  return Answer(status, Json{{"error", {{"message", message}, {"type", type}, {"code", status}}}});
}

// A namespace Status as the Iceberg error of the same meaning.
RestResponse ErrorFor(const Status& st) {
  switch (ErrorCodeOf(st)) {
    case ErrorCode::kNamespaceNotFound:
      return Error(404, "NoSuchNamespaceException", st.message());
    case ErrorCode::kTableNotFound:
      return Error(404, "NoSuchTableException", st.message());
    case ErrorCode::kInvalidInput:
      return Error(400, "BadRequestException", st.message());
    case ErrorCode::kUnsupported:
      return Error(406, "UnsupportedOperationException", st.message());
    default:
      return Error(500, "InternalServerError", st.message());
  }
}

std::vector<std::string_view> Segments(std::string_view path) {
  while (path.size() > 1 && path[0] == '/' && path[1] == '/') path.remove_prefix(1);
  if (!path.empty() && path[0] == '/') path.remove_prefix(1);
  if (!path.empty() && path.back() == '/') path.remove_suffix(1);
  std::vector<std::string_view> segs;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    segs.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segs;
}

// The route's segments after /v1 and the optional prefix.
std::vector<std::string_view> RouteSegments(std::string_view raw_path) {
  std::vector<std::string_view> segs = Segments(raw_path.substr(0, raw_path.find('?')));
  if (segs.empty() || segs[0] != "v1") return {};
  segs.erase(segs.begin());
  if (!segs.empty() && segs[0] == kIcebergPrefix) segs.erase(segs.begin());
  return segs;
}

Result<Id> NamespaceFromSegment(std::string_view segment) {
  ASSIGN_OR_RETURN(std::string text, PercentDecode(segment, false));
  Id id;
  size_t start = 0;
  while (true) {
    const size_t sep = text.find(kNamespaceSeparator, start);
    id.push_back(text.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
    if (sep == std::string::npos) break;
    start = sep + 1;
  }
  for (const std::string& part : id) RETURN_IF_ERROR(ValidateWireName(part));
  return id;
}

Result<PageRequest> PageOf(const std::map<std::string, std::string>& query) {
  PageRequest page;
  if (auto it = query.find("pageToken"); it != query.end()) page.token = it->second;
  if (auto it = query.find("pageSize"); it != query.end() && !it->second.empty()) {
    uint32_t size = 0;
    auto [ptr, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), size);
    if (ec != std::errc() || ptr != it->second.data() + it->second.size() || size == 0) {
      return NamespaceError(ErrorCode::kInvalidInput, "pageSize must be a positive integer");
    }
    page.limit = size;
  }
  return page;
}

Result<std::string> ReadSmallFile(const fs::path& path) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return NamespaceError(ErrorCode::kTableNotFound, "cannot read " + path.string() + ": " + ec.message());
  if (size > kMaxMetadataBytes) {
    return NamespaceError(ErrorCode::kInternal,
                          path.string() + " is larger than " + std::to_string(kMaxMetadataBytes >> 20) + " MiB");
  }
  std::ifstream in(path, std::ios::binary);
  std::string text(static_cast<size_t>(size), '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(size))) {
    return Status::IOError("cannot read " + path.string());
  }
  return text;
}

// The current metadata of the Iceberg table in `dir`, found as Hadoop-style tables keep
// it: metadata/version-hint.text names N, metadata/vN.metadata.json holds it.
Result<Json> LoadIcebergTable(const fs::path& dir) {
  ASSIGN_OR_RETURN(std::string hint, ReadSmallFile(dir / "metadata" / "version-hint.text"));
  while (!hint.empty() && (hint.back() == '\n' || hint.back() == '\r' || hint.back() == ' ')) hint.pop_back();
  uint64_t version = 0;
  auto [ptr, ec] = std::from_chars(hint.data(), hint.data() + hint.size(), version);
  if (ec != std::errc() || ptr != hint.data() + hint.size()) {
    return NamespaceError(ErrorCode::kInternal, (dir / "metadata/version-hint.text").string() + " holds no version");
  }
  const fs::path file = dir / "metadata" / ("v" + std::to_string(version) + ".metadata.json");
  ASSIGN_OR_RETURN(std::string text, ReadSmallFile(file));
  Json metadata = Json::parse(text, nullptr, false);
  if (!metadata.is_object()) return NamespaceError(ErrorCode::kInternal, file.string() + " is not a JSON object");
  return Json{
      {"metadata-location", "file://" + file.string()}, {"metadata", std::move(metadata)}, {"config", Json::object()}};
}

// A stable UUID-shaped id for a Lance table (Iceberg wants one; the location names it).
std::string UuidFor(const std::string& location) {
  uint64_t a = 1469598103934665603ull, b = 0x9E3779B97F4A7C15ull;
  for (const char c : location) {
    a = (a ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    b = (b ^ static_cast<unsigned char>(c)) * 0xff51afd7ed558ccdull;
  }
  char out[40];
  std::snprintf(out, sizeof(out), "%08x-%04x-4%03x-8%03x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>(a >> 16) & 0xFFFF, static_cast<unsigned>(a) & 0xFFF,
                static_cast<unsigned>(b >> 52) & 0xFFF, static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
  return out;
}

// What Lance catalogs answer for a Lance table in an Iceberg catalog: a dummy one-column
// schema, no snapshots, no metadata file; table_type=lance says where the data really is.
Json LanceTableEntry(const std::string& dir, const TableInfo& info) {
  Json properties = Json::object();
  for (const auto& [k, v] : info.properties) properties[k] = v;
  properties["table_type"] = "lance";
  auto ds = table::Dataset::Open(dir);
  if (ds.ok()) properties["lance.version"] = std::to_string((*ds)->version());
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  Json schema{{"type", "struct"},
              {"schema-id", 0},
              {"fields", Json::array({Json{{"id", 1}, {"name", "dummy"}, {"required", false}, {"type", "string"}}})}};
  Json metadata{{"format-version", 2},
                {"table-uuid", UuidFor(dir)},
                {"location", "file://" + dir},
                {"last-sequence-number", 0},
                {"last-updated-ms", now_ms},
                {"last-column-id", 1},
                {"schemas", Json::array({schema})},
                {"current-schema-id", 0},
                {"partition-specs", Json::array({Json{{"spec-id", 0}, {"fields", Json::array()}}})},
                {"default-spec-id", 0},
                {"last-partition-id", 999},
                {"sort-orders", Json::array({Json{{"order-id", 0}, {"fields", Json::array()}}})},
                {"default-sort-order-id", 0},
                {"properties", properties},
                {"current-snapshot-id", -1},
                {"snapshots", Json::array()},
                {"refs", Json::object()}};
  return Json{{"metadata-location", nullptr}, {"metadata", std::move(metadata)}, {"config", Json::object()}};
}

Json Endpoints() {
  Json out = Json::array();
  for (const char* e : {"GET /v1/{prefix}/namespaces", "GET /v1/{prefix}/namespaces/{namespace}",
                        "HEAD /v1/{prefix}/namespaces/{namespace}", "GET /v1/{prefix}/namespaces/{namespace}/tables",
                        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
                        "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}"}) {
    out.push_back(e);
  }
  return out;
}

}  // namespace

bool IsIcebergRoute(std::string_view raw_path) {
  const std::vector<std::string_view> segs = RouteSegments(raw_path);
  return !segs.empty() && (segs[0] == "config" || segs[0] == "namespaces");
}

RestResponse HandleIcebergRoute(Namespace& ns, const RestRequest& request, const LocalTableDir& local_dir) {
  const std::vector<std::string_view> segs = RouteSegments(request.path);
  const bool head = request.method == "HEAD";
  if (request.method != "GET" && !head) {
    return Error(405, "UnsupportedOperationException",
                 "this catalog is read-only over Iceberg REST: " + request.method + " is not served");
  }
  auto parsed_query = ParseQuery(request.query);
  if (!parsed_query.ok()) return ErrorFor(parsed_query.status());
  const auto& query = *parsed_query;
  if (segs.size() == 1 && segs[0] == "config") {
    return Answer(200, Json{{"defaults", Json::object()},
                            {"overrides", {{"prefix", std::string(kIcebergPrefix)}}},
                            {"endpoints", Endpoints()}});
  }
  auto page = PageOf(query);
  if (!page.ok()) return ErrorFor(page.status());
  if (segs.size() == 1) {  // namespaces
    Id parent;
    if (auto it = query.find("parent"); it != query.end() && !it->second.empty()) {
      auto decoded = NamespaceFromSegment(it->second);
      if (!decoded.ok()) return ErrorFor(decoded.status());
      parent = std::move(*decoded);
    }
    auto children = ns.ListNamespaces(parent, *page);
    if (!children.ok()) return ErrorFor(children.status());
    Json list = Json::array();
    for (const std::string& name : children->names) {
      Id child = parent;
      child.push_back(name);
      list.push_back(child);
    }
    Json out{{"namespaces", list}};
    if (!children->next_token.empty()) out["next-page-token"] = children->next_token;
    return Answer(200, out);
  }
  auto id = NamespaceFromSegment(segs[1]);
  if (!id.ok()) return ErrorFor(id.status());
  if (segs.size() == 2) {
    auto properties = ns.DescribeNamespace(*id);
    if (!properties.ok()) return ErrorFor(properties.status());
    if (head) return Answer(204, Json::object());
    Json props = Json::object();
    for (const auto& [k, v] : *properties) props[k] = v;
    return Answer(200, Json{{"namespace", *id}, {"properties", props}});
  }
  if (segs[2] != "tables" || segs.size() > 4) return Error(404, "NoSuchRouteException", "no such Iceberg route");
  if (segs.size() == 3) {
    auto tables = ns.ListTables(*id, *page);
    if (!tables.ok()) return ErrorFor(tables.status());
    Json identifiers = Json::array();
    for (const std::string& name : tables->names) identifiers.push_back(Json{{"namespace", *id}, {"name", name}});
    Json out{{"identifiers", identifiers}};
    if (!tables->next_token.empty()) out["next-page-token"] = tables->next_token;
    return Answer(200, out);
  }
  auto name = PercentDecode(segs[3], false);
  if (!name.ok()) return ErrorFor(name.status());
  if (Status st = ValidateWireName(*name); !st.ok()) return ErrorFor(st);
  Id table_id = *id;
  table_id.push_back(*name);
  auto info = ns.DescribeTable(table_id);
  if (!info.ok()) return ErrorFor(info.status());
  if (head) return Answer(204, Json::object());
  auto dir = local_dir(*info);
  if (!dir.ok()) return ErrorFor(dir.status());
  std::error_code ec;
  if (fs::is_regular_file(fs::path(*dir) / "metadata" / "version-hint.text", ec)) {
    auto loaded = LoadIcebergTable(*dir);
    if (!loaded.ok()) return ErrorFor(loaded.status());
    return Answer(200, *loaded);
  }
  return Answer(200, LanceTableEntry(*dir, *info));
}

}  // namespace lancet::catalog::internal
