// `lancet dump`: a dataset as a `lance-peer-dump/1` JSON document
// (tests/peer/README.md, "The JSON contract"), comparable with check.mjs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/json_writer.h"
#include "lancet/table/dataset.h"

namespace lancet::cli {

struct DumpOptions {
  /// Snapshots to include besides those named by tags; none (and no tags) = latest.
  std::vector<uint64_t> versions;
  std::vector<std::string> tags;
  bool all_versions = false;
  /// Include versions[] and tags{} (dump.mjs --no-history clears it).
  bool history = true;
  /// The document's "dataset" field; empty = derived from the dataset URI.
  std::string dataset_name;
  /// Rows per blob fetch and the payload bytes one fetch may cover.
  uint64_t blob_batch_rows = 1024;
  uint64_t blob_batch_bytes = 64ULL << 20;
};

/// The dataset name the contract records: the last path component without ".lance".
std::string DatasetNameFromUri(const std::string& uri);

/// \brief Writes the dump document for `dataset` (any opened version; snapshots are
/// checked out from it) to `sink`, one row per line.
///
/// Rows are streamed: only one scan result and one batch of blob payloads are held
/// at a time. Errors name the step and version ("scan of version 3: ..."); the sink
/// may then hold a partial document.
Status WriteDump(const table::Dataset& dataset, const DumpOptions& options, OutputSink& sink);

}  // namespace lancet::cli
