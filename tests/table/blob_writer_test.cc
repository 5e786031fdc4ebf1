// Blob V2 on write: placement by size, sidecars and ids, thresholds, external URIs,
// streamed copies, binary columns declared blob, and what a scan reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/payload.h"
#include "lancet/table/compaction.h"
#include "lancet/table/write.h"
#include "table/blob.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

using lancet::testing::Payload;

namespace fs = std::filesystem;

// A blob input column: data values (nullopt = null row unless a uri is given).
Array BlobColumn(const std::vector<std::optional<std::string>>& data,
                 const std::vector<std::optional<std::string>>& uris = {}) {
  const int64_t n = static_cast<int64_t>(data.size());
  std::vector<std::optional<std::string>> u =
      uris.empty() ? std::vector<std::optional<std::string>>(data.size()) : uris;
  std::vector<bool> valid(data.size());
  for (size_t i = 0; i < data.size(); ++i) valid[i] = data[i].has_value() || u[i].has_value();
  Array d = *MakeBinaryArray(MakeType(TypeId::kLargeBinary), data);
  Array uri = *MakeBinaryArray(MakeType(TypeId::kUtf8), u);
  return *MakeStructArray(MakeBlobField("b").type, n, {d, uri}, valid);
}

struct TempDir {
  fs::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() / ("lancet_blobw_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void WriteFile(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

struct Desc {
  bool valid;
  uint8_t kind;
  uint64_t position, size;
  uint32_t blob_id;
  std::string uri;
};

std::vector<Desc> Descriptors(const Dataset& ds, const std::string& column) {
  ScanOptions options;
  options.columns = {column};
  auto batches = ds.Scan(options);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<Desc> out;
  for (const RecordBatch& b : *batches) {
    const Array& a = b.columns[0];
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.IsNull(i)) {
        out.push_back({false, 0, 0, 0, 0, ""});
        continue;
      }
      out.push_back({true, a.children[0].values<uint8_t>()[i], a.children[1].values<uint64_t>()[i],
                     a.children[2].values<uint64_t>()[i], a.children[3].values<uint32_t>()[i],
                     std::string(a.children[4].GetView(i))});
    }
  }
  return out;
}

WriteParams Appending(const BlobWriteOptions& blobs = {}) {
  WriteParams p;
  p.mode = WriteMode::kAppend;
  p.blobs = blobs;
  return p;
}

void ExpectBytes(const Dataset& ds, const std::string& column, const std::vector<std::optional<std::string>>& want) {
  ScanOptions options;
  options.columns = {"_rowid"};
  auto scanned = ds.Scan(options);
  ASSERT_TRUE(scanned.ok()) << scanned.status().ToString();
  std::vector<uint64_t> ids;
  for (const RecordBatch& b : *scanned) {
    for (int64_t i = 0; i < b.num_rows; ++i) ids.push_back(b.columns[0].values<uint64_t>()[i]);
  }
  ASSERT_EQ(ids.size(), want.size());
  auto got = ds.TakeBlobs(column, ids);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ((*got)[i].has_value(), want[i].has_value()) << "row " << i;
    if (want[i]) {
      EXPECT_TRUE((*(*got)[i])->view() == *want[i]) << "row " << i;
    }
  }
}

TEST(BlobWriter, DefaultThresholdsPlaceBySizeInclusive) {
  TempDir dir;
  const std::vector<uint64_t> sizes = {0, 13, 65536, 65537, 4194304, 4194305};
  std::vector<std::optional<std::string>> values;
  for (uint64_t i = 0; i < sizes.size(); ++i) values.push_back(Payload(i, sizes[i]));
  values.push_back(std::nullopt);
  Schema schema{{MakeField("id", MakeType(TypeId::kInt64)), MakeBlobField("b")}, {}};
  Array ids = *ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
  std::string root = (dir.path / "ds").string();
  ASSERT_OK(WriteDataset(root, schema, {RecordBatch{schema, 7, {ids, BlobColumn(values)}}}));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root));
  auto d = Descriptors(*ds, "b");
  ASSERT_EQ(d.size(), 7u);
  const uint8_t want_kind[] = {0, 0, 0, 1, 1, 2};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_TRUE(d[i].valid);
    EXPECT_EQ(d[i].kind, want_kind[i]) << "size " << sizes[i];
    EXPECT_EQ(d[i].size, sizes[i]);
  }
  EXPECT_FALSE(d[6].valid);
  // One pack (id 1) holds both packed values back to back; the dedicated one is id 2.
  EXPECT_EQ(d[3].blob_id, 1u);
  EXPECT_EQ(d[3].position, 0u);
  EXPECT_EQ(d[4].blob_id, 1u);
  EXPECT_EQ(d[4].position, 65537u);
  EXPECT_EQ(d[5].blob_id, 2u);
  EXPECT_EQ(d[2].position % 64, 0u);  // inline buffers are 64-aligned
  std::string stem = ds->fragments()[0].files[0].path;
  stem = stem.substr(0, stem.size() - 6);
  EXPECT_EQ(fs::file_size(dir.path / "ds/data" / stem / BlobSidecarFileName(1)), 65537u + 4194304u);
  EXPECT_EQ(fs::file_size(dir.path / "ds/data" / stem / BlobSidecarFileName(2)), 4194305u);
  ExpectBytes(*ds, "b", values);
  // The stored schema is the logical one, with the extension.
  EXPECT_TRUE(IsBlobV2Field(ds->schema().fields[1]));
}

