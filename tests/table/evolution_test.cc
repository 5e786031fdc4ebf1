// Schema evolution: add (with data or all-null), drop, rename and cast columns, then
// read back; manifests, transactions and conflicts with concurrent commits.
#include "lancet/table/evolution.h"

#include <gtest/gtest.h>

#include "lance_proto/transaction.pb.h"
#include "lancet/table/write.h"
#include "table/evolution_io.h"
#include "table/manifest.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/evo";

RecordBatch MakeRows(int64_t begin, int64_t n) { return testing::IdNameXRows(begin, n); }

// 250 rows in fragments of 100, 100, 50; rows 3, 4 and 150 deleted (version 2).
std::shared_ptr<io::ObjectStore> MakeTable() {
  auto store = io::NewMemoryStore();
  WriteParams p;
  p.max_rows_per_file = 100;
  EXPECT_OK(WriteDataset(store, kRoot, MakeRows(0, 0).schema, {MakeRows(0, 250)}, p).status());
  auto ds = Dataset::Open(store, kRoot);
  EXPECT_OK(ds.status());
  std::vector<uint64_t> del = {3, 4, (uint64_t{1} << 32) | 50};
  EXPECT_OK(DeleteRows(**ds, del).status());
  return store;
}

std::unique_ptr<Dataset> Open(const std::shared_ptr<io::ObjectStore>& store) {
  auto ds = Dataset::Open(store, kRoot);
  EXPECT_OK(ds.status());
  return std::move(*ds);
}

// Column `name` of every visible row, as one array.
Array Column(const Dataset& ds, const std::string& name) {
  ScanOptions opts;
  opts.columns = {name};
  auto batches = ds.Scan(opts);
  EXPECT_OK(batches.status());
  std::vector<Array> parts;
  for (const RecordBatch& b : *batches) parts.push_back(b.columns[0]);
  return *Concatenate(parts);
}

lance::table::Manifest LatestManifest(const std::shared_ptr<io::ObjectStore>& store) {
  auto listed = ListManifests(*store, kRoot);
  EXPECT_OK(listed.status());
  auto m = ReadManifest(*store, listed->back().path);
  EXPECT_OK(m.status());
  return *m;
}

lance::table::Transaction LatestTransaction(const std::shared_ptr<io::ObjectStore>& store) {
  lance::table::Manifest m = LatestManifest(store);
  auto file = store->OpenRead(std::string(kRoot) + "/_transactions/" + m.transaction_file());
  EXPECT_OK(file.status());
  auto bytes = (*file)->ReadAt(0, *(*file)->Size());
  lance::table::Transaction txn;
  EXPECT_TRUE(txn.ParseFromArray((*bytes)->data(), static_cast<int>((*bytes)->size())));
  return txn;
}

size_t CountDataFiles(const std::shared_ptr<io::ObjectStore>& store) {
  auto listed = store->List(std::string(kRoot) + "/data");
  return listed.ok() ? listed->size() : 0;
}

// The visible ids of `ds` times `k`, split into batches of 37 rows so that batch and
// fragment boundaries do not line up.
std::vector<RecordBatch> Scaled(const Dataset& ds, int64_t k, const std::string& name) {
  Array ids = Column(ds, "id");
  std::vector<RecordBatch> out;
  for (int64_t begin = 0; begin < ids.length; begin += 37) {
    std::vector<int64_t> v;
    for (int64_t i = begin; i < std::min(ids.length, begin + 37); ++i) v.push_back(ids.values<int64_t>()[i] * k);
    out.push_back(*MakeRecordBatch({name}, {*ArrayFromVector(MakeType(TypeId::kInt64), v)}));
  }
  return out;
}

