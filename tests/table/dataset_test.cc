// Dataset behaviour on hand-built manifests in an in-memory store: version listing,
// tags, deletions, stable row ids, and the errors corrupt input must produce.
#include "lancet/table/dataset.h"

#include <gtest/gtest.h>

#include <cstring>

#include <roaring/roaring.hh>

#include "format/ipc_writer.h"
#include "lance_proto/rowids.pb.h"
#include "table/blob.h"
#include "table/manifest.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

using testing::MinimalManifest;
using testing::PutManifest;

constexpr const char* kRoot = "mem/ds";

// A fragment without data files: every column reads as null, so these tests need no
// data-file writer, only the table layer.
lance::table::DataFragment* AddFragment(lance::table::Manifest* m, uint64_t id, uint64_t rows) {
  auto* f = m->add_fragments();
  f->set_id(id);
  f->set_physical_rows(rows);
  return f;
}

std::vector<uint64_t> ScanU64(const Dataset& ds, const char* column, uint64_t batch_size = 65536) {
  ScanOptions opts;
  opts.columns = {column};
  opts.batch_size = batch_size;
  auto batches = ds.Scan(opts);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<uint64_t> out;
  if (!batches.ok()) return out;
  for (const RecordBatch& b : *batches) {
    EXPECT_LE(static_cast<uint64_t>(b.num_rows), batch_size);
    const Array& a = b.columns.back();
    for (int64_t i = 0; i < a.length; ++i) out.push_back(a.values<uint64_t>()[i]);
  }
  return out;
}

ScanOptions Cols(std::vector<std::string> columns) {
  ScanOptions o;
  o.columns = std::move(columns);
  return o;
}

ScanOptions Batch(uint64_t batch_size) {
  ScanOptions o;
  o.batch_size = batch_size;
  return o;
}

std::string SerializeRowIds(const lance::table::RowIdSequence& seq) { return seq.SerializeAsString(); }

Status PutArrowDeletion(io::ObjectStore& store, const std::string& path, const std::vector<uint32_t>& offsets) {
  Schema schema;
  schema.fields.push_back(MakeField("row_id", MakeType(TypeId::kUInt32), false));
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(offsets.size());
  ASSIGN_OR_RETURN(Array a, ArrayFromVector(MakeType(TypeId::kUInt32), offsets));
  batch.columns.push_back(std::move(a));
  format::IpcWriteOptions opts;
  opts.compression = format::IpcCompression::kZstd;
  ASSIGN_OR_RETURN(BufferPtr file, format::WriteIpcFile(schema, {batch}, opts));
  return store.Put(path, file->span());
}

Status PutBitmapDeletion(io::ObjectStore& store, const std::string& path, const Roaring& r) {
  std::vector<uint8_t> out(r.getSizeInBytes(true));
  r.write(reinterpret_cast<char*>(out.data()), true);
  return store.Put(path, out);
}

void SetDeletion(lance::table::DataFragment* f, lance::table::DeletionFile::DeletionFileType type,
                 uint64_t read_version, uint64_t id, uint64_t count) {
  auto* d = f->mutable_deletion_file();
  d->set_file_type(type);
  d->set_read_version(read_version);
  d->set_id(id);
  d->set_num_deleted_rows(count);
}

