// The REST router over an in-memory namespace: every route the reference client uses,
// the spec's error codes and HTTP statuses, path encodings, traversal attempts, auth and
// body limits (requests shaped as in the shared namespace notes §3.2).
#include "lancet/catalog/rest_router.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "catalog/memory_namespace.h"
#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "lancet/table/write.h"
#include "util/array_json.h"

namespace lancet::catalog {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

class RestRouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("lancet-rest-router-" + std::to_string(rd()));
    fs::create_directories(dir_ / "wh");
    root_ = (dir_ / "wh").string();
    Reset({});
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Reset(RestRouterOptions options) {
    options.location_root = root_;
    router_ = std::make_unique<RestRouter>(std::make_shared<testing::MemoryNamespace>(root_), std::move(options));
  }

  RestResponse Send(const std::string& method, const std::string& path, const std::string& query = "delimiter=%24",
                    const std::string& body = "", std::vector<std::pair<std::string, std::string>> headers = {}) {
    RestRequest r;
    r.method = method;
    r.path = path;
    r.query = query;
    r.body = body;
    r.headers = std::move(headers);
    return router_->Handle(r);
  }
  RestResponse Post(const std::string& path, const std::string& body, const std::string& query = "delimiter=%24") {
    return Send("POST", path, query, body);
  }
  RestResponse Get(const std::string& path, const std::string& query = "delimiter=%24") {
    return Send("GET", path, query);
  }

  // The response's JSON body; every response has one.
  static Json Body(const RestResponse& r) {
    EXPECT_EQ(r.content_type, "application/json");
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body;
    return j;
  }
  // Expects an error with this HTTP status and spec code.
  static void ExpectError(const RestResponse& r, int http, int code, const std::string& what = "") {
    EXPECT_EQ(r.status, http) << what << " " << r.body;
    Json j = Body(r);
    EXPECT_EQ(j.value("code", -1), code) << what << " " << r.body;
    EXPECT_TRUE(j.contains("error")) << r.body;
    EXPECT_EQ(j.value("error", std::string()).find("[namespace error"), std::string::npos) << r.body;
  }
  std::vector<std::string> Tables(const std::string& ns = "%24", const std::string& extra = "") {
    RestResponse r = Get("/v1/namespace/" + ns + "/table/list", "delimiter=%24" + extra);
    EXPECT_EQ(r.status, 200) << r.body;
    return Body(r)["tables"].get<std::vector<std::string>>();
  }

  fs::path dir_;
  std::string root_;
  std::unique_ptr<RestRouter> router_;
};

