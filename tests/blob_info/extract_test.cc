// The extract pipeline end to end with the codec-free chunks plugin: ingest on write,
// resolve → plan → read → decode, reads merged across rows, and plugin failures.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "blob_info/media_test_util.h"
#include "common/payload.h"
#include "common/test_stores.h"
#include "lancet/media/extract.h"
#include "lancet/media/write_blob_info.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using lancet::testing::Payload;

using table::Dataset;

PluginSpec Chunks(const std::string& config = "chunk_size=1000;blob_type=200") { return testing::ChunksSpec(config); }

struct Fixture {
  std::unique_ptr<::lancet::testing::TestRoot> place;
  std::string root;        // the dataset's URI (local path or s3://)
  std::string store_root;  // the same inside place->store()
  std::vector<std::optional<std::string>> values;
  Schema schema{{table::MakeBlobField("video", true, table::BlobThresholds{100, 1 << 20, 1 << 30})}, {}};

  explicit Fixture(::lancet::testing::StoreKind kind = ::lancet::testing::StoreKind::kLocal) {
    static int count = 0;
    place = std::make_unique<::lancet::testing::TestRoot>(
        kind, ::lancet::testing::CurrentTestName() + "_" + std::to_string(count++));
    root = place->uri() + "/ds";
    store_root = place->root() + "/ds";
    // inline, packed, packed (adjacent in the same pack), dedicated, null
    values = {Payload(1, 50), Payload(2, 3000), Payload(3, 3000), Payload(4, 2500000), std::nullopt};
  }

  Status Write() {
    std::vector<bool> valid;
    for (const auto& v : values) valid.push_back(v.has_value());
    Array data = *MakeBinaryArray(MakeType(TypeId::kLargeBinary), values);
    Array uri = *MakeNullArray(MakeType(TypeId::kUtf8), static_cast<int64_t>(values.size()));
    Array col = *MakeStructArray(schema.fields[0].type, static_cast<int64_t>(values.size()), {data, uri}, valid);
    return WriteDatasetWithBlobInfo(root, schema, {RecordBatch{schema, col.length, {col}}}, {}, {{"video", Chunks()}})
        .status();
  }
};

// Representative extract tests run on local disk and on S3 (skipped without a server).
class ExtractOn : public ::testing::TestWithParam<::lancet::testing::StoreKind> {
 protected:
  void SetUp() override { LANCET_SKIP_WITHOUT_STORE(GetParam()); }
};

TEST_P(ExtractOn, ChunksComeBackFromPackedAndDedicatedRows) {
  Fixture fx(GetParam());
  ASSERT_OK(fx.Write());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  EXPECT_EQ(ds->schema().fields[0].metadata.at(kMediaPluginKey), "chunks");
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(Chunks()));
  auto request = testing::Bytes("chunks=1,2");
  ExtractStats stats;
  ASSERT_OK_AND_ASSIGN(auto out, Extract(*ds, "video", std::vector<uint64_t>{1, 3, 4}, request, *plugin, {}, &stats));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0]->data->view(), fx.values[1]->substr(1000, 2000));
  EXPECT_EQ(out[1]->data->view(), fx.values[3]->substr(1000, 2000));
  EXPECT_FALSE(out[2].has_value());  // null blob
  EXPECT_NE(out[0]->metadata.find("chunks"), std::string::npos);
  EXPECT_EQ(stats.rows, 2u);
  EXPECT_EQ(stats.planned_ranges, 4u);
  EXPECT_EQ(stats.bytes_planned, 4000u);
}

TEST(Extract, RowsWithoutBlobInfoAndWrongPluginsAreRefused) {
  Fixture fx;
  ASSERT_OK(fx.Write());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(Chunks()));
  auto request = testing::Bytes("chunks=0");
  Status st = Extract(*ds, "video", std::vector<uint64_t>{0}, request, *plugin).status();  // inline row
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("take_blobs"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto other, MediaPlugin::Load(Chunks("chunk_size=1000;blob_type=7")));
  st = Extract(*ds, "video", std::vector<uint64_t>{1}, request, *other).status();
  EXPECT_NE(st.message().find("blob type 200"), std::string::npos) << st.ToString();
  // A chunk past the end is the plugin's error, reported cleanly.
  auto past = testing::Bytes("chunks=99");
  st = Extract(*ds, "video", std::vector<uint64_t>{1}, past, *plugin).status();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(LANCET_CHUNKS_PLUGIN), std::string::npos) << st.ToString();
  // The raw-bytes APIs point to extract for these rows.
  st = ds->TakeBlobs("video", std::vector<uint64_t>{1}).status();
  EXPECT_NE(st.message().find("extract"), std::string::npos) << st.ToString();
}