TEST(Dataset, VersionsAcrossNamingSchemes) {
  auto store = io::NewMemoryStore();
  auto m1 = MinimalManifest(1);
  AddFragment(&m1, 0, 10);
  ASSERT_OK(PutManifest(*store, kRoot, m1));
  auto m2 = MinimalManifest(2);
  AddFragment(&m2, 0, 10);
  AddFragment(&m2, 1, 5);
  ASSERT_OK(PutManifest(*store, kRoot, m2, /*v2_naming=*/false));
  // A stale hint and a detached version must not matter.
  ASSERT_OK(store->Put(std::string(kRoot) + "/_versions/latest_version_hint.json",
                       std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("{\"version\":1}"), 13)));
  auto detached = MinimalManifest(0x8000000000000005ull);
  auto dbytes = testing::EncodeManifestFile(detached);
  ASSERT_OK(store->Put(std::string(kRoot) + "/_versions/d9223372036854775813.manifest", dbytes));

  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  EXPECT_EQ(ds->version(), 2u);
  EXPECT_EQ(ds->CountRows(), 15u);
  ASSERT_EQ(ds->fragments().size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto versions, ds->ListVersions());
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].version, 1u);
  EXPECT_EQ(versions[0].num_rows, 10u);
  EXPECT_EQ(versions[1].version, 2u);
  EXPECT_EQ(versions[1].num_rows, 15u);
  ASSERT_OK_AND_ASSIGN(auto v1, ds->Checkout(1));
  EXPECT_EQ(v1->version(), 1u);
  EXPECT_EQ(v1->CountRows(), 10u);
  auto missing = ds->Checkout(7);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("mem/ds/_versions/7.manifest"), std::string::npos)
      << missing.status().ToString();

  OpenOptions both;
  both.version = 1;
  both.tag = "x";
  EXPECT_TRUE(Dataset::Open(store, kRoot, both).status().IsInvalidArgument());
}

TEST(Dataset, NullColumnsAndRowAddresses) {
  auto store = io::NewMemoryStore();
  auto m = MinimalManifest(1);
  AddFragment(&m, 3, 4);
  AddFragment(&m, 1, 3);  // out of order in the manifest: scans go by fragment id
  ASSERT_OK(PutManifest(*store, kRoot, m));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  EXPECT_EQ(ds->fragments()[0].id, 1u);
  ScanOptions opts;
  opts.with_row_addr = true;
  opts.with_row_id = true;
  opts.batch_size = 2;
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
  std::vector<uint64_t> addrs;
  for (const RecordBatch& b : batches) {
    ASSERT_EQ(b.columns.size(), 3u);
    ASSERT_LE(b.num_rows, 2);
    EXPECT_EQ(b.schema.fields[0].name, "id");
    EXPECT_EQ(b.schema.fields[1].name, "_rowid");
    EXPECT_EQ(b.schema.fields[2].name, "_rowaddr");
    EXPECT_EQ(b.columns[0].null_count, b.num_rows);
    for (int64_t i = 0; i < b.num_rows; ++i) {
      EXPECT_EQ(b.columns[1].values<uint64_t>()[i], b.columns[2].values<uint64_t>()[i]);
      addrs.push_back(b.columns[2].values<uint64_t>()[i]);
    }
  }
  std::vector<uint64_t> expected = {1ull << 32, (1ull << 32) + 1, (1ull << 32) + 2,
                                    3ull << 32, (3ull << 32) + 1, (3ull << 32) + 2, (3ull << 32) + 3};
  EXPECT_EQ(addrs, expected);

  opts.limit = 4;
  ASSERT_OK_AND_ASSIGN(batches, ds->Scan(opts));
  int64_t total = 0;
  for (const RecordBatch& b : batches) total += b.num_rows;
  EXPECT_EQ(total, 4);

  std::vector<uint64_t> take = {(3ull << 32) + 2, 1ull << 32, (3ull << 32) + 2};
  ASSERT_OK_AND_ASSIGN(auto batch, ds->TakeRowAddresses(take, {"id", "_rowaddr"}));
  ASSERT_EQ(batch.num_rows, 3);
  ASSERT_EQ(batch.columns.size(), 2u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(batch.columns[1].values<uint64_t>()[i], take[i]);

  for (uint64_t bad : {2ull << 32, (1ull << 32) + 3}) {
    auto r = ds->TakeRowAddresses(std::vector<uint64_t>{bad});
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsNotFound());
  }
  EXPECT_TRUE(ds->Scan(Cols({"nope"})).status().IsNotFound());
  EXPECT_TRUE(ds->Scan(Batch(0)).status().IsInvalidArgument());
}

