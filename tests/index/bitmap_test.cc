// Bitmap segments: every query kind against a full scan for ints, floats with NaN,
// strings and bools over several fragments; the file's layout; damaged files.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "index/row_addr_map.h"
#include "index_test_util.h"
#include "lancet/format/file_reader.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::index {
namespace {

constexpr ScalarIndexType kBitmap = ScalarIndexType::kBitmap;

Array IntColumn(int64_t n) {
  std::vector<int64_t> v;
  std::vector<bool> valid;
  for (int64_t i = 0; i < n; ++i) {
    v.push_back((i * 7) % 23 - 5);
    valid.push_back(i % 11 != 3);
  }
  return ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), v, valid).value();
}

TEST(BitmapTest, IntsWithNullsOverFragments) {
  const Array col = IntColumn(10000);
  const auto ids = SpreadIds(col.length);
  auto store = io::NewMemoryStore();
  ASSERT_OK_AND_ASSIGN(auto files, BuildIndex(kBitmap, MakeField("c", col.type), col, ids, store, "idx"));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "bitmap_page_lookup.lance");
  const Array lits = ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {-6, -5, 0, 3, 17, 40}).value();
  EXPECT_GT(CheckQueries(kBitmap, store, "idx", col.type, col, ids, QueriesOver(lits)), 60);

  auto file = format::FileReader::Open(store->OpenRead("idx/bitmap_page_lookup.lance").MoveValue()).MoveValue();
  EXPECT_EQ(file->file_schema().metadata.at("lance:index_stats"), "{\"num_bitmaps\":24}");
  ASSERT_EQ(file->num_rows(), 24u);  // 23 values and the null
  const int c0 = 0, c1 = 1;
  const Array keys = file->ReadRange(file->file_schema().fields[0], {&c0, 1}, 0, 24).value();
  EXPECT_TRUE(keys.IsNull(0));
  for (int64_t i = 2; i < 24; ++i) EXPECT_LT(keys.values<int64_t>()[i - 1], keys.values<int64_t>()[i]);
  const Array bitmaps = file->ReadRange(file->file_schema().fields[1], {&c1, 1}, 0, 24).value();
  const std::string_view nulls = bitmaps.GetView(0);
  ASSERT_OK_AND_ASSIGN(Roaring64Map null_rows,
                       DecodeRowAddrMap({reinterpret_cast<const uint8_t*>(nulls.data()), nulls.size()}, "t"));
  ScalarQuery is_null;
  is_null.kind = ScalarQuery::Kind::kIsNull;
  EXPECT_EQ(ToSet(null_rows), BruteForce(col, ids, is_null));
}

TEST(BitmapTest, FloatsStringsAndBools) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<double> f;
  std::vector<std::optional<std::string>> s;
  std::vector<bool> b, valid;
  for (int i = 0; i < 5000; ++i) {
    const double vals[] = {nan, inf, -inf, -0.0, 0.0, 1.5, 2.5};
    f.push_back(vals[i % 7]);
    s.push_back(i % 9 == 0 ? std::nullopt : std::optional<std::string>("s" + std::to_string(i % 13)));
    b.push_back(i % 3 == 0);
    valid.push_back(i % 5 != 0);
  }
  const auto ids = SpreadIds(5000);
  struct Case {
    Array col, lits;
  };
  std::vector<Case> cases = {
      {ArrayFromVector<double>(MakeType(TypeId::kFloat64), f, valid).value(),
       ArrayFromVector<double>(MakeType(TypeId::kFloat64), {-inf, 0.0, 1.5, 2.0, inf}).value()},
      {StringArray(s), StringArray({"", "s0", "s12", "s3", "s5", "t"})},
      {ArrayFromVector<bool>(MakeType(TypeId::kBool), b, valid).value(),
       ArrayFromVector<bool>(MakeType(TypeId::kBool), {false, true}).value()},
  };
  for (const Case& c : cases) {
    auto store = io::NewMemoryStore();
    ASSERT_OK(BuildIndex(kBitmap, MakeField("c", c.col.type), c.col, ids, store, "idx").status());
    EXPECT_GT(CheckQueries(kBitmap, store, "idx", c.col.type, c.col, ids, QueriesOver(c.lits)), 15)
        << c.col.type.ToString();
  }
}

TEST(BitmapTest, KeysBeyondTheBudgetAreRefused) {
  const Array col = ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), std::vector<int64_t>(100, 0)).value();
  std::vector<int64_t> distinct(1000);
  for (int64_t i = 0; i < 1000; ++i) distinct[static_cast<size_t>(i)] = i;
  const Array many = ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), distinct).value();
  BuildOptions small;
  small.memory_budget = 10000;
  auto store = io::NewMemoryStore();
  EXPECT_OK(BuildIndex(kBitmap, MakeField("c", col.type), col, SpreadIds(100), store, "a", small).status());
  auto refused = BuildIndex(kBitmap, MakeField("c", many.type), many, SpreadIds(1000), store, "b", small);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsInvalidArgument());
}

TEST(BitmapTest, DamagedFilesAreErrors) {
  const Array col = IntColumn(3000);
  const auto ids = SpreadIds(col.length);
  auto store = io::NewMemoryStore();
  ASSERT_OK_AND_ASSIGN(auto files, BuildIndex(kBitmap, MakeField("c", col.type), col, ids, store, "idx"));
  const Array lits = ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {-5, 0, 17}).value();
  auto wrong = OpenScalarIndex(kBitmap, store, "idx", MakeType(TypeId::kInt32));
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(wrong.status().IsCorruption());
  CheckDamage(kBitmap, *store, "idx", files, col.type, QueriesOver(lits));
}

}  // namespace
}  // namespace lancet::index
