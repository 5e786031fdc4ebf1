// The S3 store through tests/io/fault_proxy against a real server: throttling, dropped
// connections, cut bodies and stalls are retried within bounds or fail clearly; a
// failed upload leaves nothing; DeleteObjects and multipart listing work on radosgw.
#include <gtest/gtest.h>

#include <chrono>

#include "common/fault_proxy.h"
#include "common/test_stores.h"
#include "io/s3_client.h"
#include "lancet/io/s3_store.h"

namespace lancet::io {
namespace {

using testing::Fault;

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::string Pattern(size_t n, int seed) {
  std::string s(n, 0);
  uint32_t x = static_cast<uint32_t>(seed) * 2654435761u + 7;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    s[i] = static_cast<char>(x >> 24);
  }
  return s;
}

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

class S3Fault : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::S3Configured()) GTEST_SKIP() << testing::kNoS3;
    root_ = std::make_unique<testing::TestRoot>(testing::StoreKind::kS3, testing::CurrentTestName());
    direct_ = root_->store();
    proxy_ = std::make_unique<testing::FaultProxy>();
    bucket_ = std::getenv("LANCET_TEST_BUCKET");
  }
  // A store that talks through the proxy, with fast, few retries unless `extra` says otherwise.
  std::shared_ptr<ObjectStore> Proxied(const StorageOptions& extra = {}, uint64_t part_size = 0) {
    StorageOptions so = {{"aws_endpoint", proxy_->endpoint()}, {"client_max_retries", "3"}};
    for (const auto& kv : extra) so[kv.first] = kv.second;
    auto o = S3OptionsFrom(so);
    EXPECT_TRUE(o.ok()) << o.status().ToString();
    o->retry_base_ms = 10;
    if (part_size) o->part_size = part_size;
    o->delete_batch_size = batch_;
    auto s = NewS3Store(bucket_, *o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return *s;
  }
  std::string Key(const std::string& rel) { return root_->Path(rel); }
  std::string Read(ObjectStore& store, const std::string& key) {
    auto f = store.OpenRead(key);
    if (!f.ok()) return "<" + f.status().ToString() + ">";
    auto all = (*f)->ReadAt(0, *(*f)->Size());
    return all.ok() ? std::string((*all)->view()) : "<" + all.status().ToString() + ">";
  }

  std::unique_ptr<testing::TestRoot> root_;
  std::shared_ptr<ObjectStore> direct_;
  std::unique_ptr<testing::FaultProxy> proxy_;
  std::string bucket_;
  int batch_ = 1000;
};

TEST_F(S3Fault, SlowDownIsRetriedUntilItPasses) {
  const std::string key = Key("slow.bin");
  int rule = proxy_->Add({"PUT", key, "", "status", 503, "SlowDown", 0, 3});
  auto store = Proxied();
  ASSERT_TRUE(store->Put(key, Bytes("hello")).ok());
  EXPECT_EQ(proxy_->Hits(rule), 3);
  EXPECT_EQ(proxy_->Count("PUT", key), 4u);
  EXPECT_EQ(store->stats().Snapshot().write_requests, 1u);
  EXPECT_EQ(Read(*direct_, key), "hello");
}

TEST_F(S3Fault, EndlessSlowDownFailsClearlyWithinBounds) {
  const std::string key = Key("never.bin");
  proxy_->Add({"PUT", key, "", "status", 503, "SlowDown", 0, -1});
  auto store = Proxied();
  const auto start = std::chrono::steady_clock::now();
  Status st = store->Put(key, Bytes("x"));
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/" + key), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("HTTP 503 SlowDown"), std::string::npos) << st.ToString();
  EXPECT_EQ(proxy_->Count("PUT", key), 4u);  // client_max_retries 3
  EXPECT_LT(SecondsSince(start), 5.0);
  EXPECT_FALSE(*direct_->Exists(key));
}

