// Fuzzes the table layer's manifest path: the input becomes the only manifest of a
// dataset in a memory store, which is then opened, listed and scanned.
#include <cstddef>
#include <cstdint>

#include "lancet/table/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto store = lancet::io::NewMemoryStore();
  (void)store->Put("/ds/_versions/18446744073709551614.manifest", std::span<const uint8_t>(data, size));
  auto ds = lancet::table::Dataset::Open(store, "/ds");
  if (!ds.ok()) return 0;
  (void)(*ds)->ListVersions();
  (void)(*ds)->ListTags();
  lancet::table::ScanOptions opts;
  opts.limit = 1000;
  (void)(*ds)->Scan(opts);
  return 0;
}
