// The Blob V2 commands end to end: import --blob, export --blob-bytes, ingest and
// blob get/range/locate on real datasets in a private temp dir.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_test_util.h"
#include "common/payload.h"
#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "lancet/blob_spec.h"
#include "lancet/export_blobs.h"
#include "lancet/media_type.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/dataset.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

using Json = nlohmann::json;

// Argument order of this file: size first.
std::string Payload(size_t size, uint32_t seed) { return testing::Payload(seed, size); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteIpc(const std::string& path, const Schema& schema, const RecordBatch& batch) {
  auto bytes = format::WriteIpcFile(schema, {batch});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  WriteTextFile(path, std::string((*bytes)->view()));
}

// Sizes chosen around the thresholds inline=64, dedicated=4k used below.
const std::vector<std::optional<size_t>> kSizes = {0, 10, 64, 65, 4000, 4096, 4097, 20000, std::nullopt};
const std::vector<std::string> kKinds = {"inline", "inline",    "inline",    "packed", "packed",
                                         "packed", "dedicated", "dedicated", ""};

const std::map<std::string, table::BlobKind> kKindOf = {{"inline", table::BlobKind::kInline},
                                                        {"packed", table::BlobKind::kPacked},
                                                        {"dedicated", table::BlobKind::kDedicated}};

class BlobCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = dir_.Join("src.arrow");
    ds_ = dir_.Join("ds.lance");
    std::vector<std::optional<std::string>> values;
    std::vector<int64_t> ids;
    for (size_t i = 0; i < kSizes.size(); ++i) {
      values.push_back(kSizes[i] ? std::optional<std::string>(Payload(*kSizes[i], static_cast<uint32_t>(i)))
                                 : std::nullopt);
      ids.push_back(static_cast<int64_t>(i));
    }
    values_ = values;
    Schema schema;
    schema.fields = {MakeField("id", MakeType(TypeId::kInt64), false), MakeField("img", MakeType(TypeId::kBinary))};
    ASSERT_OK_AND_ASSIGN(Array id, ArrayFromVector(MakeType(TypeId::kInt64), ids));
    ASSERT_OK_AND_ASSIGN(Array img, MakeBinaryArray(MakeType(TypeId::kBinary), values));
    WriteIpc(src_, schema, RecordBatch{schema, static_cast<int64_t>(ids.size()), {id, img}});
  }

  std::unique_ptr<table::Dataset> Open(const std::string& path) {
    auto ds = table::Dataset::Open(path);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? std::move(*ds) : nullptr;
  }

  int ImportBlobs() { return RunLancet({"import", src_, ds_, "--blob", "img:inline=64,dedicated=4k,pack=6k"}); }

  std::vector<std::string> RowArgs(size_t n) {
    std::vector<std::string> rows;
    for (size_t i = 0; i < n; ++i) rows.push_back(std::to_string(i));
    return rows;
  }

  // `blob locate --json` of the first n rows.
  Json Locate(const std::string& ds, const std::string& column, size_t n) {
    std::vector<std::string> args = {"blob", "locate", ds, column};
    for (const auto& r : RowArgs(n)) args.push_back(r);
    args.push_back("--json");
    CliRun r = Capture(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return Json::parse(r.out, nullptr, false);
  }

  void ExpectBlobs(const std::string& ds_path, const std::string& column,
                   const std::vector<std::optional<std::string>>& want) {
    auto ds = Open(ds_path);
    ASSERT_NE(ds, nullptr);
    std::vector<uint64_t> rows(want.size());
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    ASSERT_OK_AND_ASSIGN(auto got, ds->TakeBlobs(column, rows));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i].has_value(), want[i].has_value()) << "row " << i;
      if (want[i]) {
        EXPECT_EQ((*got[i])->view(), *want[i]) << "row " << i;
      }
    }
  }

  ScopedTempDir dir_;
  std::string src_, ds_;
  std::vector<std::optional<std::string>> values_;
};

