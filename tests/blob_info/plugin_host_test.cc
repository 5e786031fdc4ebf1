// The media plugin host with the chunks plugin behaving: load, ingest, plan and decode.
#include "lancet/media/plugin_host.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "blob_info/media_test_util.h"
#include "lancet/media_plugin.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using testing::Bytes;
using testing::ChunksLiveObjects;
using testing::ChunksSpec;
using testing::Ingested;
using testing::Payload;

constexpr uint64_t kChunk = 4096;
constexpr size_t kPushSizes[] = {1, 7, 4095, 4097, 65537, 13, 0, 30000};

uint64_t U64At(const BufferPtr& b, size_t offset) {
  uint64_t v = 0;
  std::memcpy(&v, b->data() + offset, 8);
  return v;
}

class PluginHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(plugin_, MediaPlugin::Load(ChunksSpec("chunk_size=4096;blob_type=1")));
    payload_ = Payload(200'003, 7);
    ASSERT_OK_AND_ASSIGN(blob_, testing::IngestAll(*plugin_, payload_, kPushSizes));
  }
  // Every object the plugin handed out went back exactly once.
  void TearDown() override {
    plugin_.reset();
    blob_ = Ingested{};
    EXPECT_EQ(ChunksLiveObjects(), 0);
  }
  std::vector<uint8_t> Chunks(std::initializer_list<uint64_t> indices) const {
    std::vector<uint8_t> out;
    for (uint64_t i : indices) {
      uint64_t end = std::min<uint64_t>((i + 1) * kChunk, payload_.size());
      out.insert(out.end(), payload_.begin() + i * kChunk, payload_.begin() + end);
    }
    return out;
  }

  std::shared_ptr<MediaPlugin> plugin_;
  std::vector<uint8_t> payload_;
  Ingested blob_;
};

TEST_F(PluginHostTest, LoadsTheDeclaredIdentity) {
  EXPECT_EQ(plugin_->name(), "chunks");
  EXPECT_EQ(plugin_->blob_type(), 1);
  EXPECT_EQ(plugin_->library(), LANCET_CHUNKS_PLUGIN);
  // The default config declares a real blob type, so it can store blob_info as it is.
  ASSERT_OK_AND_ASSIGN(auto plain, MediaPlugin::Load(ChunksSpec()));
  EXPECT_EQ(plain->blob_type(), LANCET_MEDIA_BLOB_CHUNKS);
  ASSERT_OK_AND_ASSIGN(auto none, MediaPlugin::Load(ChunksSpec("blob_type=0")));
  EXPECT_EQ(none->blob_type(), 0);
}

TEST_F(PluginHostTest, IngestStoresTheSourceAndIndexesItsChunks) {
  EXPECT_EQ(blob_.stored, payload_);
  EXPECT_EQ(blob_.result.stored_bytes, payload_.size());
  const uint64_t count = (payload_.size() + kChunk - 1) / kChunk;
  const BufferPtr& info = blob_.result.stream_info;
  ASSERT_EQ(info->size(), 32u);
  EXPECT_EQ(info->view().substr(0, 4), "LCHK");
  EXPECT_EQ(U64At(info, 8), kChunk);
  EXPECT_EQ(U64At(info, 16), payload_.size());
  EXPECT_EQ(U64At(info, 24), count);
  ASSERT_EQ(blob_.result.entries->size(), count * 8);
  for (uint64_t i = 0; i < count; ++i) EXPECT_EQ(U64At(blob_.result.entries, i * 8), i * kChunk);
}

TEST_F(PluginHostTest, OutputStreamsAsEachPushIsFed) {
  ASSERT_OK_AND_ASSIGN(auto session, plugin_->StartIngest());
  uint64_t seen = 0;
  auto sink = [&](std::span<const uint8_t> bytes) {
    seen += bytes.size();
    return Status::OK();
  };
  ASSERT_OK(session->Push(std::span<const uint8_t>(payload_).first(1000), sink));
  EXPECT_EQ(seen, 1000u);
  ASSERT_OK(session->Push(std::span<const uint8_t>(payload_).subspan(1000, 5), sink));
  EXPECT_EQ(seen, 1005u);
  ASSERT_OK_AND_ASSIGN(auto result, session->Finish(sink));
  EXPECT_EQ(result.stored_bytes, 1005u);
  EXPECT_EQ(U64At(result.stream_info, 24), 1u);
}

