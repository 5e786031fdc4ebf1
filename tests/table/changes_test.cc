// Changes (CDC): random histories checked against a brute-force diff of the two
// snapshots by row id, for every pair of versions.
#include "lancet/table/changes.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <set>

#include "lancet/table/compaction.h"
#include "lancet/table/dataset.h"
#include "lancet/table/evolution.h"
#include "lancet/table/merge_insert.h"
#include "lancet/table/update.h"
#include "lancet/table/write.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/changes.lance";

// One cell as text, "null" for nulls (the types these histories write).
std::string Cell(const Array& a, int64_t r) {
  if (!a.IsValid(r)) return "null";
  switch (a.type.id) {
    case TypeId::kInt64:
      return std::to_string(a.values<int64_t>()[r]);
    case TypeId::kInt32:
      return std::to_string(a.values<int32_t>()[r]);
    case TypeId::kUInt64:
      return std::to_string(a.values<uint64_t>()[r]);
    case TypeId::kFloat64:
      return std::to_string(a.values<double>()[r]);
    case TypeId::kUtf8:
      return "'" + std::string(a.GetView(r)) + "'";
    default:
      return "?";
  }
}

struct Row {
  std::map<std::string, std::string> values;  // column -> cell
  uint64_t last_updated = 0;
};
using Snapshot = std::map<uint64_t, Row>;  // by row id

Snapshot Take(const Dataset& ds) {
  ScanOptions o;
  for (const Field& f : ds.schema().fields) o.columns.push_back(f.name);
  o.columns.push_back("_rowid");
  o.columns.push_back("_row_last_updated_at_version");
  auto batches = ds.Scan(o);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  Snapshot out;
  for (const RecordBatch& b : *batches) {
    const size_t n = ds.schema().fields.size();
    for (int64_t r = 0; r < b.num_rows; ++r) {
      Row& row = out[b.columns[n].values<uint64_t>()[r]];
      for (size_t c = 0; c < n; ++c) row.values[b.schema.fields[c].name] = Cell(b.columns[c], r);
      row.last_updated = b.columns[n + 1].values<uint64_t>()[r];
    }
  }
  return out;
}

// One change as text: op, id, version, then name=value for each column.
using Change = std::string;

std::multiset<Change> FromReader(RecordBatchReader& reader) {
  std::multiset<Change> out;
  for (;;) {
    auto next = reader.Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !*next) return out;
    const RecordBatch& b = **next;
    for (int64_t r = 0; r < b.num_rows; ++r) {
      Change c = std::string(b.columns[0].GetView(r));
      for (size_t k = 1; k < b.columns.size(); ++k) c += " " + b.schema.fields[k].name + "=" + Cell(b.columns[k], r);
      out.insert(c);
    }
  }
}

// Whether two rows hold the same values; a column one of them lacks reads as null
// (added columns are null in the rows that predate them).
bool SameValues(const Row& a, const Row& b) {
  auto cell = [](const Row& r, const std::string& c) { return r.values.count(c) ? r.values.at(c) : "null"; };
  for (const auto& [c, v] : a.values) {
    if (cell(b, c) != v) return false;
  }
  for (const auto& [c, v] : b.values) {
    if (cell(a, c) != v) return false;
  }
  return true;
}

