#include "table/deletion.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "format/ipc_writer.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

std::vector<uint8_t> SerializePortable(const Roaring& r) {
  std::vector<uint8_t> out(r.getSizeInBytes(/*portable=*/true));
  r.write(reinterpret_cast<char*>(out.data()), /*portable=*/true);
  return out;
}

Result<BufferPtr> ArrowDeletionFile(const std::vector<uint32_t>& offsets, TypeId type = TypeId::kUInt32,
                                    format::IpcCompression compression = format::IpcCompression::kZstd) {
  Schema schema;
  schema.fields.push_back(MakeField("row_id", MakeType(type), false));
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(offsets.size());
  if (type == TypeId::kUInt32) {
    ASSIGN_OR_RETURN(Array a, ArrayFromVector(MakeType(type), offsets));
    batch.columns.push_back(std::move(a));
  } else {
    std::vector<uint64_t> wide(offsets.begin(), offsets.end());
    ASSIGN_OR_RETURN(Array a, ArrayFromVector(MakeType(type), wide));
    batch.columns.push_back(std::move(a));
  }
  format::IpcWriteOptions opts;
  opts.compression = compression;
  return format::WriteIpcFile(schema, {batch}, opts);
}

TEST(DeletionFile, Names) {
  lance::table::DeletionFile f;
  f.set_read_version(4);
  f.set_id(93798057326195406ull);
  EXPECT_EQ(DeletionFileName(0, f), "_deletions/0-4-93798057326195406.arrow");
  f.set_file_type(lance::table::DeletionFile::BITMAP);
  EXPECT_EQ(DeletionFileName(12, f), "_deletions/12-4-93798057326195406.bin");
}

TEST(DeletionFile, BitmapRoundTrip) {
  Roaring r;
  for (uint32_t v = 0; v < 6000; v += 2) r.add(v);
  r.add(70000);
  r.addRange(100000, 120000);
  r.runOptimize();  // exercises the run-container cookie too
  auto bytes = SerializePortable(r);
  ASSERT_OK_AND_ASSIGN(Roaring back, ParseDeletionBitmap(bytes, "d.bin"));
  EXPECT_TRUE(back == r);
}

TEST(DeletionFile, BitmapGarbage) {
  for (std::vector<uint8_t> bad : {std::vector<uint8_t>{}, std::vector<uint8_t>{1, 2, 3},
                                   std::vector<uint8_t>(100, 0xFF), std::vector<uint8_t>{0x3A, 0x30, 0, 0, 5, 0}}) {
    auto r = ParseDeletionBitmap(bad, "ds/_deletions/1-2-3.bin");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsCorruption());
    EXPECT_NE(r.status().message().find("ds/_deletions/1-2-3.bin"), std::string::npos);
  }
  Roaring ok;
  ok.add(5);
  auto bytes = SerializePortable(ok);
  auto truncated = bytes;
  truncated.pop_back();
  EXPECT_TRUE(ParseDeletionBitmap(truncated, "x").status().IsCorruption());
  auto trailing = bytes;
  trailing.push_back(0);
  EXPECT_TRUE(ParseDeletionBitmap(trailing, "x").status().IsCorruption());
}

TEST(DeletionFile, ArrowRoundTrip) {
  for (auto compression : {format::IpcCompression::kNone, format::IpcCompression::kZstd,
                           format::IpcCompression::kLz4Frame}) {
    ASSERT_OK_AND_ASSIGN(BufferPtr file, ArrowDeletionFile({9, 3, 400, 7}, TypeId::kUInt32, compression));
    ASSERT_OK_AND_ASSIGN(Roaring r, ParseDeletionArrow(file, "d.arrow"));
    EXPECT_EQ(r.cardinality(), 4u);
    EXPECT_TRUE(r.contains(400));
    EXPECT_FALSE(r.contains(8));
  }
}

TEST(DeletionFile, ArrowWrongShape) {
  ASSERT_OK_AND_ASSIGN(BufferPtr wide, ArrowDeletionFile({1, 2}, TypeId::kUInt64));
  auto r = ParseDeletionArrow(wide, "ds/_deletions/0-1-2.arrow");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("ds/_deletions/0-1-2.arrow"), std::string::npos);
  auto garbage = Buffer::Copy(std::string_view("ARROW1 definitely not"));
  r = ParseDeletionArrow(garbage, "ds/_deletions/0-1-2.arrow");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ds/_deletions/0-1-2.arrow"), std::string::npos);
}

TEST(DeletionFile, ReadChecksCountAndRange) {
  auto store = io::NewMemoryStore();
  ASSERT_OK_AND_ASSIGN(BufferPtr file, ArrowDeletionFile({1, 5}));
  ASSERT_OK(store->Put("d.arrow", file->span()));
  ASSERT_OK(ReadDeletionFile(*store, "d.arrow", lance::table::DeletionFile::ARROW_ARRAY, 10, 2).status());
  EXPECT_TRUE(
      ReadDeletionFile(*store, "d.arrow", lance::table::DeletionFile::ARROW_ARRAY, 10, 3).status().IsCorruption());
  EXPECT_TRUE(
      ReadDeletionFile(*store, "d.arrow", lance::table::DeletionFile::ARROW_ARRAY, 5, 2).status().IsCorruption());
  EXPECT_TRUE(ReadDeletionFile(*store, "missing.arrow", lance::table::DeletionFile::ARROW_ARRAY, 10, 2)
                  .status()
                  .IsNotFound());
}

// The reference's own files: ZSTD-compressed .arrow and roaring .bin.
// Random mutations of a valid bitmap must be rejected or parsed, never crash.
TEST(DeletionFile, BitmapMutationsNeverCrash) {
  Roaring r;
  for (uint32_t v = 0; v < 3000; v += 3) r.add(v);
  r.addRange(70000, 70100);
  r.runOptimize();
  auto original = SerializePortable(r);
  uint32_t seed = 7;
  auto next = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  for (int iter = 0; iter < 2000; ++iter) {
    auto bytes = original;
    int flips = 1 + static_cast<int>(next() % 3);
    for (int f = 0; f < flips; ++f) bytes[next() % bytes.size()] ^= static_cast<uint8_t>(1 + next() % 255);
    if (next() % 4 == 0) bytes.resize(next() % bytes.size());
    auto parsed = ParseDeletionBitmap(bytes, "x.bin");
    if (parsed.ok()) (void)parsed->cardinality();
  }
}

TEST(DeletionFile, Corpus) {
  if (!testing::HasCorpusDataset("deletions")) GTEST_SKIP() << "corpus not generated";
  std::string dir = testing::CorpusDir() + "/data/deletions.lance/_deletions";
  int arrow_files = 0, bin_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string path = entry.path().string();
    ASSERT_OK_AND_ASSIGN(auto bytes, testing::ReadLocalFile(path));
    Roaring r;
    if (path.ends_with(".arrow")) {
      ASSERT_OK_AND_ASSIGN(r, ParseDeletionArrow(Buffer::FromVector(bytes), path));
      ++arrow_files;
    } else {
      ASSERT_OK_AND_ASSIGN(r, ParseDeletionBitmap(bytes, path));
      ++bin_files;
      EXPECT_GT(r.cardinality(), 5000u) << path;  // the writer switches to .bin above 5000
    }
    EXPECT_GT(r.cardinality(), 0u) << path;
  }
  EXPECT_GT(arrow_files, 0);
  EXPECT_GT(bin_files, 0);
}

}  // namespace
}  // namespace lancet::table
