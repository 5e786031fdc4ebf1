// Writer for the Arrow IPC file and stream formats.
//
// Spec: Arrow columnar format, "Serialization and Interprocess Communication
// (IPC)", metadata version V5.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "lancet/array.h"
#include "lancet/buffer.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::format {

enum class IpcCompression : uint8_t { kNone, kLz4Frame, kZstd };

struct IpcWriteOptions {
  /// Per-buffer body compression. A buffer that would not shrink is stored
  /// uncompressed behind a -1 length prefix, as the spec allows.
  IpcCompression compression = IpcCompression::kNone;
  int zstd_level = 1;
};

/// \brief Writes an Arrow IPC stream or file a batch at a time: each message goes to
/// `sink` as soon as it is encoded, so memory holds one batch's encoding (plus, for a
/// file, the footer's block list). The checks and layout are those of WriteIpcFile and
/// WriteIpcStream below; a sink error is returned as is. Not thread-safe.
class IpcBatchWriter {
 public:
  /// Writes the schema message (and the file magic) before returning.
  static Result<std::unique_ptr<IpcBatchWriter>> Open(std::function<Status(std::span<const uint8_t>)> sink,
                                                      const Schema& schema, const IpcWriteOptions& options = {},
                                                      bool as_file = false);
  virtual ~IpcBatchWriter() = default;
  virtual Status Write(const RecordBatch& batch) = 0;
  /// Ends the output: the footer of a file, the end-of-stream marker of a stream.
  virtual Status Finish() = 0;
};

/// \brief Encodes `batches` as an Arrow IPC file (magic, stream, footer).
///
/// REQUIRES-like checks (InvalidArgument on violation): every batch has the
/// schema's column count and types, columns have batch.num_rows rows, arrays
/// have offset 0. Buffers are written 8-byte aligned and padded.
///
/// Dictionary columns (type kDictionary) get one dictionary id per dictionary
/// field, in schema pre-order (then the fields inside dictionary value types).
/// The file format forbids replacing a dictionary, so every batch must carry
/// the same dictionary (same object or equal values) for a given field;
/// otherwise NotSupported. Zero batches produce a valid file holding only the
/// schema. Thread-safe: no shared state.
Result<BufferPtr> WriteIpcFile(const Schema& schema, const std::vector<RecordBatch>& batches,
                               const IpcWriteOptions& options = {});

/// \brief Encodes `batches` as an Arrow IPC stream (continuation framing, end
/// marker). A changed dictionary is written as a replacement dictionary batch
/// before the record batch that uses it. Otherwise as WriteIpcFile.
Result<BufferPtr> WriteIpcStream(const Schema& schema, const std::vector<RecordBatch>& batches,
                                 const IpcWriteOptions& options = {});

}  // namespace lancet::format
