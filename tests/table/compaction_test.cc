// Compaction: planning, rewritten fragments, stable row ids, conflicts, and the row id
// and row version encoders it uses.
#include "lancet/table/compaction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "lance_proto/transaction.pb.h"
#include "lancet/table/evolution.h"
#include "lancet/table/write.h"
#include "table/compaction_row_ids.h"
#include "table/manifest.h"
#include "table/row_id_sequence.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/compact";

RecordBatch MakeRows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    names.push_back(i % 7 == 0 ? std::nullopt : std::optional<std::string>("r" + std::to_string(i)));
  }
  return *MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names)});
}

std::unique_ptr<Dataset> Open(const std::shared_ptr<io::ObjectStore>& store) {
  auto ds = Dataset::Open(store, kRoot);
  EXPECT_OK(ds.status());
  return std::move(*ds);
}

// `fragments` appends of `rows` rows each: ids 0 .. fragments*rows-1.
std::shared_ptr<io::ObjectStore> MakeTable(int fragments, int64_t rows, bool stable = false) {
  auto store = io::NewMemoryStore();
  WriteParams p;
  p.enable_stable_row_ids = stable;
  EXPECT_OK(WriteDataset(store, kRoot, MakeRows(0, 0).schema, {MakeRows(0, rows)}, p).status());
  p.mode = WriteMode::kAppend;
  for (int f = 1; f < fragments; ++f) {
    EXPECT_OK(WriteDataset(store, kRoot, MakeRows(0, 0).schema, {MakeRows(f * rows, rows)}, p).status());
  }
  return store;
}

std::vector<int64_t> Ids(const Dataset& ds) {
  ScanOptions opts;
  opts.columns = {"id"};
  auto batches = ds.Scan(opts);
  EXPECT_OK(batches.status());
  std::vector<int64_t> out;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) out.push_back(b.columns[0].values<int64_t>()[i]);
  }
  return out;
}

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

TEST(Compaction, MergesSmallFragmentsIntoGroupsOfTargetSize) {
  auto store = MakeTable(10, 10);
  auto ds = Open(store);
  CompactionOptions opts;
  opts.target_rows_per_fragment = 25;
  std::vector<std::pair<uint64_t, uint64_t>> reports;
  opts.progress = [&](uint64_t done, uint64_t total) { reports.emplace_back(done, total); };
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*ds, opts));
  // A report per fragment read, counting up to every row being rewritten.
  ASSERT_EQ(reports.size(), 10u);
  for (size_t i = 0; i < reports.size(); ++i) EXPECT_EQ(reports[i], std::make_pair(10 * (i + 1), uint64_t{100}));
  // One run of 10 fragments, split into groups of 30, 30 and 40 rows; each group is
  // written in files of at most 25 rows.
  EXPECT_EQ(m.version, 11u);
  EXPECT_EQ(m.fragments_removed, 10u);
  EXPECT_EQ(m.fragments_added, 6u);
  EXPECT_EQ(m.files_removed, 10u);
  EXPECT_EQ(m.files_added, 6u);
  auto after = Open(store);
  ASSERT_EQ(after->fragments().size(), 6u);
  std::vector<uint64_t> rows;
  for (const FragmentInfo& f : after->fragments()) rows.push_back(f.physical_rows);
  EXPECT_EQ(rows, (std::vector<uint64_t>{25, 5, 25, 5, 25, 15}));
  EXPECT_EQ(after->fragments()[0].id, 10u);
  EXPECT_EQ(Ids(*after), Range(0, 100));

  auto listed = ListManifests(*store, kRoot);
  ASSERT_OK(listed.status());
  ASSERT_OK_AND_ASSIGN(lance::table::Manifest manifest, ReadManifest(*store, listed->back().path));
  EXPECT_EQ(manifest.max_fragment_id(), 15u);
  auto file = store->OpenRead(std::string(kRoot) + "/_transactions/" + manifest.transaction_file());
  ASSERT_OK(file.status());
  auto bytes = (*file)->ReadAt(0, *(*file)->Size());
  lance::table::Transaction txn;
  ASSERT_TRUE(txn.ParseFromArray((*bytes)->data(), static_cast<int>((*bytes)->size())));
  ASSERT_TRUE(txn.has_rewrite());
  ASSERT_EQ(txn.rewrite().groups_size(), 3);
  EXPECT_EQ(txn.rewrite().groups(2).old_fragments_size(), 4);
  EXPECT_EQ(txn.rewrite().groups(2).new_fragments_size(), 2);
  EXPECT_EQ(txn.rewrite().groups(2).new_fragments(1).id(), 15u);

  // Nothing left to do: no new version.
  ASSERT_OK_AND_ASSIGN(CompactionMetrics again, Compact(*after, opts));
  EXPECT_EQ(again.version, after->version());
  EXPECT_EQ(again.fragments_removed, 0u);
}

