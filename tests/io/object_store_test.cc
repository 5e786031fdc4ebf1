#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "common/test_stores.h"
#include "lancet/io/object_store.h"

namespace lancet::io {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// One conformance suite for every store: local disk, memory, and S3 (skipped without a
// server, see tests/common/test_stores.h).
class StoreTest : public ::testing::TestWithParam<testing::StoreKind> {
 protected:
  void SetUp() override {
    LANCET_SKIP_WITHOUT_STORE(GetParam());
    root_ = std::make_unique<testing::TestRoot>(GetParam(), testing::CurrentTestName());
    store_ = root_->store();
    ASSERT_TRUE(store_);
    prefix_ = root_->root() + "/";
  }
  std::unique_ptr<testing::TestRoot> root_;
  std::shared_ptr<ObjectStore> store_;
  std::string prefix_;
};

TEST_P(StoreTest, PutReadAndCount) {
  std::string data(10000, 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(store_->Put(prefix_ + "a/b.bin", Bytes(data)).ok());
  auto file = store_->OpenRead(prefix_ + "a/b.bin");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(*(*file)->Size(), 10000u);
  store_->stats().Reset();
  auto buf = (*file)->ReadAt(100, 50);
  ASSERT_TRUE(buf.ok());
  EXPECT_EQ((*buf)->view(), std::string_view(data).substr(100, 50));
  EXPECT_EQ(store_->stats().Snapshot().read_requests, 1u);
  EXPECT_EQ(store_->stats().Snapshot().read_bytes, 50u);
}

TEST_P(StoreTest, ReadPastEndIsAnErrorNamingThePath) {
  ASSERT_TRUE(store_->Put(prefix_ + "f", Bytes("hello")).ok());
  auto file = store_->OpenRead(prefix_ + "f");
  ASSERT_TRUE(file.ok());
  auto r = (*file)->ReadAt(3, 5);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(prefix_ + "f"), std::string::npos);
  auto huge = (*file)->ReadAt(UINT64_MAX - 2, 10);
  EXPECT_FALSE(huge.ok());
}

TEST_P(StoreTest, MissingObjectIsNotFound) {
  auto r = store_->OpenRead(prefix_ + "nope");
  EXPECT_TRUE(r.status().IsNotFound());
  EXPECT_FALSE(*store_->Exists(prefix_ + "nope"));
}

TEST_P(StoreTest, ListShowsDirectChildren) {
  ASSERT_TRUE(store_->Put(prefix_ + "d/x", Bytes("1")).ok());
  ASSERT_TRUE(store_->Put(prefix_ + "d/y", Bytes("22")).ok());
  ASSERT_TRUE(store_->Put(prefix_ + "d/sub/z", Bytes("333")).ok());
  auto list = store_->List(prefix_ + "d");
  ASSERT_TRUE(list.ok());
  std::map<std::string, ObjectInfo> by_name;
  for (auto& e : *list) by_name[e.path] = e;
  ASSERT_EQ(by_name.size(), 3u);
  EXPECT_EQ(by_name["y"].size, 2u);
  EXPECT_TRUE(by_name["sub"].is_dir);
}

TEST_P(StoreTest, PutIfAbsentHasExactlyOneWinner) {
  std::atomic<int> wins{0}, conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::string body = "writer" + std::to_string(t);
      Status st = store_->PutIfAbsent(prefix_ + "v/1.manifest", Bytes(body));
      if (st.ok()) ++wins;
      else if (st.code() == StatusCode::kAlreadyExists) ++conflicts;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(conflicts.load(), 7);
  // No temp files are left behind.
  auto list = store_->List(prefix_ + "v");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 1u);
}

TEST_P(StoreTest, ReadManyMergesNearRangesAndKeepsOrder) {
  std::string data(1 << 20, 0);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i % 251);
  ASSERT_TRUE(store_->Put(prefix_ + "big", Bytes(data)).ok());
  auto file = *store_->OpenRead(prefix_ + "big");
  store_->stats().Reset();
  std::vector<ByteRange> ranges = {{5000, 10}, {0, 100}, {150, 20}, {900000, 64}, {5005, 3}};
  auto bufs = file->ReadMany(ranges);
  ASSERT_TRUE(bufs.ok());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ((*bufs)[i]->view(), std::string_view(data).substr(ranges[i].offset, ranges[i].length)) << i;
  }
  // [0,100)+[150,170) merge (gap 50), [5000,5010)+[5005,5008) merge, 900000 alone;
  // S3 merges gaps up to 256 KiB (S3Options::coalesce_gap): there [0, 5010) is one request.
  EXPECT_EQ(store_->stats().Snapshot().read_requests, GetParam() == testing::StoreKind::kS3 ? 2u : 3u);
  EXPECT_EQ(store_->stats().Snapshot().logical_ranges, 5u);
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreTest,
                         ::testing::Values(testing::StoreKind::kLocal, testing::StoreKind::kMemory,
                                           testing::StoreKind::kS3),
                         [](const auto& info) { return testing::StoreKindName(info.param); });

TEST(PlanCoalesce, RespectsGapAndMaxSize) {
  ReadOptions opt;
  opt.coalesce_gap = 10;
  opt.max_request_size = 60;
  std::vector<ByteRange> ranges = {{0, 10}, {15, 10}, {40, 10}, {50, 80}};
  auto plan = PlanCoalesce(ranges, opt);
  ASSERT_EQ(plan.merged.size(), 3u);
  EXPECT_EQ(plan.merged[0], (ByteRange{0, 25}));
  EXPECT_EQ(plan.merged[1], (ByteRange{40, 10}));
  EXPECT_EQ(plan.merged[2], (ByteRange{50, 80}));
  EXPECT_EQ(plan.owner, (std::vector<size_t>{0, 0, 1, 2}));
}

TEST(PlanCoalesce, ContainedRangeJoinsEvenPastMaxSize) {
  ReadOptions opt;
  opt.max_request_size = 50;
  std::vector<ByteRange> ranges = {{0, 200}, {10, 5}};
  auto plan = PlanCoalesce(ranges, opt);
  ASSERT_EQ(plan.merged.size(), 1u);
}

}  // namespace
}  // namespace lancet::io
