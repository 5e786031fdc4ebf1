#include "lancet/array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "util/array_builder.h"
#include "util/array_test_util.h"
#include "util/bit_util.h"
#include "util/interleave.h"
#include "util/test_macros.h"

namespace lancet {
namespace {

using testing::SampleArrays;
using testing::Slice;

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> v(static_cast<size_t>(end - begin));
  std::iota(v.begin(), v.end(), begin);
  return v;
}

TEST(BitUtilTest, CountSetBitsMatchesNaive) {
  std::vector<uint8_t> bits(40);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint8_t>(i * 37 + 11);
  for (int64_t off : {0, 1, 7, 8, 13}) {
    for (int64_t len : {0, 1, 5, 64, 65, 200, 300 - 13}) {
      int64_t naive = 0;
      for (int64_t i = off; i < off + len; ++i) naive += bit_util::GetBit(bits.data(), i);
      EXPECT_EQ(bit_util::CountSetBits(bits.data(), off, len), naive) << off << " " << len;
    }
  }
}

TEST(BitUtilTest, BuilderAndCopy) {
  bit_util::BitmapBuilder b;
  for (int i = 0; i < 20; ++i) b.Append(i % 3 == 0);
  b.AppendN(false, 5);
  EXPECT_EQ(b.length(), 25);
  EXPECT_EQ(b.false_count(), 25 - 7);
  auto buf = b.Finish();
  ASSERT_EQ(buf->size(), 4u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(bit_util::GetBit(buf->data(), i), i % 3 == 0);
  std::vector<uint8_t> dst(4, 0xff);
  bit_util::CopyBits(buf->data(), 1, 19, dst.data(), 3);
  for (int i = 0; i < 19; ++i) EXPECT_EQ(bit_util::GetBit(dst.data(), 3 + i), (i + 1) % 3 == 0);
  EXPECT_TRUE(bit_util::GetBit(dst.data(), 2));  // untouched
  EXPECT_EQ(bit_util::BytesForBits(0), 0);
  EXPECT_EQ(bit_util::BytesForBits(9), 2);
}

// Runs and bit ranges append a byte at a time; the result must equal appending the
// same bits one by one, at every alignment of builder and source.
TEST(BitUtilTest, BuilderRunsEqualSingleBits) {
  std::vector<uint8_t> src(40);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + 11);
  for (int lead : {0, 1, 3, 8, 13}) {
    for (int64_t off : {0, 1, 5, 8, 17}) {
      for (int64_t len : {0, 1, 7, 8, 9, 63, 64, 65, 200}) {
        bit_util::BitmapBuilder fast, slow;
        for (int i = 0; i < lead; ++i) fast.Append(i % 2 == 0), slow.Append(i % 2 == 0);
        fast.AppendBits(src.data(), off, len);
        for (int64_t i = 0; i < len; ++i) slow.Append(bit_util::GetBit(src.data(), off + i));
        fast.AppendN(false, len / 3);
        fast.AppendN(true, len / 2);
        for (int64_t i = 0; i < len / 3; ++i) slow.Append(false);
        for (int64_t i = 0; i < len / 2; ++i) slow.Append(true);
        ASSERT_EQ(fast.length(), slow.length());
        ASSERT_EQ(fast.false_count(), slow.false_count()) << lead << " " << off << " " << len;
        const int64_t bits = slow.length();
        auto a = fast.Finish(), b = slow.Finish();
        ASSERT_EQ(a->size(), b->size());
        for (int64_t i = 0; i < bits; ++i) {
          ASSERT_EQ(bit_util::GetBit(a->data(), i), bit_util::GetBit(b->data(), i)) << lead << " " << off << " " << len;
        }
      }
    }
  }
}

TEST(ArrayTest, SamplesValidateAndEqualThemselves) {
  for (const auto& [name, a] : SampleArrays()) {
    SCOPED_TRACE(name);
    EXPECT_OK(a.Validate());
    EXPECT_TRUE(ArraysEqual(a, a));
  }
}

TEST(ArrayTest, ConcatenateAndTakeRoundTrip) {
  for (const auto& [name, a] : SampleArrays()) {
    SCOPED_TRACE(name);
    const int64_t n = a.length;
    ASSERT_OK_AND_ASSIGN(Array c, Concatenate({a, a}));
    ASSERT_OK(c.Validate());
    EXPECT_EQ(c.length, 2 * n);
    EXPECT_EQ(c.null_count, 2 * a.null_count);
    ASSERT_OK_AND_ASSIGN(Array second, TakeRows(c, Range(n, 2 * n)));
    ASSERT_OK(second.Validate());
    EXPECT_TRUE(ArraysEqual(second, a));

    std::vector<int64_t> reversed = Range(0, n);
    std::reverse(reversed.begin(), reversed.end());
    ASSERT_OK_AND_ASSIGN(Array rev, TakeRows(a, reversed));
    ASSERT_OK(rev.Validate());
    if (n > 1 && a.null_count != n) {
      EXPECT_FALSE(ArraysEqual(rev, a)) << "samples are not palindromes";
    }
    ASSERT_OK_AND_ASSIGN(Array back, TakeRows(rev, reversed));
    EXPECT_TRUE(ArraysEqual(back, a));

    ASSERT_OK_AND_ASSIGN(Array repeated, TakeRows(a, {1, 1, 0, 1}));
    ASSERT_OK(repeated.Validate());
    EXPECT_EQ(repeated.length, 4);

    ASSERT_OK_AND_ASSIGN(Array none, TakeRows(a, {}));
    ASSERT_OK(none.Validate());
    EXPECT_EQ(none.length, 0);

    EXPECT_EQ(TakeRows(a, {n}).status().code(), StatusCode::kOutOfRange);
    EXPECT_EQ(TakeRows(a, {-1}).status().code(), StatusCode::kOutOfRange);
  }
}

TEST(ArrayTest, OffsetsAreRespected) {
  for (const auto& [name, a] : SampleArrays()) {
    SCOPED_TRACE(name);
    const int64_t n = a.length;
    Array s = Slice(a, 1, n - 2);
    ASSERT_OK(s.Validate());
    ASSERT_OK_AND_ASSIGN(Array taken, TakeRows(a, Range(1, n - 1)));
    EXPECT_TRUE(ArraysEqual(s, taken));
    EXPECT_TRUE(ArraysEqual(taken, s));
    ASSERT_OK_AND_ASSIGN(Array flat, Concatenate({s}));
    EXPECT_EQ(flat.offset, 0);
    ASSERT_OK(flat.Validate());
    EXPECT_TRUE(ArraysEqual(flat, s));
    ASSERT_OK_AND_ASSIGN(Array two, Concatenate({s, Slice(a, 0, 1)}));
    ASSERT_OK(two.Validate());
    std::vector<int64_t> idx = Range(1, n - 1);
    idx.push_back(0);
    ASSERT_OK_AND_ASSIGN(Array expected, TakeRows(a, idx));
    EXPECT_TRUE(ArraysEqual(two, expected));
    ASSERT_OK_AND_ASSIGN(Array from_slice, TakeRows(s, {0, n - 3}));
    ASSERT_OK_AND_ASSIGN(Array from_full, TakeRows(a, {1, n - 2}));
    EXPECT_TRUE(ArraysEqual(from_slice, from_full));
  }
}

TEST(ArrayTest, InterleaveEqualsTakeOfTheConcatenation) {
  // Three parts of one type, one of them a slice (an offset into its buffers), mixed
  // row by row in a scattered order with repeats.
  for (const auto& [name, a] : SampleArrays()) {
    SCOPED_TRACE(name);
    const int64_t n = a.length;
    std::vector<Array> parts = {a, Slice(a, 1, n - 2), a};
    ASSERT_OK_AND_ASSIGN(Array all, Concatenate(parts));
    std::vector<std::pair<uint32_t, int64_t>> rows;
    std::vector<int64_t> idx;
    int64_t base[3] = {0, n, 2 * n - 2};
    for (int64_t k = 0; k < 3 * n; ++k) {
      const uint32_t part = static_cast<uint32_t>((k * 5) % 3);
      const int64_t row = (k * 7 + 3) % parts[part].length;
      rows.emplace_back(part, row);
      idx.push_back(base[part] + row);
    }
    ASSERT_OK_AND_ASSIGN(Array got, InterleaveRows(parts, rows));
    ASSERT_OK(got.Validate());
    ASSERT_OK_AND_ASSIGN(Array want, TakeRows(all, idx));
    EXPECT_TRUE(ArraysEqual(got, want));
    EXPECT_EQ(got.null_count, want.null_count);

    std::vector<std::pair<uint32_t, int64_t>> bad = {{3, 0}};
    EXPECT_EQ(InterleaveRows(parts, bad).status().code(), StatusCode::kOutOfRange);
    bad = {{1, n - 2}};
    EXPECT_EQ(InterleaveRows(parts, bad).status().code(), StatusCode::kOutOfRange);
  }
  const auto samples = SampleArrays();
  std::vector<std::pair<uint32_t, int64_t>> first = {{0, 0}};
  EXPECT_EQ(InterleaveRows({samples[0].second, samples[1].second}, first).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(InterleaveRows({}, first).status().code(), StatusCode::kInvalidArgument);
}

TEST(ArrayTest, MakeNullArrayEveryType) {
  for (const auto& [name, a] : SampleArrays()) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(Array nulls, MakeNullArray(a.type, 6));
    ASSERT_OK(nulls.Validate());
    EXPECT_EQ(nulls.length, 6);
    EXPECT_EQ(nulls.null_count, 6);
    for (int64_t i = 0; i < 6; ++i) EXPECT_TRUE(nulls.IsNull(i));
    ASSERT_OK_AND_ASSIGN(Array mixed, Concatenate({a, nulls}));
    ASSERT_OK(mixed.Validate());
    ASSERT_OK_AND_ASSIGN(Array empty, MakeNullArray(a.type, 0));
    ASSERT_OK(empty.Validate());
  }
}

TEST(ArrayTest, MakeNullArrayLayouts) {
  DataType list = ListOf(MakeField("item", MakeType(TypeId::kInt32)));
  ASSERT_OK_AND_ASSIGN(Array l, MakeNullArray(list, 3));
  ASSERT_EQ(l.buffers.size(), 2u);
  EXPECT_EQ(l.buffers[1]->size(), 16u);
  EXPECT_EQ(l.children[0].length, 0);
  EXPECT_EQ(l.ListRange(2), std::make_pair(int64_t{0}, int64_t{0}));

  DataType fsl = FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat64)), 4);
  ASSERT_OK_AND_ASSIGN(Array f, MakeNullArray(fsl, 3));
  EXPECT_EQ(f.children[0].length, 12);
  EXPECT_GE(f.children[0].buffers[1]->size(), 96u);

  ASSERT_OK_AND_ASSIGN(Array s, MakeNullArray(StructOf({MakeField("a", MakeType(TypeId::kBool))}), 9));
  EXPECT_EQ(s.children[0].length, 9);
  EXPECT_EQ(s.buffers[0]->size(), 2u);

  EXPECT_FALSE(MakeNullArray(MakeType(TypeId::kInt32), -1).ok());
  DataType huge = MakeType(TypeId::kFixedSizeBinary);
  huge.byte_width = std::numeric_limits<int32_t>::max();
  EXPECT_FALSE(MakeNullArray(huge, int64_t{1} << 40).ok());
}

