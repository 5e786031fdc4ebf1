#include "lancet/catalog/rest_router.h"

#include "catalog/rest_data.h"
#include "catalog/rest_iceberg.h"
#include "lancet/buffer.h"
#include "lancet/catalog/names.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>

namespace lancet::catalog {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

constexpr std::string_view kErrorTag = "[namespace error ";

// Invalid UTF-8 in a name read back from storage must not abort a response: dump
// replaces it instead of throwing.
std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Echoed input is cut short so an error body stays small whatever was sent.
std::string Clip(std::string_view s) {
  constexpr size_t kMax = 120;
  return s.size() <= kMax ? std::string(s) : std::string(s.substr(0, kMax)) + "...";
}

RestResponse JsonResponse(int status, const Json& body) {
  RestResponse r;
  r.status = status;
  r.body = Dump(body);
  return r;
}

RestResponse Fail(int code, std::string message, int http_status = 0) {
  Json body = Json::object();
  body["error"] = std::move(message);
  body["code"] = code;
  return JsonResponse(http_status ? http_status : HttpStatusForCode(code), body);
}

RestResponse FailInput(std::string message) {
  return Fail(static_cast<int>(ErrorCode::kInvalidInput), std::move(message));
}

// A namespace's Status as the spec's error: the code from ErrorCodeOf, the message
// without the "[namespace error N] " tag that carried it.
RestResponse FailStatus(const Status& st) {
  std::string message = st.message();
  const size_t at = message.find(kErrorTag);
  if (at != std::string::npos) {
    const size_t end = message.find("] ", at);
    if (end != std::string::npos) message.erase(at, end + 2 - at);
  }
  return Fail(static_cast<int>(ErrorCodeOf(st)), message);
}

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int HexValue(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000)) return false;
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
    i += n + 1;
  }
  return true;
}

// The request body's nesting depth, checked on the raw text before nlohmann builds (and
// later recursively destroys) a tree of it.
bool JsonDepthWithin(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return out;
}

// "ExistOk", "exist_ok", "EXISTOK" all as "existok": the spec takes modes in any case,
// PascalCase or snake_case; the client sends PascalCase.
std::string ModeKey(std::string_view s) {
  std::string out;
  for (const char c : s)
    if (c != '_') out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  return out;
}

std::optional<std::string> Header(const RestRequest& request, std::string_view name) {
  for (const auto& [k, v] : request.headers)
    if (k.size() == name.size() && Lower(k) == name) return v;
  return std::nullopt;
}

Status ValidateWireId(const Id& id) {
  for (const std::string& part : id) RETURN_IF_ERROR(ValidateWireName(part));
  return Status::OK();
}

Result<Id> IdFromJson(const Json& j, std::string_view field) {
  if (!j.is_array()) return NamespaceError(ErrorCode::kInvalidInput, std::string(field) + " must be a list of names");
  Id id;
  for (const Json& part : j) {
    if (!part.is_string())
      return NamespaceError(ErrorCode::kInvalidInput, std::string(field) + " must be a list of names");
    id.push_back(part.get_ref<const std::string&>());
  }
  return id;
}

Json IdToJson(const Id& id) {
  Json out = Json::array();
  for (const std::string& part : id) out.push_back(part);
  return out;
}

Result<Properties> PropertiesFromJson(const Json& body) {
  Properties out;
  const auto it = body.find("properties");
  if (it == body.end() || it->is_null()) return out;
  if (!it->is_object()) return NamespaceError(ErrorCode::kInvalidInput, "properties must be an object of strings");
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return NamespaceError(ErrorCode::kInvalidInput, "property " + Clip(k) + " is not a string");
    out[k] = v.get_ref<const std::string&>();
  }
  return out;
}

Json PropertiesToJson(const Properties& p) {
  Json out = Json::object();
  for (const auto& [k, v] : p) out[k] = v;
  return out;
}

// An optional string field of the body ("" when absent or null).
Result<std::string> StringField(const Json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::string();
  if (!it->is_string()) return NamespaceError(ErrorCode::kInvalidInput, std::string(name) + " must be a string");
  return it->get_ref<const std::string&>();
}

