// RestNamespace: each Namespace call is one request of the REST namespace protocol, in
// the shapes RestRouter (and the reference's server) answer; errors come back as the
// spec's codes.
#include "lancet/catalog/rest_namespace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include "catalog/http_body_stream.h"
#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "io/http_client.h"

namespace lancet::catalog {
namespace {

using Json = nlohmann::json;

constexpr const char* kArrowStream = "application/vnd.apache.arrow.stream";

bool Unreserved(unsigned char c) { return std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~'; }

// Form-style escaping as the reference client writes path segments and query values.
std::string Escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (Unreserved(c)) {
      out += ch;
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  // "." and ".." would be removed from the path as dot segments on the way.
  if (out == "." || out == "..") {
    std::string dots;
    for (size_t i = 0; i < out.size(); ++i) dots += "%2E";
    return dots;
  }
  return out;
}

Json IdJson(const Id& id) { return Json(id); }

Json PropertiesJson(const Properties& p) {
  Json out = Json::object();
  for (const auto& [k, v] : p) out[k] = v;
  return out;
}

Result<Properties> PropertiesOf(const Json& body) {
  Properties out;
  auto it = body.find("properties");
  if (it == body.end() || it->is_null()) return out;
  if (!it->is_object()) return NamespaceError(ErrorCode::kInternal, "the server's properties are not an object");
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

Result<std::string> StringOf(const Json& body, const char* field) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_string()) {
    return NamespaceError(ErrorCode::kInternal, std::string("the server's answer has no string '") + field + "'");
  }
  return it->get<std::string>();
}

Result<Page> PageOf(const Json& body, const char* field) {
  Page page;
  auto it = body.find(field);
  if (it == body.end() || !it->is_array()) {
    return NamespaceError(ErrorCode::kInternal, std::string("the server's answer has no list '") + field + "'");
  }
  for (const Json& name : *it) {
    if (!name.is_string()) return NamespaceError(ErrorCode::kInternal, "the server listed a name that is not a string");
    page.names.push_back(name.get<std::string>());
  }
  if (auto t = body.find("page_token"); t != body.end() && t->is_string()) page.next_token = t->get<std::string>();
  return page;
}

const char* ModeName(CreateMode mode) {
  switch (mode) {
    case CreateMode::kExistOk:
      return "ExistOk";
    case CreateMode::kOverwrite:
      return "Overwrite";
    case CreateMode::kCreate:
      break;
  }
  return "Create";
}

}  // namespace

struct RestNamespace::Impl {
  std::string base;  // without a trailing slash
  RestNamespaceOptions options;
  std::shared_ptr<io::HttpClient> client;       // catalog calls: bounded in total
  std::shared_ptr<io::HttpClient> data_client;  // data routes: bounded by stalls only

  Status CheckId(const Id& id) const {
    for (const std::string& part : id) {
      if (part.find(options.delimiter) != std::string::npos) {
        return NamespaceError(ErrorCode::kInvalidInput,
                              "'" + part + "' holds the delimiter '" + options.delimiter + "' and cannot be sent");
      }
    }
    return Status::OK();
  }

  std::string Url(const char* object, const Id& id, const std::string& action, const std::string& query = "") const {
    // The root is written as the delimiter itself.
    const std::string text = id.empty() ? options.delimiter : JoinId(id, options.delimiter);
    std::string url =
        base + "/v1/" + object + "/" + Escape(text) + "/" + action + "?delimiter=" + Escape(options.delimiter);
    if (!query.empty()) url += "&" + query;
    return url;
  }

  io::HttpRequest Request(std::string method, std::string url) const {
    io::HttpRequest r;
    r.method = std::move(method);
    r.url = std::move(url);
    r.headers = options.headers;
    return r;
  }

  // The spec's error document as a Status; an answer without one by its HTTP status.
  Status ErrorOf(const io::HttpResponse& r, const std::string& what) const {
    if (r.status == 0) return Status::IOError(what + ": " + r.error);
    const Json body = Json::parse(r.body, nullptr, false);
    if (body.is_object()) {
      auto code = body.find("code");
      auto message = body.find("error");
      if (code != body.end() && code->is_number_integer()) {
        std::string text = message != body.end() && message->is_string() ? message->get<std::string>() : "";
        if (text.empty()) text = "HTTP " + std::to_string(r.status);
        return NamespaceError(static_cast<ErrorCode>(code->get<int>()), what + ": " + text);
      }
    }
    const ErrorCode code = r.status == 401   ? ErrorCode::kUnauthenticated
                           : r.status == 403 ? ErrorCode::kPermissionDenied
                           : r.status == 404 ? ErrorCode::kUnsupported
                           : r.status == 503 ? ErrorCode::kServiceUnavailable
                           : r.status < 500  ? ErrorCode::kInvalidInput
                                             : ErrorCode::kInternal;
    return NamespaceError(code, what + ": HTTP " + std::to_string(r.status));
  }