TEST(BlobSpecTest, ParsesSizesAndSpecs) {
  ASSERT_OK_AND_ASSIGN(uint64_t plain, ParseByteSize("4096"));
  EXPECT_EQ(plain, 4096u);
  ASSERT_OK_AND_ASSIGN(uint64_t k, ParseByteSize("64k"));
  EXPECT_EQ(k, 65536u);
  ASSERT_OK_AND_ASSIGN(uint64_t m, ParseByteSize("4M"));
  EXPECT_EQ(m, 4u << 20);
  ASSERT_OK_AND_ASSIGN(uint64_t g, ParseByteSize("1g"));
  EXPECT_EQ(g, 1u << 30);
  for (const char* bad : {"", "k", "12kb", "-1", "1.5m", "99999999999999g", "18446744073709551616"}) {
    EXPECT_FALSE(ParseByteSize(bad).ok()) << bad;
  }

  ASSERT_OK_AND_ASSIGN(BlobColumnSpec bare, ParseBlobSpec("img"));
  EXPECT_EQ(bare.column, "img");
  EXPECT_FALSE(bare.inline_max || bare.dedicated_min || bare.pack_file_max);
  ASSERT_OK_AND_ASSIGN(BlobColumnSpec full, ParseBlobSpec("a:b:inline=0,dedicated=2k,pack=1m"));
  EXPECT_EQ(full.column, "a:b");
  EXPECT_EQ(full.inline_max, 0u);
  EXPECT_EQ(full.dedicated_min, 2048u);
  EXPECT_EQ(full.pack_file_max, 1u << 20);
  ASSERT_OK_AND_ASSIGN(table::BlobThresholds t, full.Apply(table::BlobThresholds{}));
  EXPECT_EQ(t.dedicated_min, 2048u);
  ASSERT_OK_AND_ASSIGN(BlobColumnSpec partial, ParseBlobSpec("x:pack=3"));
  ASSERT_OK_AND_ASSIGN(t, partial.Apply(table::BlobThresholds{}));
  EXPECT_EQ(t.inline_max, table::BlobThresholds{}.inline_max);
  EXPECT_EQ(t.pack_file_max, 3u);

  // Only a tail with '=' holds options: "img:inline" names a column.
  ASSERT_OK_AND_ASSIGN(BlobColumnSpec colon, ParseBlobSpec("img:inline"));
  EXPECT_EQ(colon.column, "img:inline");
  for (const char* bad :
       {":inline=1", "img:inline=", "img:size=1", "img:inline=1,inline=2", "img:inline=x", "img:inline=1,"}) {
    EXPECT_FALSE(ParseBlobSpec(bad).ok()) << bad;
  }
  ASSERT_OK_AND_ASSIGN(BlobColumnSpec inverted, ParseBlobSpec("img:inline=8m"));
  EXPECT_FALSE(inverted.Apply(table::BlobThresholds{}).ok());
  ASSERT_OK_AND_ASSIGN(BlobColumnSpec zero, ParseBlobSpec("img:inline=0,dedicated=0"));
  EXPECT_FALSE(zero.Apply(table::BlobThresholds{}).ok());
}

TEST(MediaTypeTest, ByExtension) {
  EXPECT_EQ(MediaTypeForPath("a/b/photo.JPG"), "image/jpeg");
  EXPECT_EQ(MediaTypeForPath("x.png"), "image/png");
  EXPECT_EQ(MediaTypeForPath("clip.mp4"), "video/mp4");
  EXPECT_EQ(MediaTypeForPath("song.flac"), "audio/flac");
  EXPECT_EQ(MediaTypeForPath("doc.pdf"), "application/pdf");
  EXPECT_EQ(MediaTypeForPath("notes.txt"), "text/plain");
  EXPECT_EQ(MediaTypeForPath("archive.tar.unknownext"), "application/octet-stream");
  EXPECT_EQ(MediaTypeForPath("dir.png/noext"), "application/octet-stream");
  EXPECT_EQ(MediaTypeForPath(".png"), "application/octet-stream");
  EXPECT_EQ(MediaTypeForPath("file."), "application/octet-stream");
}

