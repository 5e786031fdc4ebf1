// RowRewriter: rewritten rows in new fragments, deletion files for the old copies,
// stable row ids and row versions, the Update transaction and its conflict rules.
#include "table/row_rewrite.h"

#include <gtest/gtest.h>

#include <map>

#include "lance_proto/transaction.pb.h"
#include "lancet/table/write.h"
#include "table/compaction_row_ids.h"
#include "table/evolution_io.h"
#include "table/row_id_sequence.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/rewrite";

RecordBatch Rows(int64_t begin, int64_t n, const std::string& prefix = "r") {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    names.push_back(prefix + std::to_string(i));
  }
  return *MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names)});
}

// Two fragments of 10 rows: ids 0..19.
std::shared_ptr<io::ObjectStore> TwoFragments(bool stable) {
  auto store = io::NewMemoryStore();
  WriteParams p;
  p.enable_stable_row_ids = stable;
  EXPECT_OK(WriteDataset(store, kRoot, Rows(0, 0).schema, {Rows(0, 10)}, p).status());
  p.mode = WriteMode::kAppend;
  EXPECT_OK(WriteDataset(store, kRoot, Rows(0, 0).schema, {Rows(10, 10)}, p).status());
  return store;
}

struct Row {
  std::string name;
  uint64_t rowid = 0, rowaddr = 0;
};

std::map<int64_t, Row> ReadAll(const Dataset& ds) {
  ScanOptions opts;
  opts.with_row_id = true;
  opts.with_row_addr = true;
  auto batches = ds.Scan(opts);
  EXPECT_OK(batches.status());
  std::map<int64_t, Row> out;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      int64_t id = b.columns[0].values<int64_t>()[i];
      EXPECT_FALSE(out.count(id)) << "row " << id << " twice";
      out[id] = {std::string(b.columns[1].GetView(i)), b.columns[2].values<uint64_t>()[i],
                 b.columns[3].values<uint64_t>()[i]};
    }
  }
  return out;
}

// The rows with `ids` as scanned, renamed "u<id>", with their addresses.
std::pair<RecordBatch, std::vector<uint64_t>> Renamed(const Dataset& ds, const std::vector<int64_t>& ids) {
  std::map<int64_t, Row> all = ReadAll(ds);
  std::vector<uint64_t> addrs;
  std::vector<int64_t> values;
  std::vector<std::optional<std::string>> names;
  for (int64_t id : ids) {
    addrs.push_back(all.at(id).rowaddr);
    values.push_back(id);
    names.push_back("u" + std::to_string(id));
  }
  return {*MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), values), StringArray(names)}),
          addrs};
}

