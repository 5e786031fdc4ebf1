// Every dataset and version of the reference corpus (written by lance 12), checked
// against the peer's expected JSON: versions, tags, row counts, row ids and addresses,
// integer columns, and blob bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "lancet/table/dataset.h"
#include "table/manifest.h"
#include "table/table_test_util.h"
#include "util/sha256.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

using nlohmann::json;

const std::vector<std::string> kDatasets = {"types",         "types_extra", "deletions",    "versions",
                                            "evolution",     "blobs",       "blobs_custom", "nested_blob",
                                            "stable_row_ids", "v1_manifest_paths", "empty"};

json LoadExpected(const std::string& name) {
  std::ifstream in(testing::CorpusDir() + "/expected/" + name + ".json");
  return json::parse(in);
}

std::string DatasetPath(const std::string& name) { return testing::CorpusDir() + "/data/" + name + ".lance"; }

uint64_t U64(const json& v) { return v.is_string() ? std::stoull(v.get<std::string>()) : v.get<uint64_t>(); }

class CorpusTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!testing::HasCorpusDataset(GetParam())) GTEST_SKIP() << "corpus dataset " << GetParam() << " absent";
    expected_ = LoadExpected(GetParam());
  }
  json expected_;
};

TEST_P(CorpusTest, VersionsAndTags) {
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(DatasetPath(GetParam())));
  EXPECT_EQ(ds->version(), expected_["latest_version"].get<uint64_t>());
  ASSERT_OK_AND_ASSIGN(auto versions, ds->ListVersions());
  ASSERT_EQ(versions.size(), expected_["versions"].size());
  for (size_t i = 0; i < versions.size(); ++i) {
    EXPECT_EQ(versions[i].version, expected_["versions"][i]["version"].get<uint64_t>());
    EXPECT_EQ(versions[i].num_rows, expected_["versions"][i]["num_rows"].get<uint64_t>());
    EXPECT_GT(versions[i].timestamp_ms, 0);
    // Every version opens and agrees with its listed row count.
    ASSERT_OK_AND_ASSIGN(auto v, ds->Checkout(versions[i].version));
    EXPECT_EQ(v->CountRows(), versions[i].num_rows);
  }
  ASSERT_OK_AND_ASSIGN(auto tags, ds->ListTags());
  std::map<std::string, uint64_t> want;
  for (auto& [name, v] : expected_["tags"].items()) want[name] = v.get<uint64_t>();
  EXPECT_EQ(tags, want);
  for (auto& [name, v] : want) {
    ASSERT_OK_AND_ASSIGN(auto t, ds->CheckoutTag(name));
    EXPECT_EQ(t->version(), v);
  }
}

// Row ids and addresses need no data-file decoding: they test manifests, deletion
// files and row id sequences on their own.
TEST_P(CorpusTest, RowIdsAndAddresses) {
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(DatasetPath(GetParam())));
  for (const json& snap : expected_["snapshots"]) {
    uint64_t version = snap["version"].get<uint64_t>();
    SCOPED_TRACE("version " + std::to_string(version));
    ASSERT_OK_AND_ASSIGN(auto ds, latest->Checkout(version));
    EXPECT_EQ(ds->CountRows(), snap["num_rows"].get<uint64_t>());
    if (snap.contains("num_fragments")) {
      EXPECT_EQ(ds->fragments().size(), snap["num_fragments"].get<size_t>());
    }
    std::vector<std::string> names;
    for (const Field& f : ds->schema().fields) names.push_back(f.name);
    std::vector<std::string> want_names;
    for (const json& f : snap["schema"]["fields"]) want_names.push_back(f["name"].get<std::string>());
    EXPECT_EQ(names, want_names);

    ScanOptions opts;
    opts.columns = {"_rowid", "_rowaddr"};
    opts.batch_size = 97;
    ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
    std::vector<uint64_t> ids, addrs;
    for (const RecordBatch& b : batches) {
      EXPECT_LE(b.num_rows, 97);
      for (int64_t i = 0; i < b.num_rows; ++i) {
        ids.push_back(b.columns[0].values<uint64_t>()[i]);
        addrs.push_back(b.columns[1].values<uint64_t>()[i]);
      }
    }
    std::vector<uint64_t> want_ids, want_addrs;
    for (const json& row : snap["rows"]) {
      want_ids.push_back(U64(row["_rowid"]));
      want_addrs.push_back(U64(row["_rowaddr"]));
    }
    ASSERT_EQ(addrs, want_addrs);
    ASSERT_EQ(ids, want_ids);
    ASSERT_OK_AND_ASSIGN(auto mapped, ds->RowIdsToAddresses(want_ids));
    EXPECT_EQ(mapped, want_addrs);
  }
}