TEST(Evolution, AddColumnsWritesOneFilePerFragmentAlignedWithLiveRows) {
  auto store = MakeTable();
  auto ds = Open(store);
  ASSERT_EQ(ds->CountRows(), 247u);
  size_t files_before = CountDataFiles(store);
  std::vector<RecordBatch> batches = Scaled(*ds, 2, "doubled");
  ASSERT_OK_AND_ASSIGN(uint64_t v, AddColumns(*ds, batches[0].schema, batches));
  EXPECT_EQ(v, 3u);
  EXPECT_EQ(CountDataFiles(store), files_before + 3);

  auto after = Open(store);
  ASSERT_EQ(after->schema().fields.size(), 4u);
  EXPECT_EQ(after->schema().fields[3].name, "doubled");
  EXPECT_EQ(after->schema().fields[3].id, 3);
  Array ids = Column(*after, "id"), doubled = Column(*after, "doubled");
  ASSERT_EQ(doubled.length, 247);
  for (int64_t i = 0; i < ids.length; ++i) {
    EXPECT_EQ(doubled.values<int64_t>()[i], 2 * ids.values<int64_t>()[i]) << i;
  }
  for (const FragmentInfo& f : after->fragments()) {
    ASSERT_EQ(f.files.size(), 2u);
    EXPECT_EQ(f.files[1].fields, std::vector<int32_t>{3});
    EXPECT_EQ(f.files[1].column_indices, std::vector<int32_t>{0});
  }
  // Deleted rows stay deleted; the new file still has one row per physical row.
  EXPECT_EQ(after->fragments()[0].deleted_rows, 2u);
  ASSERT_OK_AND_ASSIGN(RecordBatch taken, after->TakeRowAddresses(std::vector<uint64_t>{5}, {"doubled"}));
  EXPECT_EQ(taken.columns[0].values<int64_t>()[0], 10);

  lance::table::Transaction txn = LatestTransaction(store);
  ASSERT_TRUE(txn.has_merge());
  EXPECT_EQ(txn.read_version(), 2u);
  EXPECT_EQ(txn.merge().fragments_size(), 3);
  EXPECT_EQ(txn.merge().schema_size(), 4);
}

TEST(Evolution, AddNestedColumns) {
  auto store = MakeTable();
  auto ds = Open(store);
  Array ids = Column(*ds, "id");
  std::vector<int32_t> a;
  std::vector<std::optional<std::string>> b;
  std::vector<int64_t> offsets = {0};
  std::vector<int32_t> items;
  for (int64_t i = 0; i < ids.length; ++i) {
    int64_t id = ids.values<int64_t>()[i];
    a.push_back(static_cast<int32_t>(id) + 1);
    b.push_back(id % 3 == 0 ? std::nullopt : std::optional<std::string>("s" + std::to_string(id)));
    for (int64_t k = 0; k < id % 4; ++k) items.push_back(static_cast<int32_t>(id * 10 + k));
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  Array st = *MakeStructArray({"a", "b"}, ids.length, {*ArrayFromVector(MakeType(TypeId::kInt32), a), StringArray(b)});
  Array list = *MakeListArray(ListOf(MakeField("item", MakeType(TypeId::kInt32))), offsets,
                              *ArrayFromVector(MakeType(TypeId::kInt32), items));
  RecordBatch batch = *MakeRecordBatch({"st", "l"}, {st, list});
  ASSERT_OK(AddColumns(*ds, batch.schema, {batch}).status());
  auto after = Open(store);
  // Ids continue in pre-order: st 3, st.a 4, st.b 5, l 6, l.item 7; files list leaves.
  EXPECT_EQ(after->fragments()[0].files[1].fields, (std::vector<int32_t>{4, 5, 7}));
  Array st2 = Column(*after, "st"), l2 = Column(*after, "l");
  EXPECT_TRUE(ArraysEqual(st2, st));
  EXPECT_TRUE(ArraysEqual(l2, list));
}

TEST(Evolution, AddColumnsRejectsBadInputWithoutCommitting) {
  auto store = MakeTable();
  auto ds = Open(store);
  size_t files_before = CountDataFiles(store);
  std::vector<RecordBatch> taken = Scaled(*ds, 1, "id");
  EXPECT_TRUE(AddColumns(*ds, taken[0].schema, taken).status().IsInvalidArgument());
  std::vector<RecordBatch> short_rows = Scaled(*ds, 1, "y");
  short_rows.pop_back();
  auto st = AddColumns(*ds, short_rows[0].schema, short_rows).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("rows"), std::string::npos) << st.ToString();
  // Values of the wrong type fail in the file writer; its files are removed.
  std::vector<RecordBatch> typed = Scaled(*ds, 1, "y");
  Schema wrong = typed[0].schema;
  wrong.fields[0].type = MakeType(TypeId::kUtf8);
  EXPECT_FALSE(AddColumns(*ds, wrong, typed).ok());
  EXPECT_EQ(CountDataFiles(store), files_before);
  EXPECT_EQ(Open(store)->version(), 2u);
}

