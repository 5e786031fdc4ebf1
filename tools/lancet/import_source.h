// Rows to import: an Arrow IPC file or stream, or NDJSON with a schema file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::cli {

enum class SourceFormat : uint8_t { kIpcFile, kIpcStream, kNdjson };

/// \brief Guesses the format from the first bytes: "ARROW1" is an IPC file, a
/// 0xFFFFFFFF continuation marker (or a pre-1.0 length prefix) an IPC stream,
/// and
/// '{' after optional whitespace NDJSON. InvalidArgument when nothing matches.
Result<SourceFormat> DetectFormat(std::string_view head);

struct ImportSource {
  Schema schema;
  std::vector<RecordBatch> batches;
  uint64_t num_rows = 0;
};

/// \brief Reads every row of `path`. NDJSON needs `schema_path`; IPC ignores it
/// unless given, in which case the IPC schema must have the same fields.
///
/// Every utf8 value is checked to be valid UTF-8 (InvalidArgument naming the
/// column and row). Errors name `path`. `on_batch` (may be empty) is told the
/// running row count.
Result<ImportSource> ReadImportSource(const std::string& path, const std::optional<std::string>& schema_path,
                                      const std::function<void(uint64_t)>& on_batch = {});

/// InvalidArgument naming the column path and row of the first utf8/large_utf8
/// value (at any depth) that is not valid UTF-8. `first_row` numbers the
/// batch's rows.
Status CheckUtf8(const RecordBatch& batch, uint64_t first_row = 0);

}  // namespace lancet::cli
