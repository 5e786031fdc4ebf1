// libFuzzer target: Arrow IPC file and stream readers over arbitrary bytes, both the
// whole-buffer calls and the streaming readers pulled a batch at a time (the way
// `lancet import` reads). Any outcome but a crash, sanitizer report, hang or runaway
// allocation is fine; what the readers accept must pass Array::Validate.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/ipc_reader.h"
#include "lancet/array.h"

namespace {

void CheckBatch(const lancet::RecordBatch& batch) {
  for (const auto& column : batch.columns) {
    if (!column.Validate().ok()) std::abort();
  }
}

void CheckBatches(const lancet::Result<lancet::format::IpcData>& r) {
  if (!r.ok()) return;
  for (const auto& batch : r->batches) CheckBatch(batch);
}

// Pulls every batch, dropping each, until the end or the first error.
void Drain(lancet::Result<std::unique_ptr<lancet::RecordBatchReader>> opened) {
  if (!opened.ok()) return;
  while (true) {
    auto next = (*opened)->Next();
    if (!next.ok() || !*next) return;
    CheckBatch(**next);
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
  // The streaming readers limit decompression per message; 16 MiB keeps the sum small.
  options.max_decompressed_bytes = 16 << 20;
  Drain(lancet::format::OpenIpcStreamReader(lancet::io::InputStreamFromBuffer(bytes), options));
  auto store = lancet::io::NewMemoryStore();
  if (store->Put("/f", bytes->span()).ok()) {
    auto file = store->OpenRead("/f");
    if (file.ok()) {
      Drain(lancet::format::OpenIpcFileReader(std::shared_ptr<const lancet::io::RandomAccessFile>(std::move(*file)),
                                              options));
    }
  }
  return 0;
}