TEST_F(BlobCommandsTest, ImportBlobThresholdsThenLocate) {
  CliRun r = Capture({"import", src_, ds_, "--blob", "img:inline=64,dedicated=4k,pack=6k"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto ds = Open(ds_);
  ASSERT_NE(ds, nullptr);
  const Field& f = ds->schema().fields[1];
  EXPECT_TRUE(IsBlobV2Field(f));
  ASSERT_OK_AND_ASSIGN(table::BlobThresholds t, table::BlobThresholdsOf(f));
  EXPECT_EQ(t.inline_max, 64u);
  EXPECT_EQ(t.dedicated_min, 4096u);
  EXPECT_EQ(t.pack_file_max, 6144u);

  const Json loc = Locate(ds_, "img", kSizes.size());
  ASSERT_TRUE(loc.is_array()) << loc;
  ASSERT_EQ(loc.size(), kSizes.size());
  {
    // --format json: the same objects, one per line.
    std::vector<std::string> args = {"blob", "locate", ds_, "img"};
    for (const auto& r : RowArgs(kSizes.size())) args.push_back(r);
    args.insert(args.end(), {"--format", "json"});
    CliRun lines = Capture(args);
    ASSERT_EQ(lines.code, 0) << lines.err;
    std::istringstream in(lines.out);
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) {
      ASSERT_LT(n, loc.size());
      EXPECT_EQ(Json::parse(line), loc[n++]);
    }
    EXPECT_EQ(n, loc.size());
    args.push_back("--json");
    EXPECT_EQ(Capture(args).code, kExitUsage) << "--json and --format exclude each other";
  }
  for (size_t i = 0; i < kSizes.size(); ++i) {
    EXPECT_EQ(loc[i]["row"], i);
    if (!kSizes[i]) {
      EXPECT_TRUE(loc[i]["kind"].is_null() && loc[i]["object"].is_null() && loc[i]["length"].is_null()) << loc[i];
      continue;
    }
    EXPECT_EQ(loc[i]["kind"], kKinds[i]) << "row " << i;
    EXPECT_EQ(loc[i]["length"], *kSizes[i]) << "row " << i;
    if (kKinds[i] == "inline") {
      EXPECT_TRUE(loc[i]["object"].get<std::string>().ends_with(".lance")) << loc[i];
    } else {
      EXPECT_TRUE(loc[i]["object"].get<std::string>().ends_with(".blob")) << loc[i];
    }
  }
  // The blobs of 65 and 4000 bytes share a pack; 4096 more bytes would pass 6k, so
  // that one starts the next pack.
  EXPECT_EQ(loc[3]["object"], loc[4]["object"]);
  EXPECT_NE(loc[4]["object"], loc[5]["object"]);
  EXPECT_NE(loc[6]["object"], loc[7]["object"]);
  ExpectBlobs(ds_, "img", values_);

  // The text form: ROW KIND OBJECT OFFSET LENGTH, 'null' for a null blob.
  CliRun text = Capture({"blob", "locate", ds_, "img", "1", "8"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(text.out, "1\tinline\t" + loc[1]["object"].get<std::string>() + "\t" + loc[1]["offset"].dump() +
                          "\t10\n8\tnull\tnull\tnull\tnull\n");
}

TEST_F(BlobCommandsTest, GetAndRange) {
  ASSERT_EQ(ImportBlobs(), 0);
  // Several rows to stdout: concatenated in the given order.
  CliRun cat = Capture({"blob", "get", ds_, "img", "7", "1", "3"});
  ASSERT_EQ(cat.code, 0) << cat.err;
  EXPECT_EQ(cat.out, *values_[7] + *values_[1] + *values_[3]);
  // One row to a file, several rows to a directory of ROW.bin files.
  ASSERT_EQ(RunLancet({"blob", "get", ds_, "img", "6", "-o", dir_.Join("six.bin")}), 0);
  EXPECT_EQ(ReadFile(dir_.Join("six.bin")), *values_[6]);
  ASSERT_EQ(RunLancet({"blob", "get", ds_, "img", "0", "4", "7", "-o", dir_.Join("out")}), 0);
  EXPECT_EQ(ReadFile(dir_.Join("out/0.bin")), "");
  EXPECT_TRUE(std::filesystem::exists(dir_.Join("out/0.bin")));
  EXPECT_EQ(ReadFile(dir_.Join("out/4.bin")), *values_[4]);
  EXPECT_EQ(ReadFile(dir_.Join("out/7.bin")), *values_[7]);
  // Row addresses: without stable row ids they equal row ids.
  CliRun addr = Capture({"blob", "get", ds_, "img", "5", "--address"});
  ASSERT_EQ(addr.code, 0) << addr.err;
  EXPECT_EQ(addr.out, *values_[5]);
  // A null blob is an error and writes nothing.
  CliRun null_blob = Capture({"blob", "get", ds_, "img", "1", "8", "-o", dir_.Join("null")});
  EXPECT_EQ(null_blob.code, kExitFailure);
  EXPECT_NE(null_blob.err.find("is null"), std::string::npos) << null_blob.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("null")));

  for (size_t row : {2, 4, 7}) {
    const std::string& v = *values_[row];
    const std::string out = dir_.Join("range" + std::to_string(row));
    ASSERT_EQ(
        RunLancet({"blob", "range", ds_, "img", std::to_string(row), "--offset", "7", "--length", "50", "-o", out}), 0);
    EXPECT_EQ(ReadFile(out), v.substr(7, 50)) << row;
  }
  CliRun tail = Capture({"blob", "range", ds_, "img", "7", "--offset", "19990", "--length", "10"});
  ASSERT_EQ(tail.code, 0) << tail.err;
  EXPECT_EQ(tail.out, values_[7]->substr(19990));
  CliRun empty = Capture({"blob", "range", ds_, "img", "7", "--offset", "20000", "--length", "0"});
  ASSERT_EQ(empty.code, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
  CliRun past = Capture({"blob", "range", ds_, "img", "7", "--offset", "19990", "--length", "11"});
  EXPECT_EQ(past.code, kExitFailure);
  EXPECT_NE(past.err.find("20000 bytes"), std::string::npos) << past.err;
  CliRun huge = Capture({"blob", "range", ds_, "img", "7", "--offset", "18446744073709551615", "--length", "2"});
  EXPECT_EQ(huge.code, kExitFailure);
}

TEST_F(BlobCommandsTest, Errors) {
  // Bad --blob specs are usage errors; nothing is written.
  for (const char* spec : {"img:inline=abc", "img:bogus=1", "img:inline=1,inline=2", ":inline=1"}) {
    CliRun r = Capture({"import", src_, ds_, "--blob", spec});
    EXPECT_EQ(r.code, kExitUsage) << spec;
    EXPECT_NE(r.err.find("--blob"), std::string::npos) << r.err;
  }
  // Thresholds the writer would refuse are caught before anything is written.
  CliRun inverted = Capture({"import", src_, ds_, "--blob", "img:inline=8m"});
  EXPECT_EQ(inverted.code, kExitFailure);
  EXPECT_NE(inverted.err.find("above the dedicated threshold"), std::string::npos) << inverted.err;
  EXPECT_FALSE(std::filesystem::exists(ds_));
  CliRun not_binary = Capture({"import", src_, ds_, "--blob", "id"});
  EXPECT_EQ(not_binary.code, kExitFailure);
  EXPECT_NE(not_binary.err.find("int64"), std::string::npos) << not_binary.err;
  CliRun missing = Capture({"import", src_, ds_, "--blob", "nope"});
  EXPECT_EQ(missing.code, kExitFailure);
  EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(ds_));

  ASSERT_EQ(ImportBlobs(), 0);
  for (const char* cmd : {"get", "locate"}) {
    CliRun unknown = Capture({"blob", cmd, ds_, "photo", "0"});
    EXPECT_EQ(unknown.code, kExitFailure) << cmd;
    EXPECT_NE(unknown.err.find("photo"), std::string::npos) << unknown.err;
    CliRun plain = Capture({"blob", cmd, ds_, "id", "0"});
    EXPECT_EQ(plain.code, kExitFailure) << cmd;
    EXPECT_NE(plain.err.find("id"), std::string::npos) << plain.err;
    CliRun past_end = Capture({"blob", cmd, ds_, "img", "0", "999"});
    EXPECT_EQ(past_end.code, kExitFailure) << cmd;
    EXPECT_NE(past_end.err.find("999"), std::string::npos) << past_end.err;
  }
  CliRun range_past = Capture({"blob", "range", ds_, "img", "999", "--offset", "0", "--length", "1"});
  EXPECT_EQ(range_past.code, kExitFailure);
  EXPECT_EQ(Capture({"blob", "range", ds_, "img", "1", "--offset", "0"}).code, kExitUsage);

  // Export without --blob-bytes names the flag that exports blobs.
  CliRun refused = Capture({"export", ds_, dir_.Join("x.arrows")});
  EXPECT_EQ(refused.code, kExitFailure);
  EXPECT_NE(refused.err.find("--blob-bytes"), std::string::npos) << refused.err;
  EXPECT_EQ(Capture({"export", ds_, dir_.Join("x.arrows"), "--blob-bytes", "--skip-blobs"}).code, kExitUsage);
}

TEST_F(BlobCommandsTest, ExportBlobBytesThenImportCopiesTheDataset) {
  ASSERT_EQ(ImportBlobs(), 0);
  const std::string out = dir_.Join("copy.arrow");
  CliRun exported = Capture({"export", ds_, out, "--blob-bytes"});
  ASSERT_EQ(exported.code, 0) << exported.err;

  // The file holds the input form: struct<data, uri> with extension and thresholds.
  ASSERT_OK_AND_ASSIGN(auto data, format::ReadIpcFileData(Buffer::Copy(std::string_view(ReadFile(out)))));
  ASSERT_EQ(data.schema.fields.size(), 2u);
  const Field& f = data.schema.fields[1];
  EXPECT_EQ(f.type, table::MakeBlobField("img").type);
  EXPECT_EQ(f.metadata.at(kArrowExtensionName), kBlobV2ExtensionName);
  EXPECT_EQ(f.metadata.at(table::kBlobInlineThresholdKey), "64");
  EXPECT_EQ(f.metadata.at(table::kBlobDedicatedThresholdKey), "4096");
  EXPECT_EQ(f.metadata.at(table::kBlobPackFileThresholdKey), "6144");

  const std::string copy = dir_.Join("copy.lance");
  CliRun imported = Capture({"import", out, copy});
  ASSERT_EQ(imported.code, 0) << imported.err;
  ExpectBlobs(copy, "img", values_);
  const Json a = Locate(ds_, "img", kSizes.size());
  const Json b = Locate(copy, "img", kSizes.size());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i]["kind"], b[i]["kind"]) << i;
    EXPECT_EQ(a[i]["length"], b[i]["length"]) << i;
  }
  EXPECT_EQ(ScanAll(copy)[0].length, static_cast<int64_t>(kSizes.size()));
}

