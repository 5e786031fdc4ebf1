// Format 2.3 at the table layer: blob_info written through a transform, read back in
// the sixth descriptor member, the version gate both ways, and bytes kept exact.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/payload.h"
#include "common/peer.h"
#include "lancet/blob/blob_file.h"
#include "lancet/blob/blob_ranges.h"
#include "lancet/format/file_reader.h"
#include "lancet/record_batch_reader.h"
#include "lancet/table/compaction.h"
#include "lancet/table/evolution.h"
#include "lancet/table/merge_insert.h"
#include "lancet/table/update.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

using lancet::testing::Payload;

namespace fs = std::filesystem;

// Stores every byte XOR 0x5A and indexes 1000-byte chunks: the stored stream differs
// from the source, as a real plugin's may.
class XorTransform final : public BlobTransform {
 public:
  class Session final : public BlobTransformSession {
   public:
    Status Push(std::span<const uint8_t> source, const ByteSink& out) override {
      std::string buf(source.size(), '\0');
      for (size_t i = 0; i < source.size(); ++i) {
        if ((seen_ + i) % 1000 == 0) offsets_.push_back(seen_ + i);
        buf[i] = static_cast<char>(source[i] ^ 0x5A);
      }
      seen_ += source.size();
      return out({reinterpret_cast<const uint8_t*>(buf.data()), buf.size()});
    }
    Result<BlobInfoValue> Finish(const ByteSink& out) override {
      BlobInfoValue v;
      v.blob_type = 9;
      std::string info = "xor:" + std::to_string(seen_);
      v.stream_info = Buffer::Copy(std::string_view(info));
      v.entries = Buffer::Copy(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(offsets_.data()),
                                                        offsets_.size() * sizeof(uint64_t)));
      return v;
    }

   private:
    uint64_t seen_ = 0;
    std::vector<uint64_t> offsets_;
  };
  Result<std::unique_ptr<BlobTransformSession>> Start() const override {
    return std::unique_ptr<BlobTransformSession>(std::make_unique<Session>());
  }
};

Array BlobColumn(const std::vector<std::optional<std::string>>& data) {
  std::vector<bool> valid(data.size());
  for (size_t i = 0; i < data.size(); ++i) valid[i] = data[i].has_value();
  Array d = *MakeBinaryArray(MakeType(TypeId::kLargeBinary), data);
  Array uri = *MakeNullArray(MakeType(TypeId::kUtf8), static_cast<int64_t>(data.size()));
  return *MakeStructArray(MakeBlobField("b").type, static_cast<int64_t>(data.size()), {d, uri}, valid);
}

struct Fixture {
  fs::path dir;
  std::string root;
  std::vector<std::optional<std::string>> values = {Payload(1, 10), Payload(2, 70000), Payload(3, 5000000),
                                                    std::nullopt, std::string()};
  Schema schema{{MakeBlobField("video"), MakeBlobField("plain")}, {}};

  Fixture() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / ("lancet_f23_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir);
    root = (dir / "ds").string();
  }
  ~Fixture() { fs::remove_all(dir); }

  WriteParams Params() const {
    WriteParams p;
    p.storage_version = StorageVersion::k2_3;
    p.blobs.transforms["video"] = std::make_shared<XorTransform>();
    return p;
  }
  Result<uint64_t> Write(const WriteParams& p) const {
    return WriteDataset(root, schema, {RecordBatch{schema, 5, {BlobColumn(values), BlobColumn(values)}}}, p);
  }
};

