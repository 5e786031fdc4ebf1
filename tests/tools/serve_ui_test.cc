// The routes of `lancet serve --ui` (UiRoutes) called directly: the page's files, the
// JSON answers, and above all what bad or hostile requests get (4xx JSON, never a crash
// or a served file that could run as the page). The browser itself: tests/ui/.
#include "lancet/serve_ui.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

class ServeUiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("root");
    std::vector<int64_t> ids;
    std::vector<std::optional<std::string>> names;
    for (int64_t i = 0; i < 100; ++i) {
      ids.push_back(i);
      names.push_back("n" + std::to_string(i));
    }
    ASSERT_OK_AND_ASSIGN(Array id, ArrayFromVector(MakeType(TypeId::kInt64), ids));
    ASSERT_OK_AND_ASSIGN(RecordBatch batch, MakeRecordBatch({"id", "name"}, {id, StringArray(names)}));
    ASSERT_OK(table::WriteDataset(root_ + "/t.lance", batch.schema, {batch}, {}).status());
    // Row 0 sniffs as PNG; row 1 is markup that must never be served as a page.
    std::filesystem::create_directories(dir_.Join("files"));
    WriteTextFile(dir_.Join("files/a.png"), std::string("\x89PNG\r\n\x1a\n", 8) + "not really pixels");
    WriteTextFile(dir_.Join("files/b.html"), "<script>alert(1)</script>");
    ASSERT_EQ(RunLancet({"ingest", dir_.Join("files"), root_ + "/files.lance", "--column", "data"}), 0);
    Open({});
  }

  void Open(UiOptions options) {
    ASSERT_OK_AND_ASSIGN(auto ns, catalog::OpenNamespace(root_));
    routes_ = std::make_unique<UiRoutes>(std::shared_ptr<catalog::Namespace>(std::move(ns)), std::move(options));
  }

  catalog::RestResponse Get(const std::string& path, const std::string& query = {},
                            std::vector<std::pair<std::string, std::string>> headers = {}) {
    catalog::RestRequest request;
    request.method = "GET";
    request.path = path;
    request.query = query;
    request.headers = std::move(headers);
    auto answer = routes_->Handle(request);
    EXPECT_TRUE(answer.has_value()) << path;
    return answer ? std::move(*answer) : catalog::RestResponse{};
  }

  // The status of an API call, with its JSON error checked to be there when it failed.
  int Code(const std::string& route, const std::string& query) {
    catalog::RestResponse r = Get("/ui/api/" + route, query);
    if (r.status != 200) {
      EXPECT_EQ(r.content_type, "application/json") << route << "?" << query;
      EXPECT_TRUE(nlohmann::json::parse(r.body, nullptr, false).contains("error")) << r.body;
    }
    return r.status;
  }

  nlohmann::json Json(const std::string& route, const std::string& query) {
    catalog::RestResponse r = Get("/ui/api/" + route, query);
    EXPECT_EQ(r.status, 200) << route << "?" << query << ": " << r.body;
    return nlohmann::json::parse(r.body, nullptr, false);
  }

  ScopedTempDir dir_;
  std::string root_;
  std::unique_ptr<UiRoutes> routes_;
};