TEST_F(BlobCommandsTest, ExternalBlobsExportAsTheirUri) {
  // A struct<data, uri> input column: row 0 holds bytes, row 1 references a file.
  const std::string file = dir_.Join("ext/movie.bin");
  std::filesystem::create_directories(dir_.Join("ext"));
  const std::string movie = Payload(5000, 99);
  WriteTextFile(file, movie);
  const Field blob = table::MakeBlobField("doc");
  Schema schema;
  schema.fields = {MakeField("doc", blob.type)};  // no extension: --blob makes it one
  ASSERT_OK_AND_ASSIGN(Array bytes, MakeBinaryArray(MakeType(TypeId::kLargeBinary), {Payload(300, 1), std::nullopt}));
  ASSERT_OK_AND_ASSIGN(Array uri, MakeBinaryArray(MakeType(TypeId::kUtf8), {std::nullopt, file}));
  ASSERT_OK_AND_ASSIGN(Array doc, MakeStructArray(blob.type, 2, {bytes, uri}));
  const std::string src = dir_.Join("ext.arrow");
  WriteIpc(src, schema, RecordBatch{schema, 2, {doc}});

  CliRun outside = Capture({"import", src, ds_, "--blob", "doc:inline=16"});
  EXPECT_EQ(outside.code, kExitFailure) << "a uri outside every base needs --allow-external";
  CliRun r = Capture({"import", src, ds_, "--blob", "doc:inline=16", "--external-base", dir_.Join("ext")});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json loc = Locate(ds_, "doc", 2);
  EXPECT_EQ(loc[0]["kind"], "packed");
  EXPECT_EQ(loc[1]["kind"], "external");
  EXPECT_EQ(loc[1]["length"], 5000);
  ExpectBlobs(ds_, "doc", {Payload(300, 1), movie});

  const std::string out = dir_.Join("ext.arrows");
  ASSERT_EQ(Capture({"export", ds_, out, "--blob-bytes"}).code, 0);
  ASSERT_OK_AND_ASSIGN(auto batches, format::ReadIpcStream(Buffer::Copy(std::string_view(ReadFile(out)))));
  ASSERT_EQ(batches.size(), 1u);
  const Array& col = batches[0].columns[0];
  EXPECT_TRUE(col.children[0].IsValid(0));
  EXPECT_TRUE(col.children[0].IsNull(1));
  EXPECT_TRUE(col.children[1].IsNull(0));
  EXPECT_EQ(std::filesystem::path(std::string(col.children[1].GetView(1))), std::filesystem::path(file));

  const std::string copy = dir_.Join("copy.lance");
  ASSERT_EQ(Capture({"import", out, copy, "--allow-external"}).code, 0);
  ExpectBlobs(copy, "doc", {Payload(300, 1), movie});
  EXPECT_EQ(Locate(copy, "doc", 2)[1]["kind"], "external");
}