// Integer columns scanned and taken must equal the expected values.
TEST_P(CorpusTest, ScanAndTakeIntegerColumns) {
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(DatasetPath(GetParam())));
  for (const json& snap : expected_["snapshots"]) {
    uint64_t version = snap["version"].get<uint64_t>();
    SCOPED_TRACE("version " + std::to_string(version));
    ASSERT_OK_AND_ASSIGN(auto ds, latest->Checkout(version));
    std::vector<std::string> cols;
    std::vector<TypeId> types;
    for (const Field& f : ds->read_schema().fields) {
      if (f.type.id == TypeId::kInt64 || f.type.id == TypeId::kInt32) {
        cols.push_back(f.name);
        types.push_back(f.type.id);
      }
    }
    if (cols.empty()) continue;
    auto check = [&](const Array& a, int64_t i, const json& want, const std::string& col) {
      if (want.is_null()) {
        EXPECT_TRUE(a.IsNull(i)) << col << " row " << i;
        return;
      }
      ASSERT_TRUE(a.IsValid(i)) << col << " row " << i;
      int64_t got = a.type.id == TypeId::kInt64 ? a.values<int64_t>()[i] : a.values<int32_t>()[i];
      int64_t w = want.is_string() ? std::stoll(want.get<std::string>()) : want.get<int64_t>();
      EXPECT_EQ(got, w) << col << " row " << i;
    };
    ScanOptions opts;
    opts.columns = cols;
    opts.batch_size = 1000;
    ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
    size_t row = 0;
    for (const RecordBatch& b : batches) {
      for (int64_t i = 0; i < b.num_rows; ++i, ++row) {
        ASSERT_LT(row, snap["rows"].size());
        for (size_t c = 0; c < cols.size(); ++c) check(b.columns[c], i, snap["rows"][row][cols[c]], cols[c]);
      }
    }
    EXPECT_EQ(row, snap["rows"].size());

    // Take every 7th row by row id, in reverse, with a repeat.
    std::vector<uint64_t> ids;
    std::vector<size_t> rows;
    for (size_t r = 0; r < snap["rows"].size(); r += 7) {
      ids.insert(ids.begin(), U64(snap["rows"][r]["_rowid"]));
      rows.insert(rows.begin(), r);
    }
    if (!ids.empty()) {
      ids.push_back(ids.front());
      rows.push_back(rows.front());
    }
    ASSERT_OK_AND_ASSIGN(auto batch, ds->TakeRowIds(ids, cols));
    ASSERT_EQ(batch.num_rows, static_cast<int64_t>(ids.size()));
    for (size_t k = 0; k < ids.size(); ++k) {
      for (size_t c = 0; c < cols.size(); ++c) {
        check(batch.columns[c], static_cast<int64_t>(k), snap["rows"][rows[k]][cols[c]], cols[c]);
      }
    }
  }
}

