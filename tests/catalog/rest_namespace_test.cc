// The REST namespace client against `lancet serve`'s server (RestServer + RestRouter over
// a directory namespace) on 127.0.0.1: every catalog call, the spec's error codes coming
// back as the same codes, pagination, auth headers, and the data routes streaming both
// ways (a query answer larger than the client's buffer, an insert of many batches, a
// stream the server breaks off).
#include "lancet/catalog/rest_namespace.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "catalog/expect_code.h"
#include "io/http_client.h"
#include "lancet/catalog/dir_namespace.h"
#include "lancet/catalog/rest_router.h"
#include "lancet/catalog/rest_server.h"
#include "lancet/table/dataset.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::catalog {
namespace {
namespace fs = std::filesystem;

RecordBatch Rows(int64_t first, int64_t count) {
  std::vector<int64_t> ids(static_cast<size_t>(count));
  std::vector<std::optional<std::string>> names(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    ids[static_cast<size_t>(i)] = first + i;
    names[static_cast<size_t>(i)] = "row-" + std::to_string(first + i) + std::string(40, 'x');
  }
  RecordBatch batch;
  batch.schema.fields.push_back(MakeField("id", MakeType(TypeId::kInt64)));
  batch.schema.fields.push_back(MakeField("name", MakeType(TypeId::kUtf8)));
  batch.num_rows = count;
  batch.columns.push_back(*ArrayFromVector(MakeType(TypeId::kInt64), ids));
  batch.columns.push_back(StringArray(names));
  return batch;
}

class RestNamespaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (fs::temp_directory_path() / ("lancet_restns_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    StopServer();
    fs::remove_all(root_);
  }

  void StartServer(const std::string& token = "", size_t max_body = size_t{16} << 20,
                   const RestServerOptions& server_options = {}) {
    auto dir = DirectoryNamespace::Open(root_);
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    RestRouterOptions options;
    options.location_root = root_;
    options.token = token;
    options.max_body_bytes = max_body;
    auto router = std::make_shared<const RestRouter>(std::shared_ptr<Namespace>(std::move(*dir)), options);
    auto server = RestServer::Bind(router, server_options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    thread_ = std::thread([this] { EXPECT_OK(server_->Run()); });
  }
  void StopServer() {
    if (!server_) return;
    server_->Stop();
    thread_.join();
    server_.reset();
  }
  std::string Uri(const char* scheme = "http") const {
    return std::string(scheme) + "://127.0.0.1:" + std::to_string(server_->port());
  }

  std::unique_ptr<RestNamespace> Client(RestNamespaceOptions options = {}) {
    auto client = RestNamespace::Open(Uri(), std::move(options));
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(*client) : nullptr;
  }

  std::string root_;
  std::unique_ptr<RestServer> server_;
  std::thread thread_;
};

TEST_F(RestNamespaceTest, NamespacesRoundTrip) {
  StartServer();
  auto ns = Client();
  ASSERT_OK_AND_ASSIGN(Properties created, ns->CreateNamespace({"a"}, CreateMode::kCreate, {{"owner", "me"}}));
  EXPECT_EQ(created.at("owner"), "me");
  ASSERT_OK(ns->CreateNamespace({"a", "b c"}, CreateMode::kCreate, {}).status());
  ASSERT_OK(ns->CreateNamespace({"z"}, CreateMode::kCreate, {}).status());
  EXPECT_CODE(ns->CreateNamespace({"a"}, CreateMode::kCreate, {}), ErrorCode::kNamespaceAlreadyExists);
  ASSERT_OK(ns->CreateNamespace({"a"}, CreateMode::kExistOk, {}).status());

  ASSERT_OK_AND_ASSIGN(Page top, ns->ListNamespaces({}, {}));
  EXPECT_EQ(top.names, (std::vector<std::string>{"a", "z"}));
  ASSERT_OK_AND_ASSIGN(Page children, ns->ListNamespaces({"a"}, {}));
  EXPECT_EQ(children.names, (std::vector<std::string>{"b c"}));
  ASSERT_OK_AND_ASSIGN(Properties described, ns->DescribeNamespace({"a"}));
  EXPECT_EQ(described.at("owner"), "me");
  EXPECT_OK(ns->NamespaceExists({"a", "b c"}));
  EXPECT_CODE(ns->NamespaceExists({"nope"}), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns->DescribeNamespace({"nope"}), ErrorCode::kNamespaceNotFound);

  EXPECT_CODE(ns->DropNamespace({"a"}, DropMode::kFail, DropBehavior::kRestrict), ErrorCode::kNamespaceNotEmpty);
  EXPECT_OK(ns->DropNamespace({"a"}, DropMode::kFail, DropBehavior::kCascade));
  EXPECT_CODE(ns->DropNamespace({"a"}, DropMode::kFail, DropBehavior::kRestrict), ErrorCode::kNamespaceNotFound);
  EXPECT_OK(ns->DropNamespace({"a"}, DropMode::kSkip, DropBehavior::kRestrict));
  ASSERT_OK_AND_ASSIGN(Page after, ns->ListNamespaces({}, {}));
  EXPECT_EQ(after.names, (std::vector<std::string>{"z"}));
}

TEST_F(RestNamespaceTest, TablesRoundTripAndPaginate) {
  StartServer();
  auto ns = Client();
  ASSERT_OK(ns->CreateNamespace({"db"}, CreateMode::kCreate, {}).status());
  for (const char* name : {"t3", "t1", "t2", "t4", "t5"}) {
    ASSERT_OK_AND_ASSIGN(TableInfo info, ns->DeclareTable({"db", name}, {}));
    EXPECT_TRUE(info.only_declared);
    EXPECT_EQ(info.location.rfind(root_, 0), 0u) << info.location;
  }
  EXPECT_CODE(ns->DeclareTable({"db", "t1"}, {}), ErrorCode::kTableAlreadyExists);

  std::vector<std::string> seen;
  PageRequest page;
  page.limit = 2;
  int pages = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(Page p, ns->ListTables({"db"}, page));
    ++pages;
    EXPECT_LE(p.names.size(), 2u);
    seen.insert(seen.end(), p.names.begin(), p.names.end());
    if (p.next_token.empty()) break;
    page.token = p.next_token;
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"t1", "t2", "t3", "t4", "t5"}));
  EXPECT_GE(pages, 3);

  ASSERT_OK_AND_ASSIGN(TableInfo described, ns->DescribeTable({"db", "t1"}));
  EXPECT_TRUE(described.only_declared);
  EXPECT_OK(ns->TableExists({"db", "t1"}));
  EXPECT_CODE(ns->TableExists({"db", "nope"}), ErrorCode::kTableNotFound);
  EXPECT_CODE(ns->DescribeTable({"nope", "t1"}), ErrorCode::kNamespaceNotFound);

  EXPECT_OK(ns->RenameTable({"db", "t1"}, {"db"}, "renamed"));
  EXPECT_CODE(ns->TableExists({"db", "t1"}), ErrorCode::kTableNotFound);
  EXPECT_OK(ns->TableExists({"db", "renamed"}));

  ASSERT_OK_AND_ASSIGN(TableInfo dropped, ns->DropTable({"db", "t2"}));
  EXPECT_FALSE(dropped.location.empty());
  EXPECT_CODE(ns->DropTable({"db", "t2"}), ErrorCode::kTableNotFound);

  auto three = MakeBatchVectorReader(Rows(0, 3).schema, {Rows(0, 3)});
  ASSERT_OK(ns->Insert({"db", "t3"}, *three).status());
  ASSERT_OK_AND_ASSIGN(TableInfo deregistered, ns->DeregisterTable({"db", "t3"}));
  EXPECT_CODE(ns->TableExists({"db", "t3"}), ErrorCode::kTableNotFound);
  ASSERT_OK_AND_ASSIGN(TableInfo registered, ns->RegisterTable({"db", "again"}, deregistered.location, {}));
  EXPECT_EQ(fs::weakly_canonical(registered.location), fs::weakly_canonical(deregistered.location));
  ASSERT_OK_AND_ASSIGN(uint64_t kept, ns->CountRows({"db", "again"}));
  EXPECT_EQ(kept, 3u);

  // Names the path cannot carry are refused before anything is sent.
  EXPECT_CODE(ns->DeclareTable({"db", "a$b"}, {}), ErrorCode::kInvalidInput);
  // The server's own checks come back as its codes.
  EXPECT_CODE(ns->DeclareTable({"db", ".."}, {}), ErrorCode::kInvalidInput);
}