TEST_F(BlobCommandsTest, AppendNeedsTheBlobFlagAgain) {
  ASSERT_EQ(ImportBlobs(), 0);
  CliRun plain = Capture({"import", src_, ds_, "--mode", "append"});
  EXPECT_EQ(plain.code, kExitFailure);
  EXPECT_NE(plain.err.find("column 'img' is binary"), std::string::npos) << plain.err;
  // The dataset keeps its own thresholds: the appended rows are placed like the first.
  CliRun again = Capture({"import", src_, ds_, "--mode", "append", "--blob", "img"});
  ASSERT_EQ(again.code, 0) << again.err;
  auto ds = Open(ds_);
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->CountRows(), 2 * kSizes.size());
  std::vector<uint64_t> rows;
  for (size_t i = 0; i < kSizes.size(); ++i) rows.push_back((1ULL << 32) | i);
  ASSERT_OK_AND_ASSIGN(auto where, ds->LocateBlobs("img", rows));
  ASSERT_OK_AND_ASSIGN(auto bytes, ds->TakeBlobs("img", rows));
  for (size_t i = 0; i + 1 < kSizes.size(); ++i) {
    ASSERT_TRUE(where[i].has_value()) << i;
    EXPECT_EQ(where[i]->length, *kSizes[i]) << i;
    EXPECT_EQ(where[i]->kind, kKindOf.at(kKinds[i])) << i;
    EXPECT_EQ((*bytes[i])->view(), *values_[i]) << i;
  }
  EXPECT_FALSE(where.back().has_value());
}

