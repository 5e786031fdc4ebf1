// Shared constants and helpers for the Arrow IPC reader and writer. Private to
// the format layer.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/result.h"

namespace lancet::format::ipc {

// Magic of the IPC file format: "ARROW1", padded to 8 bytes at the start.
inline constexpr char kFileMagic[] = "ARROW1";
inline constexpr uint64_t kFileMagicSize = 6;
// Stream framing: the continuation marker precedes each metadata length.
inline constexpr uint32_t kContinuation = 0xFFFFFFFFu;
inline constexpr uint64_t kAlignment = 8;
// Body compression prefix: int64 uncompressed length, -1 = stored as is.
inline constexpr int64_t kUncompressedMarker = -1;
// MetadataVersion.V5 in Schema.fbs; V4 differs only in union layout, which we
// do not support, so both are read.
inline constexpr int16_t kMetadataV4 = 3;
inline constexpr int16_t kMetadataV5 = 4;
// Nesting limit for types; deeper schemas are treated as hostile.
inline constexpr int kMaxNestingDepth = 64;

// Field slots of the tables we use, in Schema.fbs / Message.fbs / File.fbs
// declaration order (a union takes two slots: type tag then value).
namespace slot {
// table Message
inline constexpr int kMessageVersion = 0, kMessageHeaderType = 1, kMessageHeader = 2, kMessageBodyLength = 3,
                     kMessageCustomMetadata = 4;
// table Footer
inline constexpr int kFooterVersion = 0, kFooterSchema = 1, kFooterDictionaries = 2, kFooterRecordBatches = 3,
                     kFooterCustomMetadata = 4;
// table Schema
inline constexpr int kSchemaEndianness = 0, kSchemaFields = 1, kSchemaCustomMetadata = 2, kSchemaFeatures = 3;
// table Field
inline constexpr int kFieldName = 0, kFieldNullable = 1, kFieldTypeType = 2, kFieldType = 3, kFieldDictionary = 4,
                     kFieldChildren = 5, kFieldCustomMetadata = 6;
// table KeyValue
inline constexpr int kKeyValueKey = 0, kKeyValueValue = 1;
// table DictionaryEncoding
inline constexpr int kDictId = 0, kDictIndexType = 1, kDictIsOrdered = 2, kDictKind = 3;
// table RecordBatch
inline constexpr int kBatchLength = 0, kBatchNodes = 1, kBatchBuffers = 2, kBatchCompression = 3,
                     kBatchVariadicCounts = 4;
// table DictionaryBatch
inline constexpr int kDictBatchId = 0, kDictBatchData = 1, kDictBatchIsDelta = 2;
// table BodyCompression
inline constexpr int kCompressionCodec = 0, kCompressionMethod = 1;
// Type tables.
inline constexpr int kIntBitWidth = 0, kIntIsSigned = 1;
inline constexpr int kFloatPrecision = 0;
inline constexpr int kDecimalPrecision = 0, kDecimalScale = 1, kDecimalBitWidth = 2;
inline constexpr int kDateUnit = 0;
inline constexpr int kTimeUnit = 0, kTimeBitWidth = 1;
inline constexpr int kTimestampUnit = 0, kTimestampTimezone = 1;
inline constexpr int kDurationUnit = 0;
inline constexpr int kFixedSizeBinaryWidth = 0;
inline constexpr int kFixedSizeListSize = 0;
inline constexpr int kMapKeysSorted = 0;
}  // namespace slot

// union MessageHeader.
enum class MessageHeader : uint8_t { kNone = 0, kSchema = 1, kDictionaryBatch = 2, kRecordBatch = 3 };

// union Type tags.
enum class FbType : uint8_t {
  kNone = 0, kNull = 1, kInt = 2, kFloatingPoint = 3, kBinary = 4, kUtf8 = 5, kBool = 6, kDecimal = 7,
  kDate = 8, kTime = 9, kTimestamp = 10, kInterval = 11, kList = 12, kStruct = 13, kUnion = 14,
  kFixedSizeBinary = 15, kFixedSizeList = 16, kMap = 17, kDuration = 18, kLargeBinary = 19,
  kLargeUtf8 = 20, kLargeList = 21,
};

// enum CompressionType.
enum class Codec : int8_t { kLz4Frame = 0, kZstd = 1 };

// struct FieldNode { length: long; null_count: long; }
inline constexpr uint64_t kFieldNodeSize = 16;
// struct Buffer { offset: long; length: long; }
inline constexpr uint64_t kBufferSpecSize = 16;
// struct Block { offset: long; metaDataLength: int; (pad) bodyLength: long; }
inline constexpr uint64_t kBlockSize = 24;

inline uint64_t PaddedTo8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

/// Compresses `data` with `codec` (frame formats, no length prefix).
Result<std::vector<uint8_t>> Compress(Codec codec, std::span<const uint8_t> data, int zstd_level);

/// Decompresses `data` which must expand to exactly `expected` bytes. Output
/// grows as data is produced, so memory follows what the input really
/// decodes to rather than what a header claims.
Result<BufferPtr> Decompress(Codec codec, std::span<const uint8_t> data, uint64_t expected);

}  // namespace lancet::format::ipc