TEST_F(RestNamespaceTest, DataRoutesStreamBothWays) {
  StartServer();
  auto ns = Client();
  ASSERT_OK(ns->DeclareTable({"t"}, {}).status());
  // 60 batches of 5,000 rows (~18 MB as IPC): past the server's 16 MiB body limit, which
  // a streamed insert is not held to, and more than either side buffers at once.
  std::vector<RecordBatch> batches;
  for (int b = 0; b < 60; ++b) batches.push_back(Rows(b * 5000, 5000));
  auto source = MakeBatchVectorReader(batches[0].schema, batches);
  ASSERT_OK_AND_ASSIGN(InsertResult inserted, ns->Insert({"t"}, *source));
  EXPECT_EQ(inserted.rows, 300000u);
  EXPECT_EQ(inserted.version, 1u);

  ASSERT_OK_AND_ASSIGN(uint64_t all, ns->CountRows({"t"}));
  EXPECT_EQ(all, 300000u);
  ASSERT_OK_AND_ASSIGN(uint64_t some, ns->CountRows({"t"}, "id >= 299990"));
  EXPECT_EQ(some, 10u);

  ASSERT_OK_AND_ASSIGN(auto reader, ns->Query({"t"}, TableQuery{}));
  int64_t rows = 0, sum = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    rows += batch->num_rows;
    for (int64_t i = 0; i < batch->num_rows; ++i) sum += batch->columns[0].values<int64_t>()[i];
  }
  EXPECT_EQ(rows, 300000);
  EXPECT_EQ(sum, int64_t{300000} * 299999 / 2);

  TableQuery q;
  q.filter = "id % 1000 = 7";
  q.columns = {"name"};
  q.limit = 5;
  q.offset = 1;
  ASSERT_OK_AND_ASSIGN(auto filtered, ns->Query({"t"}, q));
  ASSERT_OK_AND_ASSIGN(auto got, ReadAllBatches(*filtered));
  std::vector<std::string> names;
  for (const RecordBatch& b : got) {
    ASSERT_EQ(b.schema.fields.size(), 1u);
    for (int64_t i = 0; i < b.num_rows; ++i) names.emplace_back(b.columns[0].GetView(i).substr(0, 8));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"row-1007", "row-2007", "row-3007", "row-4007", "row-5007"}));

  // Dropping a reader mid-stream ends the transfer instead of blocking the server.
  {
    ASSERT_OK_AND_ASSIGN(auto early, ns->Query({"t"}, TableQuery{}));
    ASSERT_OK_AND_ASSIGN(auto first, early->Next());
    ASSERT_TRUE(first.has_value());
  }

  auto more = MakeBatchVectorReader(batches[0].schema, {Rows(-3, 3)});
  ASSERT_OK_AND_ASSIGN(InsertResult overwritten, ns->Insert({"t"}, *more, /*overwrite=*/true));
  EXPECT_EQ(overwritten.rows, 3u);
  ASSERT_OK_AND_ASSIGN(uint64_t now, ns->CountRows({"t"}));
  EXPECT_EQ(now, 3u);
  ASSERT_OK_AND_ASSIGN(uint64_t before, ns->CountRows({"t"}, "", /*version=*/1));
  EXPECT_EQ(before, 300000u);

  // Errors come back as the spec's codes, before any row.
  TableQuery bad;
  bad.filter = "no_such_column > 1";
  EXPECT_CODE(ns->Query({"t"}, bad), ErrorCode::kInvalidInput);
  EXPECT_CODE(ns->Query({"missing"}, TableQuery{}), ErrorCode::kTableNotFound);
  EXPECT_CODE(ns->CountRows({"missing"}), ErrorCode::kTableNotFound);
}

