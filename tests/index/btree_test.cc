// BTree segments: every query kind against a full scan over several pages and
// fragments, nulls, NaN and strings; the lookup's layout; a spilled build equals an
// in-memory one; damaged files are errors, not crashes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "index/btree.h"
#include "index/external_sort.h"
#include "index/value_order.h"
#include "index_test_util.h"
#include "lancet/format/file_reader.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::index {
namespace {

constexpr ScalarIndexType kBTree = ScalarIndexType::kBTree;

// 10000 shuffled ints, the first 500 rows null: three pages, the first starting with nulls.
Array IntColumn() {
  std::vector<int32_t> v(10000);
  std::vector<bool> valid(v.size(), true);
  std::mt19937 rng(1);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(rng() % 4000) - 2000;
  for (size_t i = 0; i < 500; ++i) valid[(i * 7919) % v.size()] = false;
  return ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), v, valid).value();
}

Array IntLiterals() {
  return ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {-2001, -2000, -1, 0, 7, 1999, 2500}).value();
}

std::unique_ptr<format::FileReader> OpenFile(io::ObjectStore& store, const std::string& path) {
  auto file = store.OpenRead(path);
  EXPECT_TRUE(file.ok());
  auto r = format::FileReader::Open(std::shared_ptr<io::RandomAccessFile>(file.MoveValue()));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.MoveValue();
}

Array Column(const format::FileReader& f, int i) {
  const int c = i;
  return f.ReadRange(f.file_schema().fields[i], {&c, 1}, 0, f.num_rows()).value();
}

TEST(BTreeTest, IntsWithNullsOverPagesAndFragments) {
  auto store = io::NewMemoryStore();
  const Array col = IntColumn();
  const auto ids = SpreadIds(col.length);
  const Field field = MakeField("id", col.type);
  ASSERT_OK_AND_ASSIGN(auto files, BuildIndex(kBTree, field, col, ids, store, "idx"));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "page_data.lance");
  EXPECT_EQ(files[1].path, "page_lookup.lance");
  for (const auto& f : files) EXPECT_EQ(f.size_bytes, ReadAll(*store, "idx/" + f.path).size());
  EXPECT_GT(CheckQueries(kBTree, store, "idx", col.type, col, ids, QueriesOver(IntLiterals())), 80);

  auto lookup = OpenFile(*store, "idx/page_lookup.lance");
  EXPECT_EQ(lookup->file_schema().metadata.at("batch_size"), "4096");
  EXPECT_EQ(lookup->file_schema().metadata.at("range_partitioned"), "false");
  ASSERT_EQ(lookup->num_rows(), 3u);
  const Array mins = Column(*lookup, 0), maxs = Column(*lookup, 1), nulls = Column(*lookup, 2);
  EXPECT_TRUE(mins.IsNull(0));  // the first page starts with the 500 nulls
  EXPECT_EQ(nulls.values<uint32_t>()[0], 500u);
  EXPECT_EQ(nulls.values<uint32_t>()[1], 0u);
  EXPECT_EQ(maxs.values<int32_t>()[2], 1999);
  auto data = OpenFile(*store, "idx/page_data.lance");
  EXPECT_EQ(data->file_schema().fields[0].name, "values");
  EXPECT_TRUE(data->file_schema().fields[0].nullable);
  EXPECT_EQ(data->file_schema().fields[1].name, "ids");
  EXPECT_FALSE(data->file_schema().fields[1].nullable);
}

