// Row lineage: the versions every write stamps, the meta columns a scan, take and
// filter compute from them, and what a damaged sequence gives.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include <google/protobuf/unknown_field_set.h>

#include "lance_proto/rowids.pb.h"
#include "lancet/table/compaction.h"
#include "lancet/table/dataset.h"
#include "lancet/table/evolution.h"
#include "lancet/table/write.h"
#include "table/manifest.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/lineage.lance";

struct Lineage {
  uint64_t created = 0, updated = 0;
  bool operator==(const Lineage&) const = default;
};
// What a version shows per row id (with the row's id column, which equals the row id
// in these tests since rows are never moved by an edit).
using Snapshot = std::map<uint64_t, Lineage>;

Snapshot ScanLineage(const Dataset& ds, const std::string& filter = "") {
  ScanOptions o;
  o.columns = {"_row_last_updated_at_version", "id", "_rowid", "_row_created_at_version"};
  o.filter = filter;
  o.batch_size = 3;  // several batches per fragment
  auto batches = ds.Scan(o);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  Snapshot out;
  if (!batches.ok()) return out;
  for (const RecordBatch& b : *batches) {
    EXPECT_EQ(b.schema.fields[0].name, "_row_last_updated_at_version");
    EXPECT_EQ(b.schema.fields[3].name, "_row_created_at_version");
    for (int64_t r = 0; r < b.num_rows; ++r) {
      uint64_t id = b.columns[2].values<uint64_t>()[r];
      EXPECT_EQ(static_cast<uint64_t>(b.columns[1].values<int64_t>()[r]), id);
      out[id] = {b.columns[3].values<uint64_t>()[r], b.columns[0].values<uint64_t>()[r]};
    }
  }
  return out;
}

class LineageTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = io::NewMemoryStore(); }
  Result<uint64_t> Write(int64_t begin, int64_t n, WriteMode mode) {
    WriteParams p;
    p.mode = mode;
    p.enable_stable_row_ids = stable_;
    p.max_rows_per_file = 4;
    return WriteDataset(store_, kRoot, testing::IdNameXRows(begin, n).schema, {testing::IdNameXRows(begin, n)}, p);
  }
  std::unique_ptr<Dataset> Open(std::optional<uint64_t> version = std::nullopt) {
    OpenOptions o;
    o.version = version;
    auto ds = Dataset::Open(store_, kRoot, o);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? std::move(*ds) : nullptr;
  }
  // Replaces fragment `frag`'s field 9 (or 7) in a copy of the latest manifest,
  // committed as the next version.
  void DamageLatest(size_t frag, bool created, const std::string& bytes) {
    auto listed = ListManifests(*store_, kRoot);
    ASSERT_OK(listed.status());
    auto m = ReadManifest(*store_, listed->back().path);
    ASSERT_OK(m.status());
    auto* f = m->mutable_fragments(static_cast<int>(frag));
    created ? f->set_inline_created_at_versions(bytes) : f->set_inline_last_updated_at_versions(bytes);
    m->set_version(m->version() + 1);
    ASSERT_OK(testing::PutManifest(*store_, kRoot, *m));
  }

  std::shared_ptr<io::ObjectStore> store_;
  bool stable_ = true;
};