TEST(RowRewriter, UpdatesInsertsAndRemovesWithStableRowIds) {
  auto store = TwoFragments(/*stable=*/true);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  std::map<int64_t, Row> before = ReadAll(*ds);
  ASSERT_OK_AND_ASSIGN(auto rw, RowRewriter::Make(*ds, WriteParams{}));
  auto [rows, addrs] = Renamed(*ds, {3, 15});
  ASSERT_OK(rw->Add(rows, addrs));
  RecordBatch inserted = Rows(100, 1, "i");
  std::vector<uint64_t> none = {kInsertedRow};
  ASSERT_OK(rw->Add(inserted, none));
  std::vector<uint64_t> gone = {before.at(5).rowaddr};
  ASSERT_OK(rw->Remove(gone));
  ASSERT_OK_AND_ASSIGN(uint64_t v, rw->Commit());
  EXPECT_EQ(v, 3u);
  EXPECT_EQ(rw->counts().updated, 2u);
  EXPECT_EQ(rw->counts().inserted, 1u);
  EXPECT_EQ(rw->counts().deleted, 1u);

  ASSERT_OK_AND_ASSIGN(auto after_ds, Dataset::Open(store, kRoot));
  std::map<int64_t, Row> after = ReadAll(*after_ds);
  EXPECT_EQ(after.size(), 20u);
  EXPECT_FALSE(after.count(5));
  EXPECT_EQ(after.at(3).name, "u3");
  EXPECT_EQ(after.at(15).name, "u15");
  EXPECT_EQ(after.at(100).name, "i100");
  EXPECT_EQ(after.at(4).name, "r4");
  // Updated rows keep their id and move to the new fragment (id 2).
  EXPECT_EQ(after.at(3).rowid, before.at(3).rowid);
  EXPECT_EQ(after.at(15).rowid, before.at(15).rowid);
  EXPECT_EQ(after.at(3).rowaddr >> 32, 2u);
  EXPECT_EQ(after.at(4).rowaddr, before.at(4).rowaddr);
  EXPECT_EQ(after.at(100).rowid, 20u);  // the next fresh id

  ASSERT_OK_AND_ASSIGN(VersionManifest vm, ReadVersionManifest(*store, kRoot, v));
  EXPECT_EQ(vm.manifest.next_row_id(), 21u);
  const auto& frags = vm.manifest.fragments();
  ASSERT_EQ(frags.size(), 3);
  EXPECT_EQ(frags[0].deletion_file().num_deleted_rows(), 2u);  // rows 3 and 5
  EXPECT_EQ(frags[1].deletion_file().num_deleted_rows(), 1u);
  const auto& nf = frags[2];
  EXPECT_EQ(nf.id(), 2u);
  ASSERT_OK_AND_ASSIGN(auto created, DecodeRowVersions(nf.inline_created_at_versions(), 3, "created"));
  ASSERT_OK_AND_ASSIGN(auto updated, DecodeRowVersions(nf.inline_last_updated_at_versions(), 3, "updated"));
  // Row 3 from v1, row 15 as its fragment had it (appends that stamp no sequence read
  // as 1), the insert at v3.
  ASSERT_OK_AND_ASSIGN(VersionManifest v2, ReadVersionManifest(*store, kRoot, 2));
  uint64_t created_15 = 1;
  if (v2.manifest.fragments(1).has_inline_created_at_versions()) {
    ASSERT_OK_AND_ASSIGN(auto c, DecodeRowVersions(v2.manifest.fragments(1).inline_created_at_versions(), 10, "v2"));
    created_15 = c[5];
  }
  EXPECT_EQ(created, (std::vector<uint64_t>{1, created_15, 3}));
  EXPECT_EQ(updated, (std::vector<uint64_t>{3, 3, 3}));

  // A second rewrite copies created_at from a fragment the first one stamped.
  {
    auto [again, again_addrs] = Renamed(*after_ds, {100, 4});
    ASSERT_OK_AND_ASSIGN(auto rw2, RowRewriter::Make(*after_ds, WriteParams{}));
    ASSERT_OK(rw2->Add(again, again_addrs));
    ASSERT_OK_AND_ASSIGN(uint64_t v4, rw2->Commit());
    ASSERT_OK_AND_ASSIGN(VersionManifest vm4, ReadVersionManifest(*store, kRoot, v4));
    const auto& last = vm4.manifest.fragments(vm4.manifest.fragments_size() - 1);
    ASSERT_OK_AND_ASSIGN(auto c4, DecodeRowVersions(last.inline_created_at_versions(), 2, "created"));
    EXPECT_EQ(c4, (std::vector<uint64_t>{3, 1}));
    ASSERT_OK_AND_ASSIGN(auto ids, RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(last.inline_row_ids().data()),
                                                         last.inline_row_ids().size()},
                                                        "ids"));
    EXPECT_EQ(ids.Get(0), 20u);
    EXPECT_EQ(ids.Get(1), before.at(4).rowid);
  }

  // The Update transaction (oneof 108) as the reference writes it.
  ASSERT_OK_AND_ASSIGN(auto txn_bytes, [&]() -> Result<BufferPtr> {
    ASSIGN_OR_RETURN(auto f, store->OpenRead(std::string(kRoot) + "/_transactions/" + vm.manifest.transaction_file()));
    ASSIGN_OR_RETURN(uint64_t size, f->Size());
    return f->ReadAt(0, size);
  }());
  lance::table::Transaction txn;
  ASSERT_TRUE(txn.ParseFromArray(txn_bytes->data(), static_cast<int>(txn_bytes->size())));
  ASSERT_TRUE(txn.has_update());
  EXPECT_EQ(txn.read_version(), 2u);
  EXPECT_EQ(txn.update().updated_fragments_size(), 2);
  ASSERT_EQ(txn.update().new_fragments_size(), 1);
  EXPECT_FALSE(txn.update().new_fragments(0).has_inline_created_at_versions());
  const std::string& preserved = txn.update().new_fragments(0).inline_row_ids();
  ASSERT_OK_AND_ASSIGN(
      RowIdSequence seq,
      RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(preserved.data()), preserved.size()}, "txn"));
  EXPECT_EQ(seq.size(), 2u);  // only the preserved ids
}

