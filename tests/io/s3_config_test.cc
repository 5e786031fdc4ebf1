// S3 settings from the environment, the AWS shared files and LanceDB-style options, and
// URI resolution. No server needed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lancet/io/s3_store.h"
#include "lancet/io/uri.h"

namespace lancet::io {
namespace {

// Clears every variable S3OptionsFrom reads, and points the shared files at a temp dir.
class S3ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v :
         {"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
          "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ALLOW_HTTP", "AWS_PROFILE", "AWS_VIRTUAL_HOSTED_STYLE_REQUEST"}) {
      ::unsetenv(v);
    }
    dir_ = std::filesystem::temp_directory_path() / ("lancet_s3cfg_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    ::setenv("AWS_SHARED_CREDENTIALS_FILE", (dir_ / "credentials").c_str(), 1);
    ::setenv("AWS_CONFIG_FILE", (dir_ / "config").c_str(), 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const char* name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::filesystem::path dir_;
};

TEST_F(S3ConfigTest, DefaultsAndEnvironment) {
  auto o = S3OptionsFrom({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->region, "us-east-1");
  EXPECT_FALSE(o->allow_http);
  ::setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1234", 1);
  ::setenv("AWS_ACCESS_KEY_ID", "AK", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "SK", 1);
  ::setenv("AWS_SESSION_TOKEN", "TOK", 1);
  ::setenv("AWS_REGION", "eu-west-3", 1);
  ::setenv("AWS_ALLOW_HTTP", "true", 1);
  o = S3OptionsFrom({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->endpoint, "http://127.0.0.1:1234");
  EXPECT_EQ(o->access_key_id, "AK");
  EXPECT_EQ(o->secret_access_key, "SK");
  EXPECT_EQ(o->session_token, "TOK");
  EXPECT_EQ(o->region, "eu-west-3");
  EXPECT_TRUE(o->allow_http);
  // Describe() is for logs: no key, secret or token.
  const std::string d = o->Describe();
  EXPECT_EQ(d.find("AK"), std::string::npos) << d;
  EXPECT_EQ(d.find("SK"), std::string::npos) << d;
  EXPECT_EQ(d.find("TOK"), std::string::npos) << d;
  ::setenv("AWS_ALLOW_HTTP", "maybe", 1);
  EXPECT_TRUE(S3OptionsFrom({}).status().IsInvalidArgument());
}

TEST_F(S3ConfigTest, ExplicitOptionsWinWithLanceDbKeys) {
  ::setenv("AWS_ACCESS_KEY_ID", "env-key", 1);
  ::setenv("AWS_REGION", "env-region", 1);
  auto o = S3OptionsFrom({{"aws_access_key_id", "opt-key"},
                          {"aws_secret_access_key", "opt-secret"},
                          {"aws_session_token", "opt-token"},
                          {"aws_endpoint", "http://h:1"},
                          {"aws_region", "opt-region"},
                          {"allow_http", "true"},
                          {"aws_virtual_hosted_style_request", "true"},
                          {"timeout", "30s"}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->access_key_id, "opt-key");
  EXPECT_EQ(o->secret_access_key, "opt-secret");
  EXPECT_EQ(o->session_token, "opt-token");
  EXPECT_EQ(o->endpoint, "http://h:1");
  EXPECT_EQ(o->region, "opt-region");
  EXPECT_TRUE(o->allow_http);
  EXPECT_TRUE(o->virtual_hosted_style);
  EXPECT_TRUE(S3OptionsFrom({{"aws_no_such_option", "1"}}).status().IsInvalidArgument());
}

TEST_F(S3ConfigTest, ProfilesFromTheSharedFiles) {
  Write("credentials",
        "[default]\naws_access_key_id = DEF\naws_secret_access_key = DEFS\n\n"
        "[work]\naws_access_key_id=WORK\naws_secret_access_key=WORKS\naws_session_token=WT\n");
  Write("config", "[default]\nregion = us-west-1\n[profile work]\nregion = ap-south-1\nendpoint_url = http://w:9\n");
  auto o = S3OptionsFrom({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->access_key_id, "DEF");
  EXPECT_EQ(o->region, "us-west-1");
  ::setenv("AWS_PROFILE", "work", 1);
  o = S3OptionsFrom({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->access_key_id, "WORK");
  EXPECT_EQ(o->secret_access_key, "WORKS");
  EXPECT_EQ(o->session_token, "WT");
  EXPECT_EQ(o->region, "ap-south-1");
  EXPECT_EQ(o->endpoint, "http://w:9");
  // Keys in the environment replace the profile's, token included.
  ::setenv("AWS_ACCESS_KEY_ID", "ENV", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "ENVS", 1);
  o = S3OptionsFrom({});
  EXPECT_EQ(o->access_key_id, "ENV");
  EXPECT_EQ(o->session_token, "");
  ::setenv("AWS_PROFILE", "missing", 1);
  EXPECT_TRUE(S3OptionsFrom({}).status().IsInvalidArgument());
}

TEST_F(S3ConfigTest, ResolveUri) {
  auto local = ResolveUri("/tmp/x.lance");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->root, "/tmp/x.lance");
  auto file = ResolveUri("file:///tmp/y.lance");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->root, "/tmp/y.lance");
  EXPECT_TRUE(ResolveUri("gs://b/x").status().IsNotSupported());
  EXPECT_TRUE(ResolveUri("file://host/x").status().IsNotSupported());
  // s3:// needs credentials; an http endpoint needs allow_http.
  EXPECT_TRUE(ResolveUri("s3://bucket/a/b.lance").status().IsInvalidArgument());
  StorageOptions opts = {{"aws_access_key_id", "k"}, {"aws_secret_access_key", "s"}, {"aws_endpoint", "http://h:1"}};
  auto refused = ResolveUri("s3://bucket/a/b.lance", opts);
  EXPECT_TRUE(refused.status().IsInvalidArgument());
  EXPECT_NE(refused.status().message().find("allow_http"), std::string::npos);
  EXPECT_EQ(refused.status().message().find("=s"), std::string::npos);
  opts["allow_http"] = "true";
  auto s3 = ResolveUri("s3://bucket/a/b.lance/", opts);
  ASSERT_TRUE(s3.ok()) << s3.status().ToString();
  EXPECT_EQ(s3->root, "a/b.lance");
  EXPECT_TRUE(IsRemoteUri("s3://bucket/a"));
  EXPECT_FALSE(IsRemoteUri("/tmp/a"));
  EXPECT_TRUE(ResolveUri("s3:///a").status().IsInvalidArgument());
}

TEST_F(S3ConfigTest, ClientTimeoutsAndRetriesFromStorageOptions) {
  auto o = S3OptionsFrom(
      {{"timeout", "1500ms"}, {"connect_timeout", "2s"}, {"client_retry_timeout", "1m"}, {"client_max_retries", "2"}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->request_timeout_ms, 1500);
  EXPECT_EQ(o->connect_timeout_ms, 2000);
  EXPECT_EQ(o->retry_budget_ms, 60000);
  EXPECT_EQ(o->max_retries, 2);
  o = S3OptionsFrom({{"timeout", "30"}, {"client_retry_timeout", "0.5 s"}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->request_timeout_ms, 30000);
  EXPECT_EQ(o->retry_budget_ms, 500);
  // The defaults: no whole-request bound, six retries within a minute.
  o = S3OptionsFrom({});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->request_timeout_ms, 0);
  EXPECT_EQ(o->max_retries, 6);
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"timeout", "soon"},
                                                                             {"timeout", "5 fortnights"},
                                                                             {"connect_timeout", "-1s"},
                                                                             {"client_max_retries", "many"},
                                                                             {"client_max_retries", "-1"},
                                                                             {"timeout", ""}}) {
    auto bad = S3OptionsFrom({{k, v}});
    EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << k << "=" << v;
    EXPECT_NE(bad.status().message().find(k), std::string::npos) << bad.status().ToString();
  }
}

}  // namespace
}  // namespace lancet::io
