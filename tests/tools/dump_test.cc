// `lancet dump` document structure, checked against an in-memory Dataset.
#include "lancet/dump.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sink_test_util.h"
#include "util/array_builder.h"
#include "util/array_json.h"
#include "util/sha256.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

using nlohmann::json;

Field BlobField(const std::string& name) {
  Field f = MakeField(name, StructOf({MakeField("data", MakeType(TypeId::kLargeBinary)),
                                      MakeField("uri", MakeType(TypeId::kUtf8))}));
  f.metadata[kArrowExtensionName] = kBlobV2ExtensionName;
  return f;
}

DataType DescriptorType() {
  return StructOf({MakeField("kind", MakeType(TypeId::kUInt8)), MakeField("position", MakeType(TypeId::kUInt64)),
                   MakeField("size", MakeType(TypeId::kUInt64)), MakeField("blob_id", MakeType(TypeId::kUInt32)),
                   MakeField("blob_uri", MakeType(TypeId::kUtf8))});
}

// One version of a fake dataset: scan batches (with _rowid/_rowaddr) and blob bytes.
struct FakeVersion {
  uint64_t version = 1;
  std::vector<RecordBatch> batches;
  std::map<std::pair<std::string, uint64_t>, std::string> blobs;  // (path, row id) -> bytes
  size_t num_fragments = 1;
};

class FakeDataset : public table::Dataset {
 public:
  FakeDataset(std::shared_ptr<std::vector<FakeVersion>> versions, size_t current, Schema schema,
              std::map<std::string, uint64_t> tags)
      : versions_(std::move(versions)), current_(current), schema_(std::move(schema)), tags_(std::move(tags)) {
    fragments_.resize(V().num_fragments);
  }

  const std::string& uri() const override { return uri_; }
  uint64_t version() const override { return V().version; }
  const Schema& schema() const override { return schema_; }
  const Schema& read_schema() const override { return schema_; }
  std::shared_ptr<io::ObjectStore> store() const override { return nullptr; }
  Result<std::vector<table::VersionInfo>> ListVersions() const override {
    std::vector<table::VersionInfo> out;
    for (const auto& v : *versions_) {
      uint64_t rows = 0;
      for (const auto& b : v.batches) rows += b.num_rows;
      out.push_back({v.version, 0, rows});
    }
    return out;
  }
  Result<std::map<std::string, uint64_t>> ListTags() const override { return tags_; }
  Result<std::unique_ptr<table::Dataset>> Checkout(uint64_t version) const override {
    for (size_t k = 0; k < versions_->size(); ++k) {
      if ((*versions_)[k].version == version) {
        ++checkouts;
        return std::unique_ptr<table::Dataset>(new FakeDataset(versions_, k, schema_, tags_));
      }
    }
    return Status::NotFound("_versions/" + std::to_string(version) + ".manifest");
  }
  Result<std::unique_ptr<table::Dataset>> CheckoutTag(const std::string& tag) const override {
    return Status::NotSupported("tags");
  }
  const std::vector<table::FragmentInfo>& fragments() const override { return fragments_; }
  uint64_t CountRows() const override { return 0; }
  std::map<std::string, std::string> Describe() const override { return {}; }
  Result<std::unique_ptr<RecordBatchReader>> NewScan(const table::ScanOptions& options) const override {
    EXPECT_TRUE(options.with_row_id && options.with_row_addr);
    Schema schema = V().batches.empty() ? schema_ : V().batches.front().schema;
    return MakeBatchVectorReader(std::move(schema), V().batches);
  }
  Result<RecordBatch> TakeRowAddresses(std::span<const uint64_t>, const std::vector<std::string>&) const override {
    return Status::NotSupported("take");
  }
  Result<RecordBatch> TakeRowIds(std::span<const uint64_t>, const std::vector<std::string>&) const override {
    return Status::NotSupported("take");
  }
  Result<std::vector<uint64_t>> RowIdsToAddresses(std::span<const uint64_t>) const override {
    return Status::NotSupported("ids");
  }
  Result<std::vector<std::optional<table::BlobLocation>>> LocateBlobs(const std::string&, std::span<const uint64_t>,
                                                                       table::RowKey) const override {
    return Status::NotSupported("locate");
  }
  Result<std::vector<std::optional<BufferPtr>>> TakeBlobs(const std::string& column, std::span<const uint64_t> row_ids,
                                                          table::RowKey) const override {
    ++blob_calls;
    std::vector<std::optional<BufferPtr>> out;
    for (uint64_t id : row_ids) {
      auto it = V().blobs.find({column, id});
      if (it == V().blobs.end()) {
        out.emplace_back(std::nullopt);
      } else {
        out.emplace_back(Buffer::Copy(std::string_view(it->second)));
      }
    }
    return out;
  }