TEST(Dataset, DeletionFilesBothKinds) {
  auto store = io::NewMemoryStore();
  auto m = MinimalManifest(2);
  m.set_reader_feature_flags(1);
  m.set_writer_feature_flags(1);
  auto* f0 = AddFragment(&m, 0, 10);
  SetDeletion(f0, lance::table::DeletionFile::ARROW_ARRAY, 1, 77, 3);
  auto* f1 = AddFragment(&m, 1, 8);
  SetDeletion(f1, lance::table::DeletionFile::BITMAP, 1, 88, 2);
  ASSERT_OK(PutManifest(*store, kRoot, m));
  ASSERT_OK(PutArrowDeletion(*store, "mem/ds/_deletions/0-1-77.arrow", {9, 0, 4}));
  Roaring r;
  r.add(1);
  r.add(7);
  ASSERT_OK(PutBitmapDeletion(*store, "mem/ds/_deletions/1-1-88.bin", r));

  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  EXPECT_EQ(ds->CountRows(), 13u);
  EXPECT_EQ(ds->fragments()[0].deletion_file, "_deletions/0-1-77.arrow");
  EXPECT_EQ(ds->fragments()[1].deleted_rows, 2u);
  std::vector<uint64_t> expected;
  for (uint64_t o : {1, 2, 3, 5, 6, 7, 8}) expected.push_back(o);
  for (uint64_t o : {0, 2, 3, 4, 5, 6}) expected.push_back((1ull << 32) + o);
  EXPECT_EQ(ScanU64(*ds, "_rowaddr", 3), expected);
  auto r4 = ds->TakeRowAddresses(std::vector<uint64_t>{4});
  ASSERT_FALSE(r4.ok());
  EXPECT_TRUE(r4.status().IsNotFound());
  EXPECT_NE(r4.status().message().find("deleted"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto addrs, ds->RowIdsToAddresses(std::vector<uint64_t>{5, (1ull << 32) + 6}));
  EXPECT_EQ(addrs[1], (1ull << 32) + 6);
}

TEST(Dataset, DeletionErrors) {
  auto store = io::NewMemoryStore();
  auto m = MinimalManifest(1);
  auto* f0 = AddFragment(&m, 0, 10);
  SetDeletion(f0, lance::table::DeletionFile::ARROW_ARRAY, 1, 77, 2);  // file holds 3
  ASSERT_OK(PutManifest(*store, kRoot, m));
  ASSERT_OK(PutArrowDeletion(*store, "mem/ds/_deletions/0-1-77.arrow", {9, 0, 4}));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  auto r = ds->Scan(Cols({"_rowaddr"}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("mem/ds/_deletions/0-1-77.arrow"), std::string::npos);

  // Missing deletion file.
  ASSERT_OK(store->Delete("mem/ds/_deletions/0-1-77.arrow"));
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, kRoot));
  r = ds->Scan(Cols({"_rowaddr"}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound());
  EXPECT_NE(r.status().message().find("mem/ds/_deletions/0-1-77.arrow"), std::string::npos);

  // More deletions than rows is caught at open.
  f0->mutable_deletion_file()->set_num_deleted_rows(11);
  m.set_version(2);
  ASSERT_OK(PutManifest(*store, kRoot, m));
  EXPECT_TRUE(Dataset::Open(store, kRoot).status().IsCorruption());
}

TEST(Dataset, StableRowIds) {
  auto store = io::NewMemoryStore();
  auto m = MinimalManifest(3);
  m.set_reader_feature_flags(3);
  m.set_writer_feature_flags(3);
  m.set_next_row_id(20);
  // Fragment 0: ids 0..9, rows 2 and 3 moved away by an update (deleted here).
  auto* f0 = AddFragment(&m, 0, 10);
  lance::table::RowIdSequence s0;
  s0.add_segments()->mutable_range()->set_end(10);
  f0->set_inline_row_ids(SerializeRowIds(s0));
  SetDeletion(f0, lance::table::DeletionFile::BITMAP, 2, 5, 2);
  // Fragment 1: the updated rows 2, 3 and new rows 10..12 with a hole at 11.
  auto* f1 = AddFragment(&m, 1, 4);
  lance::table::RowIdSequence s1;
  auto* arr = s1.add_segments()->mutable_sorted_array()->mutable_u16_array();
  arr->set_base(2);
  uint16_t offs[] = {0, 1};
  arr->set_offsets(std::string(reinterpret_cast<const char*>(offs), sizeof(offs)));
  auto* holes = s1.add_segments()->mutable_range_with_holes();
  holes->set_start(10);
  holes->set_end(13);
  uint64_t hole = 11;
  holes->mutable_holes()->mutable_u64_array()->set_values(std::string(reinterpret_cast<const char*>(&hole), 8));
  f1->set_inline_row_ids(SerializeRowIds(s1));
  ASSERT_OK(PutManifest(*store, kRoot, m));
  Roaring del;
  del.add(2);
  del.add(3);
  ASSERT_OK(PutBitmapDeletion(*store, "mem/ds/_deletions/0-2-5.bin", del));

  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  EXPECT_EQ(ds->CountRows(), 12u);
  EXPECT_EQ(ScanU64(*ds, "_rowid", 4), (std::vector<uint64_t>{0, 1, 4, 5, 6, 7, 8, 9, 2, 3, 10, 12}));
  std::vector<uint64_t> ids = {3, 12, 0, 3};
  ASSERT_OK_AND_ASSIGN(auto addrs, ds->RowIdsToAddresses(ids));
  EXPECT_EQ(addrs, (std::vector<uint64_t>{(1ull << 32) + 1, (1ull << 32) + 3, 0, (1ull << 32) + 1}));
  ASSERT_OK_AND_ASSIGN(auto batch, ds->TakeRowIds(ids, {"_rowid", "_rowaddr"}));
  ASSERT_EQ(batch.columns.size(), 2u);
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(batch.columns[0].values<uint64_t>()[i], ids[i]);
    EXPECT_EQ(batch.columns[1].values<uint64_t>()[i], addrs[i]);
  }
  ASSERT_OK_AND_ASSIGN(batch, ds->TakeRowAddresses(std::vector<uint64_t>{(1ull << 32) + 3}, {"_rowid"}));
  EXPECT_EQ(batch.columns[0].values<uint64_t>()[0], 12u);
  for (uint64_t unknown : {11ull, 13ull, 1ull << 32}) {
    auto r = ds->RowIdsToAddresses(std::vector<uint64_t>{unknown});
    ASSERT_FALSE(r.ok()) << unknown;
    EXPECT_TRUE(r.status().IsNotFound());
  }

  // A sequence whose length disagrees with physical_rows is corrupt.
  f1->set_physical_rows(5);
  m.set_version(4);
  ASSERT_OK(PutManifest(*store, kRoot, m));
  auto bad = Dataset::Open(store, kRoot);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsCorruption());
  EXPECT_NE(bad.status().message().find("fragment 1"), std::string::npos) << bad.status().ToString();
}

