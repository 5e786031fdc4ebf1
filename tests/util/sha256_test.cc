#include "util/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lancet {
namespace {

// Examples from FIPS 180-2 appendix B and the NIST CAVP short/long message sets.
TEST(Sha256Test, FipsVectors) {
  EXPECT_EQ(Sha256Hex(std::string_view("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex(std::string_view("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string_view("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                                       "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256Test, MillionAs) {
  Sha256 h;
  std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) h.Update(chunk);
  EXPECT_EQ(h.FinishHex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Lengths around the padding boundary: 55 bytes fit the length in the last block, 56 need another.
TEST(Sha256Test, PaddingBoundaries) {
  const std::pair<size_t, const char*> cases[] = {
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
  };
  for (const auto& [n, hex] : cases) EXPECT_EQ(Sha256Hex(std::string(n, 'x')), hex) << n;
}

TEST(Sha256Test, IncrementalMatchesOneShot) {
  std::vector<uint8_t> data(300);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 37 + 11);
  const std::string expected = Sha256Hex(data);
  for (size_t split = 0; split <= data.size(); ++split) {
    Sha256 h;
    h.Update(std::span<const uint8_t>(data).first(split));
    h.Update(std::span<const uint8_t>(data).subspan(split));
    EXPECT_EQ(h.FinishHex(), expected) << split;
  }
  // Byte-at-a-time feeding, then reuse after Reset().
  Sha256 h;
  for (int round = 0; round < 2; ++round) {
    for (uint8_t b : data) h.Update(std::span<const uint8_t>(&b, 1));
    EXPECT_EQ(h.FinishHex(), expected);
    h.Reset();
  }
}

TEST(Sha256Test, Hex) {
  const uint8_t bytes[] = {0x00, 0x0f, 0xa5, 0xff};
  EXPECT_EQ(ToHex(bytes), "000fa5ff");
  EXPECT_EQ(ToHex({}), "");
}

}  // namespace
}  // namespace lancet