TEST_F(LineageTest, EveryWriteStampsOrKeepsVersions) {
  Snapshot want;
  ASSERT_OK_AND_ASSIGN(uint64_t v1, Write(0, 6, WriteMode::kCreate));
  for (uint64_t i = 0; i < 6; ++i) want[i] = {v1, v1};
  EXPECT_EQ(ScanLineage(*Open()), want);
  ASSERT_OK_AND_ASSIGN(uint64_t v2, Write(6, 5, WriteMode::kAppend));
  for (uint64_t i = 6; i < 11; ++i) want[i] = {v2, v2};
  EXPECT_EQ(ScanLineage(*Open()), want);
  ASSERT_OK_AND_ASSIGN(uint64_t v3, DeleteWhere(*Open(), "id = 1 OR id = 7"));
  want.erase(1), want.erase(7);
  EXPECT_EQ(ScanLineage(*Open()), want);
  ASSERT_OK_AND_ASSIGN(uint64_t v4, AddNullColumns(*Open(), {MakeField("extra", MakeType(TypeId::kInt32), true)}));
  EXPECT_EQ(ScanLineage(*Open()), want);
  ASSERT_OK_AND_ASSIGN(uint64_t v5, RenameColumn(*Open(), "x", "xx"));
  EXPECT_EQ(ScanLineage(*Open()), want);
  // Writing a column updates every row, as the reference's add_columns and
  // alter_columns do; dropping one does not.
  std::vector<int32_t> values(want.size(), 7);
  ASSERT_OK_AND_ASSIGN(RecordBatch extra,
                       MakeRecordBatch({"filled"}, {*ArrayFromVector(MakeType(TypeId::kInt32), values)}));
  ASSERT_OK_AND_ASSIGN(uint64_t v6, AddColumns(*Open(), extra.schema, {extra}));
  for (auto& [id, l] : want) l.updated = v6;
  EXPECT_EQ(ScanLineage(*Open()), want);
  ASSERT_OK_AND_ASSIGN(uint64_t v7, AlterColumnType(*Open(), "filled", MakeType(TypeId::kInt64)));
  for (auto& [id, l] : want) l.updated = v7;
  EXPECT_EQ(ScanLineage(*Open()), want);
  ASSERT_OK(DropColumns(*Open(), {"filled"}).status());
  EXPECT_EQ(ScanLineage(*Open()), want);
  CompactionOptions c;
  c.target_rows_per_fragment = 100;
  ASSERT_OK(Compact(*Open(), c).status());
  ASSERT_EQ(Open()->fragments().size(), 1u);
  EXPECT_EQ(ScanLineage(*Open()), want);
  // Old versions keep theirs.
  Snapshot at2 = ScanLineage(*Open(v2));
  EXPECT_EQ(at2.size(), 11u);
  EXPECT_EQ(at2[7], (Lineage{v2, v2}));
  EXPECT_EQ(at2[0], (Lineage{v1, v1}));
  EXPECT_EQ(ScanLineage(*Open(v3)), ScanLineage(*Open(v4)));
  EXPECT_EQ(ScanLineage(*Open(v4)), ScanLineage(*Open(v5)));
  // Restore brings the restored version's sequences back.
  ASSERT_OK(Restore(*Open(), v2).status());
  EXPECT_EQ(ScanLineage(*Open()), at2);
  // Overwrite stamps every row with its own version.
  // Fresh ids continue after every id handed out (11), so they still equal `id`.
  ASSERT_OK_AND_ASSIGN(uint64_t v_over, Write(11, 3, WriteMode::kOverwrite));
  Snapshot fresh = ScanLineage(*Open());
  ASSERT_EQ(fresh.size(), 3u);
  for (const auto& [id, l] : fresh) EXPECT_EQ(l, (Lineage{v_over, v_over})) << id;
}

