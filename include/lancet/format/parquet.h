// Apache Parquet files in and out (format spec: apache/parquet-format, parquet.thrift and
// Encodings.md): a streaming writer and a streaming reader between Parquet and Lancet's
// Arrow-shaped batches, for `lancet import`/`export` and the Iceberg sink.
//
// Type mapping (both directions): ints and floats (float16 as FLOAT16 logical type), bool,
// utf8/large_utf8 (STRING), binary/large_binary, fixed_size_binary (FIXED_LEN_BYTE_ARRAY),
// decimal128/256 (DECIMAL), date32 (DATE), time32/64 (TIME with unit), timestamp
// (TIMESTAMP with unit; a timezone means isAdjustedToUTC, stored back as "UTC"), duration
// (INT64), list/large_list (3-level LIST), fixed_size_list (a LIST; restored from the
// writer's Arrow schema key), struct (a group), map (3-level MAP), dictionary (written as
// its values). A field's Parquet field_id is its metadata key kParquetFieldIdKey, both ways.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lancet/array.h"
#include "lancet/data_type.h"
#include "lancet/io/object_store.h"
#include "lancet/record_batch_reader.h"
#include "lancet/result.h"

namespace lancet::format {

/// Field metadata key holding a field's Parquet field_id as decimal text (pyarrow's key).
inline constexpr const char* kParquetFieldIdKey = "PARQUET:field_id";

enum class ParquetCompression : uint8_t { kNone, kSnappy, kGzip, kZstd, kLz4Raw };

struct ParquetWriteOptions {
  ParquetCompression compression = ParquetCompression::kSnappy;
  int compression_level = 0;  // 0: the codec's default
  /// A row group ends after this many rows or once its encoded pages pass
  /// row_group_bytes, whichever comes first: memory holds one row group's pages.
  uint64_t row_group_rows = uint64_t{1} << 20;
  uint64_t row_group_bytes = uint64_t{128} << 20;
  /// Target size of one data page before compression.
  uint64_t page_bytes = uint64_t{1} << 20;
  /// Dictionary-encode columns while their dictionary stays small: once a chunk's
  /// dictionary passes page_bytes, the rest of that chunk is PLAIN.
  bool dictionary = true;
  /// Min/max/null_count per column chunk.
  bool statistics = true;
  /// Footer key/value metadata, after the schema's own metadata.
  std::vector<std::pair<std::string, std::string>> key_value_metadata;
};

/// \brief Writes one Parquet file a batch at a time to `sink`. Not thread-safe.
class ParquetWriter {
 public:
  /// Writes the leading magic before returning. InvalidArgument for a type Parquet
  /// cannot hold (see above), naming the field.
  static Result<std::unique_ptr<ParquetWriter>> Open(std::function<Status(std::span<const uint8_t>)> sink,
                                                     const Schema& schema, const ParquetWriteOptions& options = {});
  virtual ~ParquetWriter() = default;
  /// Batches must have the schema given to Open.
  virtual Status Write(const RecordBatch& batch) = 0;
  /// Flushes the last row group and writes the footer.
  virtual Status Finish() = 0;
  /// Bytes passed to the sink so far.
  virtual uint64_t bytes_written() const = 0;
};

struct ParquetReadOptions {
  /// Top-level column names to read (empty: all), in the order given.
  std::vector<std::string> columns;
  uint64_t batch_rows = 8192;
  /// Bound on any one allocation the file's metadata asks for (page sizes, counts):
  /// hostile files fail with Corruption instead of exhausting memory.
  uint64_t max_page_bytes = uint64_t{1} << 30;
};

/// The file's schema as Lancet reads it (field ids in kParquetFieldIdKey, the footer's
/// key/value pairs as schema metadata).
Result<Schema> ReadParquetSchema(const io::RandomAccessFile& file);

/// \brief Streams a Parquet file's rows as batches, reading one column chunk's pages at
/// a time (memory bounded by a row group's pages of the projected columns, not the
/// file). Reads PLAIN, PLAIN_DICTIONARY/RLE_DICTIONARY, RLE/bit-packed levels and
/// booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
/// BYTE_STREAM_SPLIT; data pages v1 and v2; UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW and
/// the legacy LZ4. Corruption (naming the column and what was wrong) for malformed
/// input; NotSupported for valid features it does not model.
Result<std::unique_ptr<RecordBatchReader>> OpenParquetReader(std::shared_ptr<const io::RandomAccessFile> file,
                                                             const ParquetReadOptions& options = {});

}  // namespace lancet::format
