// Rows to import: an Arrow IPC file or stream, a Parquet file, or NDJSON with a schema file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/record_batch_reader.h"
#include "lancet/result.h"

namespace lancet::cli {

enum class SourceFormat : uint8_t { kIpcFile, kIpcStream, kNdjson, kParquet };

/// \brief Guesses the format from the first bytes: "ARROW1" is an IPC file, a
/// 0xFFFFFFFF continuation marker (or a pre-1.0 length prefix) an IPC stream,
/// "PAR1" a Parquet file, and '{' after optional whitespace NDJSON. InvalidArgument when nothing matches.
Result<SourceFormat> DetectFormat(std::string_view head);

/// \brief An import source read a batch at a time: every batch's utf8 values are
/// checked (CheckUtf8), and errors name the source.
class ImportReader : public RecordBatchReader {
 public:
  /// Rows handed out so far.
  virtual uint64_t rows_read() const = 0;
};

/// \brief Opens `path` ("-" = standard input, which must be an Arrow IPC stream) for
/// streaming: an IPC stream is read a message at a time, an IPC file a block at a time
/// through its footer, a Parquet file a row group at a time (in batches of
/// kNdjsonBatchRows rows), NDJSON kNdjsonBatchRows lines at a time. NDJSON needs
/// `schema_path`; IPC and Parquet ignore it unless given, in which case their schema must have
/// the same fields. Errors (here and from Next) name `path`. `on_batch` (may be empty)
/// is told the running row count after each batch.
Result<std::unique_ptr<ImportReader>> OpenImportSource(const std::string& path,
                                                       const std::optional<std::string>& schema_path,
                                                       std::function<void(uint64_t)> on_batch = {});

/// Rows per NDJSON (and Parquet) batch: bounds the JSON held at once while keeping batches large
/// enough for the writer's pages.
inline constexpr int64_t kNdjsonBatchRows = 16384;

struct ImportSource {
  Schema schema;
  std::vector<RecordBatch> batches;
  uint64_t num_rows = 0;
};

/// \brief Every row of `path` in memory (OpenImportSource drained): for commands that
/// need the whole input at once (add-columns).
Result<ImportSource> ReadImportSource(const std::string& path, const std::optional<std::string>& schema_path,
                                      const std::function<void(uint64_t)>& on_batch = {});

/// InvalidArgument naming the column path and row of the first utf8/large_utf8
/// value (at any depth) that is not valid UTF-8. `first_row` numbers the
/// batch's rows.
Status CheckUtf8(const RecordBatch& batch, uint64_t first_row = 0);

}  // namespace lancet::cli
