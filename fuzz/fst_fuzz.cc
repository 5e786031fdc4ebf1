// Fuzzes the FST map reader: the input (after a selector byte) is opened as an `fst` map
// and looked up and walked. Odd selector bytes first rewrite the footer checksum so the
// mutations reach the node decoder. Errors are fine; crashes, hangs and huge allocations
// are bugs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "index/fst.h"
#include "index/fst_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) != 0 && bytes.size() >= 4) {
    const size_t end = bytes.size() - 4;
    const uint32_t sum = lancet::index::fst::MaskedChecksum({reinterpret_cast<const uint8_t*>(bytes.data()), end});
    for (int i = 0; i < 4; ++i) bytes[end + i] = static_cast<char>(sum >> (8 * i));
  }
  auto map = lancet::index::fst::Map::Open(std::move(bytes), "fuzz");
  if (!map.ok()) return 0;
  std::string last;
  size_t keys = 0;
  // Keys seen in the walk are looked up again (hostile bytes may make the two disagree,
  // e.g. through a wide node's index, but neither may crash).
  (void)map->ForEach([&](std::string_view key, uint64_t) {
    (void)map->Get(key);
    last.assign(key);
    return ++keys < 4096;
  });
  for (std::string_view k : {std::string_view(), std::string_view("a"), std::string_view(last)}) (void)map->Get(k);
  return 0;
}