  Result<Json> Call(const std::string& method, const std::string& url, const Json* body,
                    const std::string& what) const {
    io::HttpRequest r = Request(method, url);
    std::string text;
    if (body != nullptr) {
      text = body->dump();
      r.body = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size());
      r.headers.emplace_back("Content-Type", "application/json");
    }
    const io::HttpResponse res = client->Send(r);
    if (res.status < 200 || res.status >= 300) return ErrorOf(res, what);
    if (res.body.empty()) return Json::object();
    Json parsed = Json::parse(res.body, nullptr, false);
    if (parsed.is_discarded()) return NamespaceError(ErrorCode::kInternal, what + ": the server's answer is not JSON");
    return parsed;
  }

  Result<Json> Post(const char* object, const Id& id, const std::string& action, Json body,
                    const std::string& query = "") const {
    RETURN_IF_ERROR(CheckId(id));
    body["id"] = IdJson(id);
    return Call("POST", Url(object, id, action, query), &body,
                std::string(object) + " " + action + " [" + JoinId(id, ", ") + "]");
  }

  Result<Page> List(const char* what, const Id& parent, const PageRequest& page, const char* field) const {
    RETURN_IF_ERROR(CheckId(parent));
    std::string query;
    if (!page.token.empty()) query += "page_token=" + Escape(page.token);
    if (page.limit) query += std::string(query.empty() ? "" : "&") + "limit=" + std::to_string(*page.limit);
    ASSIGN_OR_RETURN(Json body, Call("GET", Url("namespace", parent, what, query), nullptr,
                                     std::string("list ") + field + " of [" + JoinId(parent, ", ") + "]"));
    return PageOf(body, field);
  }

  Result<TableInfo> Info(const Json& body) const {
    TableInfo info;
    ASSIGN_OR_RETURN(info.location, StringOf(body, "location"));
    ASSIGN_OR_RETURN(info.properties, PropertiesOf(body));
    if (auto it = body.find("is_only_declared"); it != body.end() && it->is_boolean()) {
      info.only_declared = it->get<bool>();
    }
    return info;
  }
};