TEST(Evolution, AddNullColumnsIsMetadataOnly) {
  auto store = MakeTable();
  auto ds = Open(store);
  size_t files_before = CountDataFiles(store);
  Field st =
      MakeField("st", StructOf({MakeField("a", MakeType(TypeId::kInt32)), MakeField("b", MakeType(TypeId::kUtf8))}));
  ASSERT_OK_AND_ASSIGN(uint64_t v, AddNullColumns(*ds, {MakeField("note", MakeType(TypeId::kUtf8)), st}));
  EXPECT_EQ(v, 3u);
  EXPECT_EQ(CountDataFiles(store), files_before);
  auto after = Open(store);
  ASSERT_EQ(after->schema().fields.size(), 5u);
  EXPECT_EQ(after->schema().fields[3].id, 3);
  EXPECT_EQ(after->schema().fields[4].id, 4);
  EXPECT_EQ(after->schema().fields[4].type.children[1].id, 6);
  Array note = Column(*after, "note");
  EXPECT_EQ(note.length, 247);
  EXPECT_EQ(note.null_count, 247);
  EXPECT_TRUE(LatestTransaction(store).has_merge());

  EXPECT_TRUE(AddNullColumns(*after, {MakeField("nn", MakeType(TypeId::kInt32), false)}).status().IsInvalidArgument());
  EXPECT_TRUE(AddNullColumns(*after, {MakeField("note", MakeType(TypeId::kInt32))}).status().IsInvalidArgument());
}

TEST(Evolution, DropColumnsKeepsFilesAndNeverReusesIds) {
  auto store = MakeTable();
  auto ds = Open(store);
  EXPECT_TRUE(DropColumns(*ds, {"nope"}).status().IsNotFound());
  EXPECT_TRUE(DropColumns(*ds, {"id", "name", "x"}).status().IsInvalidArgument());
  ASSERT_OK_AND_ASSIGN(uint64_t v, DropColumns(*ds, {"x"}));
  EXPECT_EQ(v, 3u);
  auto after = Open(store);
  ASSERT_EQ(after->schema().fields.size(), 2u);
  EXPECT_EQ(after->fragments()[0].files[0].fields, (std::vector<int32_t>{0, 1, 2}));
  lance::table::Transaction txn = LatestTransaction(store);
  ASSERT_TRUE(txn.has_project());
  EXPECT_EQ(txn.project().schema_size(), 2);
  EXPECT_EQ(Column(*after, "name").length, 247);

  // The dropped id 2 still lives in data files, so a new column gets 3.
  std::vector<RecordBatch> b = Scaled(*after, 3, "tripled");
  ASSERT_OK(AddColumns(*after, b[0].schema, b).status());
  after = Open(store);
  EXPECT_EQ(after->schema().fields[2].id, 3);
  // Dropping the only column of the added files takes those files out of the fragments.
  ASSERT_OK(DropColumns(*after, {"tripled"}).status());
  after = Open(store);
  for (const FragmentInfo& f : after->fragments()) EXPECT_EQ(f.files.size(), 1u);
}

