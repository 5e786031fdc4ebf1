// The host against plugins that break the rules: load failures, and the chunks plugin's
// test-only misbehave modes. Every case is a clean Status naming the library and the call.
#include <gtest/gtest.h>

#include "lancet/media/plugin_host.h"
#include "blob_info/media_test_util.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using testing::Bytes;
using testing::ChunksLiveObjects;
using testing::ChunksSpec;

constexpr size_t kPushSizes[] = {100, 1000};

void ExpectError(const Status& st, StatusCode code, const std::string& call, const std::string& detail) {
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(LANCET_CHUNKS_PLUGIN), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find(call), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find(detail), std::string::npos) << st.ToString();
}

class MisbehaveTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(ChunksLiveObjects(), 0); }

  // A correct blob made by a well-behaved instance, for the plan and decode cases.
  testing::Ingested GoodBlob() {
    auto good = MediaPlugin::Load(ChunksSpec("chunk_size=100"));
    EXPECT_TRUE(good.ok());
    auto blob = testing::IngestAll(**good, testing::Payload(1000, 3), kPushSizes);
    EXPECT_TRUE(blob.ok());
    return std::move(blob).value();
  }
  Status PlanWith(const std::string& mode) {
    auto blob = GoodBlob();
    auto plugin = MediaPlugin::Load(ChunksSpec("chunk_size=100;misbehave=" + mode));
    if (!plugin.ok()) return plugin.status();
    return (*plugin)
        ->Plan(blob.result.stream_info->span(), blob.result.entries->span(), Bytes("chunks=1"), 1000)
        .status();
  }
  Status DecodeWith(const std::string& mode, const HostLimits& limits = {}) {
    auto blob = GoodBlob();
    auto plugin = MediaPlugin::Load(ChunksSpec("chunk_size=100;misbehave=" + mode), limits);
    if (!plugin.ok()) return plugin.status();
    return testing::Extract(**plugin, blob, "chunks=1").status();
  }
  Status IngestWith(const std::string& mode) {
    auto plugin = MediaPlugin::Load(ChunksSpec("misbehave=" + mode));
    if (!plugin.ok()) return plugin.status();
    return testing::IngestAll(**plugin, testing::Payload(1000, 1), kPushSizes).status();
  }
};