TEST_F(LineageTest, TakeAndFiltersComputeMetaColumns) {
  ASSERT_OK(Write(0, 6, WriteMode::kCreate).status());
  ASSERT_OK_AND_ASSIGN(uint64_t v2, Write(6, 5, WriteMode::kAppend));
  ASSERT_OK(DeleteWhere(*Open(), "id = 8").status());
  auto ds = Open();
  Snapshot all = ScanLineage(*ds);
  Snapshot newer = ScanLineage(*ds, "_row_created_at_version >= " + std::to_string(v2));
  Snapshot want;
  for (const auto& [id, l] : all) {
    if (l.created >= v2) want[id] = l;
  }
  EXPECT_EQ(newer, want);
  EXPECT_EQ(newer.size(), 4u);
  EXPECT_EQ(ScanLineage(*ds, "_rowid > 3 AND _row_last_updated_at_version < 2").size(), 2u);
  // Row addresses: fragment 1 holds ids 4 and 5.
  Snapshot second = ScanLineage(*ds, "_rowaddr >= 4294967296 AND _rowaddr < 8589934592 AND id > 0");
  EXPECT_EQ(second.size(), 2u);
  EXPECT_TRUE(second.count(4) && second.count(5));

  std::vector<uint64_t> ids = {10, 0, 5};
  ASSERT_OK_AND_ASSIGN(RecordBatch taken, ds->TakeRowIds(ids, {"_row_created_at_version", "id", "_rowaddr"}));
  ASSERT_EQ(taken.schema.fields.size(), 3u);
  EXPECT_EQ(taken.schema.fields[0].name, "_row_created_at_version");
  EXPECT_EQ(taken.schema.fields[2].name, "_rowaddr");
  for (size_t k = 0; k < ids.size(); ++k) {
    EXPECT_EQ(static_cast<uint64_t>(taken.columns[1].values<int64_t>()[k]), ids[k]);
    EXPECT_EQ(taken.columns[0].values<uint64_t>()[k], all[ids[k]].created);
  }
  std::vector<uint64_t> addrs(taken.columns[2].values<uint64_t>(), taken.columns[2].values<uint64_t>() + 3);
  ASSERT_OK_AND_ASSIGN(RecordBatch by_addr, ds->TakeRowAddresses(addrs, {"_row_last_updated_at_version", "_rowid"}));
  for (size_t k = 0; k < ids.size(); ++k) {
    EXPECT_EQ(by_addr.columns[1].values<uint64_t>()[k], ids[k]);
    EXPECT_EQ(by_addr.columns[0].values<uint64_t>()[k], all[ids[k]].updated);
  }
}

TEST_F(LineageTest, WithoutStableRowIdsLineageIsAnError) {
  stable_ = false;
  ASSERT_OK(Write(0, 6, WriteMode::kCreate).status());
  auto ds = Open();
  auto expect = [&](Status st) {
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
    EXPECT_NE(st.message().find(std::string(kRoot) + " has no stable row ids"), std::string::npos) << st.ToString();
  };
  ScanOptions o;
  o.columns = {"id", "_row_created_at_version"};
  expect(ds->NewScan(o).status());
  o.columns = {"id"};
  o.filter = "_row_last_updated_at_version > 1";
  expect(ds->NewScan(o).status());
  std::vector<uint64_t> ids = {0};
  expect(ds->TakeRowIds(ids, {"_row_last_updated_at_version"}).status());
  // The other meta columns work, in filters too.
  o.filter = "_rowid >= 2";
  o.columns = {"_rowaddr", "id"};
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(o));
  int64_t rows = 0;
  for (const auto& b : batches) rows += b.num_rows;
  EXPECT_EQ(rows, 4);
}

