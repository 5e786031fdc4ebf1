// Row output for `lancet scan` and `lancet take`: aligned table, JSON Lines or CSV.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/json_writer.h"
#include "lancet/record_batch_reader.h"

namespace lancet::cli {

enum class RowFormat { kTable, kJson, kCsv };

struct RenderOptions {
  RowFormat format = RowFormat::kTable;
  /// Table cells longer than this many characters are cut with "…".
  size_t max_width = 40;
  /// Rows used to size table columns; later rows are cut to those widths.
  size_t width_sample_rows = 1000;
  /// Column names for the header when there are no batches (an empty result).
  std::vector<std::string> empty_header;
};

/// \brief Writes the rows of `batches` (same schema) to `sink` in `options.format`.
///
/// Values use the dump contract's rules (lancet/value_json.h) except that strings and
/// binaries are written in full and float32 in its own shortest form. Table and CSV
/// cells print strings unquoted and nested values as JSON; nulls are "null" in
/// tables and empty in CSV. Blob columns show their descriptors.
Status RenderRows(const std::vector<RecordBatch>& batches, const RenderOptions& options, OutputSink& sink);
/// As RenderRows, pulling the rows from `reader` as they are written (the header is
/// the reader's schema): memory holds one batch, or for tables the batches of the
/// first width_sample_rows rows. Reader errors stop the output and are returned.
Status RenderRowStream(RecordBatchReader& reader, const RenderOptions& options, OutputSink& sink);

/// "table", "json" or "csv" (the --format choices commands check), else table.
RowFormat ParseRowFormat(const std::string& name);

/// \brief Streams `reader` into `out` (stdout when empty) and closes it, for commands
/// that print rows: a failed render abandons the output. `after_close` runs once the
/// output is closed, whether or not closing succeeded (e.g. --io-stats). Errors are
/// reported as every command reports them, naming `context`; returns the exit status.
int WriteRowStream(RecordBatchReader& reader, const RenderOptions& options, const std::string& out,
                   const std::string& context, const std::function<void()>& after_close = {});

/// Text of one cell as table/CSV show it. Exposed for tests.
Result<std::string> CellText(const Array& array, int64_t index);

/// Cuts `text` to at most `width` UTF-8 characters, ending in "…" when cut, and
/// replaces control characters so a cell stays on one line.
std::string FitCell(const std::string& text, size_t width);

/// Quotes a CSV field when it holds a comma, quote, CR or LF (RFC 4180).
std::string CsvField(const std::string& text);

}  // namespace lancet::cli