TEST_P(CorpusTest, BlobBytes) {
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(DatasetPath(GetParam())));
  for (const json& snap : expected_["snapshots"]) {
    if (!snap.contains("blob_columns") || snap["blob_columns"].empty()) continue;
    uint64_t version = snap["version"].get<uint64_t>();
    SCOPED_TRACE("version " + std::to_string(version));
    ASSERT_OK_AND_ASSIGN(auto ds, latest->Checkout(version));
    std::vector<uint64_t> ids;
    for (const json& row : snap["rows"]) ids.push_back(U64(row["_rowid"]));
    for (const json& col_json : snap["blob_columns"]) {
      std::string col = col_json.get<std::string>();
      SCOPED_TRACE(col);
      ASSERT_OK_AND_ASSIGN(auto blobs, ds->TakeBlobs(col, ids));
      ASSERT_EQ(blobs.size(), ids.size());
      for (size_t r = 0; r < ids.size(); ++r) {
        // Walk the dotted path; a null parent means a null blob.
        const json* v = &snap["rows"][r];
        size_t start = 0;
        while (v != nullptr && !v->is_null()) {
          size_t dot = col.find('.', start);
          std::string part = col.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
          v = v->contains(part) ? &(*v)[part] : nullptr;
          if (dot == std::string::npos) break;
          start = dot + 1;
        }
        bool want_null = v == nullptr || v->is_null() || (*v)["bytes"].is_null();
        if (want_null) {
          EXPECT_FALSE(blobs[r].has_value()) << "row " << r;
          continue;
        }
        ASSERT_TRUE(blobs[r].has_value()) << "row " << r;
        const json& bytes = (*v)["bytes"];
        const BufferPtr& got = *blobs[r];
        if (bytes.is_string()) {
          EXPECT_EQ(ToHex(got->span()), bytes.get<std::string>()) << "row " << r;
        } else {
          EXPECT_EQ(got->size(), bytes["len"].get<uint64_t>()) << "row " << r;
          EXPECT_EQ(Sha256Hex(got->span()), bytes["sha256"].get<std::string>()) << "row " << r;
        }
      }
      // Order and repeats are kept.
      if (ids.size() >= 2) {
        std::vector<uint64_t> twice = {ids[1], ids[0], ids[1]};
        ASSERT_OK_AND_ASSIGN(auto again, ds->TakeBlobs(col, twice));
        ASSERT_EQ(again.size(), 3u);
        EXPECT_EQ(again[0].has_value(), blobs[1].has_value());
        if (again[0] && blobs[1]) {
          EXPECT_EQ((*again[0])->view(), (*blobs[1])->view());
        }
        if (again[2] && blobs[1]) {
          EXPECT_EQ((*again[2])->view(), (*blobs[1])->view());
        }
        if (again[1] && blobs[0]) {
          EXPECT_EQ((*again[1])->view(), (*blobs[0])->view());
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(kDatasets),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Blob error paths on a damaged in-memory copy of the `blobs` dataset.
class BlobErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HasCorpusDataset("blobs")) GTEST_SKIP() << "corpus dataset blobs absent";
    expected_ = LoadExpected("blobs");
    store_ = io::NewMemoryStore();
    ASSERT_OK(testing::CopyDirToStore(DatasetPath("blobs"), *store_, "b"));
  }
  // The first row of the latest snapshot whose descriptor has `kind`.
  const json* RowOfKind(int kind) {
    for (const json& row : expected_["snapshots"].back()["rows"]) {
      const json& v = row["video"];
      if (!v.is_null() && v["descriptor"]["kind"].get<int>() == kind) return &row;
    }
    return nullptr;
  }
  json expected_;
  std::shared_ptr<io::ObjectStore> store_;
};

TEST_F(BlobErrorTest, MissingAndTruncatedSidecar) {
  const json* row = RowOfKind(2);
  ASSERT_NE(row, nullptr);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store_, "b"));
  uint64_t id = U64((*row)["_rowid"]);
  // Find the sidecar by resolving the bytes first, then remove or cut it.
  ASSERT_OK_AND_ASSIGN(auto ok, ds->TakeBlobs("video", std::vector<uint64_t>{id}));
  ASSERT_TRUE(ok[0].has_value());
  std::string sidecar;
  for (const FragmentInfo& f : ds->fragments()) {
    if (f.id != (U64((*row)["_rowaddr"]) >> 32)) continue;
    std::string stem = f.files[0].path.substr(0, f.files[0].path.size() - 6);
    uint32_t blob_id = (*row)["video"]["descriptor"]["blob_id"].get<uint32_t>();
    std::string name(32, '0');
    for (int b = 0; b < 32; ++b) name[b] = ((blob_id >> b) & 1) ? '1' : '0';
    sidecar = "b/data/" + stem + "/" + name + ".blob";
  }
  ASSERT_OK_AND_ASSIGN(uint64_t size, store_->Size(sidecar));
  ASSERT_OK_AND_ASSIGN(auto file, store_->OpenRead(sidecar));
  ASSERT_OK_AND_ASSIGN(auto bytes, file->ReadAt(0, size - 1));
  ASSERT_OK(store_->Put(sidecar, bytes->span()));
  // A dataset keeps the blob objects it opened (Lance never rewrites them): a newly
  // opened one sees the damage.
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store_, "b"));
  auto r = ds->TakeBlobs("video", std::vector<uint64_t>{id});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find(sidecar), std::string::npos) << r.status().ToString();

  ASSERT_OK(store_->Delete(sidecar));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store_, "b"));
  r = ds->TakeBlobs("video", std::vector<uint64_t>{id});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_NE(r.status().message().find(sidecar), std::string::npos) << r.status().ToString();
}