// The pattern the reference wrote for the peer corpus's blobs_custom `img` column.
TEST(BlobWriter, CustomThresholdsRollPacksAndShareIdsAcrossColumns) {
  auto store = io::NewMemoryStore();
  BlobThresholds img_t{100, 1000, 2000};
  BlobThresholds doc_t{0, 64, 256};
  Schema schema{{MakeBlobField("img", true, img_t), MakeBlobField("doc", false, doc_t)}, {}};
  const std::vector<uint64_t> img_sizes = {99, 100, 101, 500, 999, 1000, 1001};
  const std::vector<uint64_t> doc_sizes = {0, 1, 63, 64, 65, 200, 2};
  std::vector<std::optional<std::string>> img, doc;
  for (size_t i = 0; i < img_sizes.size(); ++i) {
    img.push_back(Payload(i, img_sizes[i]));
    doc.push_back(Payload(100 + i, doc_sizes[i]));
  }
  ASSERT_OK(WriteDataset(store, "mem/ds", schema, {RecordBatch{schema, 7, {BlobColumn(img), BlobColumn(doc)}}}));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "mem/ds"));
  auto a = Descriptors(*ds, "img");
  // 101, 500, 999 pack into id 1; 1000 would pass 2000 so it opens id 2; 1001 is dedicated (3).
  EXPECT_EQ(a[2].kind, 1);
  EXPECT_EQ(a[2].blob_id, 1u);
  EXPECT_EQ(a[3].position, 101u);
  EXPECT_EQ(a[4].position, 601u);
  EXPECT_EQ(a[5].blob_id, 2u);
  EXPECT_EQ(a[5].position, 0u);
  EXPECT_EQ(a[6].kind, 2);
  EXPECT_EQ(a[6].blob_id, 3u);
  // The second column's sidecars continue the file's id sequence.
  auto b = Descriptors(*ds, "doc");
  EXPECT_EQ(b[0].kind, 0);  // only empty values stay inline with threshold 0
  EXPECT_EQ(b[1].kind, 1);
  EXPECT_EQ(b[1].blob_id, 4u);
  EXPECT_EQ(b[3].kind, 1);  // 64 <= dedicated 64
  EXPECT_EQ(b[4].kind, 2);
  EXPECT_EQ(b[4].blob_id, 5u);
  EXPECT_EQ(b[6].blob_id, 4u);
  EXPECT_EQ(b[6].position, 1u + 63 + 64);
  ExpectBytes(*ds, "img", img);
  ExpectBytes(*ds, "doc", doc);
  // Thresholds persist in the manifest, so an append places by them too.
  ASSERT_OK(WriteDataset(store, "mem/ds", schema,
                         {RecordBatch{schema, 1, {BlobColumn({Payload(9, 150)}), BlobColumn({Payload(10, 70)})}}},
                         Appending()));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, "mem/ds"));
  a = Descriptors(*ds, "img");
  b = Descriptors(*ds, "doc");
  EXPECT_EQ(a[7].kind, 1);
  EXPECT_EQ(b[7].kind, 2);
}

TEST(BlobWriter, BlobNestedInStruct) {
  auto store = io::NewMemoryStore();
  Field nested = MakeField("s", StructOf({MakeField("tag", MakeType(TypeId::kInt32)), MakeBlobField("img")}));
  Schema schema{{nested}, {}};
  std::vector<std::optional<std::string>> values = {Payload(1, 10), Payload(2, 70000), std::nullopt};
  Array tag = *ArrayFromVector(MakeType(TypeId::kInt32), std::vector<int32_t>{1, 2, 3});
  Array s = *MakeStructArray(nested.type, 3, {tag, BlobColumn(values)}, {true, true, false});
  ASSERT_OK(WriteDataset(store, "mem/ds", schema, {RecordBatch{schema, 3, {s}}}));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "mem/ds"));
  ExpectBytes(*ds, "s.img", {values[0], values[1], std::nullopt});
}