TEST(ArraysEqualTest, FloatsAndHiddenValues) {
  const double nan = std::nan("");
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromVector<double>(MakeType(TypeId::kFloat64), {nan, 1, 7}, {true, true, false}));
  ASSERT_OK_AND_ASSIGN(Array b, ArrayFromVector<double>(MakeType(TypeId::kFloat64), {-nan, 1, 8}, {true, true, false}));
  EXPECT_TRUE(ArraysEqual(a, b));  // NaNs match, values under nulls are ignored
  ASSERT_OK_AND_ASSIGN(Array z, ArrayFromVector<double>(MakeType(TypeId::kFloat64), {0.0}));
  ASSERT_OK_AND_ASSIGN(Array nz, ArrayFromVector<double>(MakeType(TypeId::kFloat64), {-0.0}));
  EXPECT_FALSE(ArraysEqual(z, nz));  // bitwise comparison
  ASSERT_OK_AND_ASSIGN(Array c, ArrayFromVector<double>(MakeType(TypeId::kFloat64), {nan, 1, 7}));
  EXPECT_FALSE(ArraysEqual(a, c));  // validity differs
  ASSERT_OK_AND_ASSIGN(Array i, ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {1, 1, 1}));
  EXPECT_FALSE(ArraysEqual(a, i));  // type differs
}