TEST_F(LineageTest, DamagedSequencesAreCorruptionNamingTheFragment) {
  ASSERT_OK(Write(0, 6, WriteMode::kCreate).status());
  auto check = [&](const std::string& what) {
    auto ds = Open();
    ASSERT_NE(ds, nullptr);
    ScanOptions plain;
    plain.columns = {"id", "_rowid"};
    EXPECT_TRUE(ds->Scan(plain).ok()) << what;  // data stays readable
    ScanOptions o;
    o.columns = {"id", "_row_created_at_version", "_row_last_updated_at_version"};
    auto got = ds->Scan(o);
    ASSERT_FALSE(got.ok()) << what;
    EXPECT_EQ(got.status().code(), StatusCode::kCorruption) << what << ": " << got.status().ToString();
    EXPECT_NE(got.status().message().find("fragment 1"), std::string::npos) << got.status().ToString();
  };
  // Runs that cover too few and too many rows (fragment 1 has 2 rows).
  lance::table::RowDatasetVersionSequence seq;
  auto* run = seq.add_runs();
  run->mutable_span()->mutable_range()->set_end(1);
  run->set_version(1);
  DamageLatest(1, true, seq.SerializeAsString());
  check("short");
  run->mutable_span()->mutable_range()->set_end(3);
  DamageLatest(1, false, seq.SerializeAsString());
  check("long");
  // A span that ends before it starts, and garbage.
  run->mutable_span()->mutable_range()->set_start(5);
  DamageLatest(1, true, seq.SerializeAsString());
  check("backwards");
  // Random bytes, and valid sequences with bytes flipped, cut or appended.
  lance::table::RowDatasetVersionSequence valid;
  for (uint64_t v : {3, 9}) {
    auto* r = valid.add_runs();
    r->mutable_span()->mutable_range_with_bitmap()->set_start(v);
    r->mutable_span()->mutable_range_with_bitmap()->set_end(v + 3);
    r->mutable_span()->mutable_range_with_bitmap()->set_bitmap(std::string(1, '\x01'));
    r->set_version(v);
  }
  const std::string good = valid.SerializeAsString();
  DamageLatest(1, true, good);
  DamageLatest(1, false, good);
  {
    // Intact, it reads: one row per run (a bitmap span counts its set bits).
    ScanOptions o;
    o.columns = {"id", "_row_created_at_version"};
    o.filter = "id >= 4";
    ASSERT_OK_AND_ASSIGN(auto batches, Open()->Scan(o));
    ASSERT_EQ(batches.size(), 1u);
    ASSERT_EQ(batches[0].num_rows, 2);
    EXPECT_EQ(batches[0].columns[1].values<uint64_t>()[0], 3u);
    EXPECT_EQ(batches[0].columns[1].values<uint64_t>()[1], 9u);
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 400; ++i) {
    std::string bytes;
    if (i % 2 == 0) {
      bytes.assign(rng() % 24 + 1, '\0');
      for (char& c : bytes) c = static_cast<char>(rng());
    } else {
      bytes = good;
      for (int k = static_cast<int>(rng() % 3); k >= 0; --k) bytes[rng() % bytes.size()] ^= static_cast<char>(1 << (rng() % 8));
      if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
      if (rng() % 4 == 0) bytes += static_cast<char>(rng());
    }
    DamageLatest(1, i % 4 < 2, bytes);
    auto ds = Open();
    ASSERT_NE(ds, nullptr);
    ScanOptions o;
    o.columns = {"_row_created_at_version", "_row_last_updated_at_version"};
    auto got = ds->Scan(o);
    // Random bytes may happen to decode to two valid rows; anything else is Corruption.
    if (!got.ok()) {
      EXPECT_EQ(got.status().code(), StatusCode::kCorruption) << got.status().ToString();
    }
  }
}

TEST_F(LineageTest, SequencesOutsideTheManifestAreNotSupported) {
  ASSERT_OK(Write(0, 6, WriteMode::kCreate).status());
  auto expect = [&](const std::string& words) {
    auto ds = Open();
    ASSERT_NE(ds, nullptr);
    ScanOptions o;
    o.columns = {"id", "_rowid"};
    EXPECT_TRUE(ds->Scan(o).ok()) << words;
    o.columns = {"_row_last_updated_at_version"};
    auto got = ds->Scan(o);
    ASSERT_FALSE(got.ok()) << words;
    EXPECT_EQ(got.status().code(), StatusCode::kNotSupported) << got.status().ToString();
    EXPECT_NE(got.status().message().find("fragment 0 keeps its " + words), std::string::npos)
        << got.status().ToString();
  };
  // Fields 8/10: external files; 12-14: lineage columns of newer writers (unknown here).
  auto listed = ListManifests(*store_, kRoot);
  ASSERT_OK(listed.status());
  ASSERT_OK_AND_ASSIGN(lance::table::Manifest m, ReadManifest(*store_, listed->back().path));
  m.mutable_fragments(0)->mutable_external_created_at_versions()->set_path("lineage.bin");
  m.set_version(2);
  ASSERT_OK(testing::PutManifest(*store_, kRoot, m));
  expect("row version sequences in an external file");
  ASSERT_OK_AND_ASSIGN(m, ReadManifest(*store_, listed->back().path));
  auto* frag = m.mutable_fragments(0);
  frag->GetReflection()->MutableUnknownFields(frag)->AddLengthDelimited(13, "");
  m.set_version(3);
  ASSERT_OK(testing::PutManifest(*store_, kRoot, m));
  expect("row lineage in data file columns");
}

}  // namespace
}  // namespace lancet::table
