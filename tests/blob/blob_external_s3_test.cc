// External Blob V2 values (kind 3) whose URI is s3://bucket/key: written by reference
// (outside the bases or under a registered s3:// base) and read back through TakeBlobs,
// LocateBlobs, BlobFile, ReadBlobRanges and scan descriptors, from a local dataset and
// from one on S3. Needs the S3 server (label s3); skipped without one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/test_stores.h"
#include "lancet/blob/blob_file.h"
#include "lancet/blob/blob_ranges.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::blob {
namespace {

using ::lancet::testing::StoreKind;
using ::lancet::testing::TestRoot;
using table::BlobKind;
using table::Dataset;

std::string Payload(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed) * 7 + i / 251) & 0xFF);
  return s;
}

struct Ref {
  std::optional<std::string> uri;  // nullopt: a null blob
  std::optional<uint64_t> position, size;
};

// One blob column `b` of references, with position and size members.
std::pair<Schema, RecordBatch> References(const std::vector<Ref>& refs) {
  Field field = table::MakeBlobField("b", true);
  field.type.children.push_back(MakeField("position", MakeType(TypeId::kUInt64)));
  field.type.children.push_back(MakeField("size", MakeType(TypeId::kUInt64)));
  const auto n = static_cast<int64_t>(refs.size());
  std::vector<std::optional<std::string>> uris;
  std::vector<uint64_t> pos, size;
  std::vector<bool> valid, pos_valid, size_valid;
  for (const Ref& r : refs) {
    uris.push_back(r.uri);
    valid.push_back(r.uri.has_value());
    pos.push_back(r.position.value_or(0));
    pos_valid.push_back(r.position.has_value());
    size.push_back(r.size.value_or(0));
    size_valid.push_back(r.size.has_value());
  }
  auto data = MakeBinaryArray(field.type.children[0].type, std::vector<std::optional<std::string>>(refs.size()));
  auto uri = MakeBinaryArray(field.type.children[1].type, uris);
  auto p = ArrayFromVector(MakeType(TypeId::kUInt64), pos, pos_valid);
  auto s = ArrayFromVector(MakeType(TypeId::kUInt64), size, size_valid);
  EXPECT_TRUE(data.ok() && uri.ok() && p.ok() && s.ok());
  auto col = MakeStructArray(field.type, n, {*data, *uri, *p, *s}, valid);
  EXPECT_TRUE(col.ok()) << col.status().ToString();
  Schema schema{{field}, {}};
  return {schema, RecordBatch{schema, n, {*col}}};
}

class ExternalS3BlobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LANCET_SKIP_WITHOUT_STORE(StoreKind::kS3);
    objects_ = std::make_unique<TestRoot>(StoreKind::kS3, ::lancet::testing::CurrentTestName() + "_objects");
    bucket_ = std::getenv("LANCET_TEST_BUCKET");
    a_ = Payload(300000, 1);
    b_ = Payload(5000, 2);
    ASSERT_OK(objects_->store()->Put(objects_->Path("ext/a.bin"), AsBytes(a_)));
    ASSERT_OK(objects_->store()->Put(objects_->Path("ext/sub/b.bin"), AsBytes(b_)));
  }
  static std::span<const uint8_t> AsBytes(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
  }
  std::string Uri(const std::string& rel) const { return objects_->uri() + "/" + rel; }

  // Rows: whole a, a slice of a, b from 1000 to its end, null, whole b.
  std::vector<Ref> Rows() const {
    return {{Uri("ext/a.bin"), std::nullopt, std::nullopt},
            {Uri("ext/a.bin"), 1000, 70000},
            {Uri("ext/sub/b.bin"), 1000, std::nullopt},
            {std::nullopt, std::nullopt, std::nullopt},
            {Uri("ext/sub/b.bin"), std::nullopt, std::nullopt}};
  }
  std::vector<std::optional<std::string>> Expected() const {
    return {a_, a_.substr(1000, 70000), b_.substr(1000), std::nullopt, b_};
  }

  // Every read path gives the expected bytes.
  void ExpectReads(const Dataset& ds) {
    const std::vector<uint64_t> rows = {0, 1, 2, 3, 4};
    const auto want = Expected();
    ASSERT_OK_AND_ASSIGN(auto got, ds.TakeBlobs("b", rows));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i].has_value(), want[i].has_value()) << "row " << i;
      if (want[i]) {
        EXPECT_EQ((*got[i])->view(), *want[i]) << "row " << i;
      }
    }
    ASSERT_OK_AND_ASSIGN(auto located, ds.LocateBlobs("b", rows));
    EXPECT_EQ(located[0]->kind, BlobKind::kExternal);
    EXPECT_EQ(located[0]->object, Uri("ext/a.bin"));
    EXPECT_EQ(located[2]->length, b_.size() - 1000);

    ASSERT_OK_AND_ASSIGN(auto file, BlobFile::Open(ds, "b", 1));
    EXPECT_EQ(file->size(), 70000u);
    ASSERT_OK_AND_ASSIGN(BufferPtr part, file->read_range(100, 5100));
    EXPECT_EQ(part->view(), a_.substr(1100, 5000));

    const std::vector<BlobRange> ranges = {{0, 299990, 10}, {4, 0, 16}, {2, 3, 4}};
    ASSERT_OK_AND_ASSIGN(auto slices, ReadBlobRanges(ds, "b", ranges));
    EXPECT_EQ(slices[0]->view(), a_.substr(299990, 10));
    EXPECT_EQ(slices[1]->view(), b_.substr(0, 16));
    EXPECT_EQ(slices[2]->view(), b_.substr(1003, 4));
  }

  std::unique_ptr<TestRoot> objects_;
  std::string bucket_, a_, b_;
};

