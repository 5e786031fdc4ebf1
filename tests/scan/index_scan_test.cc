// Scans answered through scalar indexes return exactly the rows a plain filtered scan
// returns, across appends, deletes, compaction, optimize and stable row ids.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "lancet/index/scalar_index.h"
#include "lancet/scan/scanner.h"
#include "lancet/table/compaction.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::scan {
namespace {

namespace fs = std::filesystem;
using index::ScalarIndexType;

Schema TestSchema() {
  Schema s;
  s.fields.push_back(MakeField("id", MakeType(TypeId::kInt32)));
  s.fields.push_back(MakeField("seq", MakeType(TypeId::kInt64)));
  s.fields.push_back(MakeField("f", MakeType(TypeId::kFloat64)));
  s.fields.push_back(MakeField("s", MakeType(TypeId::kUtf8)));
  s.fields.push_back(MakeField("cat", MakeType(TypeId::kInt32)));
  s.fields.push_back(MakeField("tags", ListOf(MakeField("item", MakeType(TypeId::kUtf8)))));
  return s;
}

// Rows [begin, begin + n): id a shuffled permutation (every 13th null), seq = row
// (sorted), f with NaN and nulls, s "k<id>", cat in 0..7, tags 0-3 of six words.
RecordBatch Rows(int64_t begin, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> id(static_cast<size_t>(n)), cat(static_cast<size_t>(n));
  std::vector<int64_t> seq(static_cast<size_t>(n));
  std::vector<double> f(static_cast<size_t>(n));
  std::vector<bool> id_valid(static_cast<size_t>(n)), f_valid(static_cast<size_t>(n));
  std::vector<std::optional<std::string>> s(static_cast<size_t>(n)), words;
  std::vector<int64_t> offsets{0};
  std::vector<bool> tags_valid;
  const char* kWords[] = {"apple", "banana", "cherry", "delta", "echo", "fox"};
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    id[k] = static_cast<int32_t>(begin + i);
    seq[k] = begin + i;
    id_valid[k] = (begin + i) % 13 != 0;
    f[k] = (begin + i) % 17 == 0 ? NAN : static_cast<double>(rng() % 1000) / 10.0;
    f_valid[k] = (begin + i) % 19 != 0;
    s[k] = (begin + i) % 11 == 0 ? std::nullopt : std::optional<std::string>("k" + std::to_string(rng() % 5000));
    cat[k] = static_cast<int32_t>(rng() % 8);
    const int ntags = static_cast<int>(rng() % 4);
    for (int t = 0; t < ntags; ++t) words.push_back(kWords[rng() % 6]);
    offsets.push_back(static_cast<int64_t>(words.size()));
    tags_valid.push_back(i % 23 != 5);
  }
  std::shuffle(id.begin(), id.end(), rng);
  RecordBatch b;
  b.schema = TestSchema();
  b.num_rows = n;
  b.columns.push_back(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), id, id_valid).MoveValue());
  b.columns.push_back(ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), seq).MoveValue());
  b.columns.push_back(ArrayFromVector<double>(MakeType(TypeId::kFloat64), f, f_valid).MoveValue());
  b.columns.push_back(StringArray(s));
  b.columns.push_back(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), cat).MoveValue());
  b.columns.push_back(MakeListArray(b.schema.fields[5].type, offsets, StringArray(words), tags_valid).MoveValue());
  return b;
}

