// The S3 client's retry rules against a scripted HTTP server on 127.0.0.1: 5xx, SlowDown
// and dropped connections are retried with backoff, 4xx never; bounds hold.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "lancet/io/s3_store.h"

namespace lancet::io {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// One scripted answer: a status with a body, or (status 0) closing the connection.
struct Reply {
  Reply(int s, std::string b = "", std::string h = "") : status(s), body(std::move(b)), headers(std::move(h)) {}
  int status;
  std::string body;
  std::string headers;  // extra header lines, each ending in \r\n
};

// Serves one scripted reply per request (the last one repeats), recording request lines.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<Reply> script) : script_(script.begin(), script.end()) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(fd_, 16);
    thread_ = std::thread([this] { Loop(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  Reply Next() {
    std::lock_guard<std::mutex> lock(mu_);
    Reply r = script_.front();
    if (script_.size() > 1) script_.pop_front();
    return r;
  }

  // Polls with a short timeout so the destructor never waits on a silent client.
  bool Readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    while (!stop_) {
      if (::poll(&p, 1, 50) > 0) return true;
    }
    return false;
  }

  void Loop() {
    while (Readable(fd_)) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      Serve(c);
      ::close(c);
    }
  }

  void Serve(int c) {
    std::string buf;
    while (true) {
      size_t end;
      while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
        if (!Readable(c)) return;
        char tmp[65536];
        ssize_t n = ::recv(c, tmp, sizeof(tmp), 0);
        if (n <= 0) return;
        buf.append(tmp, static_cast<size_t>(n));
      }
      std::string head = buf.substr(0, end);
      size_t body_len = 0;
      auto cl = head.find("ontent-Length: ");
      if (cl == std::string::npos) cl = head.find("ontent-length: ");
      if (cl != std::string::npos) body_len = std::stoul(head.substr(cl + 15));
      while (buf.size() < end + 4 + body_len) {
        if (!Readable(c)) return;
        char tmp[65536];
        ssize_t n = ::recv(c, tmp, sizeof(tmp), 0);
        if (n <= 0) return;
        buf.append(tmp, static_cast<size_t>(n));
      }
      buf.erase(0, end + 4 + body_len);
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(head.substr(0, head.find("\r\n")));
      }
      Reply r = Next();
      if (r.status == 0) return;  // drop the connection without an answer
      bool head_request = head.starts_with("HEAD ");
      std::string out = "HTTP/1.1 " + std::to_string(r.status) +
                        " X\r\nContent-Length: " + std::to_string(r.body.size()) + "\r\n" + r.headers + "\r\n" +
                        (head_request ? "" : r.body);
      if (::send(c, out.data(), out.size(), MSG_NOSIGNAL) < 0) return;
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::deque<Reply> script_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

std::string ErrorXml(const std::string& code) { return "<Error><Code>" + code + "</Code></Error>"; }

std::shared_ptr<ObjectStore> StoreFor(const ScriptedServer& server, int max_retries = 4) {
  S3Options o;
  o.endpoint = server.endpoint();
  o.allow_http = true;
  o.access_key_id = "AKID";
  o.secret_access_key = "do-not-print-this-secret";
  o.max_retries = max_retries;
  o.retry_base_ms = 5;
  o.retry_budget_ms = 5000;
  return *NewS3Store("bucket", o);
}

TEST(S3Retry, ServerErrorsAndSlowDownAreRetried) {
  ScriptedServer server({{500, ErrorXml("InternalError")}, {503, ErrorXml("SlowDown")}, {200, ""}});
  auto store = StoreFor(server);
  ASSERT_TRUE(store->Put("a/b", Bytes("hello")).ok());
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0], "PUT /bucket/a/b HTTP/1.1");
  EXPECT_EQ(store->stats().Snapshot().write_requests, 1u);
}

TEST(S3Retry, DroppedConnectionsAreRetried) {
  ScriptedServer server({{0, ""}, {0, ""}, {200, "", "ETag: \"x\"\r\n"}});
  auto store = StoreFor(server);
  ASSERT_TRUE(store->Put("k", Bytes("v")).ok());
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(S3Retry, ClientErrorsAreNotRetried) {
  ScriptedServer server({{403, ErrorXml("SignatureDoesNotMatch")}});
  auto store = StoreFor(server);
  Status st = store->Put("k", Bytes("v"));
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_NE(st.message().find("s3://bucket/k"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("HTTP 403 SignatureDoesNotMatch"), std::string::npos) << st.ToString();
  EXPECT_EQ(st.message().find("do-not-print"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(S3Retry, PreconditionFailedIsAlreadyExistsWithoutRetry) {
  ScriptedServer server({{412, ErrorXml("PreconditionFailed")}});
  auto store = StoreFor(server);
  Status st = store->PutIfAbsent("v/1.manifest", Bytes("m"));
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(S3Retry, ConditionalPutWhoseFirstAttemptLandedIsOurs) {
  // The first attempt's answer is lost (500); the retry finds the key taken (412); the
  // object there holds our bytes, so the commit is ours after all.
  ScriptedServer exact({{500, ""},
                        {412, ErrorXml("PreconditionFailed")},
                        {200, "mine"},  // HEAD: Content-Length 4
                        {206, "mine"}});
  auto s2 = StoreFor(exact);
  EXPECT_TRUE(s2->PutIfAbsent("v/1.manifest", Bytes("mine")).ok());
  ScriptedServer theirs({{500, ""}, {412, ErrorXml("PreconditionFailed")}, {200, "them"}, {206, "them"}});
  auto s3 = StoreFor(theirs);
  EXPECT_EQ(s3->PutIfAbsent("v/1.manifest", Bytes("mine")).code(), StatusCode::kAlreadyExists);
}

TEST(S3Retry, RetriesAreBoundedInCount) {
  ScriptedServer server({{503, ErrorXml("SlowDown")}});
  auto store = StoreFor(server, 3);
  Status st = store->Put("k", Bytes("v"));
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("HTTP 503 SlowDown"), std::string::npos) << st.ToString();
  EXPECT_EQ(server.requests().size(), 4u);
}

TEST(S3Retry, RangeGetAndHead) {
  ScriptedServer server({{200, "0123456789"}, {206, "345"}, {404, ErrorXml("NoSuchKey")}});
  auto store = StoreFor(server);
  auto f = store->OpenRead("obj");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(*(*f)->Size(), 10u);
  auto r = (*f)->ReadAt(3, 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->view(), "345");
  EXPECT_TRUE(store->OpenRead("gone").status().IsNotFound());
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0], "HEAD /bucket/obj HTTP/1.1");
  EXPECT_EQ(reqs[1], "GET /bucket/obj HTTP/1.1");
}

}  // namespace
}  // namespace lancet::io
