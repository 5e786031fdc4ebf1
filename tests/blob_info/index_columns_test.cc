// The index-column layout (the proposal's alternative to blob_info): same extraction
// results as the inline layout, one more logical read to resolve.
#include "lancet/media/index_columns.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "blob_info/media_test_util.h"
#include "common/payload.h"
#include "lancet/media/extract.h"
#include "lancet/media/write_blob_info.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::media {
namespace {

using lancet::testing::Payload;

namespace fs = std::filesystem;
using table::Dataset;

PluginSpec Chunks(const std::string& config = "chunk_size=1000;blob_type=200") { return testing::ChunksSpec(config); }

struct Fixture {
  fs::path dir;
  Schema schema{{table::MakeBlobField("video", true, table::BlobThresholds{100, 1 << 20, 1 << 30}),
                 MakeField("id", MakeType(TypeId::kInt64))},
                {}};
  // inline, packed, packed, dedicated, null, packed
  std::vector<std::optional<std::string>> values = {Payload(1, 50),      Payload(2, 3000), Payload(3, 3500),
                                                    Payload(4, 2500000), std::nullopt,     Payload(6, 3001)};

  Fixture() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / ("lancet_index_columns_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir);
  }
  ~Fixture() { fs::remove_all(dir); }
  std::string Inline() const { return (dir / "inline").string(); }
  std::string Indexed() const { return (dir / "indexed").string(); }

  RecordBatch Batch() const {
    std::vector<bool> valid;
    std::vector<int64_t> ids;
    for (size_t i = 0; i < values.size(); ++i) {
      valid.push_back(values[i].has_value());
      ids.push_back(static_cast<int64_t>(i));
    }
    const auto n = static_cast<int64_t>(values.size());
    Array data = *MakeBinaryArray(MakeType(TypeId::kLargeBinary), values);
    Array uri = *MakeNullArray(MakeType(TypeId::kUtf8), n);
    Array col = *MakeStructArray(schema.fields[0].type, n, {data, uri}, valid);
    return RecordBatch{schema, n, {col, *ArrayFromVector(MakeType(TypeId::kInt64), ids)}};
  }
  Status WriteBoth() {
    RETURN_IF_ERROR(WriteDatasetWithBlobInfo(Inline(), schema, {Batch()}, {}, {{"video", Chunks()}}).status());
    return WriteDatasetWithIndexColumns(Indexed(), schema, {Batch()}, {}, {{"video", Chunks()}}).status();
  }
};

TEST(IndexColumns, BothLayoutsExtractTheSameBytes) {
  Fixture fx;
  ASSERT_OK(fx.WriteBoth());
  ASSERT_OK_AND_ASSIGN(auto inline_ds, Dataset::Open(fx.Inline()));
  ASSERT_OK_AND_ASSIGN(auto indexed_ds, Dataset::Open(fx.Indexed()));
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(Chunks()));
  const std::vector<uint64_t> rows = {5, 1, 3, 4, 2, 3};
  for (const char* text : {"chunks=0", "chunks=1", "chunks=0-2", "chunks=0,2"}) {
    auto request = testing::Bytes(text);
    ExtractStats a, b;
    ASSERT_OK_AND_ASSIGN(auto want, Extract(*inline_ds, "video", rows, request, *plugin, {}, &a));
    ASSERT_OK_AND_ASSIGN(auto got, ExtractWithIndexColumns(*indexed_ds, "video", rows, request, *plugin, {}, &b));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      ASSERT_EQ(got[i].has_value(), want[i].has_value()) << text << " row " << rows[i];
      if (!want[i]) continue;
      EXPECT_EQ(got[i]->data->view(), want[i]->data->view()) << text << " row " << rows[i];
      EXPECT_EQ(got[i]->metadata, want[i]->metadata) << text << " row " << rows[i];
    }
    EXPECT_EQ(b.rows, a.rows);
    EXPECT_EQ(b.planned_ranges, a.planned_ranges);
    EXPECT_EQ(b.bytes_planned, a.bytes_planned);
    EXPECT_EQ(b.objects, a.objects);
  }
  // The bytes come from the source values, not just from agreeing layouts.
  auto request = testing::Bytes("chunks=1");
  ASSERT_OK_AND_ASSIGN(auto out,
                       ExtractWithIndexColumns(*indexed_ds, "video", std::vector<uint64_t>{3, 2}, request, *plugin));
  EXPECT_EQ(out[0]->data->view(), fx.values[3]->substr(1000, 1000));
  EXPECT_EQ(out[1]->data->view(), fx.values[2]->substr(1000, 1000));
  // Plans agree too (by row addresses this time), row by row.
  ExtractOptions by_address;
  by_address.key = table::RowKey::kRowAddress;
  ASSERT_OK_AND_ASSIGN(auto plan_a, ResolveAndPlan(*inline_ds, "video", rows, request, *plugin, by_address));
  ASSERT_OK_AND_ASSIGN(auto plan_b,
                       ResolveAndPlanWithIndexColumns(*indexed_ds, "video", rows, request, *plugin, by_address));
  ASSERT_EQ(plan_a.size(), rows.size());
  ASSERT_EQ(plan_b.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(plan_a[i].has_value(), plan_b[i].has_value()) << i;
    if (!plan_a[i]) continue;
    ASSERT_EQ(plan_a[i]->ranges.size(), 1u);
    ASSERT_EQ(plan_b[i]->ranges.size(), 1u);
    EXPECT_EQ(plan_a[i]->ranges[0].length, plan_b[i]->ranges[0].length);
  }
  EXPECT_FALSE(plan_a[3].has_value());  // null blob
}