TEST(ArraysEqualTest, NestedDifferences) {
  Array items = StringArray({"a", "b", "c"});
  Array items2 = StringArray({"a", "x", "c"});
  DataType t = ListOf(MakeField("item", items.type));
  ASSERT_OK_AND_ASSIGN(Array l1, MakeListArray(t, {0, 1, 3}, items));
  ASSERT_OK_AND_ASSIGN(Array l2, MakeListArray(t, {0, 1, 3}, items2));
  ASSERT_OK_AND_ASSIGN(Array l3, MakeListArray(t, {0, 2, 3}, items));
  ASSERT_OK_AND_ASSIGN(Array l4, MakeListArray(t, {0, 1, 3}, items2, {true, false}));
  ASSERT_OK_AND_ASSIGN(Array l5, MakeListArray(t, {0, 1, 3}, items, {true, false}));
  EXPECT_FALSE(ArraysEqual(l1, l2));
  EXPECT_FALSE(ArraysEqual(l1, l3));
  EXPECT_TRUE(ArraysEqual(l4, l5));  // difference hidden under a null list
}

TEST(ArraysEqualTest, DictionariesCompareDecodedValues) {
  ASSERT_OK_AND_ASSIGN(Array i1, ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {0, 1, 0}));
  ASSERT_OK_AND_ASSIGN(Array i2, ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {1, 0, 1}));
  ASSERT_OK_AND_ASSIGN(Array d1, MakeDictionaryArray(i1, StringArray({"x", "y"})));
  ASSERT_OK_AND_ASSIGN(Array d2, MakeDictionaryArray(i2, StringArray({"y", "x"})));
  EXPECT_TRUE(ArraysEqual(d1, d2));
  EXPECT_EQ(Concatenate({d1, d2}).status().code(), StatusCode::kNotSupported);
  ASSERT_OK_AND_ASSIGN(Array same, Concatenate({d1, d1}));
  EXPECT_EQ(same.length, 6);
}

