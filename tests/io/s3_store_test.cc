// S3ObjectStore against a real server (scripts/s3-server.sh): what the shared store
// suite cannot see — multipart uploads, pagination, request counts, error text.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/test_stores.h"
#include "io/s3_client.h"
#include "io/s3_xml.h"
#include "lancet/io/s3_store.h"

namespace lancet::io {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::string Pattern(size_t n, int seed) {
  std::string s(n, 0);
  uint32_t x = static_cast<uint32_t>(seed) * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    s[i] = static_cast<char>(x >> 24);
  }
  return s;
}

class S3StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::S3Configured()) GTEST_SKIP() << testing::kNoS3;
    root_ = std::make_unique<testing::TestRoot>(testing::StoreKind::kS3, testing::CurrentTestName());
    bucket_ = std::getenv("LANCET_TEST_BUCKET");
    auto o = S3OptionsFrom({});
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    options_ = *o;
  }
  std::shared_ptr<ObjectStore> StoreWith(S3Options o) {
    auto s = NewS3Store(bucket_, std::move(o));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : nullptr;
  }
  // Multipart uploads in progress under our root (ListMultipartUploads).
  size_t PendingUploads() {
    auto client = s3::MakeS3Client(bucket_, options_);
    EXPECT_TRUE(client.ok());
    auto r = (*client)->Send({"GET", "", {{"uploads", ""}, {"prefix", root_->root() + "/"}}, {}, {}, {}});
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r->status, 200) << r->body;
    return s3::XmlElements(r->body, "Upload").size();
  }
  std::unique_ptr<testing::TestRoot> root_;
  std::string bucket_;
  S3Options options_;
};

TEST_F(S3StoreTest, MultipartUploadOfThreeParts) {
  S3Options o = options_;
  o.part_size = 5 << 20;
  auto store = StoreWith(o);
  const std::string data = Pattern((12 << 20) + 12345, 1);
  auto w = store->OpenWrite(root_->Path("big.bin"));
  ASSERT_TRUE(w.ok());
  // Uneven appends cross part boundaries.
  for (size_t at = 0; at < data.size();) {
    size_t n = std::min<size_t>(data.size() - at, 1000003);
    ASSERT_TRUE((*w)->Append(Bytes(data.substr(at, n))).ok());
    at += n;
  }
  EXPECT_FALSE(*store->Exists(root_->Path("big.bin")));  // invisible until Close
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(PendingUploads(), 0u);
  auto f = store->OpenRead(root_->Path("big.bin"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*(*f)->Size(), data.size());
  auto all = (*f)->ReadAt(0, data.size());
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE((*all)->view() == data);
  EXPECT_EQ(store->stats().Snapshot().write_requests, 1u);
  EXPECT_EQ(store->stats().Snapshot().write_bytes, data.size());
}

TEST_F(S3StoreTest, AbandonedWriterAbortsItsUpload) {
  S3Options o = options_;
  o.part_size = 5 << 20;
  auto store = StoreWith(o);
  {
    auto w = store->OpenWrite(root_->Path("abandoned.bin"));
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append(Bytes(Pattern(6 << 20, 2))).ok());
    EXPECT_EQ(PendingUploads(), 1u);
  }
  EXPECT_EQ(PendingUploads(), 0u);
  EXPECT_FALSE(*store->Exists(root_->Path("abandoned.bin")));
}

TEST_F(S3StoreTest, SmallStreamedObjectIsOnePut) {
  auto store = root_->store();
  auto w = store->OpenWrite(root_->Path("small"));
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append(Bytes("hello ")).ok());
  ASSERT_TRUE((*w)->Append(Bytes("world")).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto f = store->OpenRead(root_->Path("small"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*(*f)->ReadAt(6, 5))->view(), "world");
}

