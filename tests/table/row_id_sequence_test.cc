#include "table/row_id_sequence.h"

#include <gtest/gtest.h>

#include <cstring>

#include "lance_proto/rowids.pb.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

template <typename T>
std::string Pack(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}

Result<RowIdSequence> ParsePb(const lance::table::RowIdSequence& pb) {
  std::string bytes = pb.SerializeAsString();
  return RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, "frag 0");
}

std::vector<uint64_t> All(const RowIdSequence& seq) {
  std::vector<uint64_t> out;
  seq.AppendRange(0, seq.size(), &out);
  return out;
}

// Every id must be found at exactly its position, and Get must agree with AppendRange.
void CheckConsistent(const RowIdSequence& seq, const std::vector<uint64_t>& expected) {
  ASSERT_EQ(seq.size(), expected.size());
  EXPECT_EQ(All(seq), expected);
  for (uint64_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(seq.Get(i), expected[i]) << i;
    std::vector<uint64_t> pos;
    seq.Find(expected[i], &pos);
    ASSERT_FALSE(pos.empty()) << expected[i];
    EXPECT_NE(std::find(pos.begin(), pos.end(), i), pos.end());
  }
  for (uint64_t i = 1; i < expected.size(); ++i) {
    std::vector<uint64_t> part;
    seq.AppendRange(i, expected.size(), &part);
    EXPECT_EQ(part, std::vector<uint64_t>(expected.begin() + i, expected.end()));
  }
}

TEST(RowIdSequence, Empty) {
  lance::table::RowIdSequence pb;
  ASSERT_OK_AND_ASSIGN(auto seq, ParsePb(pb));
  EXPECT_EQ(seq.size(), 0u);
}

TEST(RowIdSequence, AllSegmentKinds) {
  lance::table::RowIdSequence pb;
  std::vector<uint64_t> expected;
  // Range [10, 15).
  auto* r = pb.add_segments()->mutable_range();
  r->set_start(10);
  r->set_end(15);
  for (uint64_t v = 10; v < 15; ++v) expected.push_back(v);
  // An empty range in the middle.
  auto* empty = pb.add_segments()->mutable_range();
  empty->set_start(99);
  empty->set_end(99);
  // Range [100, 110) with holes 101, 105, 109 (u16 offsets from base 100).
  auto* h = pb.add_segments()->mutable_range_with_holes();
  h->set_start(100);
  h->set_end(110);
  h->mutable_holes()->mutable_u16_array()->set_base(100);
  h->mutable_holes()->mutable_u16_array()->set_offsets(Pack<uint16_t>({1, 5, 9}));
  for (uint64_t v : {100, 102, 103, 104, 106, 107, 108}) expected.push_back(v);
  // Range [200, 220) with a bitmap, bit i = byte i/8, bit i%8 (LSB first):
  // byte 0 = 0b00000101 → 200, 202; byte 1 = 0x80 → 215; byte 2 = 0x0F → 216..219.
  auto* b = pb.add_segments()->mutable_range_with_bitmap();
  b->set_start(200);
  b->set_end(220);
  b->set_bitmap(std::string("\x05\x80\x0F", 3));
  for (uint64_t v : {200, 202, 215, 216, 217, 218, 219}) expected.push_back(v);
  // Sorted array, u32 offsets from base 1000.
  auto* s = pb.add_segments()->mutable_sorted_array()->mutable_u32_array();
  s->set_base(1000);
  s->set_offsets(Pack<uint32_t>({0, 7, 70000}));
  for (uint64_t v : {1000, 1007, 71000}) expected.push_back(v);
  // Unsorted array of u64 values.
  auto* a = pb.add_segments()->mutable_array()->mutable_u64_array();
  a->set_values(Pack<uint64_t>({5000000000ull, 3, 4000}));
  for (uint64_t v : {5000000000ull, 3ull, 4000ull}) expected.push_back(v);
  ASSERT_OK_AND_ASSIGN(auto seq, ParsePb(pb));
  CheckConsistent(seq, expected);

  std::vector<uint64_t> pos;
  for (uint64_t missing : {9ull, 15ull, 101ull, 109ull, 201ull, 214ull, 220ull, 1001ull, 4001ull}) {
    pos.clear();
    seq.Find(missing, &pos);
    EXPECT_TRUE(pos.empty()) << missing;
  }
}