TEST(Dataset, Tags) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(PutManifest(*store, kRoot, MinimalManifest(1)));
  auto m2 = MinimalManifest(2);
  AddFragment(&m2, 0, 3);
  ASSERT_OK(PutManifest(*store, kRoot, m2));
  std::string camel = R"({"branch":null,"version":1,"createdAt":"x","updatedAt":"y","manifestSize":99,"metadata":{}})";
  std::string snake = R"({"version":2,"manifest_size":99})";
  ASSERT_OK(store->Put("mem/ds/_refs/tags/first.json",
                       std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(camel.data()), camel.size())));
  ASSERT_OK(store->Put("mem/ds/_refs/tags/second.json",
                       std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(snake.data()), snake.size())));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  ASSERT_OK_AND_ASSIGN(auto tags, ds->ListTags());
  EXPECT_EQ(tags, (std::map<std::string, uint64_t>{{"first", 1}, {"second", 2}}));
  ASSERT_OK_AND_ASSIGN(auto first, ds->CheckoutTag("first"));
  EXPECT_EQ(first->version(), 1u);
  OpenOptions o;
  o.tag = "second";
  ASSERT_OK_AND_ASSIGN(auto second, Dataset::Open(store, kRoot, o));
  EXPECT_EQ(second->CountRows(), 3u);
  auto missing = ds->CheckoutTag("nope");
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("mem/ds/_refs/tags/nope.json"), std::string::npos);
  EXPECT_TRUE(ds->CheckoutTag("../x").status().IsInvalidArgument());
  std::string dangling = R"({"version":9,"manifestSize":1})";
  ASSERT_OK(store->Put("mem/ds/_refs/tags/dangling.json",
                       std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(dangling.data()), dangling.size())));
  EXPECT_TRUE(ds->CheckoutTag("dangling").status().IsNotFound());

  auto empty_store = io::NewMemoryStore();
  ASSERT_OK(PutManifest(*empty_store, kRoot, MinimalManifest(1)));
  ASSERT_OK_AND_ASSIGN(auto plain, Dataset::Open(empty_store, kRoot));
  ASSERT_OK_AND_ASSIGN(tags, plain->ListTags());
  EXPECT_TRUE(tags.empty());
}