TEST_F(MisbehaveTest, BareLibraryNameIsRefused) {
  auto loaded = MediaPlugin::Load(PluginSpec{"liblancet_chunks.so", {}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(loaded.status().IsInvalidArgument());
  EXPECT_NE(loaded.status().message().find("liblancet_chunks.so: load"), std::string::npos);
  EXPECT_NE(loaded.status().message().find("not a bare name"), std::string::npos);
}

TEST_F(MisbehaveTest, MissingFileIsNotFound) {
  std::string path = std::string(LANCET_CHUNKS_PLUGIN) + ".missing";
  auto loaded = MediaPlugin::Load(PluginSpec{path, {}});
  EXPECT_TRUE(loaded.status().IsNotFound()) << loaded.status().ToString();
  EXPECT_NE(loaded.status().message().find(path), std::string::npos);
}

TEST_F(MisbehaveTest, LibraryWithoutEntryPointIsRefused) {
  auto loaded = MediaPlugin::Load(PluginSpec{LANCET_NOT_A_PLUGIN, {}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(loaded.status().IsInvalidArgument());
  EXPECT_NE(loaded.status().message().find(LANCET_NOT_A_PLUGIN), std::string::npos);
  EXPECT_NE(loaded.status().message().find("exports no lancet_media_plugin_init"), std::string::npos);
}

TEST_F(MisbehaveTest, FileThatIsNotALibraryIsRefused) {
  auto loaded = MediaPlugin::Load(PluginSpec{LANCET_SOURCE_DIR "/CMakeLists.txt", {}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(loaded.status().IsInvalidArgument());
  EXPECT_NE(loaded.status().message().find("cannot load"), std::string::npos) << loaded.status().ToString();
}

TEST_F(MisbehaveTest, OtherMajorVersionIsRefusedAndReleased) {
  auto loaded = MediaPlugin::Load(ChunksSpec("misbehave=wrong_major"));
  ASSERT_FALSE(loaded.ok());
  ExpectError(loaded.status(), StatusCode::kInvalidArgument, "init",
              "built for media plugin ABI 2.0, this host speaks 1.0");
}

TEST_F(MisbehaveTest, BadNameIsRefused) {
  auto loaded = MediaPlugin::Load(ChunksSpec("misbehave=bad_name"));
  ExpectError(loaded.status(), StatusCode::kCorruption, "init", "name");
}

TEST_F(MisbehaveTest, IngestFailures) {
  ExpectError(IngestWith("fail_ingest"), StatusCode::kInvalidArgument, "ingest push failed", "misbehave=fail_ingest");
  ExpectError(IngestWith("null_write"), StatusCode::kCorruption, "ingest push", "16 bytes from a NULL pointer");
  ExpectError(IngestWith("huge_stream_info"), StatusCode::kCorruption, "ingest finish",
              "stream_info has 1099511627776 bytes, the limit is 16777216");
  ExpectError(IngestWith("no_release"), StatusCode::kCorruption, "ingest finish",
              "entries has 8 bytes and no release callback");
  HostLimits small;
  small.max_entries_bytes = 8;
  auto plugin = MediaPlugin::Load(ChunksSpec("chunk_size=100"), small);
  ASSERT_OK(plugin.status());
  ExpectError(testing::IngestAll(**plugin, testing::Payload(1000, 1), kPushSizes).status(), StatusCode::kCorruption,
              "ingest finish", "entries has 80 bytes, the limit is 8");
}

TEST_F(MisbehaveTest, PluginIgnoringARefusingSinkStillFails) {
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(ChunksSpec("misbehave=ignore_sink")));
  ASSERT_OK_AND_ASSIGN(auto session, plugin->StartIngest());
  Status st = session->Push(Bytes("abc"), [](std::span<const uint8_t>) { return Status::IOError("quota"); });
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_EQ(st.message(), "quota");
}

TEST_F(MisbehaveTest, PlanFailures) {
  ExpectError(PlanWith("fail_plan"), StatusCode::kCorruption, "plan failed (code 2)", "misbehave=fail_plan");
  ExpectError(PlanWith("unterminated_error"), StatusCode::kInternal, "plan failed (code 6)", std::string(512, 'x'));
  ExpectError(PlanWith("range_past_end"), StatusCode::kCorruption, "plan",
              "range 0 [999, 999+2) is not inside the 1000-byte blob");
  ExpectError(PlanWith("overflow"), StatusCode::kCorruption, "plan", "is not inside the 1000-byte blob");
  ExpectError(PlanWith("huge_count"), StatusCode::kCorruption, "plan",
              "returned 1099511627776 ranges, the limit is 65536");
  ExpectError(PlanWith("total_too_big"), StatusCode::kCorruption, "plan", "add up to more than the 1000-byte blob");
  ExpectError(PlanWith("null_ranges"), StatusCode::kCorruption, "plan", "3 ranges without a pointer");
}

TEST_F(MisbehaveTest, DecodeFailures) {
  ExpectError(DecodeWith("fail_decode"), StatusCode::kNotSupported, "decode failed (code 3)", "misbehave=fail_decode");
  ExpectError(DecodeWith("huge_output"), StatusCode::kCorruption, "decode",
              "output has 1099511627776 bytes, the limit is 1073741824");
  ExpectError(DecodeWith("huge_metadata"), StatusCode::kCorruption, "decode",
              "metadata has 1099511627776 bytes, the limit is 1048576");
}

TEST_F(MisbehaveTest, HostLimitsBoundWellBehavedPlugins) {
  HostLimits limits;
  limits.max_ranges = 2;
  limits.max_output_bytes = 150;
  auto blob = GoodBlob();
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(ChunksSpec("chunk_size=100"), limits));
  ExpectError(
      plugin->Plan(blob.result.stream_info->span(), blob.result.entries->span(), Bytes("chunks=1-3"), 1000).status(),
      StatusCode::kCorruption, "plan", "returned 3 ranges, the limit is 2");
  ExpectError(testing::Extract(*plugin, blob, "chunks=1-2").status(), StatusCode::kCorruption, "decode",
              "output has 200 bytes, the limit is 150");
  ASSERT_OK_AND_ASSIGN(auto one, testing::Extract(*plugin, blob, "chunks=1"));
  EXPECT_EQ(one.data->size(), 100u);
}

}  // namespace
}  // namespace lancet::media