TEST_F(ServeUiTest, PageAndRedirects) {
  catalog::RestRequest other;
  other.method = "GET";
  other.path = "/v1/namespace/%24/list";
  EXPECT_FALSE(routes_->Handle(other).has_value());  // the REST routes stay the router's
  for (const char* path : {"/", "/ui"}) {
    catalog::RestResponse r = Get(path);
    EXPECT_EQ(r.status, 302);
    ASSERT_EQ(r.headers.size(), 1u);
    EXPECT_EQ(r.headers[0].second, "/ui/");
  }
  catalog::RestResponse page = Get("/ui/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("app.js"), std::string::npos);
  bool csp = false;
  for (const auto& [k, v] : page.headers) csp = csp || k == "Content-Security-Policy";
  EXPECT_TRUE(csp);
  EXPECT_EQ(Get("/ui/app.js").content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(Get("/ui/app.css").status, 200);
  EXPECT_EQ(Get("/ui/../etc/passwd").status, 404);
  EXPECT_EQ(Get("/ui/api/nothing").status, 404);
}

TEST_F(ServeUiTest, TablesTableAndRows) {
  nlohmann::json tables = Json("tables", "");
  ASSERT_EQ(tables["tables"].size(), 2u);
  EXPECT_EQ(tables["tables"][0]["id"], "files");
  EXPECT_EQ(tables["tables"][1]["id"], "t");

  nlohmann::json info = Json("table", "table=t");
  EXPECT_EQ(info["rows"], 100);
  EXPECT_EQ(info["fields"][0]["name"], "id");
  EXPECT_EQ(info["versions"].size(), 1u);

  nlohmann::json rows = Json("rows", "table=t&where=id+%3E%3D+90&offset=2&limit=3");
  EXPECT_EQ(rows["total"], 10);
  ASSERT_EQ(rows["rows"].size(), 3u);
  EXPECT_EQ(rows["rows"][0]["_rowid"], "92");
  EXPECT_EQ(rows["rows"][0]["values"][1], "n92");
  EXPECT_EQ(Json("rows", "table=t&limit=0")["rows"].size(), 0u);

  nlohmann::json files = Json("rows", "table=files");
  ASSERT_EQ(files["rows"].size(), 2u);
  EXPECT_EQ(files["rows"][0]["values"][3]["blob"], true);
}

TEST_F(ServeUiTest, NestedNamespaces) {
  ASSERT_OK_AND_ASSIGN(auto ns, catalog::OpenNamespace(root_));
  ASSERT_OK(ns->CreateNamespace({"ns1"}, catalog::CreateMode::kCreate, {}).status());
  ASSERT_OK_AND_ASSIGN(catalog::TableInfo t2, ns->DeclareTable({"ns1", "t2"}, {}));
  ASSERT_OK(ns->DeclareTable({"ns1", "empty"}, {}).status());
  ASSERT_OK_AND_ASSIGN(Array id, ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{7, 8}));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, MakeRecordBatch({"id"}, {id}));
  ASSERT_OK(table::WriteDataset(t2.location, batch.schema, {batch}, {}).status());

  nlohmann::json tables = Json("tables", "");
  std::vector<std::string> ids;
  for (const auto& t : tables["tables"]) ids.push_back(t["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"files", "t", "ns1$empty", "ns1$t2"}));
  EXPECT_EQ(Json("rows", "table=ns1%24t2")["total"], 2);
  EXPECT_EQ(Code("rows", "table=ns1%24empty"), 404);  // declared, no data yet
  EXPECT_EQ(Code("rows", "table=ns1%24nope"), 404);
  EXPECT_EQ(Code("rows", "table=ns1%24"), 400);
}

TEST_F(ServeUiTest, BadRequestsAre4xx) {
  EXPECT_EQ(Code("table", ""), 400);
  EXPECT_EQ(Code("table", "table=nope"), 404);
  EXPECT_EQ(Code("table", "table=..%2Fetc"), 400);
  EXPECT_EQ(Code("table", "table=a%24%24b"), 400);
  EXPECT_EQ(Code("table", "table=%zz"), 400);
  EXPECT_EQ(Code("table", "table=" + std::string(5000, 'x')), 400);
  EXPECT_EQ(Code("rows", "table=t&limit=100000"), 400);
  EXPECT_EQ(Code("rows", "table=t&limit=-1"), 400);
  EXPECT_EQ(Code("rows", "table=t&offset=abc"), 400);
  EXPECT_EQ(Code("rows", "table=t&offset=99999999999999999999999"), 400);
  EXPECT_EQ(Code("rows", "table=t&where=id+%3D%3D%3D"), 400);
  EXPECT_EQ(Code("rows", "table=t&where=nosuchcolumn+%3D+1"), 400);
  EXPECT_EQ(Code("rows", "table=t&offset=1000"), 200);      // past the end: no rows
  EXPECT_EQ(Code("blob", "table=files&column=data"), 400);  // no row
  EXPECT_EQ(Code("blob", "table=files&column=data&row="), 400);
  EXPECT_EQ(Code("blob", "table=files&column=path&row=0"), 400);
  EXPECT_EQ(Code("blob", "table=files&column=nope&row=0"), 404);
  EXPECT_EQ(Code("blob", "table=files&column=data&row=7"), 404);
  EXPECT_EQ(Code("blob", "table=files&column=data&row=18446744073709551615"), 404);
  EXPECT_EQ(Code("video", "table=files&column=data&row=0"), 415);
  EXPECT_EQ(Code("frame", "table=files&column=data&row=0&t=-1"), 400);
  EXPECT_EQ(Code("frame", "table=files&column=data&row=0&t=nan"), 400);
  EXPECT_EQ(Code("frame", "table=files&column=data&row=0&t=1e300"), 400);
  EXPECT_EQ(Code("frame", "table=files&column=data&row=0&width=100000"), 400);
  EXPECT_EQ(Code("frame", "table=files&column=data&row=0&width=2"), 400);
  EXPECT_EQ(Code("frame", "table=files&column=data&row=0"), 415);  // not a video
}

TEST_F(ServeUiTest, BlobsAreServedOnlyAsImages) {
  catalog::RestResponse png = Get("/ui/api/blob", "table=files&column=data&row=0");
  EXPECT_EQ(png.status, 200);
  EXPECT_EQ(png.content_type, "image/png");
  EXPECT_EQ(png.body.substr(1, 3), "PNG");
  EXPECT_EQ(Code("blob", "table=files&column=data&row=1"), 415);  // the HTML file
}

TEST_F(ServeUiTest, TokenGuardsTheApiNotThePage) {
  UiOptions options;
  options.token = "s3cret";
  Open(options);
  EXPECT_EQ(Get("/ui/").status, 200);
  EXPECT_EQ(Get("/ui/api/tables").status, 401);
  EXPECT_EQ(Get("/ui/api/tables", "", {{"x-api-key", "wrong"}}).status, 401);
  EXPECT_EQ(Get("/ui/api/tables", "token=s3cret").status, 401);  // never from the URL
  EXPECT_EQ(Get("/ui/api/tables", "", {{"X-Api-Key", "s3cret"}}).status, 200);
  EXPECT_EQ(Get("/ui/api/tables", "", {{"Authorization", "Bearer s3cret"}}).status, 200);
}

TEST_F(ServeUiTest, WithoutATokenOnlyLoopbackHostNames) {
  UiOptions options;
  options.loopback_hosts = {"127.0.0.1", "localhost", "[::1]"};
  Open(options);
  EXPECT_EQ(Get("/ui/api/tables", "", {{"Host", "127.0.0.1:2333"}}).status, 200);
  EXPECT_EQ(Get("/ui/api/tables", "", {{"host", "LOCALHOST"}}).status, 200);
  EXPECT_EQ(Get("/ui/api/tables", "", {{"Host", "[::1]:80"}}).status, 200);
  EXPECT_EQ(Get("/ui/api/tables", "", {{"Host", "rebound.example:2333"}}).status, 403);
  EXPECT_EQ(Get("/ui/api/tables", "", {{"Host", "127.0.0.1.evil:2333"}}).status, 403);
  EXPECT_EQ(Get("/ui/", "", {{"Host", "rebound.example"}}).status, 200);  // the page holds no data
  options.token = "t";
  Open(options);  // with a token the host is whatever the server is reached by
  EXPECT_EQ(Get("/ui/api/tables", "", {{"Host", "data.example"}, {"x-api-key", "t"}}).status, 200);
}

}  // namespace
}  // namespace lancet::cli