TEST(Compaction, MaterializesDeletionsAndDropsDroppedColumns) {
  auto store = MakeTable(3, 100);
  auto ds = Open(store);
  // Fragment 0 loses 50 % of its rows, fragment 1 only 5 %.
  std::vector<uint64_t> del;
  for (uint64_t i = 0; i < 100; i += 2) del.push_back(i);
  for (uint64_t i = 0; i < 5; ++i) del.push_back((uint64_t{1} << 32) | i);
  ASSERT_OK(DeleteRows(*ds, del).status());
  ASSERT_OK(DropColumns(*Open(store), {"name"}).status());
  ds = Open(store);
  CompactionOptions opts;
  opts.target_rows_per_fragment = 100;  // no fragment is small
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*ds, opts));
  EXPECT_EQ(m.fragments_removed, 1u);
  EXPECT_EQ(m.files_removed, 2u);  // data file + deletion file
  auto after = Open(store);
  ASSERT_EQ(after->fragments().size(), 3u);
  EXPECT_EQ(after->fragments()[0].id, 1u);
  EXPECT_EQ(after->fragments()[0].deleted_rows, 5u);
  const FragmentInfo& fresh = after->fragments()[2];
  EXPECT_EQ(fresh.id, 3u);
  EXPECT_EQ(fresh.physical_rows, 50u);
  EXPECT_EQ(fresh.deleted_rows, 0u);
  EXPECT_TRUE(fresh.deletion_file.empty());
  EXPECT_EQ(fresh.files[0].fields, std::vector<int32_t>{0});  // "name" is not copied
  EXPECT_EQ(after->CountRows(), 245u);
  std::vector<int64_t> expected = Range(105, 300);
  for (int64_t i = 1; i < 100; i += 2) expected.push_back(i);
  EXPECT_EQ(Ids(*after), expected);
}

TEST(Compaction, StableRowIdsSurvive) {
  auto store = MakeTable(4, 10, /*stable=*/true);
  auto ds = Open(store);
  ASSERT_OK(DeleteRows(*ds, std::vector<uint64_t>{1, (uint64_t{2} << 32) | 9}).status());
  ds = Open(store);
  ScanOptions with_ids;
  with_ids.with_row_id = true;
  ASSERT_OK_AND_ASSIGN(auto before, ds->Scan(with_ids));
  std::vector<uint64_t> row_ids;
  for (const RecordBatch& b : before) {
    for (int64_t i = 0; i < b.num_rows; ++i) row_ids.push_back(b.columns[2].values<uint64_t>()[i]);
  }
  CompactionOptions opts;
  opts.target_rows_per_fragment = 1000;
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*ds, opts));
  EXPECT_EQ(m.fragments_added, 1u);
  auto after = Open(store);
  ASSERT_EQ(after->fragments().size(), 1u);
  EXPECT_EQ(after->fragments()[0].physical_rows, 38u);
  ASSERT_OK_AND_ASSIGN(auto scanned, after->Scan(with_ids));
  std::vector<uint64_t> now;
  for (const RecordBatch& b : scanned) {
    for (int64_t i = 0; i < b.num_rows; ++i) now.push_back(b.columns[2].values<uint64_t>()[i]);
  }
  EXPECT_EQ(now, row_ids);
  // Row id 25 (fragment 2, offset 5) is still the row with id 25.
  ASSERT_OK_AND_ASSIGN(RecordBatch taken, after->TakeRowIds(std::vector<uint64_t>{25, 0}, {"id"}));
  EXPECT_EQ(taken.columns[0].values<int64_t>()[0], 25);
  EXPECT_EQ(taken.columns[0].values<int64_t>()[1], 0);
  EXPECT_FALSE(after->TakeRowIds(std::vector<uint64_t>{1}).ok());  // deleted before the compaction

  auto listed = ListManifests(*store, kRoot);
  ASSERT_OK_AND_ASSIGN(lance::table::Manifest manifest, ReadManifest(*store, listed->back().path));
  EXPECT_EQ(manifest.next_row_id(), 40u);
  const auto& frag = manifest.fragments(0);
  ASSERT_OK_AND_ASSIGN(std::vector<uint64_t> versions,
                       DecodeRowVersions(frag.inline_created_at_versions(), frag.physical_rows(), "test"));
  // Each row keeps the version that wrote it: row id r came with write r / 10 + 1.
  ASSERT_EQ(versions.size(), now.size());
  for (size_t i = 0; i < now.size(); ++i) EXPECT_EQ(versions[i], now[i] / 10 + 1) << now[i];
}