Json PageToJson(const Page& page, const char* field) {
  Json out = Json::object();
  out[field] = page.names;
  if (!page.next_token.empty()) out["page_token"] = page.next_token;
  return out;
}

enum class Object : uint8_t { kNamespace, kNamespaceTables, kTable };

// One parsed request: the route's parts, the path id and the body.
struct Call {
  Object object;
  std::string action;
  Id id;
  Json body;  // an object; {} when the request had none
  std::map<std::string, std::string> query;
};

}  // namespace

Status ValidateWireName(std::string_view name) {
  // The catalog's rules first (names.h: the one check every namespace shares), then
  // what only a name that came over the wire can get wrong.
  RETURN_IF_ERROR(ValidateName(name));
  auto bad = [&](std::string why) {
    return NamespaceError(ErrorCode::kInvalidInput, "invalid name '" + Clip(name) + "': " + why);
  };
  // Names never hold escapes: a decoded name with '%' was encoded twice.
  if (name.find('%') != std::string_view::npos) return bad("'%' (names are percent-decoded once, not twice)");
  if (!ValidUtf8(name)) return bad("not valid UTF-8");
  return Status::OK();
}

Result<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) {
        return NamespaceError(ErrorCode::kInvalidInput, "truncated percent escape in '" + Clip(text) + "'");
      }
      if (!IsHex(text[i + 1]) || !IsHex(text[i + 2]))
        return NamespaceError(ErrorCode::kInvalidInput, "bad percent escape in '" + Clip(text) + "'");
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

int HttpStatusForCode(int code) {
  switch (code) {
    case 0:
      return 406;
    case 1:
    case 4:
    case 6:
    case 8:
    case 10:
    case 11:
    case 12:
    case 22:
      return 404;
    case 2:
    case 3:
    case 5:
    case 7:
    case 9:
    case 14:
    case 19:
    case 23:
      return 409;
    case 13:
    case 20:
      return 400;
    case 15:
      return 403;
    case 16:
      return 401;
    case 17:
      return 503;
    case 21:
      return 429;
    default:
      return 500;
  }
}

bool ConstantTimeEquals(std::string_view presented, std::string_view expected) {
  unsigned char diff = presented.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    const unsigned char p = i < presented.size() ? static_cast<unsigned char>(presented[i]) : 0;
    diff |= static_cast<unsigned char>(p ^ static_cast<unsigned char>(expected[i]));
  }
  return diff == 0;
}

RestRouter::RestRouter(std::shared_ptr<Namespace> ns, RestRouterOptions options)
    : ns_(std::move(ns)), options_(std::move(options)) {
  if (!options_.location_root.empty()) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(options_.location_root, ec), ec);
    canonical_root_ = ec ? fs::path(options_.location_root).lexically_normal().string() : p.string();
    while (canonical_root_.size() > 1 && canonical_root_.back() == '/') canonical_root_.pop_back();
  }
}

