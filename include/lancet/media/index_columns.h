// The alternative to format 2.3 blob_info that the proposal compares against: a media
// plugin's index kept in separate regular columns of a storage-2.2 dataset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/io/object_store.h"
#include "lancet/media/extract.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"

namespace lancet::media {

/// Suffixes of the index columns added for a media column `c`: `c_blob_type` (uint8),
/// `c_stream_info` and `c_entries` (binary). All three are null where the value was not
/// ingested (null, or small enough to be stored inline).
inline constexpr const char* kIndexBlobTypeSuffix = "_blob_type";
inline constexpr const char* kIndexStreamInfoSuffix = "_stream_info";
inline constexpr const char* kIndexEntriesSuffix = "_entries";

/// \brief WriteDataset (storage version 2.2, no blob_info) where each value of a column in
/// `media` that would not be stored inline goes through its plugin's ingest: the stored
/// stream becomes the blob (placed by size as usual) and the index goes to the three
/// index columns appended to the schema.
///
/// Only top-level Blob V2 columns with `data` values are supported. The stored streams
/// of a whole batch are built in memory next to its source values, which suits
/// benchmark-scale batches; WriteDatasetWithBlobInfo streams instead.
///
/// Errors: InvalidArgument for a path that is not a top-level blob column, an index
/// column name already in the schema, a plugin of blob type 0 or a batch that does not
/// match `schema`; NotSupported for a `uri` value in a media column; the plugin's load
/// and ingest errors; everything WriteDataset reports.
Result<uint64_t> WriteDatasetWithIndexColumns(const std::string& uri, const Schema& schema,
                                              std::vector<RecordBatch> batches, table::WriteParams params,
                                              const MediaOptions& media);
Result<uint64_t> WriteDatasetWithIndexColumns(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                              const Schema& schema, std::vector<RecordBatch> batches,
                                              table::WriteParams params, const MediaOptions& media);

/// \brief Extract over the index-column layout: resolve in two projections (the index
/// columns, then the blob descriptor: one logical read more than Extract), then plan,
/// read and decode as Extract does, with the same outputs.
///
/// Errors: InvalidArgument for a row whose index columns are null; Corruption (naming
/// the column) for inconsistent index columns; otherwise as Extract.
Result<std::vector<std::optional<DecodedOutput>>> ExtractWithIndexColumns(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options = {},
    ExtractStats* stats = nullptr);

/// ResolveAndPlan (extract.h) over the index-column layout: the two-projection resolve
/// and the plan, no payload read.
Result<std::vector<std::optional<PlannedReads>>> ResolveAndPlanWithIndexColumns(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options = {},
    ExtractStats* stats = nullptr);

}  // namespace lancet::media