TEST(Dataset, EmptyDataset) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(PutManifest(*store, kRoot, MinimalManifest(1)));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  EXPECT_EQ(ds->CountRows(), 0u);
  EXPECT_TRUE(ds->fragments().empty());
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan());
  EXPECT_TRUE(batches.empty());
  ASSERT_OK_AND_ASSIGN(auto batch, ds->TakeRowAddresses({}));
  EXPECT_EQ(batch.num_rows, 0);
  ASSERT_EQ(batch.columns.size(), 1u);
  EXPECT_EQ(batch.columns[0].length, 0);
  EXPECT_EQ(ds->schema().fields.size(), 1u);
  EXPECT_EQ(ds->Describe().at("num_rows"), "0");
}

Status ExpectOpenError(std::shared_ptr<io::ObjectStore> store, StatusCode code,
                       const std::string& needle) {
  auto r = Dataset::Open(std::move(store), kRoot);
  if (r.ok()) return Status::Internal("open succeeded, expected " + needle);
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().ToString();
  return Status::OK();
}

TEST(Dataset, OpenErrors) {
  const std::string v1_path = std::string(kRoot) + "/_versions/" + ManifestFileNameV2(1);
  {
    // Not a dataset at all.
    auto store = io::NewMemoryStore();
    auto r = Dataset::Open(store, kRoot);
    EXPECT_TRUE(r.status().IsNotFound());
    EXPECT_NE(r.status().message().find("mem/ds/_versions"), std::string::npos);
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    m.set_reader_feature_flags(1 | 4096);
    ASSERT_OK(PutManifest(*store, kRoot, m));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kNotSupported, v1_path));
  }
  {
    auto store = io::NewMemoryStore();
    auto bytes = testing::EncodeManifestFile(MinimalManifest(1));
    bytes.resize(bytes.size() - 5);  // truncated
    ASSERT_OK(store->Put(v1_path, bytes));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, v1_path));
  }
  {
    auto store = io::NewMemoryStore();
    std::vector<uint8_t> garbage(300);
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>(i * 37 + 11);
    ASSERT_OK(store->Put(v1_path, garbage));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, v1_path));
  }
  {
    // The file name says version 1, the manifest says 5.
    auto store = io::NewMemoryStore();
    auto bytes = testing::EncodeManifestFile(MinimalManifest(5));
    ASSERT_OK(store->Put(v1_path, bytes));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, "version 5"));
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    AddFragment(&m, 0, 1);
    AddFragment(&m, 0, 2);
    ASSERT_OK(PutManifest(*store, kRoot, m));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, "appears twice"));
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    auto* df = AddFragment(&m, 0, 1)->add_files();
    df->set_path("a.lance");
    df->add_fields(0);
    df->set_file_major_version(0);
    df->set_file_minor_version(2);
    ASSERT_OK(PutManifest(*store, kRoot, m));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kNotSupported, "legacy v1"));
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    auto* df = AddFragment(&m, 0, 1)->add_files();
    df->set_path("a.lance");
    df->add_fields(0);
    df->set_file_major_version(2);
    df->set_file_minor_version(2);
    ASSERT_OK(PutManifest(*store, kRoot, m));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, "column indices"));
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    m.mutable_data_format()->set_version("2.1");
    auto* df = AddFragment(&m, 0, 1)->add_files();
    df->set_path("a.lance");
    df->add_fields(0);
    df->add_column_indices(0);
    df->set_file_major_version(2);
    df->set_file_minor_version(2);
    ASSERT_OK(PutManifest(*store, kRoot, m));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, "mixed"));
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    auto* df = AddFragment(&m, 0, 1)->add_files();
    df->set_path("../../etc/passwd");
    df->add_fields(0);
    df->add_column_indices(0);
    df->set_file_major_version(2);
    df->set_file_minor_version(2);
    ASSERT_OK(PutManifest(*store, kRoot, m));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, "leaves its directory"));
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    auto* df = AddFragment(&m, 0, 1)->add_files();
    df->set_path("a.lance");
    df->set_base_id(4);
    df->set_file_major_version(2);
    df->set_file_minor_version(2);
    ASSERT_OK(PutManifest(*store, kRoot, m));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, "base path id 4"));
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    m.set_reader_feature_flags(2);  // stable row ids but no sequences
    AddFragment(&m, 0, 1);
    ASSERT_OK(PutManifest(*store, kRoot, m));
    ASSERT_OK(ExpectOpenError(store, StatusCode::kCorruption, "row id"));
  }
  {
    auto store = io::NewMemoryStore();
    auto m = MinimalManifest(1);
    m.mutable_fields(0)->set_logical_type("float64");  // not a Lance type string
    ASSERT_OK(PutManifest(*store, kRoot, m));
    auto r = Dataset::Open(store, kRoot);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(v1_path), std::string::npos) << r.status().ToString();
  }
}