TEST(BTreeTest, FloatsWithNaNAndInfinities) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<double> v;
  std::vector<bool> valid;
  for (int i = 0; i < 9000; ++i) {
    const double specials[] = {nan, inf, -inf, -0.0, 0.0};
    v.push_back(i % 10 == 0 ? specials[(i / 10) % 5] : static_cast<double>((i * 37) % 1000) / 4);
    valid.push_back(i % 13 != 0);
  }
  const Array col = ArrayFromVector<double>(MakeType(TypeId::kFloat64), v, valid).value();
  const auto ids = SpreadIds(col.length);
  auto store = io::NewMemoryStore();
  ASSERT_OK(BuildIndex(kBTree, MakeField("f", col.type), col, ids, store, "idx").status());
  const Array lits = ArrayFromVector<double>(MakeType(TypeId::kFloat64), {-inf, -1, 0.0, 2.25, 249.75, inf}).value();
  EXPECT_GT(CheckQueries(kBTree, store, "idx", col.type, col, ids, QueriesOver(lits)), 60);

  // The last page ends in NaN, which the scan, not the index, compares against.
  auto lookup = OpenFile(*store, "idx/page_lookup.lance");
  const Array maxs = Column(*lookup, 1);
  EXPECT_TRUE(std::isnan(maxs.values<double>()[maxs.length - 1]));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenScalarIndex(kBTree, store, "idx", col.type));
  ScalarQuery eq_nan;
  eq_nan.values = ArrayFromVector<double>(MakeType(TypeId::kFloat64), {nan}).value();
  EXPECT_FALSE(reader->Supports(eq_nan));
  ScalarQuery above;
  above.kind = ScalarQuery::Kind::kRange;
  above.lower = ScalarQuery::Bound{ArrayFromVector<double>(MakeType(TypeId::kFloat64), {249.0}).value(), false};
  ASSERT_OK_AND_ASSIGN(SearchResult r, reader->Search(above));
  EXPECT_EQ(ToSet(r.rows), BruteForce(col, ids, above));  // +inf and NaN sort above 249
}

TEST(BTreeTest, StringsWithPrefixes) {
  std::vector<std::optional<std::string>> v;
  for (int i = 0; i < 9000; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "k%05d", (i * 7) % 9000);
    v.push_back(i % 17 == 0 ? std::nullopt : std::optional<std::string>(buf));
  }
  v.push_back("");
  v.push_back("k");
  const Array col = StringArray(v);
  const auto ids = SpreadIds(col.length);
  auto store = io::NewMemoryStore();
  ASSERT_OK(BuildIndex(kBTree, MakeField("s", col.type), col, ids, store, "idx").status());
  auto queries = QueriesOver(StringArray({"", "a", "k", "k00000", "k04095", "k04096", "k08999", "z"}));
  for (const char* prefix : {"", "k", "k0", "k04", "k0409", "k08999", "k1", "a", "z"}) {
    ScalarQuery q;
    q.kind = ScalarQuery::Kind::kPrefix;
    q.prefix = prefix;
    queries.push_back(q);
  }
  EXPECT_GT(CheckQueries(kBTree, store, "idx", col.type, col, ids, queries), 100);
  // Spilled: variable-width values go through runs and the merge.
  BuildOptions tiny;
  tiny.memory_budget = 30000;
  auto spilled = io::NewMemoryStore();
  ASSERT_OK_AND_ASSIGN(auto builder, MakeScalarIndexBuilder(kBTree, MakeField("s", col.type), spilled, "idx", tiny));
  for (int64_t b = 0; b < col.length; b += 500) {
    const int64_t n = std::min<int64_t>(500, col.length - b);
    ASSERT_OK(builder->Add(ArraySlice(col, b, n), std::span<const uint64_t>(ids.data() + b, static_cast<size_t>(n))));
  }
  ASSERT_OK(builder->Finish().status());
  EXPECT_GT(CheckQueries(kBTree, spilled, "idx", col.type, col, ids, queries), 100);
}

TEST(BTreeTest, SmallerBatchSizeParam) {
  const Array col = IntColumn();
  const auto ids = SpreadIds(col.length);
  auto store = io::NewMemoryStore();
  BuildOptions opts;
  opts.params["batch_size"] = "1000";
  ASSERT_OK(BuildIndex(kBTree, MakeField("id", col.type), col, ids, store, "idx", opts).status());
  EXPECT_EQ(OpenFile(*store, "idx/page_lookup.lance")->num_rows(), 10u);
  EXPECT_GT(CheckQueries(kBTree, store, "idx", col.type, col, ids, QueriesOver(IntLiterals())), 80);
  // 100 pages: broad ranges are read in several slices of pages.
  opts.params["batch_size"] = "100";
  auto small = io::NewMemoryStore();
  ASSERT_OK(BuildIndex(kBTree, MakeField("id", col.type), col, ids, small, "idx", opts).status());
  EXPECT_GT(CheckQueries(kBTree, small, "idx", col.type, col, ids, QueriesOver(IntLiterals())), 80);
  opts.params["batch_size"] = "0";
  EXPECT_FALSE(MakeScalarIndexBuilder(kBTree, MakeField("id", col.type), store, "x", opts).ok());
  opts.params = {{"bogus", "1"}};
  EXPECT_FALSE(MakeScalarIndexBuilder(kBTree, MakeField("id", col.type), store, "x", opts).ok());
}