TEST_F(ExternalS3BlobsTest, LocalDatasetReadsS3ObjectsOutsideBases) {
  TestRoot local(StoreKind::kLocal, ::lancet::testing::CurrentTestName());
  auto [schema, batch] = References(Rows());
  table::WriteParams params;
  params.blobs.allow_external_outside_bases = true;
  ASSERT_OK(table::WriteDataset(local.Path("t.lance"), schema, {batch}, params).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(local.Path("t.lance")));
  ExpectReads(*ds);

  // Scan descriptors carry the URI as written (blob id 0) and the exact slice lengths.
  table::ScanOptions scan;
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(scan));
  const Array& d = batches[0].columns[0];
  EXPECT_EQ(d.children[0].values<uint8_t>()[0], static_cast<uint8_t>(BlobKind::kExternal));
  EXPECT_EQ(d.children[3].values<uint32_t>()[1], 0u);
  EXPECT_EQ(d.children[4].GetView(1), Uri("ext/a.bin"));
  EXPECT_EQ(d.children[2].values<uint64_t>()[2], b_.size() - 1000);  // "to the end" stored with its length
  EXPECT_EQ(d.children[2].values<uint64_t>()[0], 0u);                // whole object: size 0
}

TEST_F(ExternalS3BlobsTest, S3DatasetWithRegisteredS3Base) {
  TestRoot place(StoreKind::kS3, ::lancet::testing::CurrentTestName());
  auto [schema, batch] = References(Rows());
  table::WriteParams params;
  params.blobs.external_bases = {objects_->uri() + "/ext/"};
  const std::string uri = place.uri() + "/t.lance";
  ASSERT_OK(table::WriteDataset(uri, schema, {batch}, params).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->uri(), uri);
  EXPECT_EQ(ds->root(), place.root() + "/t.lance");
  ASSERT_OK_AND_ASSIGN(auto v1, ds->Checkout(1));
  EXPECT_EQ(v1->uri(), uri);
  ExpectReads(*ds);

  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan({}));
  const Array& d = batches[0].columns[0];
  EXPECT_EQ(d.children[3].values<uint32_t>()[0], 1u);  // the base's id
  EXPECT_EQ(d.children[4].GetView(0), "a.bin");
  EXPECT_EQ(d.children[4].GetView(2), "sub/b.bin");

  // The dataset's own store serves its bucket, so its counters see the blob reads.
  ds->store()->stats().Reset();
  const std::vector<uint64_t> rows = {0};
  ASSERT_OK(ds->TakeBlobs("b", rows).status());
  EXPECT_GE(ds->store()->stats().Snapshot().read_bytes, a_.size());
}

TEST_F(ExternalS3BlobsTest, StorageOptionsReachTheExternalStore) {
  TestRoot local(StoreKind::kLocal, ::lancet::testing::CurrentTestName());
  auto [schema, batch] = References(Rows());
  table::WriteParams params;
  params.blobs.allow_external_outside_bases = true;
  ASSERT_OK(table::WriteDataset(local.Path("t.lance"), schema, {batch}, params).status());
  table::OpenOptions wrong;
  wrong.storage_options["aws_secret_access_key"] = "NOT-THE-SECRET-5150";
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(local.Path("t.lance"), wrong));
  const std::vector<uint64_t> rows = {0};
  auto got = ds->TakeBlobs("b", rows);
  ASSERT_FALSE(got.ok());
  const std::string text = got.status().ToString();
  EXPECT_NE(text.find("403"), std::string::npos) << text;
  EXPECT_NE(text.find(Uri("ext/a.bin")), std::string::npos) << text;
  EXPECT_EQ(text.find("NOT-THE-SECRET-5150"), std::string::npos) << text;
  EXPECT_EQ(text.find(std::getenv("AWS_SECRET_ACCESS_KEY")), std::string::npos) << text;

  // Writing a reference that needs the object's size asks S3 with the write's options.
  table::WriteParams bad = params;
  bad.storage_options = wrong.storage_options;
  auto [s2, b2] = References({{Uri("ext/a.bin"), 10, std::nullopt}});
  auto written = table::WriteDataset(local.Path("u.lance"), s2, {b2}, bad);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().ToString().find("NOT-THE-SECRET-5150"), std::string::npos);
}