TEST(ConcatenateTest, Errors) {
  EXPECT_TRUE(Concatenate({}).status().IsInvalidArgument());
  ASSERT_OK_AND_ASSIGN(Array a, ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1}));
  EXPECT_TRUE(Concatenate({a, StringArray({"x"})}).status().IsInvalidArgument());
}

// Builds a well-formed array then breaks one thing at a time.
class ValidateTest : public ::testing::Test {
 protected:
  static std::shared_ptr<Buffer> Int32s(std::vector<int32_t> v) {
    return Buffer::Copy(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4));
  }
  static void ExpectCorrupt(const Array& a, const char* why) {
    Status st = a.Validate();
    EXPECT_TRUE(st.IsCorruption()) << why << ": " << st.ToString();
  }
};

TEST_F(ValidateTest, CatchesBrokenLayouts) {
  Array s = StringArray({"ab", std::nullopt, "c"});
  ASSERT_OK(s.Validate());

  Array bad = s;
  bad.buffers[1] = Int32s({0, 2, 1, 3});
  ExpectCorrupt(bad, "offsets decrease");
  bad = s;
  bad.buffers[1] = Int32s({0, 2, 2, 9});
  ExpectCorrupt(bad, "offset past data");
  bad = s;
  bad.buffers[1] = Int32s({-1, 2, 2, 3});
  ExpectCorrupt(bad, "negative offset");
  bad = s;
  bad.buffers[1] = Int32s({0, 2});
  ExpectCorrupt(bad, "short offsets");
  bad = s;
  bad.null_count = 0;
  ExpectCorrupt(bad, "null_count mismatch");
  bad = s;
  bad.buffers.pop_back();
  ExpectCorrupt(bad, "buffer count");
  bad = s;
  bad.length = -1;
  ExpectCorrupt(bad, "negative length");
  bad = s;
  bad.offset = 1;
  ExpectCorrupt(bad, "offset past end");

  ASSERT_OK_AND_ASSIGN(Array ints, ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3}));
  bad = ints;
  bad.length = 4;
  ExpectCorrupt(bad, "values too short");
  bad = ints;
  bad.buffers[1] = nullptr;
  ExpectCorrupt(bad, "values missing");
  bad = ints;
  bad.null_count = 1;
  ExpectCorrupt(bad, "null_count without bitmap");

  ASSERT_OK_AND_ASSIGN(Array st, MakeStructArray({"a"}, 3, {ints}));
  bad = st;
  bad.length = 4;
  ExpectCorrupt(bad, "struct child too short");
  bad = st;
  bad.children[0] = StringArray({"a", "b", "c"});
  ExpectCorrupt(bad, "struct child type");
  bad = st;
  bad.children.clear();
  ExpectCorrupt(bad, "missing child");

  ASSERT_OK_AND_ASSIGN(Array list, MakeListArray(ListOf(MakeField("item", ints.type)), {0, 1, 3}, ints));
  bad = list;
  bad.buffers[1] = Int32s({0, 1, 4});
  ExpectCorrupt(bad, "list offset past child");
  bad = list;
  bad.children[0].buffers[1] = Int32s({1});
  EXPECT_FALSE(bad.Validate().ok()) << "child errors propagate";

  ASSERT_OK_AND_ASSIGN(Array fsl, MakeFixedSizeListArray(FixedSizeListOf(MakeField("item", ints.type), 1), 3, ints));
  bad = fsl;
  bad.type.list_size = 2;
  bad.type.children[0] = MakeField("item", ints.type);
  ExpectCorrupt(bad, "fsl child too short");

  ASSERT_OK_AND_ASSIGN(Array idx, ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {0, 1, 5}, {true, true, false}));
  ASSERT_OK_AND_ASSIGN(Array dict, MakeDictionaryArray(idx, StringArray({"x", "y"})));  // index 5 hidden by null
  ASSERT_OK_AND_ASSIGN(Array idx2, ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {0, 1, 5}));
  EXPECT_FALSE(MakeDictionaryArray(idx2, StringArray({"x", "y"})).ok());
  bad = dict;
  bad.dictionary = nullptr;
  ExpectCorrupt(bad, "missing dictionary");

  Array nulls;
  nulls.type = MakeType(TypeId::kNull);
  nulls.length = 3;
  nulls.null_count = 3;
  ASSERT_OK(nulls.Validate());
  nulls.null_count = 0;
  ExpectCorrupt(nulls, "null type null_count");
}

}  // namespace
}  // namespace lancet