TEST(Compaction, ConflictsWithADeleteOfARewrittenFragmentButKeepsAppends) {
  auto store = MakeTable(3, 10);
  auto read = Open(store);
  ASSERT_OK(DeleteRows(*Open(store), std::vector<uint64_t>{(uint64_t{1} << 32) | 3}).status());
  auto st = Compact(*read, {}).status();
  EXPECT_TRUE(st.IsCommitConflict()) << st.ToString();
  auto listed = store->List(std::string(kRoot) + "/data");
  ASSERT_OK(listed.status());
  EXPECT_EQ(listed->size(), 3u);  // the rewrite's files were removed

  read = Open(store);
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(WriteDataset(store, kRoot, MakeRows(0, 0).schema, {MakeRows(30, 10)}, append).status());
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*read, {}));
  EXPECT_EQ(m.fragments_removed, 3u);
  auto after = Open(store);
  ASSERT_EQ(after->fragments().size(), 2u);
  EXPECT_EQ(after->fragments()[0].id, 3u);  // the append, then the rewrite's fragment
  EXPECT_EQ(after->fragments()[1].id, 4u);
  EXPECT_EQ(after->CountRows(), 39u);
  // A delete based on the version before the rewrite now conflicts.
  EXPECT_TRUE(DeleteRows(*read, std::vector<uint64_t>{0}).status().IsCommitConflict());
}

TEST(Compaction, RacesWithConcurrentAppends) {
  auto store = MakeTable(6, 10);
  auto read = Open(store);
  std::vector<std::thread> appenders;
  for (int t = 0; t < 3; ++t) {
    appenders.emplace_back([&store, t] {
      WriteParams append;
      append.mode = WriteMode::kAppend;
      for (int i = 0; i < 4; ++i) {
        int64_t begin = 1000 + (t * 4 + i) * 10;
        EXPECT_OK(WriteDataset(store, kRoot, MakeRows(0, 0).schema, {MakeRows(begin, 10)}, append).status());
      }
    });
  }
  CompactionOptions opts;
  opts.max_commit_attempts = 100;
  auto compacted = Compact(*read, opts);
  for (auto& t : appenders) t.join();
  ASSERT_OK(compacted.status());
  auto after = Open(store);
  EXPECT_EQ(after->CountRows(), 60u + 120u);
  std::vector<int64_t> ids = Ids(*after);
  std::sort(ids.begin(), ids.end());
  std::vector<int64_t> expected = Range(0, 60);
  for (int64_t i = 1000; i < 1120; ++i) expected.push_back(i);
  EXPECT_EQ(ids, expected);
  // The rewrite replaced exactly the six fragments it read.
  for (const FragmentInfo& f : after->fragments()) EXPECT_GE(f.id, 6u);
}

// Compaction reads fragment by fragment through ScanOptions::fragment_ids.
TEST(Compaction, ScanOfChosenFragments) {
  auto store = MakeTable(3, 10);
  auto ds = Open(store);
  ScanOptions opts;
  opts.columns = {"id"};
  opts.fragment_ids = {2, 0};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(opts));
  std::vector<int64_t> ids;
  for (const RecordBatch& b : batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) ids.push_back(b.columns[0].values<int64_t>()[i]);
  }
  std::vector<int64_t> expected = Range(0, 10);
  for (int64_t i = 20; i < 30; ++i) expected.push_back(i);
  EXPECT_EQ(ids, expected);  // id order, whatever the order asked
  opts.fragment_ids = {7};
  EXPECT_TRUE(ds->Scan(opts).status().IsNotFound());
}

TEST(Compaction, RejectsBadOptions) {
  auto store = MakeTable(2, 10);
  CompactionOptions opts;
  opts.target_rows_per_fragment = 0;
  EXPECT_TRUE(Compact(*Open(store), opts).status().IsInvalidArgument());
}