RestNamespace::RestNamespace(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestNamespace::~RestNamespace() = default;

Result<RestNamespaceOptions> RestNamespace::OptionsFromProperties(const Properties& properties) {
  RestNamespaceOptions options;
  for (const auto& [key, value] : properties) {
    if (key == "delimiter") {
      if (value.empty()) return NamespaceError(ErrorCode::kInvalidInput, "the delimiter cannot be empty");
      options.delimiter = value;
    } else if (key.rfind("headers.", 0) == 0 && key.size() > 8) {
      options.headers.emplace_back(key.substr(8), value);
    } else if (key == "tls.ca_file") {
      options.ca_file = value;
    } else if (key == "connect_timeout_ms" || key == "request_timeout_ms") {
      long ms = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
      if (ec != std::errc() || ptr != value.data() + value.size() || ms < 0) {
        return NamespaceError(ErrorCode::kInvalidInput, key + " must be a non-negative integer");
      }
      (key == "connect_timeout_ms" ? options.connect_timeout_ms : options.request_timeout_ms) = ms;
    } else {
      return NamespaceError(ErrorCode::kInvalidInput, "unknown REST namespace property '" + key + "'");
    }
  }
  return options;
}

Result<std::unique_ptr<RestNamespace>> RestNamespace::Open(const std::string& uri, RestNamespaceOptions options) {
  const bool http = uri.rfind("http://", 0) == 0, https = uri.rfind("https://", 0) == 0;
  if (!http && !https) return NamespaceError(ErrorCode::kInvalidInput, "not an http(s) URI: " + uri);
  if (uri.size() <= (http ? 7u : 8u)) return NamespaceError(ErrorCode::kInvalidInput, "no host in " + uri);
  if (options.delimiter.empty()) return NamespaceError(ErrorCode::kInvalidInput, "the delimiter cannot be empty");
  auto impl = std::make_unique<Impl>();
  impl->base = uri;
  while (impl->base.back() == '/') impl->base.pop_back();
  io::HttpTimeouts timeouts;
  timeouts.connect_ms = options.connect_timeout_ms;
  timeouts.total_ms = options.request_timeout_ms;
  impl->client = std::make_shared<io::HttpClient>(timeouts, options.ca_file);
  timeouts.total_ms = 0;
  impl->data_client = std::make_shared<io::HttpClient>(timeouts, options.ca_file);
  impl->options = std::move(options);
  return std::unique_ptr<RestNamespace>(new RestNamespace(std::move(impl)));
}

Result<Page> RestNamespace::ListNamespaces(const Id& parent, const PageRequest& page) {
  return impl_->List("list", parent, page, "namespaces");
}

Result<Properties> RestNamespace::CreateNamespace(const Id& id, CreateMode mode, const Properties& properties) {
  ASSIGN_OR_RETURN(Json body, impl_->Post("namespace", id, "create",
                                          Json{{"mode", ModeName(mode)}, {"properties", PropertiesJson(properties)}}));
  return PropertiesOf(body);
}

Result<Properties> RestNamespace::DescribeNamespace(const Id& id) {
  ASSIGN_OR_RETURN(Json body, impl_->Post("namespace", id, "describe", Json::object()));
  return PropertiesOf(body);
}

Status RestNamespace::DropNamespace(const Id& id, DropMode mode, DropBehavior behavior) {
  const Json body{{"mode", mode == DropMode::kSkip ? "Skip" : "Fail"},
                  {"behavior", behavior == DropBehavior::kCascade ? "Cascade" : "Restrict"}};
  return impl_->Post("namespace", id, "drop", body).status();
}

Status RestNamespace::NamespaceExists(const Id& id) {
  return impl_->Post("namespace", id, "exists", Json::object()).status();
}

Result<Page> RestNamespace::ListTables(const Id& parent, const PageRequest& page) {
  return impl_->List("table/list", parent, page, "tables");
}

Result<TableInfo> RestNamespace::DeclareTable(const Id& id, const Properties& properties) {
  ASSIGN_OR_RETURN(Json body, impl_->Post("table", id, "declare", Json{{"properties", PropertiesJson(properties)}}));
  ASSIGN_OR_RETURN(TableInfo info, impl_->Info(body));
  info.only_declared = true;
  return info;
}

Result<TableInfo> RestNamespace::DescribeTable(const Id& id) {
  ASSIGN_OR_RETURN(Json body, impl_->Post("table", id, "describe", Json::object(), "check_declared=true"));
  return impl_->Info(body);
}

Status RestNamespace::TableExists(const Id& id) { return impl_->Post("table", id, "exists", Json::object()).status(); }

Result<TableInfo> RestNamespace::DropTable(const Id& id) {
  ASSIGN_OR_RETURN(Json body, impl_->Post("table", id, "drop", Json::object()));
  return impl_->Info(body);
}

Result<TableInfo> RestNamespace::RegisterTable(const Id& id, const std::string& location,
                                               const Properties& properties) {
  ASSIGN_OR_RETURN(Json body, impl_->Post("table", id, "register",
                                          Json{{"location", location}, {"properties", PropertiesJson(properties)}}));
  return impl_->Info(body);
}

Result<TableInfo> RestNamespace::DeregisterTable(const Id& id) {
  ASSIGN_OR_RETURN(Json body, impl_->Post("table", id, "deregister", Json::object()));
  return impl_->Info(body);
}

Status RestNamespace::RenameTable(const Id& id, const Id& new_namespace, const std::string& new_name) {
  RETURN_IF_ERROR(impl_->CheckId(new_namespace));
  RETURN_IF_ERROR(impl_->CheckId({new_name}));
  return impl_
      ->Post("table", id, "rename", Json{{"new_table_name", new_name}, {"new_namespace_id", IdJson(new_namespace)}})
      .status();
}

Result<uint64_t> RestNamespace::CountRows(const Id& id, const std::string& filter, std::optional<uint64_t> version) {
  Json body = Json::object();
  if (!filter.empty()) body["predicate"] = filter;
  if (version) body["version"] = *version;
  ASSIGN_OR_RETURN(Json count, impl_->Post("table", id, "count_rows", std::move(body)));
  if (!count.is_number_unsigned()) return NamespaceError(ErrorCode::kInternal, "count_rows answered no count");
  return count.get<uint64_t>();
}

Result<std::unique_ptr<RecordBatchReader>> RestNamespace::Query(const Id& id, const TableQuery& query) {
  RETURN_IF_ERROR(impl_->CheckId(id));
  Json body{{"id", IdJson(id)}, {"columns", query.columns}, {"with_row_id", query.with_row_id}};
  if (!query.filter.empty()) body["filter"] = query.filter;
  if (query.limit) body["k"] = *query.limit;
  if (query.offset != 0) body["offset"] = query.offset;
  if (query.version) body["version"] = *query.version;
  if (query.columns.empty()) body.erase("columns");
  const std::string text = body.dump();
  const std::string what = "query of [" + JoinId(id, ", ") + "]";
  io::HttpRequest request = impl_->Request("POST", impl_->Url("table", id, "query"));
  request.headers.emplace_back("Content-Type", "application/json");
  // The body lives in the request the transfer thread owns.
  auto owned = std::make_shared<std::string>(text);
  request.body_source = [owned, sent = size_t{0}](std::span<uint8_t> out) mutable {
    const size_t n = std::min(out.size(), owned->size() - sent);
    std::memcpy(out.data(), owned->data() + sent, n);
    sent += n;
    return n;
  };
  ASSIGN_OR_RETURN(internal::HttpBodyStream opened,
                   internal::OpenHttpBodyStream(impl_->data_client, std::move(request), what));
  if (!opened.body) return impl_->ErrorOf(opened.error_response, what);
  auto reader = format::OpenIpcStreamReader(std::move(opened.body));
  if (!reader.ok()) return Status(reader.status().code(), what + ": " + reader.status().message());
  return std::move(*reader);
}

Result<InsertResult> RestNamespace::Insert(const Id& id, RecordBatchReader& rows, bool overwrite) {
  RETURN_IF_ERROR(impl_->CheckId(id));
  const std::string what = "insert into [" + JoinId(id, ", ") + "]";
  // Batches are encoded as curl asks for more body: one batch's encoding in memory.
  std::string pending;
  size_t pending_at = 0;
  Status failure;
  auto writer = format::IpcBatchWriter::Open(
      [&pending](std::span<const uint8_t> bytes) {
        pending.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        return Status::OK();
      },
      rows.schema());
  if (!writer.ok()) return writer.status();
  bool finished = false;
  io::HttpRequest request = impl_->Request(
      "POST", impl_->Url("table", id, "insert", std::string("mode=") + (overwrite ? "Overwrite" : "Append")));
  request.headers.emplace_back("Content-Type", kArrowStream);
  request.body_source = [&](std::span<uint8_t> out) -> size_t {
    while (pending_at == pending.size() && !finished) {
      pending.clear();
      pending_at = 0;
      auto batch = rows.Next();
      if (!batch.ok()) {
        failure = batch.status();
        return io::kBodySourceFailed;
      }
      Status st = *batch ? (*writer)->Write(**batch) : (*writer)->Finish();
      if (!*batch) finished = true;
      if (!st.ok()) {
        failure = st;
        return io::kBodySourceFailed;
      }
    }
    const size_t n = std::min(out.size(), pending.size() - pending_at);
    std::memcpy(out.data(), pending.data() + pending_at, n);
    pending_at += n;
    return n;
  };
  const io::HttpResponse res = impl_->data_client->Send(request);
  if (!failure.ok()) return failure;
  if (res.status < 200 || res.status >= 300) return impl_->ErrorOf(res, what);
  const Json body = Json::parse(res.body, nullptr, false);
  auto rows_it = body.is_object() ? body.find("num_inserted_rows") : body.end();
  if (!body.is_object() || rows_it == body.end() || !rows_it->is_number_unsigned()) {
    return NamespaceError(ErrorCode::kInternal, what + ": the server's answer has no num_inserted_rows");
  }
  InsertResult result;
  result.rows = rows_it->get<uint64_t>();
  if (auto v = body.find("version"); v != body.end() && v->is_number_unsigned()) result.version = v->get<uint64_t>();
  return result;
}

}  // namespace lancet::catalog