// Inserted and replaced rows mixed within batches that span several files: each file's
// ids and versions line up with its rows.
TEST(RowRewriter, StableRowIdsFollowRowsAcrossFiles) {
  auto store = TwoFragments(true);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  std::map<int64_t, Row> before = ReadAll(*ds);
  WriteParams p;
  p.max_rows_per_file = 2;
  ASSERT_OK_AND_ASSIGN(auto rw, RowRewriter::Make(*ds, p));
  std::vector<int64_t> order = {3, 100, 4, 101};
  std::vector<uint64_t> replaces = {before.at(3).rowaddr, kInsertedRow, before.at(4).rowaddr, kInsertedRow};
  std::vector<int64_t> ids(order.begin(), order.begin() + 3);
  std::vector<std::optional<std::string>> names = {"u3", "i100", "u4"};
  RecordBatch a =
      *MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names)});
  ASSERT_OK(rw->Add(a, std::span<const uint64_t>(replaces.data(), 3)));
  RecordBatch b = Rows(101, 1, "i");
  ASSERT_OK(rw->Add(b, std::span<const uint64_t>(replaces.data() + 3, 1)));
  ASSERT_OK_AND_ASSIGN(uint64_t v, rw->Commit());
  ASSERT_OK_AND_ASSIGN(VersionManifest vm, ReadVersionManifest(*store, kRoot, v));
  ASSERT_EQ(vm.manifest.fragments_size(), 4);  // 2 old + files [3, 100], [4, 101]
  std::vector<uint64_t> got_ids, got_created;
  for (int k = 2; k < 4; ++k) {
    const auto& f = vm.manifest.fragments(k);
    ASSERT_EQ(f.physical_rows(), 2u);
    ASSERT_OK_AND_ASSIGN(
        auto seq, RowIdSequence::Parse(
                      {reinterpret_cast<const uint8_t*>(f.inline_row_ids().data()), f.inline_row_ids().size()}, "ids"));
    ASSERT_OK_AND_ASSIGN(auto created, DecodeRowVersions(f.inline_created_at_versions(), 2, "created"));
    for (uint64_t i = 0; i < 2; ++i) {
      got_ids.push_back(seq.Get(i));
      got_created.push_back(created[i]);
    }
  }
  EXPECT_EQ(got_ids, (std::vector<uint64_t>{before.at(3).rowid, 20, before.at(4).rowid, 21}));
  EXPECT_EQ(got_created, (std::vector<uint64_t>{1, 3, 1, 3}));
  EXPECT_EQ(vm.manifest.next_row_id(), 22u);
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(store, kRoot));
  std::map<int64_t, Row> after = ReadAll(*latest);
  EXPECT_EQ(after.size(), 22u);
  EXPECT_EQ(after.at(100).rowid, 20u);
  EXPECT_EQ(after.at(101).rowid, 21u);
  EXPECT_EQ(after.at(4).name, "u4");
  EXPECT_EQ(after.at(4).rowid, before.at(4).rowid);
}

TEST(RowRewriter, EmptiedFragmentIsRemovedWithoutStableRowIds) {
  auto store = TwoFragments(/*stable=*/false);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  std::vector<int64_t> first(10);
  for (int64_t i = 0; i < 10; ++i) first[static_cast<size_t>(i)] = i;
  auto [rows, addrs] = Renamed(*ds, first);
  ASSERT_OK_AND_ASSIGN(auto rw, RowRewriter::Make(*ds, WriteParams{}));
  ASSERT_OK(rw->Add(rows, addrs));
  ASSERT_OK_AND_ASSIGN(uint64_t v, rw->Commit());
  ASSERT_OK_AND_ASSIGN(VersionManifest vm, ReadVersionManifest(*store, kRoot, v));
  ASSERT_EQ(vm.manifest.fragments_size(), 2);
  EXPECT_EQ(vm.manifest.fragments(0).id(), 1u);
  EXPECT_EQ(vm.manifest.fragments(1).id(), 2u);
  ASSERT_OK_AND_ASSIGN(auto after_ds, Dataset::Open(store, kRoot));
  std::map<int64_t, Row> after = ReadAll(*after_ds);
  ASSERT_EQ(after.size(), 20u);
  // Without stable ids the id is the address, so it moves with the row.
  EXPECT_EQ(after.at(0).rowid, after.at(0).rowaddr);
  EXPECT_EQ(after.at(0).rowaddr, uint64_t{2} << 32);
  EXPECT_EQ(after.at(9).name, "u9");
}