  static inline int checkouts = 0;
  static inline int blob_calls = 0;

 private:
  const FakeVersion& V() const { return (*versions_)[current_]; }

  std::shared_ptr<std::vector<FakeVersion>> versions_;
  size_t current_;
  Schema schema_;
  std::map<std::string, uint64_t> tags_;
  std::vector<table::FragmentInfo> fragments_;
  std::string uri_ = "/data/sets/things.lance/";
};

Array U64(std::vector<uint64_t> v) { return *ArrayFromVector(MakeType(TypeId::kUInt64), v); }

Result<std::string> RunDump(const table::Dataset& ds, const DumpOptions& options) {
  return CaptureSink([&](OutputSink& sink) { return WriteDump(ds, options, sink); });
}

class DumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Field s = MakeField("s", StructOf({MakeField("n", MakeType(TypeId::kInt32)), BlobField("img")}));
    schema_.fields = {MakeField("id", MakeType(TypeId::kInt64), false), BlobField("video"), s};
    schema_.metadata = {{"owner", "me"}};

    const DataType s_read = StructOf({MakeField("n", MakeType(TypeId::kInt32)), MakeField("img", DescriptorType())});
    auto batch = [&](std::vector<uint64_t> addrs, const char* ids, const char* videos, const char* ss) {
      RecordBatch b;
      std::vector<Array> cols = {*ArrayFromJson(MakeType(TypeId::kInt64), ids),
                                 *ArrayFromJson(DescriptorType(), videos), *ArrayFromJson(s_read, ss),
                                 U64(addrs), U64(addrs)};
      return *MakeRecordBatch({"id", "video", "s", "_rowid", "_rowaddr"}, std::move(cols));
    };
    versions_ = std::make_shared<std::vector<FakeVersion>>();
    FakeVersion v1;
    v1.version = 1;
    v1.batches.push_back(batch({0}, "[10]", R"([{"kind":0,"position":"0","size":"3","blob_id":0,"blob_uri":""}])",
                               R"([{"n":1,"img":null}])"));
    v1.blobs[{"video", 0}] = "abc";
    versions_->push_back(v1);

    FakeVersion v2;
    v2.version = 2;
    v2.num_fragments = 2;
    // Fragment 1 comes first in the scan to check that rows are sorted by address.
    v2.batches.push_back(batch({(1ULL << 32) | 0, (1ULL << 32) | 2}, "[20, 21]",
                               R"([{"kind":2,"position":"0","size":"300","blob_id":7,"blob_uri":""}, null])",
                               R"([null, {"n":5,"img":{"kind":1,"position":"12","size":"2","blob_id":1,"blob_uri":""}}])"));
    v2.batches.push_back(batch({0}, "[10]", R"([{"kind":0,"position":"0","size":"3","blob_id":0,"blob_uri":""}])",
                               R"([{"n":1,"img":null}])"));
    v2.blobs[{"video", 0}] = "abc";
    v2.blobs[{"video", 1ULL << 32}] = std::string(300, 'z');
    v2.blobs[{"s.img", (1ULL << 32) | 2}] = "hi";
    versions_->push_back(v2);
    latest_ = std::make_unique<FakeDataset>(versions_, 1, schema_, std::map<std::string, uint64_t>{{"first", 1}});
  }

  Schema schema_;
  std::shared_ptr<std::vector<FakeVersion>> versions_;
  std::unique_ptr<FakeDataset> latest_;
};