TEST_F(S3StoreTest, ListPaginates) {
  S3Options o = options_;
  o.list_page_size = 7;
  auto store = StoreWith(o);
  for (int i = 0; i < 23; ++i) ASSERT_TRUE(store->Put(root_->Path("d/f" + std::to_string(i)), Bytes("x")).ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(store->Put(root_->Path("d/s" + std::to_string(i) + "/y"), Bytes("yy")).ok());
  auto list = store->List(root_->Path("d"));
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  size_t files = 0, dirs = 0;
  for (const auto& e : *list) {
    if (e.is_dir) {
      ++dirs;
    } else {
      ++files;
      EXPECT_EQ(e.size, 1u);
      ASSERT_TRUE(e.modified_ms.has_value());
      // LastModified is recent (within a day of now; clocks of client and server agree).
      const int64_t now =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count();
      EXPECT_LT(std::llabs(*e.modified_ms - now), 86400000LL);
    }
  }
  EXPECT_EQ(files, 23u);
  EXPECT_EQ(dirs, 4u);
  EXPECT_TRUE(store->List(root_->Path("nothing")).status().IsNotFound());
}

TEST_F(S3StoreTest, RangeReadsCountOneRequestEach) {
  auto store = root_->store();
  const std::string data = Pattern(3 << 20, 3);
  ASSERT_TRUE(store->Put(root_->Path("r"), Bytes(data)).ok());
  auto f = *store->OpenRead(root_->Path("r"));
  store->stats().Reset();
  auto a = f->ReadAt(1000, 10);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)->view(), std::string_view(data).substr(1000, 10));
  // Far apart (beyond the merge gap): two requests, in parallel; near ones merge.
  std::vector<ByteRange> ranges = {{0, 10}, {(3 << 20) - 10, 10}, {20, 5}};
  auto many = f->ReadMany(ranges);
  ASSERT_TRUE(many.ok());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ((*many)[i]->view(), std::string_view(data).substr(ranges[i].offset, ranges[i].length));
  }
  auto c = store->stats().Snapshot();
  EXPECT_EQ(c.read_requests, 3u);
  EXPECT_EQ(c.read_bytes, 10u + 25u + 10u);
  EXPECT_EQ(c.logical_ranges, 3u);
  EXPECT_EQ((*f->ReadAt(5, 0))->size(), 0u);
  EXPECT_FALSE(f->ReadAt((3 << 20) - 5, 10).ok());
}

TEST_F(S3StoreTest, PutIfAbsentConflictIsAlreadyExists) {
  auto store = root_->store();
  ASSERT_TRUE(store->PutIfAbsent(root_->Path("m"), Bytes("first")).ok());
  Status st = store->PutIfAbsent(root_->Path("m"), Bytes("second"));
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists) << st.ToString();
  EXPECT_EQ((*(*store->OpenRead(root_->Path("m")))->ReadAt(0, 5))->view(), "first");
  ASSERT_TRUE(store->Delete(root_->Path("m")).ok());
  EXPECT_FALSE(*store->Exists(root_->Path("m")));
  EXPECT_TRUE(store->PutIfAbsent(root_->Path("m"), Bytes("third")).ok());
}

TEST_F(S3StoreTest, AuthErrorsNameTheObjectAndNeverTheSecret) {
  S3Options o = options_;
  o.secret_access_key = "wrong-secret-do-not-print";
  o.max_retries = 5;
  auto store = StoreWith(o);
  auto start = std::chrono::steady_clock::now();
  auto r = store->OpenRead(root_->Path("x"));
  ASSERT_FALSE(r.ok());
  const std::string msg = r.status().message();
  EXPECT_NE(msg.find("s3://" + bucket_ + "/" + root_->Path("x")), std::string::npos) << msg;
  EXPECT_NE(msg.find("HTTP 403"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("wrong-secret"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(options_.secret_access_key), std::string::npos) << msg;
  // 403 is not retried.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  Status put = store->Put(root_->Path("y"), Bytes("z"));
  EXPECT_NE(put.message().find("SignatureDoesNotMatch"), std::string::npos) << put.ToString();
  EXPECT_EQ(put.message().find("wrong-secret"), std::string::npos);
  EXPECT_EQ(o.Describe().find("wrong-secret"), std::string::npos);
}

TEST_F(S3StoreTest, UnreachableEndpointFailsWithinTheRetryBudget) {
  S3Options o = options_;
  o.endpoint = "http://127.0.0.1:9";  // discard port: nothing listens
  o.retry_budget_ms = 1500;
  o.retry_base_ms = 20;
  auto store = StoreWith(o);
  auto start = std::chrono::steady_clock::now();
  Status st = store->Put(root_->Path("q"), Bytes("q"));
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("attempt"), std::string::npos) << st.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(S3StoreTest, KeysWithSpacesAndUnicodeRoundTrip) {
  auto store = root_->store();
  const std::string path = root_->Path("dir with space/caf\xC3\xA9+x=1&y.bin");
  ASSERT_TRUE(store->Put(path, Bytes("v")).ok());
  EXPECT_TRUE(*store->Exists(path));
  auto list = store->List(root_->Path("dir with space"));
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].path, "caf\xC3\xA9+x=1&y.bin");
}

}  // namespace
}  // namespace lancet::io
