// libFuzzer target: the Parquet reader over arbitrary bytes: the footer and page header
// decoders on their own, then the file opened and drained a batch at a time the way
// `lancet import` reads it, with small limits so hostile sizes fail fast. Any outcome but
// a crash, sanitizer report, hang or runaway allocation is fine; what the reader accepts
// must pass Array::Validate.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "format/parquet_metadata.h"
#include "lancet/format/parquet.h"
#include "lancet/io/object_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  (void)lancet::format::parquet::DecodeFileMetaData(bytes);
  size_t consumed = 0;
  (void)lancet::format::parquet::DecodePageHeader(bytes, &consumed);
  auto store = lancet::io::NewMemoryStore();
  if (!store->Put("/f.parquet", bytes).ok()) return 0;
  auto file = store->OpenRead("/f.parquet");
  if (!file.ok()) return 0;
  std::shared_ptr<const lancet::io::RandomAccessFile> shared(std::move(*file));
  (void)lancet::format::ReadParquetSchema(*shared);
  lancet::format::ParquetReadOptions options;
  options.batch_rows = 7;
  // Keeps a row group's decoded levels and values (4x this) within libFuzzer's RSS limit.
  options.max_page_bytes = 4 << 20;
  auto reader = lancet::format::OpenParquetReader(shared, options);
  if (!reader.ok()) return 0;
  for (int batches = 0; batches < 1000; ++batches) {
    auto next = (*reader)->Next();
    if (!next.ok() || !*next) break;
    for (const auto& column : (*next)->columns) {
      if (!column.Validate().ok()) std::abort();
    }
  }
  return 0;
}