namespace lancet {
namespace {

// Large buffers come back from a bounded cache of freed blocks (so batch-sized scans
// do not page-fault their way through fresh mmaps); reuse must never leak old bytes
// into a zeroed allocation.
TEST(BufferTest, LargeBlocksAreReusedAndZeroedOnRequest) {
  const uint64_t size = uint64_t{3} << 20;
  const uint8_t* first = nullptr;
  {
    auto a = Buffer::AllocateUninitialized(size);
    ASSERT_TRUE(a.ok());
    std::memset((*a)->mutable_data(), 0xAB, size);
    first = (*a)->data();
  }
  auto b = Buffer::Allocate(size - 100);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->data(), first);
  for (uint64_t i = 0; i < (*b)->size(); i += 4096) ASSERT_EQ((*b)->data()[i], 0) << i;
  EXPECT_EQ((*b)->size(), size - 100);
  // Far more than the cache holds, freed at once: later allocations still work.
  std::vector<std::shared_ptr<Buffer>> many;
  for (int i = 0; i < 40; ++i) many.push_back(*Buffer::AllocateUninitialized(uint64_t{5} << 20));
  many.clear();
  auto c = Buffer::Allocate(uint64_t{5} << 20);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->data()[(uint64_t{5} << 20) - 1], 0);
}

}  // namespace
}  // namespace lancet
