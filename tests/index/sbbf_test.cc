#include "index/sbbf.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "index/xxhash64.h"

namespace lancet::index {
namespace {

uint64_t HashOf(const void* p, size_t n) {
  return XxHash64(std::span<const uint8_t>(static_cast<const uint8_t*>(p), n));
}
uint64_t HashOf(const std::string& s) { return HashOf(s.data(), s.size()); }

std::string Hex(const std::vector<uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) out += {digits[b >> 4], digits[b & 15]};
  return out;
}

// The expected bytes come from a separate Python computation of Parquet's layout
// (python3-xxhash for the hashes, the salts and block choice written out by hand).
TEST(SbbfTest, BitLayoutMatchesAnIndependentComputation) {
  Sbbf two_blocks = Sbbf::Empty(64).MoveValue();
  const int64_t i64 = 300;
  const int32_t i32 = -7;
  two_blocks.Insert(HashOf("lance"));
  two_blocks.Insert(HashOf(""));
  two_blocks.Insert(HashOf(&i64, sizeof i64));
  two_blocks.Insert(HashOf(&i32, sizeof i32));
  EXPECT_EQ(Hex(two_blocks.bytes()),
            "4100000004000400001000020140000020000004000000481000400080000008"
            "0010002001001000000000220040001020400000040040000001002000020040");

  Sbbf ints = Sbbf::Empty(32).MoveValue();
  for (int32_t v : {1, 2, 3}) ints.Insert(HashOf(&v, sizeof v));
  EXPECT_EQ(Hex(ints.bytes()), "240004000000000c004080000502000080000084002040000000500200380000");

  Sbbf floats = Sbbf::Empty(32).MoveValue();
  for (double v : {1.5, -0.0}) floats.Insert(HashOf(&v, sizeof v));
  EXPECT_EQ(Hex(floats.bytes()), "0100000400000500001040000100020001000800820000000000400008000008");
}

TEST(SbbfTest, SizedByThePutzeEstimate) {
  // Values of the reference's formula, recomputed in Python.
  EXPECT_EQ(Sbbf::BytesFor(8192, 0.00057).value(), 32768u);
  EXPECT_EQ(Sbbf::BytesFor(1000, 0.01).value(), 2048u);
  EXPECT_EQ(Sbbf::BytesFor(50, 0.00057).value(), 128u);
  EXPECT_EQ(Sbbf::BytesFor(1, 0.5).value(), 32u);
  EXPECT_EQ(Sbbf::BytesFor(0, 0.1).value(), 32u);
  EXPECT_EQ(Sbbf::BytesFor(100000000, 0.0001).value(), Sbbf::kMaxBytes);
  EXPECT_TRUE(Sbbf::BytesFor(10, 1.0).status().IsInvalidArgument());
  EXPECT_TRUE(Sbbf::BytesFor(10, -0.1).status().IsInvalidArgument());
}

TEST(SbbfTest, NoFalseNegativesAndFewFalsePositives) {
  const uint64_t bytes = Sbbf::BytesFor(2000, 0.01).value();
  Sbbf f = Sbbf::Empty(bytes).MoveValue();
  std::mt19937_64 rng(7);
  std::vector<uint64_t> in(2000);
  for (uint64_t& h : in) f.Insert(h = rng());
  for (uint64_t h : in) ASSERT_TRUE(f.Check(h));
  int false_positives = 0;
  for (int i = 0; i < 20000; ++i) false_positives += f.Check(rng());
  EXPECT_LT(false_positives, 20000 * 0.02);
}

TEST(SbbfTest, LoadsAnyBoundedMultipleOf32) {
  std::vector<uint8_t> bytes(96, 0xff);
  auto f = Sbbf::Load(bytes);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->Check(12345));  // every bit set
  EXPECT_EQ(f->bytes(), bytes);
  for (size_t n : {0, 31, 33, 100}) {
    EXPECT_TRUE(Sbbf::Load(std::vector<uint8_t>(n)).status().IsInvalidArgument()) << n;
  }
  EXPECT_TRUE(Sbbf::Empty(Sbbf::kMaxBytes + 32).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lancet::index
