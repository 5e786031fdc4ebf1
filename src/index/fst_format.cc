#include "index/fst_format.h"

#include <array>
#include <string_view>

#include "index/crc32c.h"

namespace lancet::index::fst {
namespace {

// The bytes a state byte can name directly, most frequent first; code k names the
// (k-1)th. A fact of the format: it decides which nodes the crate writes one byte shorter.
constexpr std::string_view kCommonInputs = "te/oasripcnw.hlm-du012g=:bf3y5&_4v9678k%?xCDASFIBEjPTzRNM+LOqHG";
static_assert(kCommonInputs.size() == 63);

constexpr std::array<uint8_t, 256> MakeCodes() {
  std::array<uint8_t, 256> codes{};
  for (size_t i = 0; i < kCommonInputs.size(); ++i) {
    codes[static_cast<uint8_t>(kCommonInputs[i])] = static_cast<uint8_t>(i + 1);
  }
  return codes;
}

constexpr auto kCodes = MakeCodes();

}  // namespace

uint8_t CommonInputCode(uint8_t input) { return kCodes[input]; }

uint8_t CommonInputByte(uint8_t code) { return static_cast<uint8_t>(kCommonInputs[code - 1]); }

uint32_t MaskedChecksum(std::span<const uint8_t> data) {
  const uint32_t c = Crc32c(data);
  return ((c >> 15) | (c << 17)) + 0xA282EAD8u;
}

}  // namespace lancet::index::fst