TEST_F(BlobCommandsTest, ExportSplitsBatchesByPayload) {
  ASSERT_EQ(ImportBlobs(), 0);
  auto ds = Open(ds_);
  ASSERT_NE(ds, nullptr);
  ASSERT_OK_AND_ASSIGN(Schema schema, BlobExportSchema(ds->schema()));
  table::ScanOptions scan;
  scan.with_row_addr = true;
  scan.columns = {"id", "img"};
  ASSERT_OK_AND_ASSIGN(auto scanned, ds->Scan(scan));
  ASSERT_EQ(scanned.size(), 1u);
  // 10000 bytes a batch: rows 0-5 (8235 bytes), 6 (4097; 20000 more would pass), then
  // 7 (20000, alone over the limit) with the null row 8, which fetches nothing.
  ASSERT_OK_AND_ASSIGN(auto parts, ExportBlobRows(*ds, schema, scanned[0], 10000));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].num_rows, 6);
  EXPECT_EQ(parts[1].num_rows, 1);
  EXPECT_EQ(parts[2].num_rows, 2);
  EXPECT_EQ(parts[0].columns[1].children[0].GetView(4), *values_[4]);
  EXPECT_EQ(parts[2].columns[0].values<int64_t>()[0], 7);
  EXPECT_EQ(parts[2].columns[1].children[0].GetView(0), *values_[7]);
  EXPECT_TRUE(parts[2].columns[1].IsNull(1));
}

class IngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("files");
    std::filesystem::create_directories(root_ + "/sub/deeper");
    std::filesystem::create_directories(root_ + "/emptydir");
    files_ = {{"empty.bin", ""},
              {"sub/note.txt", Payload(10, 1)},
              {"sub/deeper/photo.JPG", Payload(70000, 2)},
              {"video.mp4", Payload(5 << 20, 3)}};
    for (const auto& [name, bytes] : files_) WriteTextFile(root_ + "/" + name, bytes);
    std::filesystem::create_symlink(root_ + "/video.mp4", root_ + "/link.mp4");
    ds_ = dir_.Join("ingest.lance");
  }

  ScopedTempDir dir_;
  std::string root_, ds_;
  std::map<std::string, std::string> files_;  // sorted as ingest orders rows
};