// The brute-force diff: snapshots[v] is version v; deletes are attributed to the
// first version that lacks the id, updates are rows whose values or lineage changed.
std::multiset<Change> Expected(const std::vector<Snapshot>& snaps, const std::vector<std::string>& columns,
                               uint64_t from, uint64_t to, bool old_values) {
  std::multiset<Change> out;
  const Snapshot& a = snaps[from];
  const Snapshot& b = snaps[to];
  auto cells = [&](const Row* now, const Row* old) {
    std::string s;
    for (const std::string& c : columns) {
      s += " " + c + "=" + (now && now->values.count(c) ? now->values.at(c) : "null");
    }
    if (old_values) {
      for (const std::string& c : columns) {
        s += " old_" + c + "=" + (old && old->values.count(c) ? old->values.at(c) : "null");
      }
    }
    return s;
  };
  for (const auto& [id, row] : b) {
    auto was = a.find(id);
    if (was == a.end()) {
      // Created after `from`: the first version that has it.
      uint64_t v = from + 1;
      while (!snaps[v].count(id)) ++v;
      out.insert("insert _rowid=" + std::to_string(id) + " version=" + std::to_string(v) + cells(&row, nullptr));
    } else if (!SameValues(was->second, row) || was->second.last_updated != row.last_updated) {
      out.insert("update _rowid=" + std::to_string(id) + " version=" + std::to_string(row.last_updated) +
                 cells(&row, &was->second));
    }
  }
  for (const auto& [id, row] : a) {
    if (b.count(id)) continue;
    uint64_t v = from + 1;
    while (snaps[v].count(id)) ++v;
    out.insert("delete _rowid=" + std::to_string(id) + " version=" + std::to_string(v) + cells(nullptr, &row));
  }
  return out;
}

// A history under test: the dataset and the next ids to append.
struct History {
  std::shared_ptr<io::ObjectStore> store = io::NewMemoryStore();
  std::mt19937 rng;
  int64_t next_id = 0;
  int extra_columns = 0;
  std::unique_ptr<Dataset> Latest() { return *Dataset::Open(store, kRoot); }
};

// The operations a random history draws from (each returns the committed version or
// an error).
struct HistoryOp {
  const char* name;
  std::function<Result<uint64_t>(History&)> run;
};

Result<uint64_t> Append(History& h, WriteMode mode) {
  int64_t n = static_cast<int64_t>(h.rng() % 9 + 1);
  RecordBatch rows = testing::IdNameXRows(h.next_id, n);
  h.next_id += n;
  WriteParams p;
  p.mode = mode;
  p.enable_stable_row_ids = true;
  p.max_rows_per_file = 4;
  if (h.extra_columns > 0) {
    // Appends must match the schema: add the null extra columns.
    std::unique_ptr<Dataset> ds = h.Latest();
    for (size_t c = rows.columns.size(); c < ds->schema().fields.size(); ++c) {
      rows.schema.fields.push_back(ds->schema().fields[c]);
      ASSIGN_OR_RETURN(Array nulls, MakeNullArray(ds->schema().fields[c].type, n));
      rows.columns.push_back(std::move(nulls));
    }
  }
  return WriteDataset(h.store, kRoot, rows.schema, {rows}, p);
}

