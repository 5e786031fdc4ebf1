// The Arrow C Data Interface and C Stream Interface: zero-copy exchange of
// schemas, arrays and record-batch streams with other Arrow implementations.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "lancet/array.h"
#include "lancet/record_batch_reader.h"

// The C structs are defined by the Arrow specification and must stay byte-for-byte
// identical to it; the guards let this header coexist with any other definition.
extern "C" {

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

}  // extern "C"

namespace lancet {

// Export: on success `out` is a live struct the consumer must release exactly once
// (through its release callback). On error `out` is left released (release == nullptr).
// Exported arrays share our Buffers, which stay alive until the consumer releases.
// Release callbacks may run on any thread.

/// Exports `type` as an unnamed, nullable schema node.
Status ExportType(const DataType& type, ArrowSchema* out);
/// Exports a field: name, nullable flag and metadata.
Status ExportField(const Field& field, ArrowSchema* out);
/// Exports a schema as a struct ("+s") whose children are the fields.
Status ExportSchema(const Schema& schema, ArrowSchema* out);
/// Exports `array` without copying its buffers. Validates it first (Corruption).
Status ExportArray(const Array& array, ArrowArray* out);
/// Exports a batch as a non-null struct array; also its schema when `out_schema` is set.
Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out, ArrowSchema* out_schema = nullptr);

// Import: every Import* function consumes its input, whether or not it succeeds:
// afterwards the caller's struct is marked released and must not be used.
// Errors: InvalidArgument for an already released struct or a malformed layout,
// NotSupported for formats Lancet has no type for (unions, views, ...).

/// Imports a schema node as a field (name, type, nullable flag, metadata).
Result<Field> ImportField(ArrowSchema* schema);
/// Imports a schema node's type only.
Result<DataType> ImportType(ArrowSchema* schema);
/// Imports a struct schema node as a Schema (its metadata becomes the schema's).
Result<Schema> ImportSchema(ArrowSchema* schema);

/// \brief Imports an array of `type`, keeping the producer's memory alive (and
/// calling its release exactly once) for as long as any imported Buffer lives.
///
/// Non-zero offsets are kept in Array::offset. The layout is validated against
/// `type` before it is returned.
Result<Array> ImportArray(ArrowArray* array, const DataType& type);
/// Imports a struct array whose fields are `schema`'s as a record batch.
Result<RecordBatch> ImportRecordBatch(ArrowArray* array, const Schema& schema);
/// As above, importing (and consuming) the schema too.
Result<RecordBatch> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema);

/// \brief Exports batches as a stream; `out` owns them until released.
///
/// get_next hands out each batch once, then signals the end. Not thread-safe:
/// the consumer calls the stream from one thread at a time, as the spec requires.
Status ExportBatchStream(Schema schema, std::vector<RecordBatch> batches, ArrowArrayStream* out);
/// \brief Exports `reader` as a stream that pulls one batch per get_next (a scan stays
/// streaming, and its batches' buffers are shared, not copied); `out` owns the reader
/// until released. A reader error becomes get_next's errno (EINVAL, EIO, ENOSYS) and
/// get_last_error's message. Not thread-safe, as above.
Status ExportBatchStream(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out);
/// Drains `stream` (then releases it) into its schema and batches.
Result<std::pair<Schema, std::vector<RecordBatch>>> ImportBatchStream(ArrowArrayStream* stream);

}  // namespace lancet