TEST(Format23, TransformFillsBlobInfoForPackedAndDedicatedOnly) {
  Fixture fx;
  ASSERT_OK(fx.Write(fx.Params()));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  ASSERT_EQ(ds->read_schema().fields[0].type.children.size(), 6u);
  EXPECT_EQ(ds->read_schema().fields[0].type.children[5].name, "blob_info");
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan());
  ASSERT_EQ(batches.size(), 1u);
  const Array& video = batches[0].columns[0];
  const Array& info = video.children[5];
  EXPECT_TRUE(info.IsNull(0));  // inline: no ingest
  for (int64_t r : {1, 2}) {
    ASSERT_TRUE(info.IsValid(r)) << r;
    EXPECT_EQ(info.children[0].values<uint8_t>()[r], 9);
    EXPECT_EQ(info.children[1].GetView(r), "xor:" + std::to_string(fx.values[static_cast<size_t>(r)]->size()));
    EXPECT_EQ(info.children[2].GetView(r).size(), (fx.values[static_cast<size_t>(r)]->size() + 999) / 1000 * 8);
  }
  EXPECT_TRUE(video.IsNull(3));
  EXPECT_TRUE(info.IsNull(4));
  // The column without a transform has blob_info null everywhere.
  const Array& plain = batches[0].columns[1];
  for (int64_t r = 0; r < 5; ++r) EXPECT_TRUE(plain.children[5].IsNull(r)) << r;
  // Data files are 2.3 files and listed so.
  for (const auto& f : ds->fragments()) {
    EXPECT_EQ(f.files[0].minor, 3u);
    ASSERT_OK_AND_ASSIGN(auto file, io::LocalFileSystem()->OpenRead(fx.root + "/data/" + f.files[0].path));
    ASSERT_OK_AND_ASSIGN(auto reader, format::FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file))));
    EXPECT_EQ(reader->version().minor, 3);
  }
}

TEST(Format23, ReaderLimitedTo22RefusesAndAppendKeepsTheVersion) {
  Fixture fx;
  ASSERT_OK(fx.Write(fx.Params()));
  OpenOptions old_reader;
  old_reader.max_storage_version = StorageVersion::k2_2;
  auto refused = Dataset::Open(fx.root, old_reader);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsNotSupported());
  EXPECT_NE(refused.status().message().find("2.3"), std::string::npos) << refused.status().ToString();
  // A plain append (default params) follows the dataset's version.
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(fx.Write(append));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  EXPECT_EQ(ds->CountRows(), 10u);
  for (const auto& f : ds->fragments()) EXPECT_EQ(f.files[0].minor, 3u);
}

TEST(Format23, TransformsNeedVersion23AndABlobColumn) {
  Fixture fx;
  WriteParams p = fx.Params();
  p.storage_version = StorageVersion::k2_2;
  EXPECT_TRUE(fx.Write(p).status().IsInvalidArgument());
  p = fx.Params();
  p.blobs.transforms["nope"] = std::make_shared<XorTransform>();
  EXPECT_TRUE(fx.Write(p).status().IsInvalidArgument());
  // A 2.2 dataset cannot be appended to as 2.3.
  ASSERT_OK(fx.Write(WriteParams{}));
  p = fx.Params();
  p.mode = WriteMode::kAppend;
  Status st = fx.Write(p).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
}