TEST(BlobWriter, BinaryColumnDeclaredBlob) {
  auto store = io::NewMemoryStore();
  std::vector<std::optional<std::string>> values = {Payload(1, 5), std::nullopt, Payload(2, 300), std::string()};
  Schema schema{{MakeField("bin", MakeType(TypeId::kBinary))}, {}};
  Array bin = *MakeBinaryArray(MakeType(TypeId::kBinary), values);
  WriteParams params;
  params.blobs.binary_as_blob["bin"] = BlobThresholds{10, 100, 1000};
  ASSERT_OK(WriteDataset(store, "mem/ds", schema, {RecordBatch{schema, 4, {bin}}}, params));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "mem/ds"));
  ASSERT_TRUE(IsBlobV2Field(ds->schema().fields[0]));
  EXPECT_EQ(ds->schema().fields[0].metadata.at(kBlobInlineThresholdKey), "10");
  auto d = Descriptors(*ds, "bin");
  EXPECT_EQ(d[0].kind, 0);
  EXPECT_FALSE(d[1].valid);
  EXPECT_EQ(d[2].kind, 2);
  ExpectBytes(*ds, "bin", values);
  // Appending the same binary column again converts it the same way.
  ASSERT_OK(WriteDataset(store, "mem/ds", schema, {RecordBatch{schema, 4, {bin}}}, Appending(params.blobs)));
  params.blobs.binary_as_blob = {{"nope", {}}};
  EXPECT_TRUE(
      WriteDataset(store, "mem/other", schema, {RecordBatch{schema, 4, {bin}}}, params).status().IsInvalidArgument());
}

TEST(BlobWriter, ExternalUrisUnderBasesOutsideAndRefused) {
  TempDir dir;
  std::string media = (dir.path / "media").string();
  std::string video = Payload(7, 5000);
  WriteFile(dir.path / "media/cam/a.bin", video);
  WriteFile(dir.path / "other/b.bin", Payload(8, 300));
  Schema schema{{MakeBlobField("b")}, {}};
  std::string root = (dir.path / "ds").string();
  WriteParams params;
  params.blobs.external_bases = {media};
  // Whole object, then a slice via the optional position/size members.
  ASSERT_OK(WriteDataset(root, schema,
                         {RecordBatch{schema, 1, {BlobColumn({std::nullopt}, {"file://" + media + "/cam/a.bin"})}}},
                         params));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root));
  auto d = Descriptors(*ds, "b");
  EXPECT_EQ(d[0].kind, 3);
  EXPECT_EQ(d[0].blob_id, 1u);
  EXPECT_EQ(d[0].uri, "cam/a.bin");
  ExpectBytes(*ds, "b", {video});

  Field sliced = MakeBlobField("b");
  sliced.type.children.push_back(MakeField("position", MakeType(TypeId::kUInt64)));
  sliced.type.children.push_back(MakeField("size", MakeType(TypeId::kUInt64)));
  Schema slice_schema{{sliced}, {}};
  Array base = BlobColumn({std::nullopt}, {media + "/cam/a.bin"});
  Array pos = *ArrayFromVector(MakeType(TypeId::kUInt64), std::vector<uint64_t>{100});
  Array len = *ArrayFromVector(MakeType(TypeId::kUInt64), std::vector<uint64_t>{50});
  Array col = *MakeStructArray(sliced.type, 1, {base.children[0], base.children[1], pos, len});
  params.mode = WriteMode::kAppend;
  ASSERT_OK(WriteDataset(root, slice_schema, {RecordBatch{slice_schema, 1, {col}}}, params));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(root));
  ExpectBytes(*ds, "b", {video, video.substr(100, 50)});
  // "From 4000 to the end" is stored with its length: size 0 would mean the whole object.
  len = *ArrayFromVector(MakeType(TypeId::kUInt64), std::vector<uint64_t>{0});
  pos = *ArrayFromVector(MakeType(TypeId::kUInt64), std::vector<uint64_t>{4000});
  col = *MakeStructArray(sliced.type, 1, {base.children[0], base.children[1], pos, len});
  ASSERT_OK(WriteDataset(root, slice_schema, {RecordBatch{slice_schema, 1, {col}}}, params));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(root));
  EXPECT_EQ(Descriptors(*ds, "b").back().size, 1000u);
  ExpectBytes(*ds, "b", {video, video.substr(100, 50), video.substr(4000)});

  auto write_uri = [&](const std::string& uri, const WriteParams& p) {
    return WriteDataset(root, schema, {RecordBatch{schema, 1, {BlobColumn({std::nullopt}, {uri})}}}, p).status();
  };
  std::string outside = (dir.path / "other/b.bin").string();
  Status st = write_uri(outside, params);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("outside the registered external bases"), std::string::npos) << st.ToString();
  st = write_uri(media + "/../other/b.bin", params);
  EXPECT_NE(st.message().find("'..'"), std::string::npos) << st.ToString();
  EXPECT_TRUE(write_uri("s3://bucket/x.bin", params).IsInvalidArgument());
  EXPECT_TRUE(write_uri("relative/x.bin", params).IsInvalidArgument());
  WriteParams unknown_base = params;
  unknown_base.blobs.external_bases = {(dir.path / "other").string()};
  EXPECT_TRUE(write_uri(outside, unknown_base).IsInvalidArgument());
  // Allowed explicitly: stored absolute with blob_id 0.
  params.blobs.allow_external_outside_bases = true;
  ASSERT_OK(write_uri(outside, params));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(root));
  d = Descriptors(*ds, "b");
  EXPECT_EQ(d.back().blob_id, 0u);
  EXPECT_EQ(d.back().uri, outside);
  ExpectBytes(*ds, "b", {video, video.substr(100, 50), video.substr(4000), Payload(8, 300)});
}

