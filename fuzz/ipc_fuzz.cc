// libFuzzer target: Arrow IPC file and stream readers over arbitrary bytes.
// Any outcome but a crash, sanitizer report, hang or runaway allocation is fine;
// what the readers accept must pass Array::Validate.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/ipc_reader.h"
#include "lancet/array.h"

namespace {

void CheckBatches(const lancet::Result<lancet::format::IpcData>& r) {
  if (!r.ok()) return;
  for (const auto& batch : r->batches) {
    for (const auto& column : batch.columns) {
      if (!column.Validate().ok()) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lancet::BufferPtr bytes = lancet::Buffer::Copy(std::span<const uint8_t>(data, size));
  lancet::format::IpcReadOptions options;
  // Keeps decompression bombs within libFuzzer's default RSS limit.
  options.max_decompressed_bytes = 64 << 20;
  CheckBatches(lancet::format::ReadIpcFileData(bytes, options));
  CheckBatches(lancet::format::ReadIpcStreamData(bytes, options));
  return 0;
}