// The reference (lance 12) does not know 2.3 and must refuse it, not misread it.
TEST(Format23, ReferenceRefusesVersion23Datasets) {
  std::string scripts = lancet::testing::PeerHarnessDir();
  std::string peer = lancet::testing::PeerInstallDir();
  if (!fs::exists(scripts + "/dump.mjs")) GTEST_SKIP() << "no peer scripts at " << scripts;
  if (!fs::exists(peer + "/node_modules")) GTEST_SKIP() << "peer not installed at " << peer;
  if (std::system("node --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "node is missing";
  Fixture fx;
  ASSERT_OK(fx.Write(fx.Params()));
  std::string out = (fx.dir / "dump.err").string();
  int rc = std::system(
      ("LANCE_PEER_DIR='" + peer + "' node '" + scripts + "/dump.mjs' '" + fx.root + "' >/dev/null 2>'" + out + "'")
          .c_str());
  EXPECT_NE(rc, 0);
  std::string err;
  {
    std::ifstream in(out);
    err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  EXPECT_NE(err.find("cannot be read by this version of Lance"), std::string::npos) << err;
}

// take_blobs and everything on top refuse rows with blob_info; other rows still work,
// and the locator with blob_info gives the stored (transformed) stream.
TEST(Format23, RawByteAccessRefusesBlobInfoRows) {
  Fixture fx;
  ASSERT_OK(fx.Write(fx.Params()));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  Status st = ds->TakeBlobs("video", std::vector<uint64_t>{1}).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("extract"), std::string::npos) << st.ToString();
  EXPECT_FALSE(ds->LocateBlobs("video", std::vector<uint64_t>{2}).ok());
  EXPECT_FALSE(blob::BlobFile::Open(*ds, "video", 2).ok());
  std::vector<blob::BlobRange> ranges = {{1, 0, 10}};
  EXPECT_FALSE(blob::ReadBlobRanges(*ds, "video", ranges).ok());
  // Rows without blob_info behave as before.
  ASSERT_OK_AND_ASSIGN(auto inline_row, ds->TakeBlobs("video", std::vector<uint64_t>{0, 3, 4}));
  EXPECT_EQ((*inline_row[0])->view(), *fx.values[0]);
  EXPECT_FALSE(inline_row[1].has_value());
  EXPECT_EQ((*inline_row[2])->size(), 0);
  ASSERT_OK_AND_ASSIGN(auto plain, ds->TakeBlobs("plain", std::vector<uint64_t>{0, 1, 2}));
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*plain[i])->view(), *fx.values[i]) << i;
  ASSERT_OK_AND_ASSIGN(auto with_info, ds->LocateBlobsWithInfo("video", std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_FALSE(with_info[0]->info.has_value());
  ASSERT_TRUE(with_info[1]->info.has_value());
  EXPECT_EQ(with_info[1]->info->blob_type, 9);
  EXPECT_FALSE(with_info[3].has_value());
  const auto& loc = with_info[2]->location;
  EXPECT_EQ(loc.kind, BlobKind::kDedicated);
  ASSERT_OK_AND_ASSIGN(auto file, io::LocalFileSystem()->OpenRead(loc.object));
  ASSERT_OK_AND_ASSIGN(auto head, file->ReadAt(loc.offset, 16));
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(head->data()[i], static_cast<uint8_t>((*fx.values[2])[i] ^ 0x5A)) << i;
  }
}

// Compaction moves blob_info and the stored stream byte for byte (no re-ingest).
TEST(Format23, CompactionKeepsBlobInfoByteIdentical) {
  Fixture fx;
  ASSERT_OK(fx.Write(fx.Params()));
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(fx.Write(append));
  ASSERT_OK_AND_ASSIGN(auto before, Dataset::Open(fx.root));
  ASSERT_EQ(before->fragments().size(), 2u);
  auto snapshot = [](const Dataset& ds) {
    std::vector<std::string> out;
    ScanOptions scan;
    scan.with_row_id = true;
    auto batches = ds.Scan(scan);
    EXPECT_TRUE(batches.ok());
    std::vector<uint64_t> ids;
    for (const RecordBatch& b : *batches) {
      const Array& info = b.columns[0].children[5];
      for (int64_t i = 0; i < b.num_rows; ++i) {
        ids.push_back(b.columns[2].values<uint64_t>()[i]);
        out.push_back(info.IsNull(i) ? std::string("null")
                                     : std::to_string(info.children[0].values<uint8_t>()[i]) + "|" +
                                           std::string(info.children[1].GetView(i)) + "|" +
                                           std::string(info.children[2].GetView(i)));
      }
    }
    auto located = ds.LocateBlobsWithInfo("video", ids);
    EXPECT_TRUE(located.ok()) << located.status().ToString();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!(*located)[i] || (*located)[i]->location.length == 0) continue;
      const auto& loc = (*located)[i]->location;
      auto file = ds.store()->OpenRead(loc.object);
      EXPECT_TRUE(file.ok());
      auto bytes = (*file)->ReadAt(loc.offset, loc.length);
      EXPECT_TRUE(bytes.ok());
      out[i] += "|" + std::string((*bytes)->view());
    }
    return out;
  };
  auto want = snapshot(*before);
  ASSERT_OK_AND_ASSIGN(auto metrics, Compact(*before));
  EXPECT_EQ(metrics.fragments_removed, 2u);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(fx.root));
  ASSERT_EQ(after->fragments().size(), 1u);
  EXPECT_EQ(after->fragments()[0].files[0].minor, 3u);
  EXPECT_TRUE(snapshot(*after) == want);
}

