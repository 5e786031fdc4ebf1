// The Iceberg REST Catalog read routes of the router over a directory namespace holding a
// Lance table and an Iceberg table: config, namespaces (nested via %1F, HEAD, pages),
// table lists, loading each kind, the spec's error bodies, read-only methods and auth.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "lancet/catalog/dir_namespace.h"
#include "lancet/catalog/rest_router.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::catalog {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

class RestIcebergTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (fs::temp_directory_path() / ("lancet_resticeberg_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    fs::remove_all(root_);
    fs::create_directories(root_);
    ASSERT_OK_AND_ASSIGN(auto dir, DirectoryNamespace::Open(root_));
    ns_ = std::shared_ptr<Namespace>(std::move(dir));
    ASSERT_OK(ns_->CreateNamespace({"db"}, CreateMode::kCreate, {{"owner", "ops"}}).status());
    ASSERT_OK(ns_->CreateNamespace({"db", "inner"}, CreateMode::kCreate, {}).status());
    ASSERT_OK(ns_->CreateNamespace({"other"}, CreateMode::kCreate, {}).status());

    ASSERT_OK_AND_ASSIGN(TableInfo lance, ns_->DeclareTable({"db", "lt"}, {}));
    RecordBatch batch;
    batch.schema.fields.push_back(MakeField("x", MakeType(TypeId::kInt64)));
    batch.num_rows = 3;
    batch.columns.push_back(*ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{1, 2, 3}));
    ASSERT_OK(table::WriteDataset(lance.location, batch.schema, {batch}, {}).status());
    lance_dir_ = lance.location;

    // An Iceberg table as `lancet iceberg export` lays one out (only what loading reads).
    ice_dir_ = root_ + "/ice";
    fs::create_directories(ice_dir_ + "/metadata");
    std::ofstream(ice_dir_ + "/metadata/version-hint.text") << "2\n";
    ice_metadata_ = Json{{"format-version", 2},
                         {"table-uuid", "6f1c9a5e-0000-4000-8000-000000000001"},
                         {"location", "file://" + ice_dir_},
                         {"current-snapshot-id", 7}};
    std::ofstream(ice_dir_ + "/metadata/v2.metadata.json") << ice_metadata_.dump();
    ASSERT_OK(ns_->RegisterTable({"db", "it"}, ice_dir_, {}).status());
    Reset("");
  }
  void TearDown() override { fs::remove_all(root_); }

  void Reset(const std::string& token) {
    RestRouterOptions options;
    options.location_root = root_;
    options.token = token;
    router_ = std::make_unique<RestRouter>(ns_, options);
  }

  RestResponse Send(const std::string& method, const std::string& path, const std::string& query = "",
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
    RestRequest r;
    r.method = method;
    r.path = path;
    r.query = query;
    r.headers = std::move(headers);
    return router_->Handle(r);
  }
  static Json Body(const RestResponse& r) {
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body;
    return j;
  }
  static void ExpectError(const RestResponse& r, int status, const std::string& type) {
    EXPECT_EQ(r.status, status) << r.body;
    const Json body = Body(r);
    EXPECT_EQ(body["error"]["code"], status) << r.body;
    EXPECT_EQ(body["error"]["type"], type) << r.body;
    EXPECT_TRUE(body["error"]["message"].is_string()) << r.body;
  }

  std::string root_, lance_dir_, ice_dir_;
  Json ice_metadata_;
  std::shared_ptr<Namespace> ns_;
  std::unique_ptr<RestRouter> router_;
};