std::vector<HistoryOp> BaseOps() {
  return {
      {"append", [](History& h) { return Append(h, WriteMode::kAppend); }},
      {"delete",
       [](History& h) {
         int64_t m = static_cast<int64_t>(h.rng() % 4 + 2), k = static_cast<int64_t>(h.rng() % 3);
         return DeleteWhere(*h.Latest(), "id % " + std::to_string(m) + " = " + std::to_string(k));
       }},
      {"compact",
       [](History& h) {
         CompactionOptions c;
         c.target_rows_per_fragment = h.rng() % 2 ? 6 : 100;
         c.materialize_deletions_threshold = 0;
         return Compact(*h.Latest(), c).status().ok() ? Result<uint64_t>(h.Latest()->version())
                                                      : Result<uint64_t>(Status::Internal("compaction failed"));
       }},
      {"add_values",
       [](History& h) -> Result<uint64_t> {
         // Writes a column: every row counts as updated (lineage-notes §2.2).
         std::unique_ptr<Dataset> ds = h.Latest();
         std::vector<int32_t> values(ds->CountRows());
         for (int32_t& v : values) v = static_cast<int32_t>(h.rng() % 100);
         ASSIGN_OR_RETURN(Array col, ArrayFromVector(MakeType(TypeId::kInt32), values));
         ASSIGN_OR_RETURN(RecordBatch b, MakeRecordBatch({"extra" + std::to_string(h.extra_columns++)}, {col}));
         return AddColumns(*ds, b.schema, {b});
       }},
      {"add_column",
       [](History& h) {
         std::string name = "extra" + std::to_string(h.extra_columns++);
         return AddNullColumns(*h.Latest(), {MakeField(name, MakeType(TypeId::kInt32), true)});
       }},
      {"update",
       [](History& h) -> Result<uint64_t> {
         int64_t m = static_cast<int64_t>(h.rng() % 3 + 2), k = static_cast<int64_t>(h.rng() % 2);
         ASSIGN_OR_RETURN(UpdateResult r, Update(*h.Latest(), "id % " + std::to_string(m) + " = " + std::to_string(k),
                                                 {{"x", "x + 1"}, {"name", "'u'"}}));
         return r.version;
       }},
      {"merge",
       [](History& h) -> Result<uint64_t> {
         // Upserts a few existing ids (deleted ones come back as inserts) and a few new
         // ones, with a partial schema once extra columns exist.
         std::vector<int64_t> ids;
         const int64_t first = h.next_id > 3 ? static_cast<int64_t>(h.rng() % static_cast<uint64_t>(h.next_id - 3)) : 0;
         for (int64_t i = first; i < std::min(first + 3, h.next_id); ++i) ids.push_back(i);
         const int64_t fresh = static_cast<int64_t>(h.rng() % 3);
         for (int64_t i = 0; i < fresh; ++i) ids.push_back(h.next_id++);
         std::vector<double> xs;
         std::vector<std::optional<std::string>> names;
         for (int64_t id : ids) {
           xs.push_back(static_cast<double>(id) + 0.25);
           names.push_back("m" + std::to_string(id));
         }
         ASSIGN_OR_RETURN(Array id_col, ArrayFromVector(MakeType(TypeId::kInt64), ids));
         ASSIGN_OR_RETURN(Array x_col, ArrayFromVector(MakeType(TypeId::kFloat64), xs));
         ASSIGN_OR_RETURN(RecordBatch src, MakeRecordBatch({"id", "name", "x"}, {id_col, StringArray(names), x_col}));
         auto reader = MakeBatchVectorReader(src.schema, {src});
         MergeInsertOptions o;
         o.on = {"id"};
         ASSIGN_OR_RETURN(MergeInsertResult r, MergeInsert(*h.Latest(), *reader, o));
         return r.version;
       }},
  };
}

void CheckAllPairs(History& h, const std::string& what) {
  std::unique_ptr<Dataset> latest = h.Latest();
  std::vector<Snapshot> snaps(latest->version() + 1);
  for (uint64_t v = 1; v <= latest->version(); ++v) snaps[v] = Take(**latest->Checkout(v));
  for (uint64_t from = 1; from <= latest->version(); ++from) {
    for (uint64_t to = from; to <= latest->version(); ++to) {
      ChangesOptions o;
      o.with_old_values = (from + to) % 2 == 0;
      o.batch_size = 5;
      std::vector<std::string> columns;
      std::unique_ptr<Dataset> at_to = *latest->Checkout(to);
      for (const Field& f : at_to->schema().fields) columns.push_back(f.name);
      if (to % 3 == 0) {
        columns = {"name", "id"};  // a projection, in the caller's order
        o.columns = columns;
      }
      auto reader = Changes(*latest, from, to, o);
      ASSERT_TRUE(reader.ok()) << what << " " << from << ".." << to << ": " << reader.status().ToString();
      std::multiset<Change> got = FromReader(**reader);
      std::multiset<Change> want = Expected(snaps, columns, from, to, o.with_old_values);
      ASSERT_EQ(got, want) << what << " changes " << from << ".." << to;
    }
  }
}