TEST(IndexColumns, TheIndexLayoutIsAPlainStorage22Dataset) {
  Fixture fx;
  ASSERT_OK(fx.WriteBoth());
  table::OpenOptions old_reader;  // refuses format 2.3
  old_reader.max_storage_version = table::StorageVersion::k2_2;
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.Indexed(), old_reader));
  EXPECT_EQ(ds->schema().fields[0].metadata.at(kMediaPluginKey), "chunks");
  ASSERT_EQ(ds->schema().fields.size(), 5u);
  EXPECT_EQ(ds->schema().fields[2].name, "video_blob_type");
  EXPECT_EQ(ds->schema().fields[3].name, "video_stream_info");
  EXPECT_EQ(ds->schema().fields[4].name, "video_entries");
  // The chunks plugin stores the source itself, so plain blob reads return it.
  ASSERT_OK_AND_ASSIGN(auto blobs, ds->TakeBlobs("video", std::vector<uint64_t>{0, 3, 5}));
  EXPECT_EQ((*blobs[0])->view(), *fx.values[0]);
  EXPECT_EQ((*blobs[1])->view(), *fx.values[3]);
  EXPECT_EQ((*blobs[2])->view(), *fx.values[5]);
  // Index columns: null for the inline and the null value, set for the others.
  ASSERT_OK_AND_ASSIGN(auto index, ds->TakeRowIds(std::vector<uint64_t>{0, 1, 4},
                                                  {"video_blob_type", "video_stream_info", "video_entries"}));
  EXPECT_TRUE(index.columns[0].IsNull(0));
  EXPECT_TRUE(index.columns[1].IsNull(0));
  EXPECT_EQ(index.columns[0].values<uint8_t>()[1], 200);
  EXPECT_EQ(index.columns[1].GetView(1).size(), 32u);     // the chunks plugin's stream_info
  EXPECT_EQ(index.columns[2].GetView(1).size(), 3u * 8);  // 3000 bytes: 3 chunk offsets
  EXPECT_TRUE(index.columns[2].IsNull(2));
}