TEST_F(BlobErrorTest, UnknownKindInDescriptor) {
  // Patch the kind byte of a packed descriptor (u8 kind, u64 position, u64 size in the
  // full-zip row) to 9.
  const json* row = RowOfKind(1);
  ASSERT_NE(row, nullptr);
  const json& d = (*row)["video"]["descriptor"];
  std::vector<uint8_t> pattern(17);
  pattern[0] = 1;
  uint64_t pos = U64(d["position"]), size = U64(d["size"]);
  std::memcpy(pattern.data() + 1, &pos, 8);
  std::memcpy(pattern.data() + 9, &size, 8);
  ASSERT_OK_AND_ASSIGN(auto ds0, Dataset::Open(store_, "b"));
  uint64_t frag_id = U64((*row)["_rowaddr"]) >> 32;
  std::string data_file;
  for (const FragmentInfo& f : ds0->fragments()) {
    if (f.id == frag_id) data_file = "b/data/" + f.files[0].path;
  }
  ASSERT_OK_AND_ASSIGN(uint64_t fsize, store_->Size(data_file));
  ASSERT_OK_AND_ASSIGN(auto file, store_->OpenRead(data_file));
  ASSERT_OK_AND_ASSIGN(auto buf, file->ReadAt(0, fsize));
  std::vector<uint8_t> bytes(buf->data(), buf->data() + buf->size());
  auto it = std::search(bytes.begin(), bytes.end(), pattern.begin(), pattern.end());
  ASSERT_NE(it, bytes.end());
  *it = 9;
  ASSERT_OK(store_->Put(data_file, bytes));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store_, "b"));
  auto r = ds->TakeBlobs("video", std::vector<uint64_t>{U64((*row)["_rowid"])});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("unknown blob kind 9"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find(data_file), std::string::npos) << r.status().ToString();
}

TEST_F(BlobErrorTest, NotABlobColumn) {
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store_, "b"));
  EXPECT_TRUE(ds->TakeBlobs("id", std::vector<uint64_t>{0}).status().IsInvalidArgument());
  EXPECT_TRUE(ds->TakeBlobs("nope", std::vector<uint64_t>{0}).status().IsNotFound());
  EXPECT_TRUE(ds->TakeBlobs("video.data", std::vector<uint64_t>{0}).status().IsNotSupported());
  ASSERT_OK_AND_ASSIGN(auto none, ds->TakeBlobs("video", {}));
  EXPECT_TRUE(none.empty());
}