TEST_F(S3Fault, AuthFailureAndPreconditionFailedAreNotRetried) {
  const std::string key = Key("auth.bin");
  auto bad = Proxied({{"aws_secret_access_key", "wrong-secret-never-printed"}});
  Status st = bad->Put(key, Bytes("x"));
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_NE(st.message().find("HTTP 403"), std::string::npos) << st.ToString();
  EXPECT_EQ(st.message().find("wrong-secret"), std::string::npos);
  EXPECT_EQ(proxy_->Count("PUT", key), 1u);

  ASSERT_TRUE(direct_->Put(key, Bytes("theirs")).ok());
  auto store = Proxied();
  EXPECT_EQ(store->PutIfAbsent(key, Bytes("mine")).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(proxy_->Count("PUT", key), 2u);
  EXPECT_EQ(Read(*direct_, key), "theirs");
}

TEST_F(S3Fault, DroppedConnectionsOnReadsAreRetried) {
  const std::string key = Key("obj.bin"), data = Pattern(1 << 20, 1);
  ASSERT_TRUE(direct_->Put(key, Bytes(data)).ok());
  auto store = Proxied();
  int head_rule = proxy_->Add({"HEAD", key, "", "drop", 0, "", 0, 1});
  int get_rule = proxy_->Add({"GET", key, "", "drop", 0, "", 0, 2});
  auto f = store->OpenRead(key);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto r = (*f)->ReadAt(1000, 50000);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE((*r)->view() == std::string_view(data).substr(1000, 50000));
  EXPECT_EQ(proxy_->Hits(head_rule), 1);
  EXPECT_EQ(proxy_->Hits(get_rule), 2);
  EXPECT_EQ(proxy_->Count("HEAD", key), 2u);
  EXPECT_EQ(proxy_->Count("GET", key), 3u);
  EXPECT_EQ(store->stats().Snapshot().read_requests, 1u);
}

TEST_F(S3Fault, CutBodiesAreRetriedNeverReturned) {
  const std::string key = Key("cut.bin"), data = Pattern(300000, 2);
  ASSERT_TRUE(direct_->Put(key, Bytes(data)).ok());
  auto store = Proxied();
  auto f = store->OpenRead(key);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  // The connection closes after 100 bytes of a body whose Content-Length promised more.
  int truncate = proxy_->Add({"GET", key, "", "truncate", 100, "", 0, 1});
  // Content-Length itself says 100: only the range's length shows the cut.
  int shorten = proxy_->Add({"GET", key, "", "short", 100, "", 0, 1});
  auto r = (*f)->ReadAt(5, 200000);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE((*r)->view() == std::string_view(data).substr(5, 200000));
  EXPECT_EQ(proxy_->Hits(truncate), 1);
  EXPECT_EQ(proxy_->Hits(shorten), 1);
  EXPECT_EQ(proxy_->Count("GET", key), 3u);

  // Always cut: an error naming the object, never short data.
  proxy_->Add({"GET", key, "", "short", 100, "", 0, -1});
  auto bad = (*f)->ReadAt(0, 1000);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("s3://" + bucket_ + "/" + key), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("100 bytes, expected 1000"), std::string::npos) << bad.status().ToString();
  EXPECT_EQ(proxy_->Count("GET", key), 7u);  // 3 before, then 1 + 3 retries
  EXPECT_EQ(store->stats().Snapshot().read_requests, 1u);
}

TEST_F(S3Fault, StallPastTheTimeoutIsRetried) {
  const std::string key = Key("stall.bin");
  ASSERT_TRUE(direct_->Put(key, Bytes("patience")).ok());
  auto store = Proxied({{"timeout", "1s"}, {"connect_timeout", "1s"}});
  int rule = proxy_->Add({"HEAD", key, "", "stall", 20000, "", 0, 1});
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Read(*store, key), "patience");
  EXPECT_EQ(proxy_->Hits(rule), 1);
  EXPECT_LT(SecondsSince(start), 5.0);

  // Stalled for good: client_max_retries 1 gives two one-second attempts, then a timeout error.
  store = Proxied({{"timeout", "1s"}, {"client_max_retries", "1"}});
  proxy_->Add({"GET", key, "", "stall", 20000, "", 0, -1});
  auto f = store->OpenRead(key);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  start = std::chrono::steady_clock::now();
  auto r = (*f)->ReadAt(0, 8);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("failed after 2 attempt(s)"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("imeout"), std::string::npos) << r.status().ToString();
  EXPECT_LT(SecondsSince(start), 5.0);
}

TEST_F(S3Fault, ConditionalPutWhoseAnswerIsLostIsOurs) {
  const std::string key = Key("_versions/1.manifest");
  // The PUT reaches the server, its answer does not; the retry meets 412 and reads back our bytes.
  int rule = proxy_->Add({"PUT", key, "", "lose", 0, "", 0, 1});
  auto store = Proxied();
  ASSERT_TRUE(store->PutIfAbsent(key, Bytes("manifest-1")).ok());
  EXPECT_EQ(proxy_->Hits(rule), 1);
  EXPECT_EQ(proxy_->Count("PUT", key), 2u);
  EXPECT_EQ(Read(*direct_, key), "manifest-1");
}