// A scan that fails after the answer began is a broken stream for the server; the
// client must report it, not end early with the rows it got.
TEST_F(RestNamespaceTest, BrokenOffAnswerIsAnError) {
  StartServer();
  auto ns = Client();
  ASSERT_OK_AND_ASSIGN(TableInfo info, ns->DeclareTable({"t"}, {}));
  for (int i = 0; i < 2; ++i) {
    auto rows = MakeBatchVectorReader(Rows(0, 1).schema, {Rows(i * 50000, 50000)});
    ASSERT_OK(ns->Insert({"t"}, *rows).status());
  }
  // Truncate the second fragment's data file.
  fs::path newest;
  for (const auto& entry : fs::directory_iterator(fs::path(info.location) / "data")) {
    if (newest.empty() || fs::last_write_time(entry.path()) > fs::last_write_time(newest)) newest = entry.path();
  }
  ASSERT_FALSE(newest.empty());
  fs::resize_file(newest, fs::file_size(newest) / 2);

  auto reader = ns->Query({"t"}, TableQuery{});
  if (!reader.ok()) GTEST_SKIP() << "failed before streaming: " << reader.status().ToString();
  int64_t rows = 0;
  Status end;
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) {
      end = batch.status();
      break;
    }
    if (!*batch) break;
    rows += (*batch)->num_rows;
  }
  EXPECT_FALSE(end.ok()) << "the stream ended cleanly after " << rows << " rows";
  EXPECT_LT(rows, 100000);
}