TEST(BlobWriter, CopyModeStreamsLocalFiles) {
  TempDir dir;
  std::vector<std::optional<std::string>> want;
  std::vector<std::optional<std::string>> uris;
  const uint64_t sizes[] = {0, 40, 100000, 5000000};
  for (size_t i = 0; i < 4; ++i) {
    want.push_back(Payload(i, sizes[i]));
    fs::path p = dir.path / "src" / ("f" + std::to_string(i));
    WriteFile(p, *want.back());
    uris.push_back(p.string());
  }
  Schema schema{{MakeBlobField("b")}, {}};
  std::string root = (dir.path / "ds").string();
  WriteParams params;
  params.blobs.uri_mode = BlobUriMode::kCopy;
  uint64_t last_progress = 0;
  params.blobs.on_progress = [&](uint64_t bytes) { last_progress = bytes; };
  ASSERT_OK(WriteDataset(
      root, schema,
      {RecordBatch{schema, 4, {BlobColumn({std::nullopt, std::nullopt, std::nullopt, std::nullopt}, uris)}}}, params));
  EXPECT_EQ(last_progress, 40u + 100000 + 5000000);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(root));
  auto d = Descriptors(*ds, "b");
  EXPECT_EQ(d[1].kind, 0);
  EXPECT_EQ(d[2].kind, 1);
  EXPECT_EQ(d[3].kind, 2);
  ExpectBytes(*ds, "b", want);
  // A missing source names the file; nothing is left behind in data/.
  uris[2] = (dir.path / "src/missing").string();
  std::string root2 = (dir.path / "ds2").string();
  Status st =
      WriteDataset(
          root2, schema,
          {RecordBatch{schema, 4, {BlobColumn({std::nullopt, std::nullopt, std::nullopt, std::nullopt}, uris)}}},
          params)
          .status();
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("src/missing"), std::string::npos);
  size_t files = 0;
  if (fs::exists(dir.path / "ds2")) {
    for (const auto& e : fs::recursive_directory_iterator(dir.path / "ds2")) files += e.is_regular_file();
  }
  EXPECT_EQ(files, 0u);
}

