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
  if (!back.ok() || !(*back == *map)) std::abort();
  return 0;
}
