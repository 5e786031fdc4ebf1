// libFuzzer target: the Iceberg sync row map (a zstd frame of varints) over arbitrary
// bytes. Only Corruption and NotSupported may come back; what parses must serialize
// and parse again to the same map.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "catalog/iceberg_rowmap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using lancet::catalog::iceberg::RowMap;
  auto map = RowMap::Parse({data, size});
  if (!map.ok()) {
    if (!map.status().IsCorruption() && !map.status().IsNotSupported()) std::abort();
    return 0;
  }
  const std::string again = map->Serialize();
  auto back = RowMap::Parse({reinterpret_cast<const uint8_t*>(again.data()), again.size()});
  if (!back.ok() || back->files != map->files || back->rows.size() != map->rows.size()) std::abort();
  for (const auto& [id, loc] : map->rows) {
    auto it = back->rows.find(id);
    if (it == back->rows.end() || it->second.file != loc.file || it->second.pos != loc.pos) std::abort();
  }
  return 0;
}