TEST(BlobWriter, BadInputIsRefusedAndLeavesNoFiles) {
  auto store = io::NewMemoryStore();
  Schema schema{{MakeBlobField("b", false)}, {}};
  // A null in a non-nullable blob column, after a value that went to a sidecar.
  Status st =
      WriteDataset(store, "mem/ds", schema, {RecordBatch{schema, 2, {BlobColumn({Payload(1, 70000), std::nullopt})}}})
          .status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("row 1"), std::string::npos);
  auto listed = store->List("mem/ds/data");
  if (listed.ok()) {
    for (const auto& e : *listed) {
      if (e.is_dir) {
        EXPECT_TRUE(store->List("mem/ds/data/" + e.path)->empty()) << e.path;
      }
    }
  }
  // Both data and uri set.
  Schema nullable{{MakeBlobField("b")}, {}};
  st = WriteDataset(store, "mem/ds", nullable, {RecordBatch{nullable, 1, {BlobColumn({"x"}, {"/tmp/x"})}}}).status();
  EXPECT_NE(st.message().find("both data and uri"), std::string::npos) << st.ToString();
  // Threshold metadata that is not a number.
  Field bad = MakeBlobField("b");
  bad.metadata[kBlobDedicatedThresholdKey] = "4MB";
  Schema bad_schema{{bad}, {}};
  st = WriteDataset(store, "mem/ds", bad_schema, {RecordBatch{bad_schema, 1, {BlobColumn({"x"})}}}).status();
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find(kBlobDedicatedThresholdKey), std::string::npos) << st.ToString();
  // A blob inside a list.
  Field list = MakeField("l", MakeType(TypeId::kList));
  list.type.children = {MakeBlobField("item")};
  Schema list_schema{{list}, {}};
  EXPECT_TRUE(WriteDataset(store, "mem/l", list_schema, {}).status().IsNotSupported());
}

// A scan returns descriptors without touching payloads: with every value in a pack
// sidecar the scan reads no more than the data files hold.
TEST(BlobWriter, ScanOfTenThousandBlobsReadsNoPayload) {
  TempDir dir;
  std::string root = (dir.path / "ds").string();
  const int64_t n = 10000;
  std::vector<std::optional<std::string>> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(Payload(static_cast<uint64_t>(i), 1024));
  for (uint64_t inline_max : {uint64_t{0}, uint64_t{65536}}) {
    fs::remove_all(root);
    Schema schema{{MakeBlobField("b", true, BlobThresholds{inline_max, 4 << 20, 1 << 30})}, {}};
    ASSERT_OK(WriteDataset(root, schema, {RecordBatch{schema, n, {BlobColumn(values)}}}));
    auto store = io::LocalFileSystem();
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, root));
    if (inline_max == 0) {
      // Every payload is in a pack sidecar: without them the scan must still work.
      for (const auto& e : fs::directory_iterator(fs::path(root) / "data")) {
        if (e.is_directory()) fs::remove_all(e.path());
      }
    }
    store->stats().Reset();
    auto d = Descriptors(*ds, "b");
    ASSERT_EQ(d.size(), static_cast<size_t>(n));
    io::IoCounters c = store->stats().Snapshot();
    const uint64_t payload = static_cast<uint64_t>(n) * 1024;
    // Descriptors are ~30 bytes a row; the 10 MiB of payload is never read.
    EXPECT_LT(c.read_bytes, payload / 10) << "inline_max " << inline_max;
  }
}

// Compaction stores the values again in the new data file, by the same thresholds.
TEST(BlobWriter, CompactionKeepsPlacementAndBytes) {
  auto store = io::NewMemoryStore();
  Schema schema{{MakeBlobField("b", true, BlobThresholds{100, 1000, 1500})}, {}};
  std::vector<std::optional<std::string>> all;
  for (int frag = 0; frag < 3; ++frag) {
    std::vector<std::optional<std::string>> values = {Payload(frag, 50), Payload(frag + 10, 600),
                                                      Payload(frag + 20, 5000), std::nullopt, std::string()};
    all.insert(all.end(), values.begin(), values.end());
    ASSERT_OK(WriteDataset(store, "mem/ds", schema, {RecordBatch{schema, 5, {BlobColumn(values)}}}, Appending()));
  }
  ASSERT_OK_AND_ASSIGN(auto before, Dataset::Open(store, "mem/ds"));
  ASSERT_OK_AND_ASSIGN(auto metrics, Compact(*before));
  EXPECT_EQ(metrics.fragments_removed, 3u);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(store, "mem/ds"));
  ASSERT_EQ(after->fragments().size(), 1u);
  auto d = Descriptors(*after, "b");
  for (int frag = 0; frag < 3; ++frag) {
    EXPECT_EQ(d[frag * 5 + 0].kind, 0);
    EXPECT_EQ(d[frag * 5 + 1].kind, 1);
    EXPECT_EQ(d[frag * 5 + 2].kind, 2);
    EXPECT_FALSE(d[frag * 5 + 3].valid);
  }
  // 600 + 600 fit one pack of 1500; the third opens another.
  EXPECT_EQ(d[1].blob_id, d[6].blob_id);
  EXPECT_NE(d[6].blob_id, d[11].blob_id);
  ExpectBytes(*after, "b", all);
}

}  // namespace
}  // namespace lancet::table