// Data evolution leaves blob_info alone: a column added to a 2.3 dataset (in a 2.2 data
// file of its own), then a rename and a drop of other columns, keep every descriptor.
TEST(Format23, EvolutionKeepsBlobInfo) {
  Fixture fx;
  ASSERT_OK(fx.Write(fx.Params()));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  auto infos = [](const Dataset& d) {
    ScanOptions scan;
    scan.columns = {"video"};
    auto batches = d.Scan(scan);
    EXPECT_TRUE(batches.ok()) << batches.status().ToString();
    std::vector<std::string> out;
    for (const RecordBatch& b : *batches) {
      const Array& info = b.columns[0].children[5];
      for (int64_t i = 0; i < b.num_rows; ++i) {
        out.push_back(info.IsNull(i)
                          ? "null"
                          : std::string(info.children[1].GetView(i)) + "|" + std::string(info.children[2].GetView(i)));
      }
    }
    return out;
  };
  auto want = infos(*ds);
  Schema added{{MakeField("score", MakeType(TypeId::kInt64))}, {}};
  Array score = *ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{1, 2, 3, 4, 5});
  ASSERT_OK(AddColumns(*ds, added, {RecordBatch{added, 5, {score}}}));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fx.root));
  ASSERT_OK(RenameColumn(*ds, "plain", "other"));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fx.root));
  ASSERT_OK(DropColumns(*ds, {"other"}));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fx.root));
  EXPECT_TRUE(infos(*ds) == want);
  ASSERT_OK_AND_ASSIGN(auto located, ds->LocateBlobsWithInfo("video", std::vector<uint64_t>{1}));
  EXPECT_TRUE(located[0]->info.has_value());
}

// Update and merge_insert move a row's blob_info and stored stream byte for byte (the
// plugin's contract holds without re-ingest); inserted rows without the column are null.
TEST(Format23, UpdateAndMergeInsertKeepBlobInfoByteIdentical) {
  Fixture fx;
  ASSERT_OK(fx.Write(fx.Params()));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(fx.root));
  Schema added{{MakeField("id", MakeType(TypeId::kInt64)), MakeField("score", MakeType(TypeId::kInt64))}, {}};
  Array ids = *ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{0, 1, 2, 3, 4});
  ASSERT_OK(AddColumns(*ds, added, {RecordBatch{added, 5, {ids, ids}}}));
  // id -> blob_info members and the stored bytes of "video".
  auto by_id = [](const Dataset& d) {
    ScanOptions scan;
    scan.columns = {"video", "id"};
    scan.with_row_id = true;
    auto batches = d.Scan(scan);
    EXPECT_TRUE(batches.ok()) << batches.status().ToString();
    std::map<int64_t, std::string> out;
    std::vector<uint64_t> row_ids;
    std::vector<int64_t> keys;
    for (const RecordBatch& b : *batches) {
      const Array& info = b.columns[0].children[5];
      for (int64_t i = 0; i < b.num_rows; ++i) {
        const int64_t id = b.columns[1].values<int64_t>()[i];
        keys.push_back(id);
        row_ids.push_back(b.columns[2].values<uint64_t>()[i]);
        out[id] = info.IsNull(i)
                      ? std::string("null")
                      : std::to_string(info.children[0].values<uint8_t>()[i]) + "|" +
                            std::string(info.children[1].GetView(i)) + "|" + std::string(info.children[2].GetView(i));
      }
    }
    auto located = d.LocateBlobsWithInfo("video", row_ids);
    EXPECT_TRUE(located.ok()) << located.status().ToString();
    for (size_t i = 0; located.ok() && i < keys.size(); ++i) {
      if (!(*located)[i] || (*located)[i]->location.length == 0) continue;
      const auto& loc = (*located)[i]->location;
      auto bytes = d.store()->OpenRead(loc.object).MoveValue()->ReadAt(loc.offset, loc.length);
      EXPECT_TRUE(bytes.ok());
      if (bytes.ok()) out[keys[i]] += "|" + std::string((*bytes)->view());
    }
    return out;
  };
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fx.root));
  auto want = by_id(*ds);
  ASSERT_EQ(want.size(), 5u);
  ASSERT_NE(want[2].find("xor:"), std::string::npos) << "row 2 (dedicated) carries blob_info: " << want[2];

  ASSERT_OK(Update(*ds, "id >= 1 AND id <= 2", {{"score", "score + 100"}}).status());
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fx.root));
  EXPECT_EQ(by_id(*ds), want);

  Schema source_schema{{MakeField("id", MakeType(TypeId::kInt64)), MakeField("score", MakeType(TypeId::kInt64))}, {}};
  Array keys = *ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{2, 3, 9});
  auto source = MakeBatchVectorReader(source_schema, {RecordBatch{source_schema, 3, {keys, keys}}});
  MergeInsertOptions merge;
  merge.on = {"id"};
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, MergeInsert(*ds, *source, merge));
  EXPECT_EQ(r.rows_updated, 2u);
  EXPECT_EQ(r.rows_inserted, 1u);
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(fx.root));
  want[9] = "null";
  EXPECT_EQ(by_id(*ds), want);
}

}  // namespace
}  // namespace lancet::table
