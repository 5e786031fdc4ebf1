// `lancet export --blob-bytes`: Blob V2 columns in the input form `lancet import`
// writes back, struct<data: large_binary, uri: utf8> with the lance.blob.v2 extension.
#pragma once

#include <functional>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::cli {

/// Blob payload bytes fetched per output batch (one TakeBlobs call per blob column);
/// a single larger blob gets a batch of its own.
inline constexpr uint64_t kExportBlobBytesPerBatch = 64ULL << 20;

/// \brief `logical` (Dataset::schema()) with every Blob V2 field, at any struct depth,
/// in the input shape struct<data: large_binary, uri: utf8>. Field metadata stays
/// exactly as `logical` has it (thresholds only where the dataset has them), so an
/// import of the export has the dataset's schema and places values as it did.
/// InvalidArgument for a field whose threshold metadata is invalid.
Result<Schema> BlobExportSchema(const Schema& logical);

/// \brief The rows of `scanned` in export form: `scanned` is a batch of `ds`'s scan of
/// every column of `export_schema` in order plus a final _rowaddr column.
///
/// Each blob value becomes {data: bytes, uri: null}, except an external blob that
/// references a whole object, which becomes {data: null, uri: the absolute object
/// URI}. The rows are split into batches of about `bytes_per_batch` payload bytes.
/// Errors of Dataset::TakeBlobs/LocateBlobs (naming the column), Corruption for a
/// malformed descriptor array.
/// Same, handing each output batch to `emit` as soon as its bytes are fetched, so
/// memory holds one output batch; stops at the first error `emit` returns.
Status ExportBlobRows(const table::Dataset& ds, const Schema& export_schema, const RecordBatch& scanned,
                      uint64_t bytes_per_batch, const std::function<Status(RecordBatch)>& emit);
/// Same, collecting the output batches (for tests).
Result<std::vector<RecordBatch>> ExportBlobRows(const table::Dataset& ds, const Schema& export_schema,
                                                const RecordBatch& scanned,
                                                uint64_t bytes_per_batch = kExportBlobBytesPerBatch);

}  // namespace lancet::cli