// Sorted row ids of the rows `filter` picks, through the indexes or not.
std::vector<uint64_t> RowIds(const table::Dataset& ds, const std::string& filter, bool indexed,
                             ScanExplain* explain = nullptr) {
  table::ScanOptions o;
  o.columns = {"id"};
  o.filter = filter;
  o.with_row_id = true;
  o.batch_size = 777;
  auto reader = indexed ? NewScan(ds, o, explain) : ds.NewScan(o);
  EXPECT_TRUE(reader.ok()) << filter << ": " << reader.status().ToString();
  std::vector<uint64_t> out;
  if (!reader.ok()) return out;
  for (;;) {
    auto b = (*reader)->Next();
    EXPECT_TRUE(b.ok()) << filter << ": " << b.status().ToString();
    if (!b.ok() || !*b) break;
    const Array& ids = (*b)->columns[1];
    for (int64_t i = 0; i < ids.length; ++i) out.push_back(ids.values<uint64_t>()[i]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<std::string> kFilters = {
    "id = 77",
    "id = 78 OR id = 12000",
    "id IN (5, 9, 4242, 9999, 123456)",
    "id > 9000",
    "id >= 100 AND id < 200",
    "id BETWEEN 3000 AND 3100",
    "id IS NULL",
    "id IS NOT NULL AND id < 50",
    "NOT (id > 100)",
    "id < 10 OR cat = 3",
    "id = 5 AND f > 50",
    "seq >= 4000 AND seq < 4100",
    "seq = 9123",
    "seq > 11000",
    "f > 99.5",
    "f < 0.5",
    "f IS NULL",
    "s = 'k42'",
    "s LIKE 'k12%'",
    "s IN ('k1', 'k4999')",
    "s IS NULL",
    "cat = 3",
    "cat IN (1, 2)",
    "cat != 4",
    "cat >= 6",
    "array_has(tags, 'apple')",
    "array_has_any(tags, ['fox', 'echo'])",
    "array_has_any(tags, ['zebra'])",
    "tags IS NULL",
};

class IndexScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lancet_index_scan_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<table::Dataset> Make(bool stable) {
    table::WriteParams p;
    p.max_rows_per_file = 3000;
    p.enable_stable_row_ids = stable;
    EXPECT_TRUE(table::WriteDataset(dir_.string(), TestSchema(), {Rows(0, 5000, 1), Rows(5000, 5000, 2)}, p).ok());
    return Open();
  }
  std::unique_ptr<table::Dataset> Open() {
    auto ds = table::Dataset::Open(dir_.string());
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? ds.MoveValue() : nullptr;
  }
  void Index(const std::string& column, ScalarIndexType type, const std::string& name = "") {
    auto ds = Open();
    index::CreateIndexOptions o;
    o.name = name;
    if (type == ScalarIndexType::kZoneMap) o.params["rows_per_zone"] = "1000";
    if (type == ScalarIndexType::kBloomFilter) o.params["number_of_items"] = "1000";
    auto made = index::CreateScalarIndex(*ds, column, type, o);
    ASSERT_TRUE(made.ok()) << column << ": " << made.status().ToString();
  }
  // Every filter gives the same rows with and without the indexes; returns how many
  // filters an index answered (at least in part).
  int CheckAll(const table::Dataset& ds) {
    int used = 0;
    for (const std::string& f : kFilters) {
      ScanExplain explain;
      const std::vector<uint64_t> with = RowIds(ds, f, true, &explain);
      EXPECT_EQ(with, RowIds(ds, f, false)) << f << "\n" << explain.ToString();
      used += !explain.uses.empty();
    }
    return used;
  }
  void IndexEverything() {
    Index("id", ScalarIndexType::kBTree);
    Index("s", ScalarIndexType::kBTree);
    Index("f", ScalarIndexType::kBTree);
    Index("cat", ScalarIndexType::kBitmap);
    Index("tags", ScalarIndexType::kLabelList);
    Index("seq", ScalarIndexType::kZoneMap);
    Index("id", ScalarIndexType::kBloomFilter, "id_bloom");
  }

  fs::path dir_;
};

TEST_F(IndexScanTest, EveryTypeAnswersLikeAFullScan) {
  Make(false);
  IndexEverything();
  auto ds = Open();
  auto listed = ds->ListIndices();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 7u);
  EXPECT_GE(CheckAll(*ds), 20);
  ScanExplain e;
  RowIds(*ds, "id = 77", true, &e);
  ASSERT_EQ(e.uses.size(), 1u);
  EXPECT_EQ(e.uses[0].index, "id_idx");
  EXPECT_EQ(e.uses[0].type, "BTree");
  EXPECT_FALSE(e.rechecked);
  e = ScanExplain{};
  RowIds(*ds, "seq >= 4000 AND seq < 4100", true, &e);
  ASSERT_FALSE(e.uses.empty());
  EXPECT_EQ(e.uses[0].type, "ZoneMap");
  EXPECT_TRUE(e.rechecked);
}

TEST_F(IndexScanTest, AppendDeleteCompactOptimize) {
  Make(false);
  IndexEverything();
  table::WriteParams p;
  p.mode = table::WriteMode::kAppend;
  p.max_rows_per_file = 3000;
  ASSERT_TRUE(table::WriteDataset(dir_.string(), TestSchema(), {Rows(10000, 2500, 3)}, p).ok());
  auto ds = Open();
  ASSERT_TRUE(table::DeleteWhere(*ds, "id % 7 = 0 OR seq BETWEEN 2990 AND 3010").ok());
  ds = Open();
  auto stats = index::DescribeIndices(*ds);
  ASSERT_TRUE(stats.ok());
  for (const index::IndexStats& s : *stats) EXPECT_GT(s.num_unindexed_rows, 0u) << s.name;
  CheckAll(*ds);
  table::CompactionOptions c;
  c.target_rows_per_fragment = 7000;
  ASSERT_TRUE(table::Compact(*ds, c).ok());
  ds = Open();
  CheckAll(*ds);
  auto opt = index::OptimizeIndices(*ds);
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  EXPECT_EQ(opt->rebuilt.size(), 7u);
  ds = Open();
  stats = index::DescribeIndices(*ds);
  ASSERT_TRUE(stats.ok());
  for (const index::IndexStats& s : *stats) EXPECT_EQ(s.num_unindexed_rows, 0u) << s.name;
  CheckAll(*ds);
  ScanExplain e;
  RowIds(*ds, "id = 78", true, &e);
  EXPECT_TRUE(e.scanned_fragments.empty());
}

TEST_F(IndexScanTest, StableRowIdsSurviveCompaction) {
  Make(true);
  IndexEverything();
  auto ds = Open();
  ASSERT_TRUE(table::DeleteWhere(*ds, "id % 5 = 1").ok());
  ds = Open();
  CheckAll(*ds);
  ASSERT_TRUE(table::Compact(*ds, table::CompactionOptions{}).ok());
  ds = Open();
  CheckAll(*ds);
  // Row ids do not change, so the exact indexes still cover the compacted fragments;
  // zone maps name physical offsets, so theirs are scanned until an optimize.
  ScanExplain e;
  RowIds(*ds, "id = 78", true, &e);
  EXPECT_FALSE(e.uses.empty());
  EXPECT_TRUE(e.scanned_fragments.empty());
  e = ScanExplain{};
  RowIds(*ds, "seq = 9123", true, &e);
  EXPECT_TRUE(e.uses.empty());
}

TEST_F(IndexScanTest, DropAndReplace) {
  Make(false);
  Index("id", ScalarIndexType::kBTree);
  Index("id", ScalarIndexType::kBTree);  // replaces
  auto ds = Open();
  ASSERT_EQ(ds->ListIndices()->size(), 1u);
  index::CreateIndexOptions no;
  no.replace = false;
  EXPECT_EQ(index::CreateScalarIndex(*ds, "id", ScalarIndexType::kBTree, no).status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(index::CreateScalarIndex(*ds, "nope", ScalarIndexType::kBTree).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(index::CreateScalarIndex(*ds, "tags", ScalarIndexType::kBTree).status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(index::DropIndex(*ds, "id_idx").ok());
  ds = Open();
  EXPECT_TRUE(ds->ListIndices()->empty());
  EXPECT_EQ(index::DropIndex(*ds, "id_idx").status().code(), StatusCode::kNotFound);
}

TEST_F(IndexScanTest, DamagedIndexFileIsAnErrorNotAWrongAnswer) {
  Make(false);
  Index("id", ScalarIndexType::kBTree);
  auto ds = Open();
  auto listed = ds->ListIndices();
  ASSERT_TRUE(listed.ok() && listed->size() == 1);
  const fs::path seg = dir_ / "_indices" / (*listed)[0].uuid;
  for (const auto& entry : fs::directory_iterator(seg)) {
    if (entry.path().filename() != "page_data.lance") continue;
    fs::resize_file(entry.path(), fs::file_size(entry.path()) / 2);
  }
  table::ScanOptions o;
  o.filter = "id = 77";
  auto reader = NewScan(*ds, o);
  Status st = reader.ok() ? ReadAllBatches(**reader).status() : reader.status();
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("page_data.lance"), std::string::npos) << st.ToString();
  // A missing file (of a rebuilt segment) is an error naming it.
  Index("id", ScalarIndexType::kBTree);
  auto again = Open();
  auto rebuilt = again->ListIndices();
  ASSERT_TRUE(rebuilt.ok() && rebuilt->size() == 1);
  fs::remove(dir_ / "_indices" / (*rebuilt)[0].uuid / "page_lookup.lance");
  reader = NewScan(*again, o);
  st = reader.ok() ? ReadAllBatches(**reader).status() : reader.status();
  EXPECT_EQ(st.code(), StatusCode::kNotFound) << st.ToString();
  EXPECT_NE(st.message().find("page_lookup.lance"), std::string::npos) << st.ToString();
}

// Flipped bits of the same size: an error or the right rows, never a crash.
TEST_F(IndexScanTest, BitFlippedIndexFilesNeverCrash) {
  Make(false);
  Index("id", ScalarIndexType::kBTree);
  Index("cat", ScalarIndexType::kBitmap);
  auto ds = Open();
  const std::vector<uint64_t> want_id = RowIds(*ds, "id = 77", false), want_cat = RowIds(*ds, "cat = 3", false);
  std::mt19937 rng(7);
  auto listed = ds->ListIndices();
  ASSERT_TRUE(listed.ok());
  for (const table::IndexMetadata& m : *listed) {
    for (const table::IndexFileInfo& f : m.files) {
      const fs::path path = dir_ / "_indices" / m.uuid / f.path;
      std::string bytes(f.size_bytes, '\0');
      {
        std::ifstream in(path, std::ios::binary);
        in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      }
      for (int flip = 0; flip < 40; ++flip) {
        std::string damaged = bytes;
        const size_t at = rng() % damaged.size();
        damaged[at] = static_cast<char>(damaged[at] ^ (1 << (rng() % 8)));
        {
          std::ofstream out(path, std::ios::binary | std::ios::trunc);
          out.write(damaged.data(), static_cast<std::streamsize>(damaged.size()));
        }
        ClearIndexCache();
        auto fresh = Open();
        for (const char* q : {"id = 77", "cat = 3"}) {
          table::ScanOptions o;
          o.filter = q;
          o.columns = {"id"};
          (void)[&] {
            auto reader = NewScan(*fresh, o);
            if (!reader.ok()) return;
            (void)ReadAllBatches(**reader);
          }
          ();
        }
      }
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
  }
  ClearIndexCache();
  auto restored = Open();
  EXPECT_EQ(RowIds(*restored, "id = 77", true), want_id);
  EXPECT_EQ(RowIds(*restored, "cat = 3", true), want_cat);
}

}  // namespace
}  // namespace lancet::scan