TEST(RowIdSequence, BitmapAcrossWords) {
  // 150 ids, every third present: exercises the per-word ranks.
  lance::table::RowIdSequence pb;
  auto* b = pb.add_segments()->mutable_range_with_bitmap();
  b->set_start(7);
  b->set_end(157);
  std::string bits(19, '\0');
  std::vector<uint64_t> expected;
  for (int i = 0; i < 150; i += 3) {
    bits[i / 8] = static_cast<char>(bits[i / 8] | (1 << (i % 8)));
    expected.push_back(7 + i);
  }
  b->set_bitmap(bits);
  ASSERT_OK_AND_ASSIGN(auto seq, ParsePb(pb));
  CheckConsistent(seq, expected);
}

TEST(RowIdSequence, HugeRangeCostsNothing) {
  lance::table::RowIdSequence pb;
  auto* r = pb.add_segments()->mutable_range();
  r->set_start(1);
  r->set_end(1ull << 60);
  ASSERT_OK_AND_ASSIGN(auto seq, ParsePb(pb));
  EXPECT_EQ(seq.size(), (1ull << 60) - 1);
  EXPECT_EQ(seq.Get(41), 42u);
}

TEST(RowIdSequence, Corrupt) {
  auto expect_corrupt = [](const lance::table::RowIdSequence& pb, const char* what) {
    auto r = ParsePb(pb);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_TRUE(r.status().IsCorruption()) << what;
    EXPECT_NE(r.status().message().find("frag 0"), std::string::npos);
  };
  {
    lance::table::RowIdSequence pb;
    pb.add_segments();  // no kind
    expect_corrupt(pb, "no kind");
  }
  {
    lance::table::RowIdSequence pb;
    auto* r = pb.add_segments()->mutable_range();
    r->set_start(10);
    r->set_end(5);
    expect_corrupt(pb, "backwards range");
  }
  {
    lance::table::RowIdSequence pb;
    auto* b = pb.add_segments()->mutable_range_with_bitmap();
    b->set_start(0);
    b->set_end(1000);
    b->set_bitmap("\xff");
    expect_corrupt(pb, "short bitmap");
  }
  {
    lance::table::RowIdSequence pb;
    auto* h = pb.add_segments()->mutable_range_with_holes();
    h->set_start(0);
    h->set_end(10);
    h->mutable_holes()->mutable_u16_array()->set_offsets(Pack<uint16_t>({20}));
    expect_corrupt(pb, "hole outside range");
  }
  {
    lance::table::RowIdSequence pb;
    auto* h = pb.add_segments()->mutable_range_with_holes();
    h->set_start(0);
    h->set_end(10);
    h->mutable_holes()->mutable_u16_array()->set_offsets(Pack<uint16_t>({5, 3}));
    expect_corrupt(pb, "unsorted holes");
  }
  {
    lance::table::RowIdSequence pb;
    pb.add_segments()->mutable_array()->mutable_u32_array()->set_offsets("abc");
    expect_corrupt(pb, "odd offsets");
  }
  {
    lance::table::RowIdSequence pb;
    pb.add_segments()->mutable_sorted_array()->mutable_u16_array()->set_offsets(Pack<uint16_t>({3, 1}));
    expect_corrupt(pb, "unsorted sorted array");
  }
  {
    lance::table::RowIdSequence pb;
    auto* a = pb.add_segments()->mutable_array()->mutable_u32_array();
    a->set_base(~0ull);
    a->set_offsets(Pack<uint32_t>({2}));
    expect_corrupt(pb, "overflow");
  }
  {
    lance::table::RowIdSequence pb;
    pb.add_segments()->mutable_array();  // array without kind
    expect_corrupt(pb, "array kind");
  }
  {
    std::string garbage = "\xff\xff\xff\xff\xff";
    auto r = RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(garbage.data()), garbage.size()}, "frag 0");
    EXPECT_TRUE(r.status().IsCorruption());
  }
  {
    lance::table::RowIdSequence pb;
    for (int i = 0; i < 2; ++i) {
      auto* r = pb.add_segments()->mutable_range();
      r->set_start(0);
      r->set_end(~0ull);
    }
    expect_corrupt(pb, "length overflow");
  }
}

}  // namespace
}  // namespace lancet::table