TEST(BTreeTest, SpilledBuildEqualsInMemoryBuild) {
  const Array col = IntColumn();
  const auto ids = SpreadIds(col.length);
  auto mem = io::NewMemoryStore();
  ASSERT_OK_AND_ASSIGN(auto files, BuildIndex(kBTree, MakeField("id", col.type), col, ids, mem, "idx"));
  BuildOptions tiny;
  tiny.memory_budget = 4096;  // ~340 pairs a run: about 30 runs
  auto spilled = io::NewMemoryStore();
  ASSERT_OK(BuildIndex(kBTree, MakeField("id", col.type), col, ids, spilled, "idx", tiny).status());
  // The same rows in the same order (null slots' hidden bytes may differ).
  for (const auto& f : files) {
    auto a = OpenFile(*mem, "idx/" + f.path), b = OpenFile(*spilled, "idx/" + f.path);
    EXPECT_EQ(a->file_schema().ToString(), b->file_schema().ToString());
    ASSERT_EQ(a->num_rows(), b->num_rows());
    for (int c = 0; c < static_cast<int>(a->file_schema().fields.size()); ++c) {
      EXPECT_TRUE(ArraysEqual(Column(*a, c), Column(*b, c))) << f.path << " column " << c;
    }
  }
}

TEST(BTreeTest, SorterSpillsManyRunsAndMergesThemInOrder) {
  const Array col = IntColumn();
  const auto ids = SpreadIds(col.length);
  ExternalSorter sorter(col.type, 2000, "");
  for (int64_t b = 0; b < col.length; b += 100) {
    ASSERT_OK(sorter.Add(ArraySlice(col, b, 100), std::span<const uint64_t>(ids.data() + b, 100)));
  }
  EXPECT_GT(sorter.num_spilled_runs(), 20u);
  std::vector<Array> chunks;
  std::vector<uint64_t> out_ids;
  ASSERT_OK(sorter.Finish(777, [&](const Array& v, std::span<const uint64_t> i) {
    EXPECT_TRUE(v.length == 777 || chunks.empty() || out_ids.size() + i.size() == ids.size());
    chunks.push_back(v);
    out_ids.insert(out_ids.end(), i.begin(), i.end());
    return Status::OK();
  }));
  ASSERT_OK_AND_ASSIGN(Array sorted, Concatenate(chunks));
  ASSERT_EQ(sorted.length, col.length);
  EXPECT_EQ(sorted.null_count, 500);
  std::map<uint64_t, int64_t> row_of;
  for (size_t i = 0; i < ids.size(); ++i) row_of[ids[i]] = static_cast<int64_t>(i);
  for (int64_t i = 0; i < sorted.length; ++i) {
    if (i > 0) {
      ASSERT_LE(CompareValues(sorted, i - 1, sorted, i), 0);
    }
    // Each id still carries its own value.
    ASSERT_EQ(CompareValues(sorted, i, col, row_of.at(out_ids[static_cast<size_t>(i)])), 0);
  }
}

TEST(BTreeTest, EmptyIndex) {
  auto store = io::NewMemoryStore();
  const Array none = ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {}).value();
  ASSERT_OK(BuildIndex(kBTree, MakeField("id", none.type), none, {}, store, "idx").status());
  EXPECT_GT(CheckQueries(kBTree, store, "idx", none.type, none, {}, QueriesOver(IntLiterals())), 10);
}

TEST(BTreeTest, WrongTypesAndDamagedFilesAreErrors) {
  const Array col = IntColumn();
  const auto ids = SpreadIds(col.length);
  auto store = io::NewMemoryStore();
  ASSERT_OK_AND_ASSIGN(auto files, BuildIndex(kBTree, MakeField("id", col.type), col, ids, store, "idx"));
  auto wrong = OpenScalarIndex(kBTree, store, "idx", MakeType(TypeId::kInt64));
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(wrong.status().IsCorruption()) << wrong.status().ToString();
  EXPECT_FALSE(OpenScalarIndex(kBTree, store, "nowhere", col.type).ok());
  CheckDamage(kBTree, *store, "idx", files, col.type, QueriesOver(IntLiterals()));
}

}  // namespace
}  // namespace lancet::index
