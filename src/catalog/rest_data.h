// The REST namespace's table data routes for thin clients (spec "non-standard"
// operations): count_rows, query (an Arrow IPC stream out, written as the scan
// produces it) and insert (an Arrow IPC stream in). The router resolves and checks the
// table's location; these open the dataset there through the table and scan layers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/catalog/rest_namespace.h"
#include "lancet/io/input_stream.h"
#include "lancet/result.h"

namespace lancet::catalog::internal {

/// Visible rows of the dataset at `location` (at `version` when given), or those
/// `predicate` keeps.
Result<uint64_t> CountTableRows(const std::string& location, std::optional<uint64_t> version,
                                const std::string& predicate);

/// Writes chunks of the output; false once the client is gone.
using ChunkWriter = std::function<bool(std::string_view)>;
/// Sends the whole result through a ChunkWriter; false when the output broke off.
using ResultStream = std::function<bool(const ChunkWriter&)>;

/// Opens the scan (so a bad filter or column is an error before any byte is sent) and
/// returns the stream that encodes its batches as an Arrow IPC stream, one batch in
/// memory at a time.
Result<ResultStream> QueryTable(const std::string& location, const TableQuery& query);

/// Appends (or with `overwrite`, replaces) the rows of the Arrow IPC stream `ipc`, read a
/// message at a time as the writer asks; creates the dataset when only declared.
Result<InsertResult> InsertIntoTable(const std::string& location, std::unique_ptr<io::InputStream> ipc, bool overwrite);

/// The dataset's latest (or `version`) version number and schema as the spec's JsonArrowSchema.
Result<std::pair<uint64_t, std::string>> DescribeTableData(const std::string& location);

}  // namespace lancet::catalog::internal