TEST_F(IngestTest, OneRowPerFile) {
  CliRun r = Capture({"ingest", root_, ds_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ingested 4 files (" + std::to_string(70010 + (5 << 20)) + " bytes)"), std::string::npos)
      << r.out;
  auto ds = table::Dataset::Open(ds_);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  const Schema& schema = (*ds)->schema();
  ASSERT_EQ(schema.fields.size(), 4u);
  EXPECT_EQ(schema.fields[0].name, "path");
  EXPECT_EQ(schema.fields[1].type.id, TypeId::kUInt64);
  EXPECT_EQ(schema.fields[2].name, "media_type");
  EXPECT_EQ(schema.fields[3].name, "blob");
  EXPECT_TRUE(IsBlobV2Field(schema.fields[3]));

  table::ScanOptions scan;
  scan.columns = {"path", "size", "media_type"};
  ASSERT_OK_AND_ASSIGN(auto batches, (*ds)->Scan(scan));
  ASSERT_EQ(batches.size(), 1u);
  const RecordBatch& b = batches[0];
  ASSERT_EQ(b.num_rows, 4);
  const std::vector<std::string> types = {"application/octet-stream", "image/jpeg", "text/plain", "video/mp4"};
  std::vector<uint64_t> rows = {0, 1, 2, 3};
  ASSERT_OK_AND_ASSIGN(auto blobs, (*ds)->TakeBlobs("blob", rows));
  size_t i = 0;
  for (const auto& [name, bytes] : files_) {
    EXPECT_EQ(b.columns[0].GetView(i), name);
    EXPECT_EQ(b.columns[1].values<uint64_t>()[i], bytes.size());
    EXPECT_EQ(b.columns[2].GetView(i), types[i]);
    ASSERT_TRUE(blobs[i].has_value());
    EXPECT_TRUE((*blobs[i])->view() == bytes) << name;
    ++i;
  }
  ASSERT_OK_AND_ASSIGN(auto where, (*ds)->LocateBlobs("blob", rows));
  EXPECT_EQ(where[0]->kind, table::BlobKind::kInline);
  EXPECT_EQ(where[1]->kind, table::BlobKind::kPacked);
  EXPECT_EQ(where[2]->kind, table::BlobKind::kInline);
  EXPECT_EQ(where[3]->kind, table::BlobKind::kDedicated);

  // --append adds the matching files under the same schema.
  CliRun more = Capture({"ingest", root_, ds_, "--append", "--glob", "*.txt"});
  ASSERT_EQ(more.code, 0) << more.err;
  ASSERT_OK_AND_ASSIGN(auto appended, table::Dataset::Open(ds_));
  EXPECT_EQ(appended->CountRows(), 5u);
  ASSERT_OK_AND_ASSIGN(auto note, appended->TakeBlobs("blob", std::vector<uint64_t>{(1ULL << 32) | 0}));
  EXPECT_EQ((*note[0])->view(), files_["sub/note.txt"]);
}

TEST_F(IngestTest, GlobColumnAndErrors) {
  CliRun r = Capture({"ingest", root_, ds_, "--glob", "*.mp4", "--column", "content"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto cols = ScanAll(ds_);
  ASSERT_EQ(cols.size(), 4u);
  ASSERT_EQ(cols[0].length, 1);  // the symlink is not ingested
  EXPECT_EQ(cols[0].GetView(0), "video.mp4");
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
  EXPECT_EQ(ds->schema().fields[3].name, "content");

  CliRun exists = Capture({"ingest", root_, ds_});
  EXPECT_EQ(exists.code, kExitFailure);
  CliRun empty = Capture({"ingest", root_ + "/emptydir", dir_.Join("e.lance")});
  EXPECT_EQ(empty.code, kExitFailure);
  EXPECT_NE(empty.err.find("no regular files"), std::string::npos) << empty.err;
  CliRun nomatch = Capture({"ingest", root_, dir_.Join("e.lance"), "--glob", "*.gif"});
  EXPECT_EQ(nomatch.code, kExitFailure);
  EXPECT_NE(nomatch.err.find("*.gif"), std::string::npos) << nomatch.err;
  EXPECT_EQ(Capture({"ingest", dir_.Join("missing"), dir_.Join("e.lance")}).code, kExitFailure);
  EXPECT_EQ(Capture({"ingest", root_, dir_.Join("e.lance"), "--column", "path"}).code, kExitUsage);
  EXPECT_EQ(Capture({"ingest", root_, dir_.Join("e.lance"), "--append", "--overwrite"}).code, kExitUsage);
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("e.lance")));
}

// Datasets the reference wrote (defaults, custom thresholds, nested and external
// blobs): export --blob-bytes then import keeps every blob's bytes.
TEST(BlobCorpusTest, ExportImportKeepsBlobBytes) {
  const char* corpus = std::getenv("LANCET_CORPUS_DIR");
  if (corpus == nullptr || !std::filesystem::exists(std::string(corpus) + "/data/blobs.lance")) {
    GTEST_SKIP() << "no corpus (LANCET_CORPUS_DIR)";
  }
  ScopedTempDir dir;
  for (const char* name : {"blobs", "blobs_custom", "nested_blob", "blobs_external"}) {
    SCOPED_TRACE(name);
    const std::string src = std::string(corpus) + "/data/" + name + ".lance";
    if (!std::filesystem::exists(src)) continue;
    const std::string out = dir.Join(std::string(name) + ".arrows");
    const std::string copy = dir.Join(std::string(name) + ".lance");
    CliRun e = Capture({"export", src, out, "--blob-bytes"});
    ASSERT_EQ(e.code, 0) << e.err;
    CliRun i = Capture({"import", out, copy, "--allow-external"});
    ASSERT_EQ(i.code, 0) << i.err;
    ASSERT_OK_AND_ASSIGN(auto a, table::Dataset::Open(src));
    ASSERT_OK_AND_ASSIGN(auto b, table::Dataset::Open(copy));
    ASSERT_EQ(a->CountRows(), b->CountRows());
    table::ScanOptions ids;
    ids.columns = {a->schema().fields[0].name};
    ids.with_row_id = true;
    ASSERT_OK_AND_ASSIGN(auto a_rows, a->Scan(ids));
    ASSERT_OK_AND_ASSIGN(auto b_rows, b->Scan(ids));
    std::vector<uint64_t> a_ids, b_ids;
    for (const auto& batch : a_rows) {
      for (int64_t r = 0; r < batch.num_rows; ++r) a_ids.push_back(batch.columns.back().values<uint64_t>()[r]);
    }
    for (const auto& batch : b_rows) {
      for (int64_t r = 0; r < batch.num_rows; ++r) b_ids.push_back(batch.columns.back().values<uint64_t>()[r]);
    }
    std::vector<std::string> paths;
    std::function<void(const std::vector<Field>&, const std::string&)> walk = [&](const std::vector<Field>& fs,
                                                                                  const std::string& prefix) {
      for (const Field& f : fs) {
        const std::string p = prefix.empty() ? f.name : prefix + "." + f.name;
        if (IsBlobV2Field(f)) {
          paths.push_back(p);
        } else if (f.type.id == TypeId::kStruct) {
          walk(f.type.children, p);
        }
      }
    };
    walk(a->schema().fields, "");
    ASSERT_FALSE(paths.empty());
    for (const std::string& p : paths) {
      // Same thresholds in the exported field metadata: same placement.
      ASSERT_OK_AND_ASSIGN(auto want_at, a->LocateBlobs(p, a_ids));
      ASSERT_OK_AND_ASSIGN(auto got_at, b->LocateBlobs(p, b_ids));
      for (size_t r = 0; r < want_at.size() && r < got_at.size(); ++r) {
        ASSERT_EQ(want_at[r].has_value(), got_at[r].has_value()) << p << " row " << r;
        if (want_at[r]) {
          EXPECT_EQ(want_at[r]->kind, got_at[r]->kind) << p << " row " << r;
        }
      }
      ASSERT_OK_AND_ASSIGN(auto want, a->TakeBlobs(p, a_ids));
      ASSERT_OK_AND_ASSIGN(auto got, b->TakeBlobs(p, b_ids));
      ASSERT_EQ(want.size(), got.size());
      for (size_t r = 0; r < want.size(); ++r) {
        ASSERT_EQ(want[r].has_value(), got[r].has_value()) << p << " row " << r;
        if (want[r]) {
          EXPECT_TRUE((*want[r])->view() == (*got[r])->view()) << p << " row " << r;
        }
      }
    }
  }
}

}  // namespace
}  // namespace lancet::cli