TEST(Extract, MisbehavingPluginsGiveCleanErrors) {
  Fixture fx;
  ASSERT_OK(fx.Write());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  auto request = testing::Bytes("chunks=0");
  for (const char* mode :
       {"range_past_end", "overflow", "huge_count", "total_too_big", "fail_plan", "fail_decode", "huge_output"}) {
    ASSERT_OK_AND_ASSIGN(auto bad,
                         MediaPlugin::Load(Chunks(std::string("chunk_size=1000;blob_type=200;misbehave=") + mode)));
    Status st = Extract(*ds, "video", std::vector<uint64_t>{3}, request, *bad).status();
    EXPECT_FALSE(st.ok()) << mode;
    EXPECT_NE(st.message().find(LANCET_CHUNKS_PLUGIN), std::string::npos) << mode << ": " << st.ToString();
  }
  // An ingest failure fails the write and names the plugin.
  Fixture again;
  Status st = WriteDatasetWithBlobInfo(again.root, again.schema, {}, {},
                                       {{"video", Chunks("misbehave=fail_ingest;blob_type=1")}})
                  .status();
  // No rows: nothing to ingest, so the write itself succeeds.
  EXPECT_TRUE(st.ok()) << st.ToString();
  again.values = {Payload(9, 5000)};
  std::vector<bool> valid = {true};
  Array data = *MakeBinaryArray(MakeType(TypeId::kLargeBinary), again.values);
  Array uri = *MakeNullArray(MakeType(TypeId::kUtf8), 1);
  Array col = *MakeStructArray(again.schema.fields[0].type, 1, {data, uri}, valid);
  table::WriteParams append;
  append.mode = table::WriteMode::kAppend;
  st = WriteDatasetWithBlobInfo(again.root, again.schema, {RecordBatch{again.schema, 1, {col}}}, append,
                                {{"video", Chunks("misbehave=fail_ingest;blob_type=1")}})
           .status();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("fail_ingest"), std::string::npos) << st.ToString();
  // A plugin without a blob type cannot produce blob_info; the error says how to give one.
  st = WriteDatasetWithBlobInfo(again.root, again.schema, {}, append, {{"video", Chunks("chunk_size=10;blob_type=0")}})
           .status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("blob_type=N"), std::string::npos) << st.ToString();
}

// The chunks plugin's default config (no config at all) stores blob_info and extracts.
TEST(Extract, ChunksPluginWorksWithItsDefaultConfig) {
  Fixture fx;
  fx.values = {Payload(5, 200000)};
  std::vector<bool> valid = {true};
  Array data = *MakeBinaryArray(MakeType(TypeId::kLargeBinary), fx.values);
  Array uri = *MakeNullArray(MakeType(TypeId::kUtf8), 1);
  Array col = *MakeStructArray(fx.schema.fields[0].type, 1, {data, uri}, valid);
  ASSERT_OK(
      WriteDatasetWithBlobInfo(fx.root, fx.schema, {RecordBatch{fx.schema, 1, {col}}}, {}, {{"video", Chunks("")}})
          .status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(Chunks("")));
  ASSERT_OK_AND_ASSIGN(auto out, Extract(*ds, "video", std::vector<uint64_t>{0}, testing::Bytes("chunks=1"), *plugin));
  ASSERT_TRUE(out[0].has_value());
  // Chunk 1 of the default 64 KiB chunks.
  EXPECT_EQ(std::string(out[0]->data->view()), fx.values[0]->substr(65536, 65536));
}

// Two rows whose planned ranges touch in one pack sidecar cost one read between them.
TEST_P(ExtractOn, AdjacentRangesOfDifferentRowsAreOneRead) {
  Fixture fx(GetParam());
  ASSERT_OK(fx.Write());
  auto store = GetParam() == ::lancet::testing::StoreKind::kS3 ? fx.place->store() : io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, fx.store_root));
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(Chunks()));
  ASSERT_OK_AND_ASSIGN(auto located, ds->LocateBlobsWithInfo("video", std::vector<uint64_t>{1, 2}));
  ASSERT_EQ(located[0]->location.object, located[1]->location.object);
  ASSERT_EQ(located[0]->location.offset + located[0]->location.length, located[1]->location.offset);
  auto request = testing::Bytes("chunks=0-2");  // the whole 3000-byte value of each row
  auto requests_for = [&](std::vector<uint64_t> rows) {
    store->stats().Reset();
    auto out = Extract(*ds, "video", rows, request, *plugin);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return store->stats().Snapshot();
  };
  io::IoCounters one = requests_for({1});
  io::IoCounters two = requests_for({1, 2});
  io::IoCounters resolve_only;
  store->stats().Reset();
  ASSERT_OK(ds->LocateBlobsWithInfo("video", std::vector<uint64_t>{1, 2}).status());
  resolve_only = store->stats().Snapshot();
  // The second row adds ranges but no request: [0, 3000) and [3000, 6000) merge.
  EXPECT_EQ(two.read_requests, one.read_requests);
  EXPECT_EQ(two.read_requests - resolve_only.read_requests, 1u);
  EXPECT_GT(two.logical_ranges, one.logical_ranges);
}

INSTANTIATE_TEST_SUITE_P(Stores, ExtractOn,
                         ::testing::Values(::lancet::testing::StoreKind::kLocal, ::lancet::testing::StoreKind::kS3),
                         [](const auto& info) { return ::lancet::testing::StoreKindName(info.param); });

}  // namespace
}  // namespace lancet::media
