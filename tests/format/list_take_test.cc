// Takes from list pages keep only the rows they slice of each mini-block chunk (the
// levels and values between the first and the last) and skip counting blocks of
// levels before them; every shape of list that a chunk can cut must still read back
// as the same rows of the input.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "format/repdef_writer.h"
#include "format_test_util.h"
#include "lancet/format/file_reader.h"
#include "lancet/format/file_writer.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::format {
namespace {

DataType T(TypeId id) { return MakeType(id); }

class ListTake {
 public:
  explicit ListTake(const Field& field, Array column) : field_(field), column_(std::move(column)) {
    RecordBatch batch;
    batch.schema.fields = {field};
    batch.num_rows = column_.length;
    batch.columns = {column_};
    auto store = io::NewMemoryStore();
    auto writer = FileWriter::Open(store, "f.lance", batch.schema, {});
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    EXPECT_TRUE((*writer)->Write(batch).ok());
    schema_ = (*writer)->schema();
    auto stats = (*writer)->Finish();
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    auto file = store->OpenRead("f.lance");
    EXPECT_TRUE(file.ok());
    auto reader = FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(*file)));
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    reader_ = std::move(*reader);
    cols_ = testing::LeafColumnsByField(schema_)[0];
  }

  // The take of `rows` equals the same rows of the input.
  void Check(const std::vector<uint64_t>& rows, const std::string& what) const {
    auto taken = reader_->Take(schema_.fields[0], cols_, rows);
    ASSERT_TRUE(taken.ok()) << what << ": " << taken.status().ToString();
    std::vector<int64_t> idx(rows.begin(), rows.end());
    auto want = TakeRows(column_, idx);
    ASSERT_TRUE(want.ok());
    EXPECT_TRUE(ArraysEqual(*taken, *want)) << what;
  }

  // Every row alone, every pair of neighbours, and random sets of several sizes.
  void CheckAll() const {
    const uint64_t n = static_cast<uint64_t>(column_.length);
    for (uint64_t r = 0; r < n; ++r) {
      Check({r}, "row " + std::to_string(r));
      if (::testing::Test::HasFailure()) return;
    }
    for (uint64_t r = 0; r + 1 < n; r += 7)
      Check({r, r + 1}, "rows " + std::to_string(r) + "-" + std::to_string(r + 1));
    std::mt19937_64 rng(n);
    for (size_t size : {3, 17, 200}) {
      std::vector<uint64_t> rows;
      for (size_t k = 0; k < size; ++k) rows.push_back(rng() % n);
      Check(rows, std::to_string(size) + " random rows");
    }
  }

 private:
  Field field_;
  Array column_;
  Schema schema_;
  std::unique_ptr<FileReader> reader_;
  std::vector<int> cols_;
};

// list<int32> rows whose lengths follow `length(r)`; rows where `null(r)` are null.
template <typename Len, typename Null>
Array Ints(int rows, Len length, Null null, const Field& field) {
  std::vector<int32_t> items;
  std::vector<int64_t> offsets{0};
  std::vector<bool> valid;
  std::mt19937 rng(static_cast<unsigned>(rows));
  for (int r = 0; r < rows; ++r) {
    valid.push_back(!null(r));
    if (!null(r)) {
      for (int k = 0; k < length(r); ++k) items.push_back(static_cast<int32_t>(rng() % 100000));
    }
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  Array child = *ArrayFromVector(T(TypeId::kInt32), items);
  return *MakeListArray(field.type, offsets, child, valid);
}

TEST(ListTakeTest, ShortListsManyRowsPerChunk) {
  // Hundreds of rows per chunk: a take of one row skips the blocks of levels before it.
  Field f = MakeField("l", ListOf(MakeField("item", T(TypeId::kInt32))), false);
  ListTake t(f, Ints(
                    6000, [](int r) { return r % 5; }, [](int) { return false; }, f));
  t.CheckAll();
}

TEST(ListTakeTest, NullAndEmptyLists) {
  Field f = MakeField("l", ListOf(MakeField("item", T(TypeId::kInt32))));
  ListTake t(f, Ints(
                    5000, [](int r) { return (r * 7) % 4; }, [](int r) { return r % 11 == 3; }, f));
  t.CheckAll();
}

TEST(ListTakeTest, ListsLongerThanAChunk) {
  // Rows of thousands of items span chunks: takes need preambles and trailers.
  Field f = MakeField("l", ListOf(MakeField("item", T(TypeId::kInt32))));
  ListTake t(f, Ints(
                    60, [](int r) { return r % 3 == 0   ? 9000
                                           : r % 3 == 1 ? 0
                                                        : 3; }, [](int r) { return r == 7; }, f));
  t.CheckAll();
}

TEST(ListTakeTest, ListsOfStringsWithNullItems) {
  Field item = MakeField("item", T(TypeId::kUtf8));
  Field f = MakeField("l", ListOf(item));
  std::vector<std::optional<std::string>> items;
  std::vector<int64_t> offsets{0};
  std::vector<bool> valid;
  for (int r = 0; r < 4000; ++r) {
    valid.push_back(r % 13 != 0);
    for (int k = 0; k < r % 6 && r % 13 != 0; ++k) {
      items.push_back(k == 3 ? std::nullopt : std::optional<std::string>("value-" + std::to_string(r * 31 + k)));
    }
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  ListTake t(f, *MakeListArray(f.type, offsets, *MakeBinaryArray(T(TypeId::kUtf8), items), valid));
  t.CheckAll();
}

TEST(ListTakeTest, NestedLists) {
  Field inner = MakeField("inner", ListOf(MakeField("item", T(TypeId::kInt32))));
  Field f = MakeField("l", ListOf(inner));
  Array inner_lists = Ints(
      9000, [](int r) { return r % 4; }, [](int r) { return r % 9 == 4; }, inner);
  std::vector<int64_t> offsets{0};
  std::vector<bool> valid;
  int64_t at = 0;
  for (int r = 0; at < inner_lists.length; ++r) {
    at = std::min<int64_t>(inner_lists.length, at + r % 5);
    offsets.push_back(at);
    valid.push_back(!(r % 5 == 0 && r % 17 == 5));  // null rows hold no items
  }
  ListTake t(f, *MakeListArray(f.type, offsets, inner_lists, valid));
  t.CheckAll();
}

}  // namespace
}  // namespace lancet::format