TEST_F(BlobErrorTest, SchemasAndDescriptorScan) {
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store_, "b"));
  int idx = ds->schema().FieldIndex("video");
  ASSERT_GE(idx, 0);
  const Field& logical = ds->schema().fields[idx];
  EXPECT_TRUE(IsBlobV2Field(logical));
  ASSERT_EQ(logical.type.children.size(), 2u);
  EXPECT_EQ(logical.type.children[0].type.id, TypeId::kLargeBinary);
  const Field& physical = ds->read_schema().fields[idx];
  ASSERT_EQ(physical.type.children.size(), 5u);
  EXPECT_EQ(physical.metadata.at("lance-encoding:packed"), "true");
  EXPECT_EQ(physical.id, logical.id);

  ScanOptions opts;
  opts.columns = {"video"};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
  size_t row = 0;
  const json& rows = expected_["snapshots"].back()["rows"];
  for (const RecordBatch& b : batches) {
    const Array& a = b.columns[0];
    for (int64_t i = 0; i < b.num_rows; ++i, ++row) {
      const json& v = rows[row]["video"];
      ASSERT_EQ(a.IsNull(i), v.is_null()) << row;
      if (v.is_null()) continue;
      EXPECT_EQ(a.children[0].values<uint8_t>()[i], v["descriptor"]["kind"].get<int>());
      EXPECT_EQ(a.children[1].values<uint64_t>()[i], U64(v["descriptor"]["position"]));
      EXPECT_EQ(a.children[2].values<uint64_t>()[i], U64(v["descriptor"]["size"]));
      EXPECT_EQ(a.children[3].values<uint32_t>()[i], v["descriptor"]["blob_id"].get<uint32_t>());
    }
  }
  EXPECT_EQ(row, rows.size());
}

}  // namespace
}  // namespace lancet::table

namespace lancet::table {
namespace {

// Random byte flips in real manifests, row id sequences and deletion files must give
// errors or data, never crashes (a cheap stand-in for the fuzz target).
TEST(CorpusMutation, ManifestsNeverCrash) {
  if (!testing::HasCorpusDataset("stable_row_ids")) GTEST_SKIP() << "corpus absent";
  for (const char* name : {"stable_row_ids", "deletions"}) {
    auto store = io::NewMemoryStore();
    ASSERT_OK(testing::CopyDirToStore(DatasetPath(name), *store, "m"));
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "m"));
    uint64_t version = ds->version();
    std::string path = "m/_versions/" + ManifestFileNameV2(version);
    ASSERT_OK_AND_ASSIGN(uint64_t size, store->Size(path));
    ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead(path));
    ASSERT_OK_AND_ASSIGN(auto original, file->ReadAt(0, size));
    uint32_t seed = 12345;
    auto next = [&seed] {
      seed = seed * 1664525u + 1013904223u;
      return seed >> 8;
    };
    int opened = 0;
    for (int iter = 0; iter < 300; ++iter) {
      std::vector<uint8_t> bytes(original->data(), original->data() + original->size());
      int flips = 1 + static_cast<int>(next() % 4);
      for (int f = 0; f < flips; ++f) bytes[next() % bytes.size()] ^= static_cast<uint8_t>(1 + next() % 255);
      ASSERT_OK(store->Put(path, bytes));
      auto r = Dataset::Open(store, "m");
      if (!r.ok()) continue;
      ++opened;
      ScanOptions opts;
      opts.columns = {"_rowid", "_rowaddr"};
      (void)(*r)->Scan(opts);
      (void)(*r)->ListVersions();
      std::vector<uint64_t> ids = {0, 1, 5, 1ull << 32};
      (void)(*r)->RowIdsToAddresses(ids);
    }
    EXPECT_GT(opened, 0) << name;
  }
}

}  // namespace
}  // namespace lancet::table