TEST(Evolution, DropAndRenameStructMembers) {
  auto store = io::NewMemoryStore();
  Array a = *ArrayFromVector(MakeType(TypeId::kInt32), std::vector<int32_t>{1, 2, 3});
  Array b = StringArray({"p", "q", std::nullopt});
  Array st = *MakeStructArray({"a", "b"}, 3, {a, b});
  RecordBatch rows = *MakeRecordBatch(
      {"id", "st"}, {*ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{10, 11, 12}), st});
  ASSERT_OK(WriteDataset(store, kRoot, rows.schema, {rows}).status());
  auto ds = Open(store);
  EXPECT_TRUE(RenameColumn(*ds, "st.a", "b").status().IsInvalidArgument());
  EXPECT_TRUE(RenameColumn(*ds, "st.zz", "c").status().IsNotFound());
  EXPECT_TRUE(RenameColumn(*ds, "id", "a.b").status().IsInvalidArgument());
  ASSERT_OK(RenameColumn(*ds, "st.a", "alpha").status());
  ds = Open(store);
  ASSERT_OK(RenameColumn(*ds, "id", "key").status());
  ds = Open(store);
  EXPECT_EQ(ds->schema().fields[0].name, "key");
  EXPECT_EQ(ds->schema().fields[1].type.children[0].name, "alpha");
  EXPECT_TRUE(DropColumns(*ds, {"st.alpha", "st.b"}).status().IsInvalidArgument());
  ASSERT_OK(DropColumns(*ds, {"st.b"}).status());
  ds = Open(store);
  ASSERT_EQ(ds->schema().fields[1].type.children.size(), 1u);
  Array read = Column(*ds, "st");
  EXPECT_EQ(read.children[0].values<int32_t>()[2], 3);
  EXPECT_EQ(Column(*ds, "key").values<int64_t>()[1], 11);
}

TEST(Evolution, AlterColumnTypeRewritesOnlyThatColumn) {
  auto store = MakeTable();
  auto ds = Open(store);
  EXPECT_TRUE(AlterColumnType(*ds, "id", MakeType(TypeId::kUtf8)).status().IsInvalidArgument());
  EXPECT_TRUE(AlterColumnType(*ds, "id", MakeType(TypeId::kInt64)).status().IsInvalidArgument());
  EXPECT_TRUE(AlterColumnType(*ds, "nope", MakeType(TypeId::kInt32)).status().IsNotFound());
  auto st = AlterColumnType(*ds, "id", MakeType(TypeId::kInt8)).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("128"), std::string::npos) << st.ToString();

  ASSERT_OK_AND_ASSIGN(uint64_t v, AlterColumnType(*ds, "id", MakeType(TypeId::kInt32)));
  EXPECT_EQ(v, 3u);
  auto after = Open(store);
  EXPECT_EQ(after->schema().fields[0].name, "id");
  EXPECT_EQ(after->schema().fields[0].type.id, TypeId::kInt32);
  EXPECT_EQ(after->schema().fields[0].id, 3);
  Array ids = Column(*after, "id");
  ASSERT_EQ(ids.length, 247);
  EXPECT_EQ(ids.values<int32_t>()[0], 0);
  EXPECT_EQ(ids.values<int32_t>()[3], 5);  // 3 and 4 are deleted
  EXPECT_EQ(ids.values<int32_t>()[246], 249);
  for (const FragmentInfo& f : after->fragments()) {
    ASSERT_EQ(f.files.size(), 2u);
    EXPECT_EQ(f.files[0].fields, (std::vector<int32_t>{0, 1, 2}));  // as the reference: old id kept
    EXPECT_EQ(f.files[1].fields, std::vector<int32_t>{3});
  }
  EXPECT_TRUE(LatestTransaction(store).has_merge());

  ASSERT_OK(AlterColumnType(*after, "name", MakeType(TypeId::kLargeUtf8)).status());
  after = Open(store);
  Array names = Column(*after, "name");
  EXPECT_EQ(names.type.id, TypeId::kLargeUtf8);
  EXPECT_EQ(names.GetView(1), "r1");
  EXPECT_TRUE(names.IsNull(0));
}