TEST_F(DumpTest, LatestSnapshotByDefault) {
  ASSERT_OK_AND_ASSIGN(std::string text, RunDump(*latest_, {}));
  json doc = json::parse(text);
  EXPECT_EQ(doc["contract"], "lance-peer-dump/1");
  EXPECT_EQ(doc["dataset"], "things");
  EXPECT_EQ(doc["latest_version"], 2);
  EXPECT_EQ(doc["versions"], json::parse(R"([{"version":1,"num_rows":1},{"version":2,"num_rows":3}])"));
  EXPECT_EQ(doc["tags"], json::parse(R"({"first":1})"));
  ASSERT_EQ(doc["snapshots"].size(), 1u);
  const json& snap = doc["snapshots"][0];
  EXPECT_EQ(snap["version"], 2);
  EXPECT_EQ(snap["num_rows"], 3);
  EXPECT_EQ(snap["num_fragments"], 2);
  EXPECT_EQ(snap["blob_columns"], json::parse(R"(["video","s.img"])"));
  EXPECT_EQ(snap["schema"]["metadata"], json::parse(R"({"owner":"me"})"));
  EXPECT_EQ(snap["schema"]["fields"][1]["metadata"]["ARROW:extension:name"], "lance.blob.v2");

  const json& rows = snap["rows"];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["_rowaddr"], "0");
  EXPECT_EQ(rows[1]["_rowaddr"], "4294967296");
  EXPECT_EQ(rows[2]["_rowaddr"], "4294967298");
  EXPECT_EQ(rows[2]["_rowid"], "4294967298");
  EXPECT_EQ(rows[0]["id"], "10");
  EXPECT_EQ(rows[0]["video"]["descriptor"],
            json::parse(R"({"kind":0,"position":"0","size":"3","blob_id":0,"blob_uri":""})"));
  EXPECT_EQ(rows[0]["video"]["bytes"]["len"], 3);
  EXPECT_EQ(rows[0]["video"]["bytes"]["sha256"], Sha256Hex(std::string_view("abc")));
  EXPECT_EQ(rows[1]["video"]["bytes"]["sha256"], Sha256Hex(std::string(300, 'z')));
  EXPECT_TRUE(rows[2]["video"].is_null());
  // A blob under a null struct: the struct is null. A null blob in a valid struct: null.
  EXPECT_TRUE(rows[1]["s"].is_null());
  EXPECT_TRUE(rows[0]["s"]["img"].is_null());
  EXPECT_EQ(rows[2]["s"]["n"], 5);
  EXPECT_EQ(rows[2]["s"]["img"]["bytes"]["len"], 2);
  EXPECT_EQ(rows[2]["s"]["img"]["descriptor"]["blob_id"], 1);
  // Row keys: _rowaddr, _rowid, then the schema's fields.
  std::vector<std::string> keys;
  for (auto it = rows[0].begin(); it != rows[0].end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"_rowaddr", "_rowid", "id", "s", "video"}));
}

TEST_F(DumpTest, SnapshotSelection) {
  DumpOptions all;
  all.all_versions = true;
  ASSERT_OK_AND_ASSIGN(std::string text, RunDump(*latest_, all));
  json doc = json::parse(text);
  ASSERT_EQ(doc["snapshots"].size(), 2u);
  EXPECT_EQ(doc["snapshots"][0]["version"], 1);
  EXPECT_EQ(doc["snapshots"][0]["num_rows"], 1);
  EXPECT_EQ(doc["snapshots"][1]["version"], 2);

  DumpOptions picked;
  picked.tags = {"first"};
  picked.versions = {1, 2};
  picked.history = false;
  ASSERT_OK_AND_ASSIGN(text, RunDump(*latest_, picked));
  doc = json::parse(text);
  EXPECT_FALSE(doc.contains("versions"));
  EXPECT_FALSE(doc.contains("tags"));
  ASSERT_EQ(doc["snapshots"].size(), 2u);  // the tag and --version 1 name the same snapshot

  DumpOptions bad_tag;
  bad_tag.tags = {"nope"};
  auto r = RunDump(*latest_, bad_tag);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown tag 'nope' (tags: first)"), std::string::npos);

  DumpOptions bad_version;
  bad_version.versions = {9};
  r = RunDump(*latest_, bad_version);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("checkout of version 9"), std::string::npos);
}

TEST_F(DumpTest, BlobFetchesAreBatched) {
  DumpOptions small;
  small.blob_batch_rows = 1;
  FakeDataset::blob_calls = 0;
  ASSERT_OK_AND_ASSIGN(std::string text, RunDump(*latest_, small));
  // Per row chunk, one call per blob path that has a non-null value in it.
  EXPECT_EQ(FakeDataset::blob_calls, 3);
  DumpOptions few_bytes;
  few_bytes.blob_batch_bytes = 1;
  FakeDataset::blob_calls = 0;
  ASSERT_OK_AND_ASSIGN(std::string text2, RunDump(*latest_, few_bytes));
  EXPECT_EQ(FakeDataset::blob_calls, 3);
  EXPECT_EQ(text, text2);
}

TEST_F(DumpTest, EmptyDataset) {
  auto versions = std::make_shared<std::vector<FakeVersion>>();
  FakeVersion v;
  v.num_fragments = 0;
  versions->push_back(v);
  FakeDataset empty(versions, 0, schema_, {});
  ASSERT_OK_AND_ASSIGN(std::string text, RunDump(empty, {}));
  json doc = json::parse(text);
  EXPECT_EQ(doc["snapshots"][0]["rows"], json::array());
  EXPECT_EQ(doc["snapshots"][0]["num_fragments"], 0);
  EXPECT_EQ(doc["tags"], json::object());
}

TEST(DumpNameTest, FromUri) {
  EXPECT_EQ(DatasetNameFromUri("/a/b/types.lance"), "types");
  EXPECT_EQ(DatasetNameFromUri("/a/b/types.lance/"), "types");
  EXPECT_EQ(DatasetNameFromUri("file:///a/odd"), "odd");
  EXPECT_EQ(DatasetNameFromUri("rel.lance"), "rel");
}

}  // namespace
}  // namespace lancet::cli