TEST_F(ExternalS3BlobsTest, HostileS3ReferencesAreRefused) {
  TestRoot local(StoreKind::kLocal, ::lancet::testing::CurrentTestName());
  table::WriteParams params;
  params.blobs.allow_external_outside_bases = true;
  const std::vector<std::string> hostile = {"s3://" + bucket_ + "/x/../y", "s3:///key", "s3://" + bucket_ + "/",
                                            "s3://" + bucket_ + "/a//b", "s3://" + bucket_};
  for (const std::string& bad : hostile) {
    auto [schema, batch] = References({{bad, std::nullopt, std::nullopt}});
    auto st = table::WriteDataset(local.Path("t.lance"), schema, {batch}, params).status();
    EXPECT_TRUE(st.IsInvalidArgument()) << bad << ": " << st.ToString();
  }
  // Outside the registered bases without permission.
  table::WriteParams strict;
  strict.blobs.external_bases = {objects_->uri() + "/ext/sub"};
  auto [schema, batch] = References({{Uri("ext/a.bin"), std::nullopt, std::nullopt}});
  auto st = table::WriteDataset(local.Path("t.lance"), schema, {batch}, strict).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  // A missing object is NotFound on read, naming its URI.
  auto [s2, b2] = References({{Uri("ext/missing.bin"), std::nullopt, std::nullopt}});
  ASSERT_OK(table::WriteDataset(local.Path("m.lance"), s2, {b2}, params).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(local.Path("m.lance")));
  const std::vector<uint64_t> rows = {0};
  auto got = ds->TakeBlobs("b", rows);
  EXPECT_TRUE(got.status().IsNotFound()) << got.status().ToString();
  EXPECT_NE(got.status().ToString().find(Uri("ext/missing.bin")), std::string::npos) << got.status().ToString();
}

// Checks that need no server (they run with the unit tests too): a reference is
// refused before any request is made.
TEST(ExternalUriCheck, RefusesHostileRemoteKeysWithoutARequest) {
  TestRoot local(StoreKind::kLocal, ::lancet::testing::CurrentTestName());
  table::WriteParams params;
  params.blobs.allow_external_outside_bases = true;
  // An endpoint nothing listens on: any request would fail with IOError instead.
  params.storage_options = {{"aws_endpoint", "http://127.0.0.1:9"},
                            {"allow_http", "true"},
                            {"aws_access_key_id", "k"},
                            {"aws_secret_access_key", "s"}};
  const std::vector<std::string> hostile = {"s3://b/x/../y", "s3:///key",  "s3://b/",  "s3://b/a//b",
                                            "s3://b",        "s3://b/./k", "s3://b/k/"};
  for (const std::string& bad : hostile) {
    auto [schema, batch] = References({{bad, std::nullopt, std::nullopt}});
    auto st = table::WriteDataset(local.Path("t.lance"), schema, {batch}, params).status();
    EXPECT_TRUE(st.IsInvalidArgument()) << bad << ": " << st.ToString();
    EXPECT_NE(st.message().find(bad), std::string::npos) << st.ToString();
  }
  // A good key outside every base, without permission: refused, nothing written.
  table::WriteParams strict = params;
  strict.blobs.allow_external_outside_bases = false;
  strict.blobs.external_bases = {"s3://b/base/"};
  auto [schema, batch] = References({{std::string("s3://b/other/k.bin"), std::nullopt, std::nullopt}});
  auto st = table::WriteDataset(local.Path("u.lance"), schema, {batch}, strict).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_FALSE(std::filesystem::exists(local.Path("u.lance/_versions")));
  // Under the base: stored relative to it without asking the server (whole object).
  auto [s2, b2] = References({{std::string("s3://b/base/sub/k.bin"), std::nullopt, std::nullopt}});
  ASSERT_OK(table::WriteDataset(local.Path("v.lance"), s2, {b2}, strict).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(local.Path("v.lance")));
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan({}));
  EXPECT_EQ(batches[0].columns[0].children[3].values<uint32_t>()[0], 1u);
  EXPECT_EQ(batches[0].columns[0].children[4].GetView(0), "sub/k.bin");
}

}  // namespace
}  // namespace lancet::blob