TEST(Dataset, MissingDataFileNamesPath) {
  auto store = io::NewMemoryStore();
  auto m = MinimalManifest(1);
  auto* df = AddFragment(&m, 0, 3)->add_files();
  df->set_path("missing.lance");
  df->add_fields(0);
  df->add_column_indices(0);
  df->set_file_major_version(2);
  df->set_file_minor_version(2);
  ASSERT_OK(PutManifest(*store, kRoot, m));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  auto r = ds->Scan();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("mem/ds/data/missing.lance"), std::string::npos) << r.status().ToString();
  // _rowaddr alone needs no data file.
  EXPECT_EQ(ScanU64(*ds, "_rowaddr").size(), 3u);
}

TEST(Dataset, BasePaths) {
  auto store = io::NewMemoryStore();
  auto m = MinimalManifest(1);
  auto* base = m.add_base_paths();
  base->set_id(1);
  base->set_path("mem/other");
  base->set_is_dataset_root(true);
  auto* base2 = m.add_base_paths();
  base2->set_id(2);
  base2->set_path("mem/bucket/files");
  auto* f = AddFragment(&m, 0, 3);
  auto* df = f->add_files();
  df->set_path("x.lance");
  df->set_base_id(2);
  df->set_file_major_version(2);
  df->set_file_minor_version(2);
  SetDeletion(f, lance::table::DeletionFile::ARROW_ARRAY, 1, 9, 1);
  f->mutable_deletion_file()->set_base_id(1);
  ASSERT_OK(PutManifest(*store, kRoot, m));
  ASSERT_OK(PutArrowDeletion(*store, "mem/other/_deletions/0-1-9.arrow", {1}));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  EXPECT_EQ(ScanU64(*ds, "_rowaddr"), (std::vector<uint64_t>{0, 2}));

  // Deletion files may only live under a dataset-root base.
  f->mutable_deletion_file()->set_base_id(2);
  m.set_version(2);
  ASSERT_OK(PutManifest(*store, kRoot, m));
  EXPECT_TRUE(Dataset::Open(store, kRoot).status().IsCorruption());
}