TEST(Evolution, AddColumnsRebasesOverADeleteButNotOverAnAppend) {
  auto store = MakeTable();
  auto ds = Open(store);
  std::vector<RecordBatch> b = Scaled(*ds, 2, "doubled");
  // A delete lands after the read: the new column is still added, the delete kept.
  ASSERT_OK(DeleteRows(*Open(store), std::vector<uint64_t>{7}).status());
  ASSERT_OK_AND_ASSIGN(uint64_t v, AddColumns(*ds, b[0].schema, b));
  EXPECT_EQ(v, 4u);
  auto after = Open(store);
  EXPECT_EQ(after->CountRows(), 246u);
  Array ids = Column(*after, "id"), doubled = Column(*after, "doubled");
  for (int64_t i = 0; i < ids.length; ++i) EXPECT_EQ(doubled.values<int64_t>()[i], 2 * ids.values<int64_t>()[i]);

  // An append after the read would leave rows without values: conflict.
  auto read = Open(store);
  std::vector<RecordBatch> c = Scaled(*read, 3, "tripled");
  WriteParams append;
  append.mode = WriteMode::kAppend;
  RecordBatch more = MakeRows(1000, 5);
  more.columns.push_back(*ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>(5, 0)));
  more.schema = after->schema();
  ASSERT_OK(WriteDataset(store, kRoot, after->schema(), {more}, append).status());
  size_t files_before = CountDataFiles(store);
  auto st = AddColumns(*read, c[0].schema, c).status();
  EXPECT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_EQ(CountDataFiles(store), files_before);
}

TEST(Evolution, SchemaChangesConflictWithEachOther) {
  auto store = MakeTable();
  auto ds = Open(store);
  ASSERT_OK(RenameColumn(*Open(store), "x", "y").status());
  EXPECT_TRUE(DropColumns(*ds, {"name"}).status().IsCommitConflict());
  EXPECT_TRUE(AddNullColumns(*ds, {MakeField("z", MakeType(TypeId::kInt32))}).status().IsCommitConflict());
  // A delete after the read does not stop a drop.
  auto read = Open(store);
  ASSERT_OK(DeleteRows(*Open(store), std::vector<uint64_t>{0}).status());
  ASSERT_OK(DropColumns(*read, {"name"}).status());
  EXPECT_EQ(Open(store)->CountRows(), 246u);
}

TEST(Evolution, IndicesOnRemovedFieldsAreDropped) {
  lance::table::IndexSection section;
  auto* on_name = section.add_indices();
  on_name->set_name("by_name");
  on_name->add_fields(1);
  auto* on_both = section.add_indices();
  on_both->set_name("by_id_x");
  on_both->add_fields(0);
  on_both->add_fields(2);
  std::string bytes = section.SerializeAsString();
  std::vector<uint8_t> raw(bytes.begin(), bytes.end());
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> all, KeepIndicesOn(raw, {0, 1, 2}, "m"));
  EXPECT_EQ(all, raw);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> kept, KeepIndicesOn(raw, {0, 2}, "m"));
  lance::table::IndexSection parsed;
  ASSERT_TRUE(parsed.ParseFromArray(kept.data(), static_cast<int>(kept.size())));
  ASSERT_EQ(parsed.indices_size(), 1);
  EXPECT_EQ(parsed.indices(0).name(), "by_id_x");
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> none, KeepIndicesOn(raw, {0}, "m"));
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(KeepIndicesOn({0xff, 0xff}, {0}, "m").status().IsCorruption());
}

}  // namespace
}  // namespace lancet::table