// Blob bytes move into the new data file as inline payloads: every blob reads back the
// same, whatever its kind before (inline, packed, dedicated; null and empty).
TEST(Compaction, CarriesBlobBytes) {
  for (const char* name : {"blobs", "blobs_custom"}) {
    if (!testing::HasCorpusDataset(name)) GTEST_SKIP() << "no corpus at " << testing::CorpusDir();
    auto store = io::NewMemoryStore();
    std::string root = std::string("mem/") + name;
    ASSERT_OK(testing::CopyDirToStore(testing::CorpusDir() + "/data/" + name + ".lance", *store, root));
    ASSERT_OK_AND_ASSIGN(auto before, Dataset::Open(store, root));
    ScanOptions opts;
    opts.columns = {"id", "_rowid"};
    ASSERT_OK_AND_ASSIGN(auto batches, before->Scan(opts));
    std::vector<uint64_t> row_ids;
    std::vector<int64_t> ids;
    for (const RecordBatch& b : batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) {
        ids.push_back(b.columns[0].values<int64_t>()[i]);
        row_ids.push_back(b.columns[1].values<uint64_t>()[i]);
      }
    }
    ASSERT_OK_AND_ASSIGN(CompactionMetrics m, Compact(*before, {}));
    EXPECT_EQ(m.fragments_added, 1u) << name;
    ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(store, root));
    ASSERT_EQ(after->fragments().size(), 1u);
    std::vector<uint64_t> new_ids;
    for (size_t i = 0; i < ids.size(); ++i) new_ids.push_back((after->fragments()[0].id << 32) | i);
    ASSERT_OK_AND_ASSIGN(RecordBatch id_col, after->TakeRowIds(new_ids, {"id"}));
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(id_col.columns[0].values<int64_t>()[i], ids[i]);
    for (const Field& f : before->schema().fields) {
      if (!IsBlobV2Field(f)) continue;
      ASSERT_OK_AND_ASSIGN(auto want, before->TakeBlobs(f.name, row_ids));
      ASSERT_OK_AND_ASSIGN(auto got, after->TakeBlobs(f.name, new_ids));
      ASSERT_EQ(want.size(), got.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(want[i].has_value(), got[i].has_value()) << name << " " << f.name << " row " << i;
        if (!want[i]) continue;
        EXPECT_TRUE(std::equal((*want[i])->span().begin(), (*want[i])->span().end(), (*got[i])->span().begin(),
                               (*got[i])->span().end()))
            << name << " " << f.name << " row " << i;
      }
    }
  }
}

// Decodes `bytes` with the reader's parser.
std::vector<uint64_t> ParseIds(const std::string& bytes) {
  auto seq = RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, "test");
  EXPECT_OK(seq.status());
  std::vector<uint64_t> out;
  seq->AppendRange(0, seq->size(), &out);
  return out;
}

TEST(CompactionRowIds, EncodingRoundTrips) {
  std::vector<std::vector<uint64_t>> cases = {
      {},
      {7},
      {0, 1, 2, 3, 4, 5},
      {0, 1, 2, 3, 10, 11, 12, 13, 14},
      {5, 3, 9, 1},                                         // unsorted
      {1, 2, 100000, 100001, 100002, 100003, 7, 1u << 31},  // wide offsets
      {uint64_t{1} << 40, (uint64_t{1} << 40) + 70000, 3},
  };
  for (const auto& ids : cases) EXPECT_EQ(ParseIds(EncodeRowIds(ids)), ids);
  // Consecutive ids cost one Range segment whatever their number.
  std::vector<uint64_t> big;
  for (uint64_t i = 0; i < 100000; ++i) big.push_back(i + 17);
  EXPECT_LT(EncodeRowIds(big).size(), 16u);
}

TEST(CompactionRowIds, VersionsRoundTrip) {
  std::vector<uint64_t> v = {1, 1, 1, 2, 2, 5, 1};
  ASSERT_OK_AND_ASSIGN(std::vector<uint64_t> back, DecodeRowVersions(EncodeRowVersions(v), v.size(), "test"));
  EXPECT_EQ(back, v);
  EXPECT_TRUE(DecodeRowVersions(EncodeRowVersions(v), 6, "test").status().IsCorruption());
  EXPECT_TRUE(DecodeRowVersions("\xff\xff", 1, "test").status().IsCorruption());
}

}  // namespace
}  // namespace lancet::table