TEST_F(RestRouterTest, TableLifecycle) {
  EXPECT_TRUE(Tables().empty());
  RestResponse r = Post("/v1/table/t1/declare", R"({"id":["t1"]})");
  ASSERT_EQ(r.status, 201) << r.body;
  const std::string location = Body(r)["location"];
  EXPECT_EQ(location, root_ + "/t1.lance");
  EXPECT_EQ(Tables(), std::vector<std::string>{"t1"});

  ExpectError(Post("/v1/table/t1/declare", R"({"id":["t1"]})"), 409, 5, "declare twice");
  r = Post("/v1/table/t1/describe", R"({"id":["t1"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["location"], location);
  EXPECT_EQ(Body(r)["table"], "t1");
  EXPECT_EQ(Body(r)["namespace"], Json::array());
  EXPECT_FALSE(Body(r).contains("is_only_declared"));
  r = Post("/v1/table/t1/describe", R"({"id":["t1"]})", "delimiter=%24&check_declared=true");
  EXPECT_EQ(Body(r)["is_only_declared"], true);
  ExpectError(Post("/v1/table/nope/describe", R"({"id":["nope"]})"), 404, 4, "describe missing");

  r = Post("/v1/table/t1/exists", R"({"id":["t1"]})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Body(r), Json::object());  // a JSON body on every 2xx
  ExpectError(Post("/v1/table/nope/exists", R"({"id":["nope"]})"), 404, 4, "exists missing");

  r = Post("/v1/table/t1/drop", R"({"id":["t1"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["location"], location);
  EXPECT_TRUE(Tables().empty());
  ExpectError(Post("/v1/table/t1/drop", R"({"id":["t1"]})"), 404, 4, "drop missing");
  // The spec's drop has no body.
  ASSERT_EQ(Post("/v1/table/t1/declare", "").status, 201);
  EXPECT_EQ(Post("/v1/table/t1/drop", "").status, 200);
}

TEST_F(RestRouterTest, RegisterDeregisterRename) {
  fs::create_directories(dir_ / "wh" / "data" / "x.lance");
  RestResponse r = Post("/v1/table/x/register", R"({"id":["x"],"location":"data/x.lance"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["location"], "data/x.lance");
  ExpectError(Post("/v1/table/y/register", R"({"id":["y"]})"), 400, 13, "register without location");
  ExpectError(Post("/v1/table/y/register", R"({"location":"../outside.lance"})"), 400, 13, "register outside");
  ExpectError(Post("/v1/table/y/register", R"({"location":"/etc"})"), 400, 13, "register absolute outside");
  ExpectError(Post("/v1/table/y/register", R"({"location":"s3://bucket/t"})"), 400, 13, "register other store");
  ExpectError(Post("/v1/table/y/register", R"({"location":"file://)" + root_ + R"("})"), 400, 13, "register root");
  r = Post("/v1/table/y/register", R"({"location":"file://)" + root_ + R"(/data/y.lance"})");
  EXPECT_EQ(r.status, 200) << r.body;

  r = Post("/v1/table/x/rename", R"({"id":["x"],"new_table_name":"x2"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r), Json::object());
  EXPECT_EQ(Tables(), (std::vector<std::string>{"x2", "y"}));
  ExpectError(Post("/v1/table/x2/rename", R"({"new_table_name":"../evil"})"), 400, 13, "rename to traversal");
  ExpectError(Post("/v1/table/x2/rename", R"({"new_table_name":"y"})"), 409, 5, "rename onto existing");
  ExpectError(Post("/v1/table/x2/rename", R"({"new_table_name":"z","new_namespace_id":["nope"]})"), 404, 1,
              "rename into missing namespace");
  ExpectError(Post("/v1/table/x2/rename", R"({"new_table_name":"z","new_namespace_id":[".."]})"), 400, 13,
              "rename into traversal namespace");
  ExpectError(Post("/v1/table/x2/rename", R"({})"), 400, 13, "rename without a name");

  r = Post("/v1/table/x2/deregister", R"({"id":["x2"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["id"], Json::array({"x2"}));
  EXPECT_TRUE(fs::exists(dir_ / "wh" / "data" / "x.lance"));
  EXPECT_EQ(Tables(), std::vector<std::string>{"y"});
}

TEST_F(RestRouterTest, Namespaces) {
  RestResponse r = Post("/v1/namespace/ns1/create", R"({"id":["ns1"],"properties":{"owner":"me"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Body(r)["properties"], Json({{"owner", "me"}}));
  ExpectError(Post("/v1/namespace/ns1/create", R"({"id":["ns1"]})"), 409, 2, "create twice");
  for (const char* mode : {"ExistOk", "exist_ok", "EXISTOK"}) {
    r = Post("/v1/namespace/x/create", std::string(R"({"id":["x"],"mode":")") + mode + "\"}");
    EXPECT_EQ(r.status, 201) << mode << r.body;
  }
  ExpectError(Post("/v1/namespace/q/create", R"({"mode":"Sometimes"})"), 400, 13, "bad mode");
  ExpectError(Post("/v1/namespace/q/create", R"({"properties":{"k":1}})"), 400, 13, "non-string property");
  ExpectError(Post("/v1/namespace/q/create", R"({"properties":[1]})"), 400, 13, "properties not a map");

  r = Get("/v1/namespace/%24/list");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["namespaces"], Json::array({"ns1", "x"}));
  r = Post("/v1/namespace/ns1/describe", R"({"id":["ns1"]})");
  EXPECT_EQ(Body(r)["properties"], Json({{"owner", "me"}}));
  ExpectError(Post("/v1/namespace/zz/describe", R"({"id":["zz"]})"), 404, 1, "describe missing");
  // The root: the delimiter as the path, an empty list in the body.
  r = Post("/v1/namespace/%24/describe", R"({"id":[]})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Post("/v1/namespace/%24/exists", R"({"id":[]})").status, 200);
  ExpectError(Post("/v1/namespace/%24/drop", R"({"id":[]})"), 400, 13, "drop root");

  // Nested.
  ASSERT_EQ(Post("/v1/namespace/ns1%24sub/create", R"({"id":["ns1","sub"]})").status, 201);
  r = Get("/v1/namespace/ns1/list");
  EXPECT_EQ(Body(r)["namespaces"], Json::array({"sub"}));
  ExpectError(Post("/v1/namespace/nope%24sub/create", R"({"id":["nope","sub"]})"), 404, 1, "parent missing");
  ASSERT_EQ(Post("/v1/table/ns1%24t2/declare", R"({"id":["ns1","t2"]})").status, 201);
  EXPECT_EQ(Tables("ns1"), std::vector<std::string>{"t2"});
  r = Post("/v1/table/ns1%24t2/describe", R"({"id":["ns1","t2"]})");
  EXPECT_EQ(Body(r)["namespace"], Json::array({"ns1"}));
  ExpectError(Get("/v1/namespace/nope/table/list"), 404, 1, "tables of a missing namespace");

  // Drop: restrict, skip, cascade.
  ExpectError(Post("/v1/namespace/ns1/drop", R"({"id":["ns1"]})"), 409, 3, "drop non-empty");
  r = Post("/v1/namespace/zz/drop", R"({"id":["zz"],"mode":"Skip"})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Body(r), Json::object());
  ExpectError(Post("/v1/namespace/zz/drop", R"({"id":["zz"],"mode":"Fail"})"), 404, 1, "drop missing");
  ExpectError(Post("/v1/namespace/zz/drop", R"({"behavior":"Sideways"})"), 400, 13, "bad behavior");
  EXPECT_EQ(Post("/v1/namespace/ns1/drop", R"({"id":["ns1"],"behavior":"Cascade"})").status, 200);
  ExpectError(Post("/v1/namespace/ns1/exists", R"({"id":["ns1"]})"), 404, 1, "exists after drop");
  EXPECT_EQ(Body(Get("/v1/namespace/%24/list"))["namespaces"], Json::array({"x"}));
}

TEST_F(RestRouterTest, Pagination) {
  for (const char* t : {"c", "a", "b"}) ASSERT_EQ(Post(std::string("/v1/table/") + t + "/declare", "{}").status, 201);
  RestResponse r = Get("/v1/namespace/%24/table/list", "delimiter=%24&limit=1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["tables"], Json::array({"a"}));
  const std::string token = Body(r)["page_token"];
  EXPECT_EQ(Tables("%24", "&page_token=" + token), (std::vector<std::string>{"b", "c"}));
  // tableNames({startAfter}) sends the name itself.
  EXPECT_EQ(Tables("%24", "&page_token=b"), std::vector<std::string>{"c"});
  r = Get("/v1/namespace/%24/table/list", "delimiter=%24&limit=5");
  EXPECT_FALSE(Body(r).contains("page_token"));  // the end
  ExpectError(Get("/v1/namespace/%24/table/list", "limit=abc"), 400, 13, "bad limit");
  ExpectError(Get("/v1/namespace/%24/table/list", "limit=-1"), 400, 13, "negative limit");
  ExpectError(Get("/v1/namespace/%24/list", "limit=99999999999"), 400, 13, "huge limit");
  EXPECT_EQ(Tables("%24", "&limit=0").size(), 0u);
}

TEST_F(RestRouterTest, PathEncodingAndDelimiter) {
  // A space arrives as '+', UTF-8 as %XX; both decode to the name the body repeats.
  RestResponse r = Post("/v1/namespace/a+b/create", R"({"id":["a b"]})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Body(Get("/v1/namespace/%24/list"))["namespaces"], Json::array({"a b"}));
  r = Post("/v1/namespace/%C3%BC/create", "{\"id\":[\"\xC3\xBC\"]}");
  EXPECT_EQ(r.status, 201) << r.body;
  ASSERT_EQ(Post("/v1/table/a%20b%24t/declare", R"({"id":["a b","t"]})").status, 201);
  EXPECT_EQ(Tables("a+b"), std::vector<std::string>{"t"});
  // A name holding the delimiter: the path splits it, the body does not; the spec says 400.
  ExpectError(Post("/v1/table/a%24b/declare", R"({"id":["a$b"]})"), 400, 13, "a$b");
  // Another delimiter: '.' (non-root ids; the root '.' never arrives intact).
  ASSERT_EQ(Post("/v1/namespace/n1/create", "{}").status, 201);
  r = Post("/v1/table/n1.t2/declare", R"({"id":["n1","t2"]})", "delimiter=.");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Body(r)["location"], root_ + "/n1$t2.lance");
  r = Post("/v1/table/n1%2Et2/describe", R"({"id":["n1","t2"]})", "delimiter=%2E");
  EXPECT_EQ(r.status, 200) << r.body;
  // No delimiter query: '$'.
  EXPECT_EQ(Send("POST", "/v1/table/n1%24t2/describe", "", "{}").status, 200);
  // A body id that differs in any way.
  ExpectError(Post("/v1/table/n1%24t2/describe", R"({"id":["n1"]})"), 400, 13, "shorter body id");
  ExpectError(Post("/v1/table/n1%24t2/describe", R"({"id":"n1$t2"})"), 400, 13, "string body id");
  ExpectError(Post("/v1/table/n1%24t2/describe", R"({"id":["n1",2]})"), 400, 13, "non-string part");
  ExpectError(Post("/v1/namespace//create", R"({"id":[""]})"), 400, 13, "empty name");
  // Bad escapes.
  ExpectError(Post("/v1/table/a%zz/declare", "{}"), 400, 13, "bad escape");
  ExpectError(Post("/v1/table/a%2/declare", "{}"), 400, 13, "truncated escape");
  ExpectError(Post("/v1/table/t/declare", "{}", "delimiter=%"), 400, 13, "bad query escape");
  // The trailing-slash base URI ("//v1/...") and a trailing slash.
  EXPECT_EQ(Send("POST", "//v1/table/n1%24t2/describe", "", "{}").status, 200);
  EXPECT_EQ(Send("POST", "/v1/table/n1%24t2/describe/", "", "{}").status, 200);
}

TEST_F(RestRouterTest, TraversalRefused) {
  fs::create_directories(dir_ / "outside");
  const std::vector<std::string> segments = {
      "..",    ".",          "%2E%2E",       "%2e%2e",    "%252e%252e",   "..%2F..%2Fetc", "a%2Fb",  "%2Fetc",
      "a%5Cb", "%5C..%5C..", "a%00b",        "%00",       "a%0Ab",        "%1B",           "%7F",    "%25",
      "%252F", "%FF",        "%C0%AE%C0%AE", "%ED%A0%80", "%F4%90%80%80", "..%24x",        "x%24..", "%2E%2E%24t",
  };
  for (const std::string& seg : segments) {
    ExpectError(Post("/v1/table/" + seg + "/declare", "{}"), 400, 13, "declare " + seg);
    ExpectError(Post("/v1/namespace/" + seg + "/create", "{}"), 400, 13, "create ns " + seg);
    ExpectError(Get("/v1/namespace/" + seg + "/table/list"), 400, 13, "list " + seg);
    ExpectError(Post("/v1/table/ok%24" + seg + "/describe", "{}"), 400, 13, "nested " + seg);
  }
  // The same names in the body id (the path must then carry them too).
  ExpectError(Post("/v1/table/../declare", R"({"id":[".."]})"), 400, 13, "body ..");
  ExpectError(Post("/v1/table/%2Fetc%2Fpasswd/declare", R"({"id":["/etc/passwd"]})"), 400, 13, "absolute");
  ExpectError(Post("/v1/table/a%5Cb/declare", R"({"id":["a\\b"]})"), 400, 13, "backslash body");
  ExpectError(Post("/v1/table/a%00b/declare", R"({"id":["a\u0000b"]})"), 400, 13, "NUL body");
  ExpectError(Post("/v1/table/" + std::string(256, 'x') + "/declare", "{}"), 400, 13, "long name");
  EXPECT_EQ(Post("/v1/table/" + std::string(200, 'x') + "/declare", "{}").status, 201);
  EXPECT_EQ(Post("/v1/table/.hidden/declare", "{}").status, 201);  // a name, not a component
  EXPECT_TRUE(fs::is_empty(dir_ / "outside"));

  // A symlink inside the root that points out: the location it resolves to is refused,
  // and dropping it deletes nothing.
  fs::create_directories(dir_ / "outside" / "keep");
  fs::create_directory_symlink(dir_ / "outside", dir_ / "wh" / "evil.lance");
  ExpectError(Post("/v1/table/evil/declare", "{}"), 400, 13, "symlinked location");
  ExpectError(Post("/v1/table/evil/describe", "{}"), 400, 13, "describe symlinked");
  ExpectError(Post("/v1/table/evil/drop", "{}"), 400, 13, "drop symlinked");
  EXPECT_TRUE(fs::exists(dir_ / "outside" / "keep"));
  ExpectError(Post("/v1/table/z/register", R"({"location":"evil.lance"})"), 400, 13, "register symlinked");
}

TEST_F(RestRouterTest, Auth) {
  RestRouterOptions options;
  options.token = "s3cret-token";
  Reset(options);
  const std::string path = "/v1/namespace/%24/table/list";
  ExpectError(Send("GET", path), 401, 16, "no credentials");
  EXPECT_EQ(Send("GET", path).headers.at(0).first, "WWW-Authenticate");
  ExpectError(Send("GET", path, "", "", {{"x-api-key", "s3cret-tokeN"}}), 401, 16, "wrong key");
  ExpectError(Send("GET", path, "", "", {{"x-api-key", "s3cret-token-and-more"}}), 401, 16, "longer key");
  ExpectError(Send("GET", path, "", "", {{"x-api-key", ""}}), 401, 16, "empty key");
  ExpectError(Send("GET", path, "", "", {{"authorization", "Basic s3cret-token"}}), 401, 16, "basic");
  ExpectError(Send("GET", path, "", "", {{"authorization", "Bearer s3cret"}}), 401, 16, "short bearer");
  EXPECT_EQ(Send("GET", path, "", "", {{"x-api-key", "s3cret-token"}}).status, 200);
  EXPECT_EQ(Send("GET", path, "", "", {{"X-Api-Key", "s3cret-token"}}).status, 200);
  EXPECT_EQ(Send("GET", path, "", "", {{"Authorization", "Bearer s3cret-token"}}).status, 200);
  EXPECT_EQ(Send("GET", path, "", "", {{"authorization", "bearer s3cret-token"}}).status, 200);
  EXPECT_EQ(Send("GET", path, "", "", {{"x-api-key", "wrong"}, {"authorization", "Bearer s3cret-token"}}).status, 200);
  // Checked before routing and before the body: no route or size is revealed.
  ExpectError(Send("GET", "/nothing"), 401, 16, "unknown route");
  ExpectError(Send("POST", "/v1/table/t/declare", "", std::string(17 << 20, ' ')), 401, 16, "huge body");
  // The error never echoes a presented secret.
  EXPECT_EQ(Send("GET", path, "", "", {{"x-api-key", "presented-guess"}}).body.find("presented-guess"),
            std::string::npos);

  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abd", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("ab", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abcd", "abc"));
  EXPECT_FALSE(ConstantTimeEquals(std::string_view("ab\0", 3), "ab"));
}

TEST_F(RestRouterTest, BodyLimits) {
  RestRouterOptions options;
  options.max_body_bytes = 1024;
  options.max_json_depth = 8;
  Reset(options);
  ExpectError(Post("/v1/table/t/declare", std::string(1025, ' ')), 413, 13, "body over the limit");
  EXPECT_EQ(Post("/v1/table/t/declare", "{}" + std::string(1022, ' ')).status, 201);
  // Depth: {"properties":{"k":[[[...]]]}} with the arrays counted.
  auto nested = [](int depth) {
    std::string s(depth, '[');
    return R"({"x":)" + s + std::string(depth, ']') + "}";
  };
  EXPECT_EQ(Post("/v1/table/t/exists", nested(7)).status, 200);
  ExpectError(Post("/v1/table/t/exists", nested(8)), 400, 13, "too deep");
  ExpectError(Post("/v1/table/t/exists", "{\"x\":" + std::string(900, '{')), 400, 13, "deep and unterminated");
  // Brackets inside strings do not count.
  EXPECT_EQ(Post("/v1/table/t/exists", R"({"x":"[[[[[[[[[[[[[[[[[[[[\"[[[["})").status, 200);
  ExpectError(Post("/v1/table/t/exists", "{\"id\":"), 400, 13, "malformed");
  ExpectError(Post("/v1/table/t/exists", "[1,2]"), 400, 13, "not an object");
  ExpectError(Post("/v1/table/t/exists", "\"t\""), 400, 13, "a string");
  ExpectError(Post("/v1/table/t/exists", "{\"id\":[\"t\"]} trailing"), 400, 13, "trailing garbage");
  ExpectError(Post("/v1/table/t/exists", "{\"id\":[\"\xFF\"]}"), 400, 13, "invalid UTF-8 in JSON");
  EXPECT_EQ(Post("/v1/table/t/exists", "null").status, 200);  // what the client sends to version/list
  EXPECT_EQ(Post("/v1/table/t/exists", " \n").status, 200);
}

TEST_F(RestRouterTest, RoutesAndMethods) {
  ExpectError(Get("/"), 404, 0, "root");
  ExpectError(Get("/v2/namespace/%24/list"), 404, 0, "other version");
  ExpectError(Get("/v1/namespace/%24/list/more"), 404, 0, "extra segment");
  ExpectError(Get("/v1/namespace/%24/table/other"), 404, 0, "table/other");
  ExpectError(Post("/v1/namespace/x/bogus", "{}"), 404, 0, "unknown namespace action");
  ExpectError(Post("/v1/table/t/bogus", "{}"), 404, 0, "unknown table action");
  ExpectError(Post("/v1/namespace/%24/list", "{}"), 405, 0, "POST list");
  ExpectError(Get("/v1/table/t/describe"), 405, 0, "GET describe");
  ExpectError(Send("DELETE", "/v1/table/t/drop"), 405, 0, "DELETE");
  ExpectError(Post("/v1/table/%24/declare", R"({"id":[]})"), 400, 13, "a table at the root id");
}

TEST_F(RestRouterTest, HttpStatusesOfCodes) {
  EXPECT_EQ(HttpStatusForCode(0), 406);
  for (int c : {1, 4, 6, 8, 10, 11, 12, 22}) EXPECT_EQ(HttpStatusForCode(c), 404) << c;
  for (int c : {2, 3, 5, 7, 9, 14, 19, 23}) EXPECT_EQ(HttpStatusForCode(c), 409) << c;
  for (int c : {13, 20}) EXPECT_EQ(HttpStatusForCode(c), 400) << c;
  EXPECT_EQ(HttpStatusForCode(15), 403);
  EXPECT_EQ(HttpStatusForCode(16), 401);
  EXPECT_EQ(HttpStatusForCode(17), 503);
  EXPECT_EQ(HttpStatusForCode(18), 500);
  EXPECT_EQ(HttpStatusForCode(21), 429);
  EXPECT_EQ(HttpStatusForCode(99), 500);
}

Field Col(const std::string& name, TypeId type) {
  Field f;
  f.name = name;
  f.type = MakeType(type);
  return f;
}

// Rows {id int64, name utf8} for the data routes.
RecordBatch Rows(const std::string& ids, const std::string& names) {
  Schema schema;
  schema.fields = {Col("id", TypeId::kInt64), Col("name", TypeId::kUtf8)};
  auto id = ArrayFromJson(schema.fields[0].type, ids);
  auto name = ArrayFromJson(schema.fields[1].type, names);
  EXPECT_TRUE(id.ok() && name.ok());
  return RecordBatch{schema, static_cast<int64_t>(id->length), {*id, *name}};
}

// A streamed answer gathered into one string.
std::string Drain(const RestResponse& r) {
  std::string out;
  EXPECT_TRUE(r.stream) << r.body;
  if (r.stream) {
    EXPECT_TRUE(r.stream([&](std::string_view chunk) { return out.append(chunk), true; }));
  }
  return out;
}

TEST_F(RestRouterTest, DataRoutes) {
  const RecordBatch rows = Rows("[1, 2, 3]", R"(["a", "b", null])");
  ASSERT_TRUE(table::WriteDataset(root_ + "/d.lance", rows.schema, {rows}).ok());
  ASSERT_EQ(Post("/v1/table/d/register", R"({"location":"d.lance"})").status, 200);

  // count_rows: POST (spec) and GET (the reference's client), a bare integer.
  RestResponse r = Post("/v1/table/d/count_rows", R"({"id":["d"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "3");
  EXPECT_EQ(Post("/v1/table/d/count_rows", R"({"predicate":"id > 1"})").body, "2");
  EXPECT_EQ(Get("/v1/table/d/count_rows", "predicate=id+%3E+2").body, "1");
  ExpectError(Post("/v1/table/d/count_rows", R"({"predicate":"nope > 1"})"), 400, 13, "bad predicate");
  ExpectError(Post("/v1/table/d/count_rows", R"({"version":-1})"), 400, 13, "negative version");
  ExpectError(Post("/v1/table/d/count_rows", R"({"version":99})"), 404, 4, "missing version");
  ExpectError(Post("/v1/table/zz/count_rows", "{}"), 404, 4, "missing table");
  ASSERT_EQ(Post("/v1/table/e/declare", "{}").status, 201);
  ExpectError(Post("/v1/table/e/count_rows", "{}"), 404, 4, "declared, no data");

  // query: an Arrow IPC stream of what the scan gives.
  r = Post("/v1/table/d/query", R"({"filter":"id > 1","columns":["name","id"],"k":10})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/vnd.apache.arrow.stream");
  auto got = format::ReadIpcStreamData(Buffer::Copy(std::string_view(Drain(r))));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->schema.fields.size(), 2u);
  EXPECT_EQ(got->schema.fields[0].name, "name");
  int64_t n = 0;
  for (const auto& b : got->batches) n += b.num_rows;
  EXPECT_EQ(n, 2);
  r = Post("/v1/table/d/query", R"({"columns":{"column_names":["id"]},"k":1,"offset":1,"with_row_id":true})");
  got = format::ReadIpcStreamData(Buffer::Copy(std::string_view(Drain(r))));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->schema.fields.size(), 2u);  // id, _rowid
  EXPECT_EQ(got->batches.at(0).num_rows, 1);
  ExpectError(Post("/v1/table/d/query", R"({"filter":"id >"})"), 400, 13, "bad filter");
  ExpectError(Post("/v1/table/d/query", R"({"columns":["nope"]})"), 400, 13, "bad column");
  ExpectError(Post("/v1/table/d/query", R"({"vector":[1.0,2.0],"k":3})"), 406, 0, "vector search");
  ExpectError(Post("/v1/table/d/query", R"({"k":"ten"})"), 400, 13, "k not a number");
  // A client that goes away mid-stream stops the scan.
  r = Post("/v1/table/d/query", "{}");
  EXPECT_FALSE(r.stream([](std::string_view) { return false; }));

  // insert: an Arrow IPC stream body, appended or overwriting.
  const RecordBatch more = Rows("[4, 5]", R"(["d", "e"])");
  auto ipc = format::WriteIpcStream(more.schema, {more});
  ASSERT_TRUE(ipc.ok());
  const std::string ipc_body(reinterpret_cast<const char*>((*ipc)->data()), (*ipc)->size());
  r = Post("/v1/table/d/insert", ipc_body, "delimiter=%24&mode=Append");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["num_inserted_rows"], 2);
  EXPECT_EQ(Body(r)["version"], 2);
  EXPECT_EQ(Post("/v1/table/d/count_rows", "{}").body, "5");
  EXPECT_EQ(Post("/v1/table/d/count_rows", R"({"version":1})").body, "3");
  r = Post("/v1/table/d/insert", ipc_body, "mode=overwrite");
  EXPECT_EQ(Body(r)["version"], 3);
  EXPECT_EQ(Post("/v1/table/d/count_rows", "{}").body, "2");
  ExpectError(Post("/v1/table/d/insert", "not arrow"), 400, 13, "not IPC");
  ExpectError(Post("/v1/table/d/insert", ipc_body, "mode=merge"), 400, 13, "bad mode");
  const RecordBatch other = Rows("[1]", R"(["x"])");
  Schema wrong;
  wrong.fields = {Col("other", TypeId::kInt64)};
  auto bad = format::WriteIpcStream(wrong, {RecordBatch{wrong, 1, {other.columns[0]}}});
  ExpectError(Post("/v1/table/d/insert", std::string(reinterpret_cast<const char*>((*bad)->data()), (*bad)->size())),
              400, 13, "other schema");
  // Into a table only declared: the first insert creates its data.
  r = Post("/v1/table/e/insert", ipc_body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Post("/v1/table/e/count_rows", "{}").body, "2");
  EXPECT_TRUE(fs::exists(dir_ / "wh" / "e.lance" / "_versions"));

  // describe with load_detailed_metadata: version and schema.
  r = Post("/v1/table/d/describe", "{}", "load_detailed_metadata=true");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["version"], 3);
  EXPECT_EQ(Body(r)["schema"]["fields"][0]["name"], "id");
  EXPECT_EQ(Body(r)["schema"]["fields"][0]["type"]["type"], "int64");
  EXPECT_FALSE(Body(Post("/v1/table/d/describe", "{}")).contains("version"));
}

TEST(ValidateNameTest, Names) {
  for (const char* ok : {"t1", "a b", "t-1.x", "\xC3\xBC", ".hidden", "a..b", "UPPER_case"}) {
    EXPECT_TRUE(ValidateWireName(ok).ok()) << ok;
  }
  for (std::string bad : {"", ".", "..", "a/b", "a\\b", "a%2e", "a$b", "a\tb", "\x7F", "\xC3", "\xC0\xAF"}) {
    Status st = ValidateWireName(bad);
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_EQ(ErrorCodeOf(st), ErrorCode::kInvalidInput) << bad;
  }
  EXPECT_FALSE(ValidateWireName(std::string("a\0b", 3)).ok());
}

TEST(PercentDecodeTest, Decodes) {
  EXPECT_EQ(*PercentDecode("a+b%24c%2f", true), "a b$c/");
  EXPECT_EQ(*PercentDecode("a+b", false), "a+b");
  EXPECT_EQ(*PercentDecode("%252e", true), "%2e");  // once only
  EXPECT_FALSE(PercentDecode("%", true).ok());
  EXPECT_FALSE(PercentDecode("%4", true).ok());
  EXPECT_FALSE(PercentDecode("%g0", true).ok());
}

}  // namespace
}  // namespace lancet::catalog