TEST(RowRewriter, RefusesAddressesThatAreNotLiveRows) {
  auto store = TwoFragments(false);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  ASSERT_OK_AND_ASSIGN(auto rw, RowRewriter::Make(*ds, WriteParams{}));
  std::vector<uint64_t> outside = {uint64_t{7} << 32};
  EXPECT_TRUE(rw->Remove(outside).IsInvalidArgument());
  std::vector<uint64_t> past = {10};
  EXPECT_TRUE(rw->Remove(past).IsInvalidArgument());
  std::vector<uint64_t> one = {1};
  ASSERT_OK(rw->Remove(one));
  EXPECT_TRUE(rw->Remove(one).IsInvalidArgument());
  RecordBatch wrong = Rows(0, 2);
  EXPECT_TRUE(rw->Add(wrong, one).IsInvalidArgument());  // 2 rows, 1 address
  // A column of the wrong type is refused by the file writer, not written.
  RecordBatch bad_type =
      *MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{2}),
                                        *ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{2})});
  std::vector<uint64_t> two = {2};
  EXPECT_FALSE(rw->Add(bad_type, two).ok());
  RecordBatch one_column =
      *MakeRecordBatch({"id"}, {*ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{3})});
  std::vector<uint64_t> three = {3};
  EXPECT_TRUE(rw->Add(one_column, three).IsInvalidArgument());
}

TEST(RowRewriter, DestroyedWithoutCommitDeletesItsFiles) {
  auto store = TwoFragments(false);
  ASSERT_OK_AND_ASSIGN(auto before, store->List(std::string(kRoot) + "/data"));
  {
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
    auto [rows, addrs] = Renamed(*ds, {1, 2});
    WriteParams p;
    p.max_rows_per_file = 1;  // two files
    ASSERT_OK_AND_ASSIGN(auto rw, RowRewriter::Make(*ds, p));
    ASSERT_OK(rw->Add(rows, addrs));
    ASSERT_OK_AND_ASSIGN(auto during, store->List(std::string(kRoot) + "/data"));
    EXPECT_EQ(during.size(), before.size() + 2);
  }
  ASSERT_OK_AND_ASSIGN(auto after, store->List(std::string(kRoot) + "/data"));
  EXPECT_EQ(after.size(), before.size());
}

TEST(RowRewriter, ConcurrentDeleteOfOtherRowsRebasesOfTheSameRowConflicts) {
  for (bool same_row : {false, true}) {
    SCOPED_TRACE(same_row);
    auto store = TwoFragments(true);
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
    auto [rows, addrs] = Renamed(*ds, {2});
    ASSERT_OK_AND_ASSIGN(auto rw, RowRewriter::Make(*ds, WriteParams{}));
    ASSERT_OK(rw->Add(rows, addrs));
    // Another writer deletes a row of the same fragment first.
    std::vector<uint64_t> other = {same_row ? addrs[0] : uint64_t{7}};
    ASSERT_OK(DeleteRows(*ds, other).status());
    auto v = rw->Commit();
    ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(store, kRoot));
    std::map<int64_t, Row> after = ReadAll(*latest);
    if (same_row) {
      EXPECT_TRUE(v.status().IsCommitConflict()) << v.status().ToString();
      EXPECT_EQ(after.size(), 19u);
      EXPECT_FALSE(after.count(2));
    } else {
      ASSERT_OK(v.status());
      EXPECT_EQ(*v, 4u);
      EXPECT_EQ(after.size(), 19u);  // row 7 deleted, row 2 updated once
      EXPECT_FALSE(after.count(7));
      EXPECT_EQ(after.at(2).name, "u2");
    }
  }
}

TEST(RowRewriter, ConcurrentAppendIsCompatible) {
  auto store = TwoFragments(true);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  auto [rows, addrs] = Renamed(*ds, {12});
  ASSERT_OK_AND_ASSIGN(auto rw, RowRewriter::Make(*ds, WriteParams{}));
  ASSERT_OK(rw->Add(rows, addrs));
  WriteParams p;
  p.mode = WriteMode::kAppend;
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 0).schema, {Rows(20, 5)}, p).status());
  RecordBatch ins = Rows(50, 1, "i");
  std::vector<uint64_t> none = {kInsertedRow};
  ASSERT_OK(rw->Add(ins, none));
  ASSERT_OK_AND_ASSIGN(uint64_t v, rw->Commit());
  EXPECT_EQ(v, 4u);
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(store, kRoot));
  std::map<int64_t, Row> after = ReadAll(*latest);
  EXPECT_EQ(after.size(), 26u);
  EXPECT_EQ(after.at(12).name, "u12");
  EXPECT_EQ(after.at(12).rowaddr >> 32, 3u);  // after the appended fragment 2
  EXPECT_EQ(after.at(50).rowid, 25u);         // after the appended ids 20..24
}

}  // namespace
}  // namespace lancet::table