// Resolve + plan: the index layout reads the index columns and then the descriptor,
// the inline layout reads both in one projection.
TEST(IndexColumns, ResolvingTheIndexLayoutReadsMore) {
  Fixture fx;
  ASSERT_OK(fx.WriteBoth());
  auto inline_store = io::LocalFileSystem();
  auto indexed_store = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto inline_ds, Dataset::Open(inline_store, fx.Inline()));
  ASSERT_OK_AND_ASSIGN(auto indexed_ds, Dataset::Open(indexed_store, fx.Indexed()));
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(Chunks()));
  auto request = testing::Bytes("chunks=0");
  for (std::vector<uint64_t> rows : {std::vector<uint64_t>{1}, std::vector<uint64_t>{5, 1, 2, 3}}) {
    // Once to open the data files, whose footers neither layout reads again.
    ASSERT_OK(ResolveAndPlan(*inline_ds, "video", rows, request, *plugin).status());
    ASSERT_OK(ResolveAndPlanWithIndexColumns(*indexed_ds, "video", rows, request, *plugin).status());
    inline_store->stats().Reset();
    indexed_store->stats().Reset();
    ASSERT_OK(ResolveAndPlan(*inline_ds, "video", rows, request, *plugin).status());
    ASSERT_OK(ResolveAndPlanWithIndexColumns(*indexed_ds, "video", rows, request, *plugin).status());
    io::IoCounters a = inline_store->stats().Snapshot();
    io::IoCounters b = indexed_store->stats().Snapshot();
    EXPECT_GT(a.read_requests, 0u);
    EXPECT_GT(b.logical_ranges, a.logical_ranges) << rows.size() << " rows";
    EXPECT_GT(b.read_requests, a.read_requests) << rows.size() << " rows";
  }
}

TEST(IndexColumns, BadInputsGiveCleanErrors) {
  Fixture fx;
  ASSERT_OK(fx.WriteBoth());
  ASSERT_OK_AND_ASSIGN(auto indexed_ds, Dataset::Open(fx.Indexed()));
  ASSERT_OK_AND_ASSIGN(auto inline_ds, Dataset::Open(fx.Inline()));
  ASSERT_OK_AND_ASSIGN(auto plugin, MediaPlugin::Load(Chunks()));
  auto request = testing::Bytes("chunks=0");
  // An inline value has no index.
  Status st = ExtractWithIndexColumns(*indexed_ds, "video", std::vector<uint64_t>{0}, request, *plugin).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("video_stream_info"), std::string::npos) << st.ToString();
  // A dataset without index columns.
  st = ExtractWithIndexColumns(*inline_ds, "video", std::vector<uint64_t>{1}, request, *plugin).status();
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("index columns"), std::string::npos) << st.ToString();
  // Another plugin's blob type.
  ASSERT_OK_AND_ASSIGN(auto other, MediaPlugin::Load(Chunks("chunk_size=1000;blob_type=7")));
  st = ExtractWithIndexColumns(*indexed_ds, "video", std::vector<uint64_t>{1}, request, *other).status();
  EXPECT_NE(st.message().find("blob type 200"), std::string::npos) << st.ToString();
  // Writes: not a blob column, a taken index column name, a uri value, blob type 0.
  Fixture w;
  st = WriteDatasetWithIndexColumns(w.Indexed(), w.schema, {w.Batch()}, {}, {{"id", Chunks()}}).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  Schema taken = w.schema;
  taken.fields[1].name = "video_entries";
  RecordBatch batch = w.Batch();
  batch.schema = taken;
  st = WriteDatasetWithIndexColumns(w.Indexed(), taken, {batch}, {}, {{"video", Chunks()}}).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("video_entries"), std::string::npos) << st.ToString();
  st = WriteDatasetWithIndexColumns(w.Indexed(), w.schema, {w.Batch()}, {},
                                    {{"video", Chunks("chunk_size=10;blob_type=0")}})
           .status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  RecordBatch with_uri = w.Batch();
  Array uri =
      StringArray({std::nullopt, std::string("file:///x"), std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  with_uri.columns[0].children[1] = uri;
  st = WriteDatasetWithIndexColumns(w.Indexed(), w.schema, {with_uri}, {}, {{"video", Chunks()}}).status();
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  EXPECT_FALSE(fs::exists(w.Indexed() + "/_versions"));
}

}  // namespace
}  // namespace lancet::media
