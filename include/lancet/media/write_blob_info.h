// Writing datasets whose blob columns go through media plugins (format 2.3 blob_info).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/io/object_store.h"
#include "lancet/media/plugin_host.h"
#include "lancet/record_batch_reader.h"
#include "lancet/result.h"
#include "lancet/table/write.h"

namespace lancet::media {

/// Which plugin ingests each blob column, by dotted column path.
using MediaOptions = std::map<std::string, PluginSpec>;

/// Field metadata naming the plugin that ingested a column (shown by `lancet info`).
inline constexpr const char* kMediaPluginKey = "lancet:media-plugin";
inline constexpr const char* kMediaBlobTypeKey = "lancet:media-blob-type";

/// \brief WriteDataset with storage version 2.3: values of the columns in `media` that
/// land packed or dedicated are streamed through their plugin's ingest, which decides
/// the stored bytes and the value's blob_info; inline values, other columns and nulls
/// get blob_info null. Appending needs a 2.3 dataset.
///
/// Errors: the plugin's load or ingest errors (naming the library), InvalidArgument for
/// a path that is not a blob column, plus everything WriteDataset reports.
Result<uint64_t> WriteDatasetWithBlobInfo(const std::string& uri, const Schema& schema,
                                          std::vector<RecordBatch> batches, table::WriteParams params,
                                          const MediaOptions& media);
Result<uint64_t> WriteDatasetWithBlobInfo(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                          const Schema& schema, std::vector<RecordBatch> batches,
                                          table::WriteParams params, const MediaOptions& media);
/// Same, streaming the rows `batches` yields (see the RecordBatchReader overloads of
/// table::WriteDataset: bounded memory, one commit at the end, nothing committed on a
/// failure).
Result<uint64_t> WriteDatasetWithBlobInfo(const std::string& uri, RecordBatchReader& batches, table::WriteParams params,
                                          const MediaOptions& media);
Result<uint64_t> WriteDatasetWithBlobInfo(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                          RecordBatchReader& batches, table::WriteParams params,
                                          const MediaOptions& media);

/// The blob transform that runs `plugin`'s ingest (for callers building WriteParams).
std::shared_ptr<const table::BlobTransform> PluginTransform(std::shared_ptr<MediaPlugin> plugin);

}  // namespace lancet::media