TEST_F(RestNamespaceTest, TokenIsSentFromHeaders) {
  StartServer("s3cret");
  auto anonymous = Client();
  EXPECT_CODE(anonymous->ListNamespaces({}, {}), ErrorCode::kUnauthenticated);
  RestNamespaceOptions options;
  options.headers = {{"x-api-key", "s3cret"}};
  auto keyed = Client(options);
  EXPECT_OK(keyed->ListNamespaces({}, {}).status());
  ASSERT_OK_AND_ASSIGN(auto through_open, OpenNamespace(Uri(), {{"headers.Authorization", "Bearer s3cret"}}));
  EXPECT_OK(through_open->ListTables({}, {}).status());
  EXPECT_CODE(OpenNamespace(Uri(), {{"bogus", "1"}}), ErrorCode::kInvalidInput);
}

// The body limits at the HTTP level: JSON bodies past the limit are 413 without being
// kept, bodies on other methods are refused unread, inserts stream past it, and an insert
// whose body is refused or broken commits nothing.
TEST_F(RestNamespaceTest, BodyLimitsOverHttp) {
  StartServer("tok", /*max_body=*/64 << 10);
  const io::HttpClient http(io::HttpTimeouts{});
  const auto send = [&](const std::string& method, const std::string& path, const std::string& body,
                        bool with_token = true) {
    io::HttpRequest r;
    r.method = method;
    r.url = Uri() + path;
    if (with_token) r.headers.emplace_back("x-api-key", "tok");
    r.body = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(body.data()), body.size());
    return http.Send(r);
  };
  const std::string big(200 << 10, ' ');
  io::HttpResponse r = send("POST", "/v1/namespace/x/create?delimiter=%24", big);
  EXPECT_EQ(r.status, 413) << r.body;
  EXPECT_NE(r.body.find("\"code\":13"), std::string::npos) << r.body;
  r = send("PUT", "/v1/namespace/x/create", big);
  EXPECT_EQ(r.status, 413) << r.body;
  r = send("POST", "/v1/namespace/x/create?delimiter=%24", "{}");
  EXPECT_EQ(r.status, 201) << r.body;

  RestNamespaceOptions keyed;
  keyed.headers = {{"x-api-key", "tok"}};
  auto ns = Client(keyed);
  ASSERT_OK(ns->DeclareTable({"x", "t"}, {}).status());
  // ~1.2 MB of rows: 20 times the limit.
  auto rows = MakeBatchVectorReader(Rows(0, 1).schema, {Rows(0, 20000)});
  ASSERT_OK_AND_ASSIGN(InsertResult inserted, ns->Insert({"x", "t"}, *rows));
  EXPECT_EQ(inserted.rows, 20000u);

  // Refused before the body is read: the answer still arrives.
  r = send("POST", "/v1/table/x%24t/insert?delimiter=%24", std::string(10 << 10, 'z'), /*with_token=*/false);
  EXPECT_EQ(r.status, 401) << r.body;
  // Not an IPC stream: refused, nothing committed.
  r = send("POST", "/v1/table/x%24t/insert?delimiter=%24", std::string(10 << 10, 'z'));
  EXPECT_EQ(r.status, 400) << r.body;
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ns->DescribeTable({"x", "t"})->location));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(ds->CountRows(), 20000u);
}

