// Parquet's footer and page headers as plain structs (the subset of parquet.thrift that
// Lancet reads and writes), with the Thrift compact protocol codec for them. The writer
// side (Encode*) lives in parquet_thrift_write.cc, the reader side (Decode*) in
// parquet_thrift_read.cc. Field ids, enum values and defaults are parquet.thrift's
// (apache/parquet-format); optional thrift fields are std::optional here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::format::parquet {

enum class PhysicalType : int32_t {
  kBoolean = 0, kInt32 = 1, kInt64 = 2, kInt96 = 3, kFloat = 4, kDouble = 5,
  kByteArray = 6, kFixedLenByteArray = 7,
};

enum class ConvertedType : int32_t {
  kUtf8 = 0, kMap = 1, kMapKeyValue = 2, kList = 3, kEnum = 4, kDecimal = 5, kDate = 6,
  kTimeMillis = 7, kTimeMicros = 8, kTimestampMillis = 9, kTimestampMicros = 10,
  kUint8 = 11, kUint16 = 12, kUint32 = 13, kUint64 = 14, kInt8 = 15, kInt16 = 16,
  kInt32 = 17, kInt64 = 18, kJson = 19, kBson = 20, kInterval = 21,
};

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class Encoding : int32_t {
  kPlain = 0, kPlainDictionary = 2, kRle = 3, kBitPacked = 4, kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6, kDeltaByteArray = 7, kRleDictionary = 8, kByteStreamSplit = 9,
};

enum class Codec : int32_t {
  kUncompressed = 0, kSnappy = 1, kGzip = 2, kLzo = 3, kBrotli = 4, kLz4 = 5, kZstd = 6, kLz4Raw = 7,
};

enum class PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

enum class TimeUnitKind : uint8_t { kMillis, kMicros, kNanos };

/// The LogicalType union; kind kNone when absent.
struct LogicalType {
  enum class Kind : uint8_t {
    kNone, kString, kMap, kList, kEnum, kDecimal, kDate, kTime, kTimestamp, kInteger,
    kUnknown, kJson, kBson, kUuid, kFloat16,
  };
  Kind kind = Kind::kNone;
  int32_t scale = 0, precision = 0;  // kDecimal
  bool is_adjusted_to_utc = false;   // kTime, kTimestamp
  TimeUnitKind unit = TimeUnitKind::kMillis;
  int8_t bit_width = 0;              // kInteger
  bool is_signed = true;             // kInteger
};

struct SchemaElement {
  std::optional<PhysicalType> type;  // absent for groups
  std::optional<int32_t> type_length;
  std::optional<Repetition> repetition_type;  // absent for the root
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale, precision;
  std::optional<int32_t> field_id;
  LogicalType logical_type;
};

struct Statistics {
  std::optional<std::string> max, min;  // legacy (signed order)
  std::optional<int64_t> null_count, distinct_count;
  std::optional<std::string> max_value, min_value;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;
  Encoding encoding = Encoding::kPlain;
  int32_t count = 0;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  Codec codec = Codec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::vector<PageEncodingStats> encoding_stats;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
};

struct FileMetaData {
  int32_t version = 2;
  std::vector<SchemaElement> schema;  // depth-first, the root first
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  /// column_orders: one TYPE_ORDER per leaf when written (readers ignore it).
  bool type_defined_order = false;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0, num_nulls = 0, num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0, repetition_levels_byte_length = 0;
  bool is_compressed = true;
  std::optional<Statistics> statistics;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
};

/// Thrift compact encodings (writer side).
std::string EncodeFileMetaData(const FileMetaData& meta);
std::string EncodePageHeader(const PageHeader& header);

/// Thrift compact decodings (reader side). Unknown fields are skipped; nesting, list
/// lengths and string sizes are bounded by `bytes`, so hostile input is Corruption, never
/// a large allocation or deep recursion. DecodePageHeader sets `consumed` to the header's
/// length (the page data follows it).
Result<FileMetaData> DecodeFileMetaData(std::span<const uint8_t> bytes);
Result<PageHeader> DecodePageHeader(std::span<const uint8_t> bytes, size_t* consumed);

}  // namespace lancet::format::parquet