namespace {

// The local path a location names ("file://" stripped; relative ones under `root`), or
// an error for other schemes.
Result<fs::path> LocalPath(const std::string& location, const std::string& root) {
  std::string_view loc = location;
  if (loc.rfind("file://", 0) == 0) loc.remove_prefix(7);
  if (loc.find("://") != std::string_view::npos)
    return NamespaceError(ErrorCode::kInvalidInput, "location '" + Clip(location) + "' is not in the local root");
  if (loc.empty()) return NamespaceError(ErrorCode::kInvalidInput, "empty location");
  fs::path p(loc);
  if (p.is_relative()) p = fs::path(root) / p;
  return p;
}

// OK when `location` lies strictly inside `root` (a canonical path) once symlinks are
// resolved: a table there can be dropped without touching anything else.
Status CheckInside(const std::string& location, const std::string& root) {
  if (root.empty()) return Status::OK();
  ASSIGN_OR_RETURN(fs::path p, LocalPath(location, root));
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(p, ec);
  if (ec) return NamespaceError(ErrorCode::kInvalidInput, "location '" + Clip(location) + "' cannot be resolved");
  const std::string s = resolved.string();
  const bool inside =
      s.size() > root.size() + 1 && s.compare(0, root.size(), root) == 0 && (root == "/" || s[root.size()] == '/');
  if (!inside) return NamespaceError(ErrorCode::kInvalidInput, "location '" + Clip(location) + "' is outside the root");
  return Status::OK();
}

Result<Call> ParseCall(const RestRequest& request) {
  std::string_view path = request.path;
  if (const size_t q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  // A base URI with a trailing slash makes the client send "//v1/...".
  while (path.size() > 1 && path[0] == '/' && path[1] == '/') path.remove_prefix(1);
  if (path.empty() || path[0] != '/') return Status::NotFound("no route for '" + Clip(path) + "'");
  path.remove_prefix(1);
  std::vector<std::string_view> segs;
  while (true) {
    const size_t slash = path.find('/');
    segs.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  if (segs.size() > 3 && segs.back().empty()) segs.pop_back();  // a trailing slash
  const auto no_route = [&] { return Status::NotFound("no route for " + request.method + " " + Clip(request.path)); };
  if (segs.size() < 4 || segs[0] != "v1") return no_route();

  Call call;
  const std::string_view object = segs[1];
  if (object == "namespace" && segs.size() == 4) {
    call.object = Object::kNamespace;
    call.action = std::string(segs[3]);
  } else if (object == "namespace" && segs.size() == 5 && segs[3] == "table" && segs[4] == "list") {
    call.object = Object::kNamespaceTables;
    call.action = "list";
  } else if (object == "table" && segs.size() == 4) {
    call.object = Object::kTable;
    call.action = std::string(segs[3]);
  } else {
    return no_route();
  }

  ASSIGN_OR_RETURN(call.query, ParseQuery(request.query));
  std::string delimiter = "$";
  if (auto it = call.query.find("delimiter"); it != call.query.end() && !it->second.empty()) delimiter = it->second;
  if (delimiter.size() > 16) return NamespaceError(ErrorCode::kInvalidInput, "delimiter longer than 16 bytes");
  ASSIGN_OR_RETURN(const std::string id_text, PercentDecode(segs[2], true));
  call.id = SplitId(id_text, delimiter);
  return call;
}

// A non-negative integer field of the body or, failing that, of the query.
Result<std::optional<uint64_t>> UintParam(const Call& call, const char* name) {
  if (auto it = call.body.find(name); it != call.body.end() && !it->is_null()) {
    if (!it->is_number_unsigned()) {
      return NamespaceError(ErrorCode::kInvalidInput, std::string(name) + " must be a non-negative integer");
    }
    return std::optional<uint64_t>(it->get<uint64_t>());
  }
  if (auto it = call.query.find(name); it != call.query.end() && !it->second.empty()) {
    uint64_t v = 0;
    const char* b = it->second.data();
    const char* e = b + it->second.size();
    auto [ptr, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || ptr != e) {
      return NamespaceError(ErrorCode::kInvalidInput, std::string(name) + " must be a non-negative integer");
    }
    return std::optional<uint64_t>(v);
  }
  return std::optional<uint64_t>();
}

// count_rows, query and insert: on the dataset at the table's (checked) location.
RestResponse HandleData(Namespace& ns, const std::string& root, const Call& call, const RestRequest& request) {
  auto info = ns.DescribeTable(call.id);
  if (!info.ok()) return FailStatus(info.status());
  if (Status st = CheckInside(info->location, root); !st.ok()) return FailStatus(st);
  // Relative (registered) locations are under the root.
  std::string location = info->location;
  if (!root.empty()) {
    auto local = LocalPath(info->location, root);
    if (!local.ok()) return FailStatus(local.status());
    location = local->string();
  }
  auto version = UintParam(call, "version");
  if (!version.ok()) return FailStatus(version.status());

  if (call.action == "count_rows") {
    auto predicate = StringField(call.body, "predicate");
    if (!predicate.ok()) return FailStatus(predicate.status());
    std::string filter = *predicate;
    if (auto it = call.query.find("predicate"); filter.empty() && it != call.query.end()) filter = it->second;
    auto rows = internal::CountTableRows(location, *version, filter);
    if (!rows.ok()) return FailStatus(rows.status());
    return JsonResponse(200, Json(*rows));  // the spec's bare integer
  }

  if (call.action == "query") {
    const Json& body = call.body;
    if (auto it = body.find("vector"); it != body.end() && !it->is_null() && !(it->is_array() && it->empty())) {
      return Fail(0, "vector search is not supported over REST yet; send a query without `vector`");
    }
    if (auto it = body.find("full_text_query"); it != body.end() && !it->is_null()) {
      return Fail(0, "full-text search is not supported over REST yet");
    }
    TableQuery q;
    q.version = *version;
    auto filter = StringField(body, "filter");
    if (!filter.ok()) return FailStatus(filter.status());
    q.filter = *filter;
    // `columns`: a list of names, or (newer spec) {"column_names": [...]}.
    if (auto it = body.find("columns"); it != body.end() && !it->is_null()) {
      const Json* names = &*it;
      if (it->is_object()) {
        auto n = it->find("column_names");
        if (n == it->end()) return FailInput("columns needs column_names");
        names = &*n;
      }
      auto list = IdFromJson(*names, "columns");
      if (!list.ok()) return FailStatus(list.status());
      q.columns = std::move(*list);
    }
    auto k = UintParam(call, "k");
    if (!k.ok()) return FailStatus(k.status());
    auto limit = UintParam(call, "limit");
    if (!limit.ok()) return FailStatus(limit.status());
    q.limit = k->has_value() ? *k : *limit;
    auto offset = UintParam(call, "offset");
    if (!offset.ok()) return FailStatus(offset.status());
    q.offset = offset->value_or(0);
    if (auto it = body.find("with_row_id"); it != body.end() && !it->is_null()) {
      if (!it->is_boolean()) return FailInput("with_row_id must be a boolean");
      q.with_row_id = it->get<bool>();
    }
    auto stream = internal::QueryTable(location, q);
    if (!stream.ok()) return FailStatus(stream.status());
    RestResponse r;
    r.status = 200;
    r.content_type = "application/vnd.apache.arrow.stream";
    r.stream = std::move(*stream);
    return r;
  }

  // insert: the body is the Arrow IPC stream; `mode` Append (default) or Overwrite.
  bool overwrite = false;
  if (auto it = call.query.find("mode"); it != call.query.end()) {
    const std::string m = ModeKey(it->second);
    if (m == "overwrite") {
      overwrite = true;
    } else if (!m.empty() && m != "append") {
      return FailInput("unknown insert mode '" + Clip(it->second) + "'");
    }
  }
  std::unique_ptr<io::InputStream> body;
  if (request.body_stream) {
    // The transport keeps the stream: hand the reader a view of it.
    class Borrowed : public io::InputStream {
     public:
      explicit Borrowed(std::shared_ptr<io::InputStream> in) : in_(std::move(in)) {}
      const std::string& name() const override { return in_->name(); }
      Result<BufferPtr> Read(uint64_t n) override { return in_->Read(n); }

     private:
      std::shared_ptr<io::InputStream> in_;
    };
    body = std::make_unique<Borrowed>(request.body_stream);
  } else {
    // Viewed, not copied: the request outlives the insert.
    body = io::InputStreamFromBuffer(
        Buffer::Wrap(reinterpret_cast<const uint8_t*>(request.body.data()), request.body.size(), nullptr),
        "request body");
  }
  auto inserted = internal::InsertIntoTable(location, std::move(body), overwrite);
  if (!inserted.ok()) return FailStatus(inserted.status());
  return JsonResponse(200, Json{{"num_inserted_rows", inserted->rows}, {"version", inserted->version}});
}

}  // namespace

RestResponse RestRouter::Handle(const RestRequest& request) const {
  // Authentication comes first: nothing else about the request is looked at without it.
  if (!options_.token.empty()) {
    bool ok = false;
    if (auto key = Header(request, "x-api-key")) ok = ConstantTimeEquals(*key, options_.token);
    if (auto auth = Header(request, "authorization"); auth && !ok) {
      if (auth->size() > 7 && Lower(auth->substr(0, 7)) == "bearer ") {
        ok = ConstantTimeEquals(std::string_view(*auth).substr(7), options_.token);
      }
    }
    if (!ok) {
      RestResponse r = Fail(static_cast<int>(ErrorCode::kUnauthenticated), "missing or wrong credentials");
      r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return r;
    }
  }
  if (request.body.size() > options_.max_body_bytes) {
    return Fail(static_cast<int>(ErrorCode::kInvalidInput),
                "request body of " + std::to_string(request.body.size()) + " bytes is over the limit of " +
                    std::to_string(options_.max_body_bytes),
                413);
  }

  if (internal::IsIcebergRoute(request.path)) {
    const std::string& root = canonical_root_;
    return internal::HandleIcebergRoute(*ns_, request, [&root](const TableInfo& info) -> Result<std::string> {
      RETURN_IF_ERROR(CheckInside(info.location, root));
      if (root.empty()) return info.location;
      ASSIGN_OR_RETURN(fs::path local, LocalPath(info.location, root));
      return local.string();
    });
  }

  auto parsed = ParseCall(request);
  if (!parsed.ok()) {
    if (parsed.status().IsNotFound()) return Fail(0, parsed.status().message(), 404);
    return FailStatus(parsed.status());
  }
  Call& call = *parsed;

  const bool is_list = call.action == "list";
  // count_rows: GET in the reference's client, POST in the spec.
  const bool either = call.object == Object::kTable && call.action == "count_rows";
  const std::string want_method = is_list ? "GET" : "POST";
  if (request.method != want_method && !(either && request.method == "GET")) {
    return Fail(0, "method " + Clip(request.method) + " not allowed here; use " + want_method, 405);
  }
  // insert's body is an Arrow IPC stream, not JSON.
  const bool json_body = !is_list && request.method == "POST" && call.action != "insert";

  // The body: a JSON object, or nothing (drop has none in the spec; the client sends
  // `null` for some routes).
  call.body = Json::object();
  if (json_body) {
    const bool blank = std::all_of(request.body.begin(), request.body.end(),
                                   [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
    if (!blank) {
      if (!JsonDepthWithin(request.body, options_.max_json_depth)) {
        return FailInput("JSON body nested deeper than " + std::to_string(options_.max_json_depth));
      }
      Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_discarded()) return FailInput("malformed JSON body");
      if (body.is_null()) body = Json::object();
      if (!body.is_object()) return FailInput("the JSON body must be an object");
      call.body = std::move(body);
    }
    // The id in the body must be the path's (the spec's rule; a name holding the
    // delimiter shows up here, as the client does not escape it).
    if (auto it = call.body.find("id"); it != call.body.end() && !it->is_null()) {
      auto body_id = IdFromJson(*it, "id");
      if (!body_id.ok()) return FailStatus(body_id.status());
      if (*body_id != call.id) {
        return FailInput("the body id [" + Clip(JoinId(*body_id, ", ")) + "] differs from the path id [" +
                         Clip(JoinId(call.id, ", ")) + "]");
      }
    }
  }
  if (Status st = ValidateWireId(call.id); !st.ok()) return FailStatus(st);

  PageRequest page;
  if (is_list) {
    if (auto it = call.query.find("page_token"); it != call.query.end()) page.token = it->second;
    if (auto it = call.query.find("limit"); it != call.query.end() && !it->second.empty()) {
      uint32_t limit = 0;
      const char* b = it->second.data();
      const char* e = b + it->second.size();
      auto [ptr, ec] = std::from_chars(b, e, limit);
      if (ec != std::errc() || ptr != e) return FailInput("limit must be a non-negative integer");
      page.limit = limit;
    }
  }

  const Json& body = call.body;
  const auto table_info_checked = [&](const Result<TableInfo>& info) -> Status {
    if (!info.ok()) return info.status();
    return CheckInside(info->location, canonical_root_);
  };

  if (call.object == Object::kNamespaceTables) {
    auto result = ns_->ListTables(call.id, page);
    if (!result.ok()) return FailStatus(result.status());
    return JsonResponse(200, PageToJson(*result, "tables"));
  }

  if (call.object == Object::kNamespace) {
    if (call.action == "list") {
      auto result = ns_->ListNamespaces(call.id, page);
      if (!result.ok()) return FailStatus(result.status());
      return JsonResponse(200, PageToJson(*result, "namespaces"));
    }
    if (call.action == "create") {
      auto mode_text = StringField(body, "mode");
      if (!mode_text.ok()) return FailStatus(mode_text.status());
      const std::string mode_key = ModeKey(*mode_text);
      CreateMode mode;
      if (mode_key.empty() || mode_key == "create") {
        mode = CreateMode::kCreate;
      } else if (mode_key == "existok") {
        mode = CreateMode::kExistOk;
      } else if (mode_key == "overwrite") {
        mode = CreateMode::kOverwrite;
      } else {
        return FailInput("unknown create mode '" + Clip(*mode_text) + "'");
      }
      auto props = PropertiesFromJson(body);
      if (!props.ok()) return FailStatus(props.status());
      auto result = ns_->CreateNamespace(call.id, mode, *props);
      if (!result.ok()) return FailStatus(result.status());
      return JsonResponse(201, Json{{"properties", PropertiesToJson(*result)}});
    }
    if (call.action == "describe") {
      auto result = ns_->DescribeNamespace(call.id);
      if (!result.ok()) return FailStatus(result.status());
      return JsonResponse(200, Json{{"properties", PropertiesToJson(*result)}});
    }
    if (call.action == "drop") {
      if (call.id.empty()) return FailInput("the root namespace cannot be dropped");
      auto mode_text = StringField(body, "mode");
      if (!mode_text.ok()) return FailStatus(mode_text.status());
      auto behavior_text = StringField(body, "behavior");
      if (!behavior_text.ok()) return FailStatus(behavior_text.status());
      const std::string m = ModeKey(*mode_text), b = ModeKey(*behavior_text);
      if (!m.empty() && m != "fail" && m != "skip") return FailInput("unknown drop mode '" + Clip(*mode_text) + "'");
      if (!b.empty() && b != "restrict" && b != "cascade") {
        return FailInput("unknown drop behavior '" + Clip(*behavior_text) + "'");
      }
      const DropMode mode = m == "skip" ? DropMode::kSkip : DropMode::kFail;
      const DropBehavior behavior = b == "cascade" ? DropBehavior::kCascade : DropBehavior::kRestrict;
      if (Status st = ns_->DropNamespace(call.id, mode, behavior); !st.ok()) return FailStatus(st);
      // A JSON body even when nothing was dropped: the client fails on an empty 2xx.
      return JsonResponse(200, Json::object());
    }
    if (call.action == "exists") {
      if (Status st = ns_->NamespaceExists(call.id); !st.ok()) return FailStatus(st);
      return JsonResponse(200, Json::object());
    }
    return Fail(0, "no route for namespace action '" + Clip(call.action) + "'", 404);
  }

  // Tables: the id names one, so it is never the root.
  if (call.id.empty()) return FailInput("a table id needs at least a name");
  const Id parent(call.id.begin(), call.id.end() - 1);
  if (call.action == "declare") {
    auto props = PropertiesFromJson(body);
    if (!props.ok()) return FailStatus(props.status());
    auto result = ns_->DeclareTable(call.id, *props);
    if (Status st = table_info_checked(result); !st.ok()) return FailStatus(st);
    Json out{{"location", result->location}};
    if (!result->properties.empty()) out["properties"] = PropertiesToJson(result->properties);
    return JsonResponse(201, out);
  }
  if (call.action == "describe") {
    auto result = ns_->DescribeTable(call.id);
    if (Status st = table_info_checked(result); !st.ok()) return FailStatus(st);
    Json out{{"location", result->location}, {"table", call.id.back()}, {"namespace", IdToJson(parent)}};
    if (!result->properties.empty()) out["properties"] = PropertiesToJson(result->properties);
    if (auto it = call.query.find("check_declared"); it != call.query.end() && Lower(it->second) == "true") {
      out["is_only_declared"] = result->only_declared;
    }
    if (auto it = call.query.find("load_detailed_metadata"); it != call.query.end() && Lower(it->second) == "true") {
      auto local = canonical_root_.empty() ? Result<fs::path>(fs::path(result->location))
                                           : LocalPath(result->location, canonical_root_);
      if (!local.ok()) return FailStatus(local.status());
      auto detail = internal::DescribeTableData(local->string());
      if (!detail.ok()) return FailStatus(detail.status());
      out["version"] = detail->first;
      out["schema"] = Json::parse(detail->second);
    }
    return JsonResponse(200, out);
  }
  if (call.action == "exists") {
    if (Status st = ns_->TableExists(call.id); !st.ok()) return FailStatus(st);
    return JsonResponse(200, Json::object());
  }
  if (call.action == "drop" || call.action == "deregister") {
    // The location is checked before anything is deleted: a table whose directory was
    // replaced by a symlink out of the root is refused, not followed.
    if (Status st = table_info_checked(ns_->DescribeTable(call.id)); !st.ok()) return FailStatus(st);
    auto result = call.action == "drop" ? ns_->DropTable(call.id) : ns_->DeregisterTable(call.id);
    if (!result.ok()) return FailStatus(result.status());
    return JsonResponse(200, Json{{"id", IdToJson(call.id)}, {"location", result->location}});
  }
  if (call.action == "register") {
    auto location = StringField(body, "location");
    if (!location.ok()) return FailStatus(location.status());
    if (location->empty()) return FailInput("register needs a location");
    if (Status st = CheckInside(*location, canonical_root_); !st.ok()) return FailStatus(st);
    auto props = PropertiesFromJson(body);
    if (!props.ok()) return FailStatus(props.status());
    auto result = ns_->RegisterTable(call.id, *location, *props);
    if (!result.ok()) return FailStatus(result.status());
    return JsonResponse(200, Json{{"location", result->location}});
  }
  if (call.action == "rename") {
    auto new_name = StringField(body, "new_table_name");
    if (!new_name.ok()) return FailStatus(new_name.status());
    if (Status st = ValidateWireName(*new_name); !st.ok()) return FailStatus(st);
    Id new_namespace = parent;
    if (auto it = body.find("new_namespace_id"); it != body.end() && !it->is_null()) {
      auto ns_id = IdFromJson(*it, "new_namespace_id");
      if (!ns_id.ok()) return FailStatus(ns_id.status());
      if (Status st = ValidateWireId(*ns_id); !st.ok()) return FailStatus(st);
      new_namespace = std::move(*ns_id);
    }
    if (Status st = ns_->RenameTable(call.id, new_namespace, *new_name); !st.ok()) return FailStatus(st);
    return JsonResponse(200, Json::object());
  }
  if (call.action == "count_rows" || call.action == "query" || call.action == "insert") {
    return HandleData(*ns_, canonical_root_, call, request);
  }
  return Fail(0, "table action '" + Clip(call.action) + "' is not supported", 404);
}

Result<std::map<std::string, std::string>> ParseQuery(std::string_view raw) {
  std::map<std::string, std::string> out;
  while (!raw.empty()) {
    const size_t amp = raw.find('&');
    const std::string_view pair = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    ASSIGN_OR_RETURN(std::string key, PercentDecode(pair.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      ASSIGN_OR_RETURN(value, PercentDecode(pair.substr(eq + 1), true));
    }
    out[std::move(key)] = std::move(value);
  }
  return out;
}

}  // namespace lancet::catalog