TEST_F(PluginHostTest, PlanAndDecodeRoundTrip) {
  const uint64_t last = (payload_.size() - 1) / kChunk;
  struct Case {
    std::string request;
    std::vector<uint64_t> chunks;
  };
  const std::vector<Case> cases = {
      {"chunks=0", {0}},
      {"chunks=3,5", {3, 5}},
      {"chunks=0-2,7,9-10", {0, 1, 2, 7, 9, 10}},
      {"chunks=" + std::to_string(last), {last}},
      {"chunks=40-" + std::to_string(last), {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.request);
    std::vector<uint64_t> chunks = c.chunks;
    if (chunks.empty()) {
      for (uint64_t i = 40; i <= last; ++i) chunks.push_back(i);
    }
    ASSERT_OK_AND_ASSIGN(auto ranges, plugin_->Plan(blob_.result.stream_info->span(), blob_.result.entries->span(),
                                                    Bytes(c.request), payload_.size()));
    ASSERT_EQ(ranges.size(), chunks.size());
    std::vector<uint8_t> expected;
    std::string json = "{\"chunks\":[";
    for (size_t i = 0; i < chunks.size(); ++i) {
      uint64_t end = std::min<uint64_t>((chunks[i] + 1) * kChunk, payload_.size());
      EXPECT_EQ(ranges[i], (io::ByteRange{chunks[i] * kChunk, end - chunks[i] * kChunk}));
      expected.insert(expected.end(), payload_.begin() + chunks[i] * kChunk, payload_.begin() + end);
      json += (i ? "," : "") + std::to_string(chunks[i]);
    }
    json += "],\"bytes\":" + std::to_string(expected.size()) + "}";
    ASSERT_OK_AND_ASSIGN(auto out, testing::Extract(*plugin_, blob_, c.request));
    EXPECT_EQ(std::vector<uint8_t>(out.data->data(), out.data->data() + out.data->size()), expected);
    EXPECT_EQ(out.metadata, json);
  }
}

TEST_F(PluginHostTest, DecodeAcceptsRangesCoveringThePlan) {
  const std::string request = "chunks=2,4-6";
  // One merged range over chunks 1..7 plus an unrelated one: the plugin finds its chunks inside.
  std::vector<io::ByteRange> ranges = {{30 * kChunk, 10}, {kChunk, 7 * kChunk}};
  auto bytes = testing::ReadRanges(blob_.stored, ranges);
  ASSERT_OK_AND_ASSIGN(auto out, plugin_->Decode(Bytes(request), blob_.result.stream_info->span(),
                                                 blob_.result.entries->span(), ranges, bytes));
  EXPECT_EQ(std::vector<uint8_t>(out.data->data(), out.data->data() + out.data->size()), Chunks({2, 4, 5, 6}));
}

TEST_F(PluginHostTest, DecodeRefusesBytesThatDoNotCoverTheRequest) {
  const std::string request = "chunks=2,3";
  std::vector<io::ByteRange> ranges = {{2 * kChunk, kChunk}, {3 * kChunk, kChunk - 1}};
  auto bytes = testing::ReadRanges(blob_.stored, ranges);
  auto out =
      plugin_->Decode(Bytes(request), blob_.result.stream_info->span(), blob_.result.entries->span(), ranges, bytes);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(out.status().IsInvalidArgument()) << out.status().ToString();
  EXPECT_NE(out.status().message().find(LANCET_CHUNKS_PLUGIN), std::string::npos);
  EXPECT_NE(out.status().message().find("decode"), std::string::npos);
  EXPECT_NE(out.status().message().find("chunk 3"), std::string::npos);
}

TEST_F(PluginHostTest, DecodeChecksTheCallersSpans) {
  const std::string request = "chunks=1";
  std::vector<io::ByteRange> ranges = {{kChunk, kChunk}};
  auto bytes = testing::ReadRanges(blob_.stored, ranges);
  auto info = blob_.result.stream_info->span();
  auto entries = blob_.result.entries->span();
  auto mismatched = plugin_->Decode(Bytes(request), info, entries, ranges, {});
  EXPECT_TRUE(mismatched.status().IsInvalidArgument()) << mismatched.status().ToString();
  std::vector<BufferPtr> short_bytes = {Buffer::Copy(std::string_view("abc"))};
  auto wrong_size = plugin_->Decode(Bytes(request), info, entries, ranges, short_bytes);
  EXPECT_TRUE(wrong_size.status().IsInvalidArgument()) << wrong_size.status().ToString();
  std::vector<io::ByteRange> wrapping = {{~0ULL, 2}};
  auto overflow = plugin_->Decode(Bytes(request), info, entries, wrapping, short_bytes);
  EXPECT_TRUE(overflow.status().IsInvalidArgument()) << overflow.status().ToString();
}

TEST_F(PluginHostTest, BadRequestsAreInvalidArgumentsNamingLibraryAndCall) {
  for (std::string request :
       {"chunks=49", "chunks=99999", "chunks=5,3", "chunks=3,3", "chunks=", "frames=1", "chunks=1-", "chunks=3-1",
        "chunks=18446744073709551616", "chunks=1;2", "chunks=0-70000", ""}) {
    SCOPED_TRACE(request);
    auto ranges =
        plugin_->Plan(blob_.result.stream_info->span(), blob_.result.entries->span(), Bytes(request), payload_.size());
    ASSERT_FALSE(ranges.ok());
    EXPECT_TRUE(ranges.status().IsInvalidArgument()) << ranges.status().ToString();
    EXPECT_NE(ranges.status().message().find(std::string(LANCET_CHUNKS_PLUGIN) + " (media plugin chunks): plan"),
              std::string::npos)
        << ranges.status().ToString();
    auto decoded = testing::Extract(*plugin_, blob_, request);
    EXPECT_TRUE(decoded.status().IsInvalidArgument()) << decoded.status().ToString();
  }
}

TEST_F(PluginHostTest, PlanRefusesAStreamInfoOfAnotherBlob) {
  auto ranges = plugin_->Plan(blob_.result.stream_info->span(), blob_.result.entries->span(), Bytes("chunks=1"),
                              payload_.size() + 1);
  EXPECT_TRUE(ranges.status().IsCorruption()) << ranges.status().ToString();
  auto truncated = plugin_->Plan(blob_.result.stream_info->span(), blob_.result.entries->span().first(8),
                                 Bytes("chunks=1"), payload_.size());
  EXPECT_TRUE(truncated.status().IsCorruption()) << truncated.status().ToString();
}

TEST_F(PluginHostTest, EmptyBlobHasNoChunks) {
  ASSERT_OK_AND_ASSIGN(auto empty, testing::IngestAll(*plugin_, {}, kPushSizes));
  EXPECT_TRUE(empty.stored.empty());
  EXPECT_EQ(empty.result.stored_bytes, 0u);
  EXPECT_EQ(U64At(empty.result.stream_info, 24), 0u);
  EXPECT_EQ(empty.result.entries->size(), 0u);
  EXPECT_TRUE(testing::Extract(*plugin_, empty, "chunks=0").status().IsInvalidArgument());
}

TEST_F(PluginHostTest, BadConfigFailsInit) {
  for (std::string config : {"chunk_size=0", "chunk_size=abc", "chunk_size=1073741825", "colour=blue", "misbehave=nope",
                             "blob_type=256", "chunk_size"}) {
    SCOPED_TRACE(config);
    auto loaded = MediaPlugin::Load(ChunksSpec(config));
    ASSERT_FALSE(loaded.ok());
    EXPECT_TRUE(loaded.status().IsInvalidArgument()) << loaded.status().ToString();
    EXPECT_NE(loaded.status().message().find(std::string(LANCET_CHUNKS_PLUGIN) + ": init failed"), std::string::npos)
        << loaded.status().ToString();
  }
}

TEST_F(PluginHostTest, SessionRefusesCallsAfterFinishOrFailure) {
  auto keep = [](std::span<const uint8_t>) { return Status::OK(); };
  ASSERT_OK_AND_ASSIGN(auto session, plugin_->StartIngest());
  ASSERT_OK(session->Push(Bytes("abc"), keep));
  ASSERT_OK(session->Finish(keep).status());
  EXPECT_TRUE(session->Push(Bytes("d"), keep).IsInvalidArgument());
  EXPECT_TRUE(session->Finish(keep).status().IsInvalidArgument());

  ASSERT_OK_AND_ASSIGN(auto refused, plugin_->StartIngest());
  auto full = [](std::span<const uint8_t>) { return Status::IOError("disk full"); };
  Status st = refused->Push(Bytes("abc"), full);
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_EQ(st.message(), "disk full");
  EXPECT_TRUE(refused->Push(Bytes("d"), keep).IsInvalidArgument());
  EXPECT_TRUE(refused->Finish(keep).status().IsInvalidArgument());
}

TEST_F(PluginHostTest, SinkThatThrowsIsAnErrorNotAnUnwind) {
  ASSERT_OK_AND_ASSIGN(auto session, plugin_->StartIngest());
  auto throwing = [](std::span<const uint8_t>) -> Status { throw std::runtime_error("boom"); };
  Status st = session->Push(Bytes("abc"), throwing);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_NE(st.message().find("output callback threw"), std::string::npos);
}

TEST_F(PluginHostTest, OutputsOutliveThePluginHandle) {
  ASSERT_OK_AND_ASSIGN(auto out, testing::Extract(*plugin_, blob_, "chunks=4"));
  BufferPtr info = blob_.result.stream_info;
  plugin_.reset();
  blob_ = Ingested{};
  EXPECT_GT(ChunksLiveObjects(), 0);
  EXPECT_EQ(std::vector<uint8_t>(out.data->data(), out.data->data() + out.data->size()), Chunks({4}));
  EXPECT_EQ(info->view().substr(0, 4), "LCHK");
}

TEST_F(PluginHostTest, PlanAndDecodeRunConcurrently) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        uint64_t chunk = static_cast<uint64_t>(t * 10 + i % 10);
        auto out = testing::Extract(*plugin_, blob_, "chunks=" + std::to_string(chunk));
        if (!out.ok() || out->data->size() != kChunk ||
            std::memcmp(out->data->data(), payload_.data() + chunk * kChunk, kChunk) != 0) {
          ++failures[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace lancet::media