TEST(Changes, RandomHistoriesMatchSnapshotDiffs) {
  const std::vector<HistoryOp> ops = BaseOps();
  for (uint32_t seed = 1; seed <= 25; ++seed) {
    History h;
    h.rng.seed(seed);
    ASSERT_OK(Append(h, WriteMode::kCreate).status());
    std::string what = "seed " + std::to_string(seed) + ": create";
    for (int step = 0; step < 7; ++step) {
      const HistoryOp& op = ops[h.rng() % ops.size()];
      auto v = op.run(h);
      ASSERT_TRUE(v.ok()) << what << " " << op.name << ": " << v.status().ToString();
      what += std::string(" ") + op.name;
    }
    CheckAllPairs(h, what);
  }
}

TEST(Changes, OverwriteReadsAsDeletesAndInserts) {
  History h;
  ASSERT_OK(Append(h, WriteMode::kCreate).status());
  ASSERT_OK(Append(h, WriteMode::kOverwrite).status());
  ASSERT_OK(Append(h, WriteMode::kAppend).status());
  CheckAllPairs(h, "overwrite");
}

TEST(Changes, RestoreInTheRangeIsNotSupported) {
  History h;
  ASSERT_OK(Append(h, WriteMode::kCreate).status());
  ASSERT_OK(Append(h, WriteMode::kAppend).status());
  ASSERT_OK(DeleteWhere(*h.Latest(), "id = 0").status());
  ASSERT_OK_AND_ASSIGN(uint64_t restored, Restore(*h.Latest(), 1));
  ASSERT_OK(Append(h, WriteMode::kAppend).status());
  auto latest = h.Latest();
  for (uint64_t from = 1; from < restored; ++from) {
    // Refused up front, before any record.
    auto r = Changes(*latest, from, latest->version());
    ASSERT_FALSE(r.ok()) << from;
    const Status& st = r.status();
    EXPECT_EQ(st.code(), StatusCode::kNotSupported) << from << ": " << st.ToString();
    EXPECT_NE(st.message().find("version " + std::to_string(restored) + " restores"), std::string::npos)
        << st.ToString();
  }
  // Without its transaction file the restore still shows: fragment 0 lost deletions.
  auto at_restore = *latest->Checkout(restored);
  ASSERT_OK(h.store->Delete(std::string(kRoot) + "/_transactions/" + at_restore->Describe()["transaction_file"]));
  auto r2 = Changes(*latest, restored - 1, restored);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().code(), StatusCode::kNotSupported) << r2.status().ToString();
  EXPECT_NE(r2.status().message().find("fragment 0 comes back"), std::string::npos) << r2.status().ToString();
  // From the restore on, changes are fine again.
  auto r = Changes(*latest, restored, latest->version());
  ASSERT_OK(r.status());
  EXPECT_FALSE(FromReader(**r).empty());
}

TEST(Changes, Errors) {
  auto store = io::NewMemoryStore();
  RecordBatch rows = testing::IdNameXRows(0, 4);
  ASSERT_OK(WriteDataset(store, kRoot, rows.schema, {rows}, {}).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(WriteDataset(store, kRoot, rows.schema, {rows}, append).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  auto r = Changes(*ds, 1, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(std::string(kRoot) + " has no stable row ids"), std::string::npos)
      << r.status().ToString();
  r = Changes(*ds, 2, 1);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  r = Changes(*ds, 1, 9);
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound) << r.status().ToString();

  History h;
  ASSERT_OK(Append(h, WriteMode::kCreate).status());
  ChangesOptions o;
  o.columns = {"nope"};
  r = Changes(*h.Latest(), 1, 1, o);
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound) << r.status().ToString();
  o.columns = {"id", "name", "id"};
  r = Changes(*h.Latest(), 1, 1, o);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  o.columns = {"_rowid"};  // always output; not a value column
  r = Changes(*h.Latest(), 1, 1, o);
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound) << r.status().ToString();
}

}  // namespace
}  // namespace lancet::table
