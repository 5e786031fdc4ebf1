#include "index/xxhash64.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace lancet::index {
namespace {

uint64_t Hash(std::string_view s, uint64_t seed = 0) {
  return XxHash64(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()), seed);
}

// Expected values from python3-xxhash (xxh64_intdigest); "abc" also from xxhsum -H64.
TEST(XxHash64Test, MatchesTheReferenceImplementation) {
  EXPECT_EQ(Hash(""), 0xef46db3751d8e999ULL);
  EXPECT_EQ(Hash("a"), 0xd24ec4f1a98c6e5bULL);
  EXPECT_EQ(Hash("abc"), 0x44bc2cf5ad770999ULL);
  EXPECT_EQ(Hash("hello"), 0x26c7827d889f6da3ULL);
  // Exactly one 32-byte stripe, then stripes plus an 8/4/1-byte tail.
  EXPECT_EQ(Hash("0123456789abcdef0123456789abcdef"), 0x642a94958e71e6c5ULL);
  std::vector<uint8_t> bytes(100);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(XxHash64(bytes), 0x6ac1e58032166597ULL);
  EXPECT_EQ(XxHash64(bytes, 12345), 0x28ba1ae2de4de27ULL);
  EXPECT_EQ(Hash("abc", 0x9E3779B185EBCA87ULL), 0xa7cb2aac405e36c7ULL);
}

}  // namespace
}  // namespace lancet::index