TEST_F(S3Fault, FailedMultipartUploadLeavesNothing) {
  const std::string key = Key("big.bin"), data = Pattern((11 << 20) + 7, 3);
  auto store = Proxied({}, 5 << 20);
  // A dropped part is retried and the upload completes.
  int once = proxy_->Add({"PUT", key, "partNumber=2", "drop", 0, "", 0, 1});
  auto w = store->OpenWrite(key);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(Bytes(data)).ok());
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(proxy_->Hits(once), 1);
  EXPECT_TRUE(Read(*direct_, key) == data);

  // A part that always fails: the writer reports it, aborts, and nothing appears.
  const std::string key2 = Key("big2.bin");
  proxy_->Add({"PUT", key2, "partNumber=2", "status", 500, "InternalError", 0, -1});
  auto w2 = store->OpenWrite(key2);
  ASSERT_TRUE(w2.ok());
  Status st = (*w2)->Append(Bytes(data));
  if (st.ok()) st = (*w2)->Close();
  EXPECT_NE(st.message().find("UploadPart 2 failed: HTTP 500 InternalError"), std::string::npos) << st.ToString();
  EXPECT_FALSE(*direct_->Exists(key2));
  EXPECT_EQ(proxy_->Count("DELETE", key2 + "?uploadId="), 1u);
  auto pending = direct_->ListUploads(root_->root());
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_TRUE(pending->empty());
}

TEST_F(S3Fault, DeleteManyBatchesDeleteObjects) {
  batch_ = 10;
  auto store = Proxied();
  std::vector<std::string> keys;
  for (int i = 0; i < 25; ++i) {
    keys.push_back(Key("d/" + std::to_string(i) + (i % 2 ? ".lance" : " & <odd>.txn")));
    ASSERT_TRUE(direct_->Put(keys.back(), Bytes("x")).ok());
  }
  keys.push_back(Key("d/never-existed"));
  // One batch is throttled once and retried.
  proxy_->Add({"POST", "", "delete", "status", 503, "SlowDown", 1, 1});
  auto removed = store->DeleteMany(keys);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(removed->size(), keys.size());
  EXPECT_EQ(proxy_->Count("POST", "delete"), 4u);  // 3 batches of at most 10, one retried
  EXPECT_EQ(proxy_->Count("DELETE"), 0u);
  EXPECT_TRUE(direct_->List(root_->Path("d")).status().IsNotFound());
}

// An XML answer cut short behind a fixed-up Content-Length would drop keys silently:
// it is retried like a reset, and one that never arrives whole is a clear error.
TEST_F(S3Fault, CutXmlAnswersAreRetried) {
  batch_ = 10;
  std::vector<std::string> keys;
  for (int i = 0; i < 3; ++i) {
    keys.push_back(Key("x/" + std::to_string(i)));
    ASSERT_TRUE(direct_->Put(keys.back(), Bytes("x")).ok());
  }
  auto store = Proxied();
  const int list_rule = proxy_->Add({"GET", "", "list-type", "short", 60, "", 0, 1});
  auto listed = store->List(root_->Path("x"));
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->size(), 3u);
  EXPECT_EQ(proxy_->Hits(list_rule), 1);
  EXPECT_EQ(proxy_->Count("GET", "list-type"), 2u);

  const int delete_rule = proxy_->Add({"POST", "", "delete", "short", 40, "", 0, 1});
  auto removed = store->DeleteMany(keys);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(proxy_->Hits(delete_rule), 1);
  EXPECT_EQ(proxy_->Count("POST", "delete"), 2u);

  ASSERT_TRUE(direct_->Put(keys[0], Bytes("x")).ok());
  proxy_->Add({"GET", "", "list-type", "short", 60, "", 0, -1});
  auto bad = store->List(root_->Path("x"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cut before the end of <ListBucketResult>"), std::string::npos)
      << bad.status().ToString();
}

TEST_F(S3Fault, PendingUploadsAreListedAndAborted) {
  const std::string key = Key("data/crashed.lance");
  auto o = S3OptionsFrom({});
  ASSERT_TRUE(o.ok());
  auto client = s3::MakeS3Client(bucket_, *o);
  ASSERT_TRUE(client.ok());
  // An upload begun and never finished, as a writer that crashed would leave it.
  auto created = (*client)->Send({"POST", key, {{"uploads", ""}}, {}, {}, {}});
  ASSERT_TRUE(created.ok());
  ASSERT_EQ(created->status, 200) << created->body;
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  auto store = Proxied();
  auto pending = store->ListUploads(root_->root());
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].path, key);
  ASSERT_TRUE((*pending)[0].initiated_ms.has_value());
  EXPECT_LT(std::abs(*(*pending)[0].initiated_ms - now_ms), 60000);
  // Nothing under another prefix.
  auto elsewhere = store->ListUploads(root_->root() + "-other");
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_TRUE(elsewhere->empty());
  ASSERT_TRUE(store->AbortUpload((*pending)[0]).ok());
  EXPECT_TRUE(store->ListUploads(root_->root())->empty());
  EXPECT_TRUE(store->AbortUpload((*pending)[0]).IsNotFound());
}

}  // namespace
}  // namespace lancet::io
