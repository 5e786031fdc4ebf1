// libFuzzer target: the Avro container reader over arbitrary bytes, with small bounds so
// that runaway counts show up as errors, not as slow inputs or huge allocations. The
// only errors allowed are Corruption and NotSupported.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "lancet/format/avro.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace avro = lancet::format::avro;
  avro::ReadOptions options;
  options.max_block_bytes = 1 << 20;
  options.max_values = 1 << 16;
  auto file = avro::ReadFile({data, size}, options);
  if (!file.ok()) {
    if (!file.status().IsCorruption() && !file.status().IsNotSupported()) std::abort();
    return 0;
  }
  if (file->records.size() > options.max_values) std::abort();
  if (!avro::Schema::Parse(file->schema_json).ok()) std::abort();
  return 0;
}