// HTTPS with a self-signed certificate: refused unless the client is given it to trust.
TEST_F(RestNamespaceTest, Tls) {
  const std::string key = root_ + "/key.pem", cert = root_ + "/cert.pem";
  const std::string make =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
      "-addext subjectAltName=IP:127.0.0.1 -keyout " +
      key + " -out " + cert + " >/dev/null 2>&1";
  if (std::system(make.c_str()) != 0) GTEST_SKIP() << "the openssl command is not available";
  RestServerOptions tls;
  tls.tls_cert = cert;
  tls.tls_key = key;
  StartServer("", size_t{16} << 20, tls);
  auto untrusted = RestNamespace::Open(Uri("https"), {});
  ASSERT_TRUE(untrusted.ok());
  auto refused = (*untrusted)->ListNamespaces({}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kIOError) << refused.status().ToString();
  ASSERT_OK_AND_ASSIGN(auto trusted, OpenNamespace(Uri("https"), {{"tls.ca_file", cert}}));
  ASSERT_OK(trusted->CreateNamespace({"secure"}, CreateMode::kCreate, {}).status());
  ASSERT_OK_AND_ASSIGN(Page page, trusted->ListNamespaces({}, {}));
  EXPECT_EQ(page.names, (std::vector<std::string>{"secure"}));
  // Plain HTTP to the TLS port is not answered as if it were HTTPS.
  auto plain = RestNamespace::Open(Uri("http"), {});
  EXPECT_FALSE((*plain)->ListNamespaces({}, {}).ok());
  RestServerOptions half;
  half.tls_cert = cert;
  auto unpaired = RestServer::Bind(nullptr, half);
  ASSERT_FALSE(unpaired.ok());
  EXPECT_TRUE(unpaired.status().IsInvalidArgument()) << unpaired.status().ToString();
}

// Clients that open a connection and stall (half a request line, then nothing) hold a
// worker only until the read timeout: with every worker taken by them, a real request is
// still answered within a few timeouts.
TEST_F(RestNamespaceTest, StalledClientsTimeOut) {
  RestServerOptions options;
  options.threads = 2;
  options.timeout_sec = 1;
  StartServer("", size_t{16} << 20, options);
  std::vector<int> stalled;
  for (int i = 0; i < 4; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    const char partial[] = "GET /v1/namespace/%24/li";
    ASSERT_GT(::send(fd, partial, sizeof(partial) - 1, 0), 0);
    stalled.push_back(fd);
  }
  const auto start = std::chrono::steady_clock::now();
  auto ns = Client();
  ASSERT_OK_AND_ASSIGN(Page page, ns->ListNamespaces({}, {}));
  EXPECT_TRUE(page.names.empty());
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_LT(waited, std::chrono::seconds(8));
  for (const int fd : stalled) ::close(fd);
}

TEST_F(RestNamespaceTest, OtherDelimiter) {
  StartServer();
  RestNamespaceOptions options;
  options.delimiter = ".";
  auto ns = Client(options);
  ASSERT_OK(ns->CreateNamespace({"x"}, CreateMode::kCreate, {}).status());
  ASSERT_OK(ns->DeclareTable({"x", "t"}, {}).status());
  // The root is "." on the wire: written so that it is not a dot segment.
  ASSERT_OK_AND_ASSIGN(Page top, ns->ListNamespaces({}, {}));
  EXPECT_EQ(top.names, (std::vector<std::string>{"x"}));
  ASSERT_OK_AND_ASSIGN(Page tables, ns->ListTables({"x"}, {}));
  EXPECT_EQ(tables.names, (std::vector<std::string>{"t"}));
  EXPECT_CODE(ns->DeclareTable({"x", "a.b"}, {}), ErrorCode::kInvalidInput);
}

TEST_F(RestNamespaceTest, UnreachableServerIsAnIoError) {
  // Port 1: nothing listens there (a freed ephemeral port could be reached by the
  // client's own socket, a TCP self-connect).
  auto ns = RestNamespace::Open("http://127.0.0.1:1", {});
  ASSERT_TRUE(ns.ok());
  auto listed = (*ns)->ListNamespaces({}, {});
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.status().code(), StatusCode::kIOError) << listed.status().ToString();
  EXPECT_CODE(RestNamespace::Open("ftp://x", {}), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace lancet::catalog
