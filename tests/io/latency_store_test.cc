// The latency wrapper charges what an object store would charge and counts it; timing
// is left to the benchmarks.
#include "lancet/io/latency_store.h"

#include <gtest/gtest.h>

#include "util/test_macros.h"

namespace lancet::io {
namespace {

using std::chrono::microseconds;

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

TEST(LatencyStore, ReadsCountOneRequestPerMergedRange) {
  auto inner = NewMemoryStore();
  auto store = WithLatency(inner, microseconds(100));
  ASSERT_OK(store->Put("/a", Bytes(std::string(100000, 'x'))));
  EXPECT_EQ(store->stats().Snapshot().write_requests, 1u);
  EXPECT_EQ(store->stats().Snapshot().write_bytes, 100000u);
  ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead("/a"));
  // Memory files are cheap; behind the wrapper they must overlap like remote reads.
  EXPECT_FALSE(file->cheap_reads());
  EXPECT_EQ(file->stats(), &store->stats());
  std::vector<ByteRange> ranges = {{0, 10}, {5, 10}, {50000, 100}, {90000, 1000}};
  ASSERT_OK_AND_ASSIGN(auto bufs, file->ReadMany(ranges));
  ASSERT_EQ(bufs.size(), 4u);
  EXPECT_EQ(bufs[2]->size(), 100u);
  IoCounters c = store->stats().Snapshot();
  EXPECT_EQ(c.logical_ranges, 4u);
  EXPECT_EQ(c.read_requests, 3u);  // the first two ranges merge
  EXPECT_EQ(c.read_bytes, 15u + 100u + 1000u);
  EXPECT_EQ(inner->stats().Snapshot().read_requests, 3u);
  ASSERT_OK(file->ReadAt(0, 1).status());
  EXPECT_EQ(store->stats().Snapshot().read_requests, 4u);
  EXPECT_EQ(store->metadata_requests(), 0u);  // opening and reading ask no HEAD
}

// A ranged GET costs its latency plus its bytes at the bandwidth (a lower bound: sleeping
// never returns early, so this cannot flake on a busy machine).
TEST(LatencyStore, BandwidthChargesTransferTime) {
  auto inner = NewMemoryStore();
  auto store = WithLatency(inner, microseconds(1000), 10'000'000);
  EXPECT_EQ(store->bytes_per_second(), 10'000'000u);
  ASSERT_OK(store->Put("/a", Bytes(std::string(1'000'000, 'x'))));
  ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead("/a"));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK(file->ReadAt(0, 1'000'000).status());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(101));  // 1 ms + 100 ms
  EXPECT_EQ(WithLatency(inner, microseconds(5))->bytes_per_second(), 0u);  // unlimited by default
}

TEST(LatencyStore, MetadataRequestsAreCharged) {
  auto store = WithLatency(NewMemoryStore(), microseconds(100));
  ASSERT_OK(store->Put("/d/a", Bytes("hello")));
  ASSERT_OK(store->PutIfAbsent("/d/b", Bytes("hi")));
  EXPECT_EQ(store->PutIfAbsent("/d/b", Bytes("again")).code(), StatusCode::kAlreadyExists);
  ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead("/d/a"));
  ASSERT_OK_AND_ASSIGN(uint64_t size, file->Size());
  EXPECT_EQ(size, 5u);
  ASSERT_OK(file->Size().status());  // a handle learns its size once
  EXPECT_EQ(store->metadata_requests(), 1u);
  ASSERT_OK_AND_ASSIGN(size, store->Size("/d/b"));
  EXPECT_EQ(size, 2u);
  ASSERT_OK_AND_ASSIGN(bool exists, store->Exists("/d/c"));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(auto listed, store->List("/d"));
  EXPECT_EQ(listed.size(), 2u);
  EXPECT_EQ(store->metadata_requests(), 4u);
  EXPECT_EQ(store->stats().Snapshot().read_requests, 0u);
  EXPECT_EQ(store->stats().Snapshot().write_requests, 2u);
}

TEST(LatencyStore, WritesAndErrorsPassThrough) {
  auto inner = NewMemoryStore();
  auto store = WithLatency(inner, microseconds(0));
  ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWrite("/w"));
  ASSERT_OK(writer->Append(Bytes("abc")));
  ASSERT_OK(writer->Append(Bytes("de")));
  ASSERT_OK(writer->Close());
  EXPECT_EQ(store->stats().Snapshot().write_bytes, 5u);
  ASSERT_OK_AND_ASSIGN(auto direct, inner->OpenRead("/w"));
  ASSERT_OK_AND_ASSIGN(auto bytes, direct->ReadAt(0, 5));
  EXPECT_EQ(bytes->view(), "abcde");
  EXPECT_TRUE(store->OpenRead("/missing").status().IsNotFound());
  ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead("/w"));
  Status st = file->ReadAt(3, 10).status();
  EXPECT_EQ(st.code(), StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("/w"), std::string::npos);
  EXPECT_EQ(store->stats().Snapshot().read_requests, 0u);  // a failed read returned nothing
  ASSERT_OK(store->Delete("/w"));
  EXPECT_TRUE(inner->OpenRead("/w").status().IsNotFound());
}

}  // namespace
}  // namespace lancet::io