TEST_F(RestIcebergTest, ConfigAndNamespaces) {
  RestResponse r = Send("GET", "/v1/config", "warehouse=wh");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["overrides"]["prefix"], "iceberg");
  EXPECT_FALSE(Body(r)["endpoints"].empty());

  r = Send("GET", "/v1/iceberg/namespaces");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["namespaces"], Json::parse(R"([["db"],["other"]])"));
  r = Send("GET", "/v1/iceberg/namespaces", "parent=db");
  EXPECT_EQ(Body(r)["namespaces"], Json::parse(R"([["db","inner"]])"));
  // Without the prefix, and nested ids joined by the unit separator.
  r = Send("GET", "/v1/namespaces/db%1Finner");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["namespace"], Json::parse(R"(["db","inner"])"));
  r = Send("GET", "/v1/iceberg/namespaces/db");
  EXPECT_EQ(Body(r)["properties"]["owner"], "ops");
  EXPECT_EQ(Send("HEAD", "/v1/iceberg/namespaces/db").status, 204);
  ExpectError(Send("HEAD", "/v1/iceberg/namespaces/nope"), 404, "NoSuchNamespaceException");
  ExpectError(Send("GET", "/v1/iceberg/namespaces/nope"), 404, "NoSuchNamespaceException");
  ExpectError(Send("GET", "/v1/iceberg/namespaces/..%1Fx"), 400, "BadRequestException");

  r = Send("GET", "/v1/iceberg/namespaces", "pageSize=1");
  EXPECT_EQ(Body(r)["namespaces"], Json::parse(R"([["db"]])"));
  ASSERT_TRUE(Body(r)["next-page-token"].is_string()) << r.body;
  r = Send("GET", "/v1/iceberg/namespaces", "pageSize=1&pageToken=" + Body(r)["next-page-token"].get<std::string>());
  EXPECT_EQ(Body(r)["namespaces"], Json::parse(R"([["other"]])"));
  ExpectError(Send("GET", "/v1/iceberg/namespaces", "pageSize=x"), 400, "BadRequestException");
  // The query string is decoded as the Lance routes decode theirs.
  ExpectError(Send("GET", "/v1/iceberg/namespaces", "parent=%2"), 400, "BadRequestException");
}

TEST_F(RestIcebergTest, TablesOfBothKinds) {
  RestResponse r = Send("GET", "/v1/iceberg/namespaces/db/tables");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["identifiers"],
            Json::parse(R"([{"namespace":["db"],"name":"it"},{"namespace":["db"],"name":"lt"}])"));

  r = Send("GET", "/v1/iceberg/namespaces/db/tables/it");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["metadata-location"], "file://" + ice_dir_ + "/metadata/v2.metadata.json");
  EXPECT_EQ(Body(r)["metadata"], ice_metadata_);

  r = Send("GET", "/v1/iceberg/namespaces/db/tables/lt");
  ASSERT_EQ(r.status, 200) << r.body;
  const Json lance = Body(r);
  EXPECT_TRUE(lance["metadata-location"].is_null());
  EXPECT_EQ(lance["metadata"]["properties"]["table_type"], "lance");
  EXPECT_EQ(lance["metadata"]["properties"]["lance.version"], "1");
  EXPECT_EQ(lance["metadata"]["location"], "file://" + lance_dir_);
  EXPECT_EQ(lance["metadata"]["current-snapshot-id"], -1);
  EXPECT_EQ(lance["metadata"]["schemas"][0]["fields"][0]["name"], "dummy");
  EXPECT_EQ(lance["metadata"]["table-uuid"].get<std::string>().size(), 36u);

  EXPECT_EQ(Send("HEAD", "/v1/iceberg/namespaces/db/tables/lt").status, 204);
  ExpectError(Send("HEAD", "/v1/iceberg/namespaces/db/tables/nope"), 404, "NoSuchTableException");
  ExpectError(Send("GET", "/v1/iceberg/namespaces/db/tables/nope"), 404, "NoSuchTableException");
  ExpectError(Send("GET", "/v1/iceberg/namespaces/db/tables/..%2Fx"), 400, "BadRequestException");
  ExpectError(Send("POST", "/v1/iceberg/namespaces/db/tables"), 405, "UnsupportedOperationException");
  ExpectError(Send("DELETE", "/v1/iceberg/namespaces/db/tables/lt"), 405, "UnsupportedOperationException");
  EXPECT_TRUE(fs::exists(lance_dir_));

  // A broken hint is the server's problem, reported, not a crash.
  std::ofstream(ice_dir_ + "/metadata/version-hint.text") << "two";
  ExpectError(Send("GET", "/v1/iceberg/namespaces/db/tables/it"), 500, "InternalServerError");
}

TEST_F(RestIcebergTest, TokenGuardsIcebergRoutesToo) {
  Reset("sekret");
  EXPECT_EQ(Send("GET", "/v1/iceberg/namespaces").status, 401);
  EXPECT_EQ(Send("GET", "/v1/iceberg/namespaces", "", {{"Authorization", "Bearer sekret"}}).status, 200);
}

}  // namespace
}  // namespace lancet::catalog