TEST(Blob, SidecarNames) {
  EXPECT_EQ(BlobSidecarFileName(1), "10000000000000000000000000000000.blob");
  EXPECT_EQ(BlobSidecarFileName(2), "01000000000000000000000000000000.blob");
  EXPECT_EQ(BlobSidecarFileName(3), "11000000000000000000000000000000.blob");
  EXPECT_EQ(BlobSidecarFileName(0x80000000u), "00000000000000000000000000000001.blob");
}

TEST(Blob, Resolve) {
  lance::table::Manifest m;
  auto* base = m.add_base_paths();
  base->set_id(3);
  base->set_path("file:///bucket/media");
  const std::string file = "ds/data/abc.lance";
  BlobDescriptor d;
  d.kind = 0;
  d.position = 64;
  d.size = 10;
  ASSERT_OK_AND_ASSIGN(auto loc, ResolveBlob(d, file, "ds/data", m));
  EXPECT_EQ(loc.object, file);
  EXPECT_EQ(loc.offset, 64u);
  d.kind = 1;
  d.blob_id = 2;
  ASSERT_OK_AND_ASSIGN(loc, ResolveBlob(d, file, "ds/data", m));
  EXPECT_EQ(loc.object, "ds/data/abc/01000000000000000000000000000000.blob");
  d.kind = 2;
  ASSERT_OK_AND_ASSIGN(loc, ResolveBlob(d, file, "ds/data", m));
  EXPECT_EQ(loc.object, "ds/data/abc/01000000000000000000000000000000.blob");
  d.kind = 3;
  d.blob_id = 0;
  d.uri = "file:///tmp/x.bin";
  d.size = 0;
  ASSERT_OK_AND_ASSIGN(loc, ResolveBlob(d, file, "ds/data", m));
  EXPECT_EQ(loc.object, "/tmp/x.bin");
  EXPECT_TRUE(loc.to_end);
  d.uri = "/abs/y";
  d.size = 5;
  ASSERT_OK_AND_ASSIGN(loc, ResolveBlob(d, file, "ds/data", m));
  EXPECT_EQ(loc.object, "/abs/y");
  EXPECT_FALSE(loc.to_end);
  d.blob_id = 3;
  d.uri = "clips/a.mp4";
  ASSERT_OK_AND_ASSIGN(loc, ResolveBlob(d, file, "ds/data", m));
  EXPECT_EQ(loc.object, "/bucket/media/clips/a.mp4");
  d.blob_id = 4;
  EXPECT_TRUE(ResolveBlob(d, file, "ds/data", m).status().IsCorruption());
  d.blob_id = 0;
  // s3:// URIs stay URIs (read through a store for their bucket); other schemes are refused.
  d.uri = "s3://bucket/x";
  ASSERT_OK_AND_ASSIGN(loc, ResolveBlob(d, file, "ds/data", m));
  EXPECT_EQ(loc.object, "s3://bucket/x");
  d.uri = "gs://bucket/x";
  EXPECT_TRUE(ResolveBlob(d, file, "ds/data", m).status().IsNotSupported());
  d.uri = "relative/x";
  EXPECT_TRUE(ResolveBlob(d, file, "ds/data", m).status().IsCorruption());
  d.kind = 4;
  auto r = ResolveBlob(d, file, "ds/data", m);
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("unknown blob kind 4"), std::string::npos);
  EXPECT_NE(r.status().message().find(file), std::string::npos);
  d.kind = 1;
  d.position = ~0ull;
  d.size = 2;
  EXPECT_TRUE(ResolveBlob(d, file, "ds/data", m).status().IsCorruption());
}

}  // namespace
}  // namespace lancet::table
