// LabelList segments: array_has_any / array_has_all against a full scan, null and
// empty lists, the null-list global buffer, large_list, damaged files.
#include <gtest/gtest.h>

#include "index/row_addr_map.h"
#include "index_test_util.h"
#include "lancet/format/file_reader.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::index {
namespace {

constexpr ScalarIndexType kLabelList = ScalarIndexType::kLabelList;
const char* kWords[] = {"apple", "banana", "cherry", "delta", "echo", "fox"};

// Row i: NULL every 10th row, empty every 7th, else up to 3 words (repeats allowed).
Array Tags(const DataType& list_type, int64_t n) {
  std::vector<std::optional<std::string>> items;
  std::vector<int64_t> offsets = {0};
  std::vector<bool> valid;
  for (int64_t i = 0; i < n; ++i) {
    valid.push_back(i % 10 != 0);
    if (i % 10 != 0 && i % 7 != 0) {
      for (int64_t k = 0; k < 1 + i % 3; ++k) items.push_back(kWords[(i + i / 3 + k * 5) % 6]);
      if (i % 19 == 0) items.push_back(std::nullopt);  // a null item
    }
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  return MakeListArray(list_type, offsets, StringArray(items), valid).value();
}

std::vector<ScalarQuery> TagQueries() {
  std::vector<ScalarQuery> qs;
  for (auto kind : {ScalarQuery::Kind::kHasAny, ScalarQuery::Kind::kHasAll}) {
    for (const auto& lits : std::vector<std::vector<std::optional<std::string>>>{
             {"apple"}, {"fox"}, {"zebra"}, {"apple", "banana"}, {"cherry", "echo", "fox"}, {"apple", "zebra"}, {}}) {
      ScalarQuery q;
      q.kind = kind;
      q.values = StringArray(lits);
      qs.push_back(q);
    }
  }
  return qs;
}

TEST(LabelListTest, HasAnyAndHasAllOverFragments) {
  for (const DataType& type : {ListOf(MakeField("item", MakeType(TypeId::kUtf8))),
                               LargeListOf(MakeField("item", MakeType(TypeId::kUtf8)))}) {
    const Array col = Tags(type, 6000);
    const auto ids = SpreadIds(col.length);
    auto store = io::NewMemoryStore();
    ASSERT_OK_AND_ASSIGN(auto files, BuildIndex(kLabelList, MakeField("tags", type), col, ids, store, "idx"));
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].path, "bitmap_page_lookup.lance");
    const DataType item = MakeType(TypeId::kUtf8);
    EXPECT_EQ(CheckQueries(kLabelList, store, "idx", item, col, ids, TagQueries()), 13);  // all but has_all([])

    ASSERT_OK_AND_ASSIGN(auto reader, OpenScalarIndex(kLabelList, store, "idx", item));
    ScalarQuery is_null;
    is_null.kind = ScalarQuery::Kind::kIsNull;
    ASSERT_TRUE(reader->Supports(is_null));
    ASSERT_OK_AND_ASSIGN(SearchResult nulls, reader->Search(is_null));
    EXPECT_EQ(ToSet(nulls.rows), BruteForce(col, ids, is_null));
    EXPECT_EQ(nulls.rows.cardinality(), 600u);

    auto file = format::FileReader::Open(store->OpenRead("idx/bitmap_page_lookup.lance").MoveValue()).MoveValue();
    EXPECT_EQ(file->file_schema().metadata.at("lance:label_list_nulls"), "1");
    EXPECT_EQ(file->file_schema().metadata.at("lance:index_stats"),
              "{\"num_bitmaps\":" + std::to_string(file->num_rows()) + "}");
    EXPECT_GE(file->num_rows(), 5u);
    EXPECT_EQ(file->file_schema().fields[0].type, item);
  }
}

TEST(LabelListTest, NoNullListsGiveFourZeroBytes) {
  const DataType type = ListOf(MakeField("item", MakeType(TypeId::kInt32)));
  const Array items = ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3}).value();
  const Array col = MakeListArray(type, {0, 2, 3}, items).value();
  auto store = io::NewMemoryStore();
  ASSERT_OK(BuildIndex(kLabelList, MakeField("t", type), col, {10, 11}, store, "idx").status());
  auto file = format::FileReader::Open(store->OpenRead("idx/bitmap_page_lookup.lance").MoveValue()).MoveValue();
  ASSERT_OK_AND_ASSIGN(BufferPtr nulls, file->ReadGlobalBuffer(1));
  EXPECT_EQ(std::vector<uint8_t>(nulls->data(), nulls->data() + nulls->size()), std::vector<uint8_t>(4, 0));
  ASSERT_OK_AND_ASSIGN(auto head, store->OpenRead("idx/bitmap_page_lookup.lance").MoveValue()->ReadAt(0, 4));
  EXPECT_EQ(std::vector<uint8_t>(head->data(), head->data() + 4), std::vector<uint8_t>(4, 0));
}

TEST(LabelListTest, NotAListIsRefusedAndDamagedFilesAreErrors) {
  auto store = io::NewMemoryStore();
  EXPECT_FALSE(MakeScalarIndexBuilder(kLabelList, MakeField("x", MakeType(TypeId::kInt32)), store, "x", {}).ok());
  const DataType type = ListOf(MakeField("item", MakeType(TypeId::kUtf8)));
  const Array col = Tags(type, 2000);
  ASSERT_OK_AND_ASSIGN(auto files, BuildIndex(kLabelList, MakeField("t", type), col, SpreadIds(2000), store, "idx"));
  auto queries = TagQueries();
  ScalarQuery is_null;
  is_null.kind = ScalarQuery::Kind::kIsNull;
  queries.push_back(is_null);
  CheckDamage(kLabelList, *store, "idx", files, MakeType(TypeId::kUtf8), queries);
}

}  // namespace
}  // namespace lancet::index
