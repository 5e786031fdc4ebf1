// FileWriter: writes Lance 2.2 data files (docs/format §6-§8).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/io/object_store.h"

namespace lancet::format {

/// \brief Where a FileWriter's bytes go, appended in order.
///
/// Implementations need not be thread-safe; one writer owns one sink.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  /// Appends `bytes` at the end of the output.
  virtual Status Append(std::span<const uint8_t> bytes) = 0;
  /// Makes the output durable/visible. No Append may follow.
  virtual Status Close() = 0;
};

/// A sink that streams to a local file (created or truncated). IOError names the path.
Result<std::unique_ptr<OutputSink>> OpenLocalFileSink(const std::string& path);

/// A sink that writes one object through ObjectStore::OpenWrite: streamed to a
/// temporary file on the local store, collected in memory and Put at Close() elsewhere.
std::unique_ptr<OutputSink> MakeObjectStoreSink(std::shared_ptr<io::ObjectStore> store, std::string path);

/// Field metadata keys the writer honours (the reference's names).
inline constexpr const char* kCompressionKey = "lance-encoding:compression";                 // zstd|lz4|none
inline constexpr const char* kCompressionLevelKey = "lance-encoding:compression-level";      // integer
inline constexpr const char* kStructuralEncodingKey = "lance-encoding:structural-encoding";  // miniblock|fullzip

struct FileWriterOptions {
  /// Value bytes a column buffers before it writes a page. Pages are cut at row
  /// boundaries, so a page may exceed this by one row.
  uint64_t max_page_bytes = 8ULL << 20;
  /// Bit-pack integers and floats (FastLanes InlineBitpacking) when it saves space.
  bool enable_bitpacking = true;
  /// Dictionary-encode low-cardinality values in mini-block pages.
  bool enable_dictionary = true;
  /// FSST-compress strings in mini-block pages when a trained table pays off.
  bool enable_fsst = true;
  /// Rows shredded at once from a batch; bounds the writer's scratch memory.
  int64_t shred_rows = 64 * 1024;
  /// Footer version 2.<minor_version>: 2 (what lance 12 writes) or 3 (Lancet's 2.3:
  /// the 2.2 encodings, with blob_info in Blob V2 descriptors).
  uint16_t minor_version = 2;
};

/// Per-column summary returned by Finish.
struct ColumnStats {
  std::string path;  // dotted leaf path, e.g. "st.a" or "l.item"
  int32_t field_id = -1;
  uint64_t num_pages = 0;
  uint64_t bytes = 0;  // page buffer bytes
  /// Distinct page descriptions, e.g. "miniblock InlineBitpacking(32)" or "fullzip Variable".
  std::vector<std::string> encodings;
};

struct FileStats {
  uint64_t num_rows = 0;
  uint64_t file_size = 0;
  /// In column order; column i holds the leaf field `columns[i].field_id`.
  std::vector<ColumnStats> columns;
};

/// \brief Writer of one Lance 2.2 data file. Not thread-safe.
///
/// Columns are the schema's leaf fields in pre-order (struct members and list items
/// each get a column; a fixed_size_list of primitives and a packed struct, such as the
/// Blob V2 descriptor, are one column). Memory is bounded by about max_page_bytes per
/// column plus one slice of shred_rows rows, whatever the file size.
class FileWriter {
 public:
  virtual ~FileWriter() = default;

  /// Starts a file. `schema` fields without a Lance id get one (pre-order, as
  /// SchemaToLance does). InvalidArgument for types Lance cannot store.
  static Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<OutputSink> sink, const Schema& schema,
                                                  FileWriterOptions options = {});
  /// Convenience: writes through MakeObjectStoreSink.
  static Result<std::unique_ptr<FileWriter>> Open(std::shared_ptr<io::ObjectStore> store, const std::string& path,
                                                  const Schema& schema, FileWriterOptions options = {});

  /// The schema with the field ids the file records.
  virtual const Schema& schema() const = 0;

  /// Appends rows. The batch's columns must match the schema's types, in order.
  /// InvalidArgument on mismatch or on nulls in a non-nullable field.
  virtual Status Write(const RecordBatch& batch) = 0;

  /// Appends raw bytes (e.g. inline Blob V2 payloads) as a 64-byte-aligned buffer of
  /// the file and returns its absolute offset.
  virtual Result<uint64_t> WriteRawBuffer(std::span<const uint8_t> bytes) = 0;

  /// Appends `bytes` now (the reference writes an index's extra blobs this way, before
  /// any page) and lists them in the global buffer table after the FileDescriptor, which
  /// stays global buffer 0. Returns the buffer's index: 1 for the first, then 2, ...
  virtual Result<uint32_t> WriteGlobalBuffer(std::span<const uint8_t> bytes) = 0;

  /// Flushes the remaining pages and writes the metadata and footer, then closes the sink.
  virtual Result<FileStats> Finish() = 0;
};

}  // namespace lancet::format
