// Extract: part of a blob (a frame, a segment, some chunks) through its media plugin,
// with small range reads instead of the whole blob.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/io/object_store.h"
#include "lancet/media/plugin_host.h"
#include "lancet/table/dataset.h"

namespace lancet::media {

struct ExtractOptions {
  table::RowKey key = table::RowKey::kRowId;
  /// How ranges of one object are merged (gap) and read in parallel.
  io::ReadOptions io;
};

/// What one extraction did, for callers and tests.
struct ExtractStats {
  uint64_t rows = 0;            // rows with blob_info
  uint64_t planned_ranges = 0;  // ranges the plugin asked for, over all rows
  uint64_t objects = 0;         // distinct objects read
  uint64_t bytes_planned = 0;
  // Wall time of each step in nanoseconds (resolve: descriptors and blob_info; plan: the
  // plugin's plan calls; read: the ReadMany calls; decode: the plugin's decode calls).
  uint64_t resolve_ns = 0;
  uint64_t plan_ns = 0;
  uint64_t read_ns = 0;
  uint64_t decode_ns = 0;
};

/// \brief resolve → plan → read → decode for each row of blob column `column`.
///
/// Resolve takes each row's descriptor and blob_info in one projection; the plugin plans
/// the byte ranges of the stored blob the request needs; the ranges of all rows are
/// grouped per object (data file or sidecar) and read with one ReadMany each, so
/// overlapping and adjacent ranges across rows become one read; the plugin decodes
/// each row. Output: one entry per row, nullopt for a null blob.
///
/// Errors: InvalidArgument for a row without blob_info (read it with TakeBlobs) or
/// whose blob_info another kind of plugin made; the plugin's plan/decode errors and
/// the host's checks (naming the library and the call); everything LocateBlobs reports.
Result<std::vector<std::optional<DecodedOutput>>> Extract(const table::Dataset& dataset, const std::string& column,
                                                          std::span<const uint64_t> rows,
                                                          std::span<const uint8_t> request, const MediaPlugin& plugin,
                                                          const ExtractOptions& options = {},
                                                          ExtractStats* stats = nullptr);

}  // namespace lancet::media

namespace lancet::media {

/// \brief Rows of a blob column resolved once: descriptors, blob_info and open objects.
///
/// For callers that extract from the same rows many times (ten windows of one video):
/// each Extract on it then costs only the planned range reads, with no descriptor read
/// and no open (a HEAD on S3). Valid as long as the dataset version it came from.
struct ResolvedBlobs {
  std::shared_ptr<io::ObjectStore> store;
  std::string where;  // "<dataset>: blob column '<column>'", for messages
  table::RowKey key = table::RowKey::kRowId;
  std::vector<uint64_t> rows;
  /// One per row: nullopt for a null blob.
  std::vector<std::optional<table::Dataset::BlobWithInfo>> blobs;
};

/// Extract's resolve step alone (same errors): every row's descriptor and blob_info in
/// one projection, each object opened once.
Result<ResolvedBlobs> Resolve(const table::Dataset& dataset, const std::string& column,
                              std::span<const uint64_t> rows, const ExtractOptions& options = {});

/// Extract's plan, read and decode steps on rows resolved before (`options.key` is
/// ignored: the rows are the ones `resolved` names). Same errors as Extract.
Result<std::vector<std::optional<DecodedOutput>>> Extract(const ResolvedBlobs& resolved,
                                                          std::span<const uint8_t> request, const MediaPlugin& plugin,
                                                          const ExtractOptions& options = {},
                                                          ExtractStats* stats = nullptr);

/// The reads extraction would issue for one row: ranges of `object` (object offsets,
/// in the plugin's order).
struct PlannedReads {
  std::string object;
  std::vector<io::ByteRange> ranges;
};

/// \brief Extract's resolve and plan steps without reading or decoding (for benchmarks
/// and for callers that fetch the bytes themselves): one entry per row, nullopt for a
/// null blob. Same errors as Extract's resolve and plan.
Result<std::vector<std::optional<PlannedReads>>> ResolveAndPlan(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options = {},
    ExtractStats* stats = nullptr);

}  // namespace lancet::media
