// Reader for the Arrow IPC file and stream formats.
//
// Spec: Arrow columnar format, "Serialization and Interprocess Communication
// (IPC)" (Schema.fbs, Message.fbs, File.fbs, metadata version V4/V5).
#pragma once

#include <cstdint>
#include <vector>

#include "lancet/array.h"
#include "lancet/buffer.h"
#include "lancet/data_type.h"
#include "lancet/io/input_stream.h"
#include "lancet/io/object_store.h"
#include "lancet/record_batch_reader.h"
#include "lancet/result.h"

namespace lancet::format {

/// \brief The decoded contents of an Arrow IPC file or stream.
struct IpcData {
  Schema schema;                     // present even when there are no batches
  std::vector<RecordBatch> batches;  // each carries a copy of `schema`
};

/// \brief Limits applied while reading untrusted IPC bytes.
struct IpcReadOptions {
  /// Upper bound on the total bytes produced by body decompression over the
  /// whole read. Compressed bodies can legitimately expand by large factors
  /// (zstd RLE blocks), so this is the knob that bounds memory for hostile
  /// input; callers that fuzz or read untrusted data may lower it.
  uint64_t max_decompressed_bytes = kMaxAllocation;
};

/// \brief Decodes an Arrow IPC file ("ARROW1" magic, footer, blocks).
///
/// Supports every type in lancet/data_type.h, LZ4_FRAME and ZSTD body
/// compression, field and schema custom_metadata.
///
/// Dictionary-encoded fields are returned as dictionary arrays (type id
/// kDictionary, buffers [validity, indices], `dictionary` = the values), not
/// decoded; delta dictionary batches are concatenated onto the earlier values.
///
/// Uncompressed buffers are zero-copy slices of `bytes` when 8-byte aligned
/// (copied otherwise), so returned arrays keep `bytes` alive. Every returned
/// array has been checked: buffer sizes match its length and type, offsets are
/// monotone and in bounds, dictionary indices are in range.
///
/// Errors: Corruption for malformed or hostile input (bad magic, truncation,
/// out-of-range flatbuffer offsets, buffers outside the body, bad compression
/// lengths, inconsistent layouts); NotSupported for valid Arrow features we do
/// not model (unions, intervals, views, run-end encoding, big-endian data,
/// dictionary replacement in a file). Thread-safe: no shared state.
Result<IpcData> ReadIpcFileData(BufferPtr bytes, const IpcReadOptions& options = {});

/// \brief Decodes an Arrow IPC stream: messages framed as 0xFFFFFFFF, int32
/// metadata length, metadata, body; also the pre-1.0 framing without the
/// 0xFFFFFFFF continuation marker. The end-of-stream marker is optional.
/// Replacement dictionaries apply to the batches that follow them. Same
/// guarantees and errors as ReadIpcFileData.
Result<IpcData> ReadIpcStreamData(BufferPtr bytes, const IpcReadOptions& options = {});

/// \brief A stream's batches pulled one message at a time from `in` (a pipe, standard
/// input, a file read once): memory holds the current message and the dictionaries,
/// never the whole stream. Reads the schema message before returning. Same formats,
/// checks and errors as ReadIpcStreamData; Corruption messages give the byte offset of
/// the bad message. A truncated stream is an error at the batch where it breaks.
Result<std::unique_ptr<RecordBatchReader>> OpenIpcStreamReader(std::unique_ptr<io::InputStream> in,
                                                               const IpcReadOptions& options = {});

/// \brief A file's batches read one block at a time through its footer (one ReadAt per
/// record batch; the footer and dictionaries are read when opening). Open `file` without
/// mapping (io::LocalFileSystem(false)) to keep the resident set at one batch. Same
/// checks and errors as ReadIpcFileData.
Result<std::unique_ptr<RecordBatchReader>> OpenIpcFileReader(std::shared_ptr<const io::RandomAccessFile> file,
                                                             const IpcReadOptions& options = {});

/// The record batches of an IPC file (see ReadIpcFileData).
Result<std::vector<RecordBatch>> ReadIpcFile(BufferPtr bytes);
/// The record batches of an IPC stream (see ReadIpcStreamData).
Result<std::vector<RecordBatch>> ReadIpcStream(BufferPtr bytes);

/// Only the schema of an IPC file (from its footer) or stream (first message).
Result<Schema> ReadIpcFileSchema(BufferPtr bytes);
Result<Schema> ReadIpcStreamSchema(BufferPtr bytes);

}  // namespace lancet::format
