// The plan, read and decode steps of extraction, shared by every index layout (blob_info
// in the descriptor, or separate index columns). Internal to the media layer.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/media/extract.h"

namespace lancet::media {

/// What resolve found for each row: nullopt for a null blob; `info` nullopt for a value
/// the plugin never ingested.
using ResolvedRows = std::vector<std::optional<table::Dataset::BlobWithInfo>>;

/// One row's plan: the ranges of its stored blob and the object they lie in.
struct RowPlan {
  size_t row = 0;
  std::string object;
  std::vector<io::ByteRange> blob_ranges;
  std::vector<io::ByteRange> object_ranges;  // blob_ranges shifted by the blob's offset
};

/// Adds the nanoseconds since construction to a counter when destroyed.
class StepTimer {
 public:
  explicit StepTimer(uint64_t* ns) : ns_(ns), start_(std::chrono::steady_clock::now()) {}
  ~StepTimer() {
    *ns_ += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count());
  }
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;

 private:
  uint64_t* ns_;
  std::chrono::steady_clock::time_point start_;
};

/// "row id 7" or "row address 7", for error messages.
std::string RowName(const ExtractOptions& options, uint64_t row);

/// \brief The plugin's plan for every non-null row (in row order).
///
/// `where` names the dataset and column; `no_index` ends the error for a row without an
/// index (it says where the index would be). Errors as Extract's plan step.
Result<std::vector<RowPlan>> PlanRows(const ResolvedRows& resolved, std::span<const uint64_t> rows,
                                      std::span<const uint8_t> request, const MediaPlugin& plugin,
                                      const ExtractOptions& options, const std::string& where,
                                      const std::string& no_index, ExtractStats* stats);

/// Reads the planned ranges (one ReadMany per object, ranges of all rows merged) and
/// decodes each row: one output per row, nullopt for a null blob.
Result<std::vector<std::optional<DecodedOutput>>> ReadAndDecode(
    const io::ObjectStore& store, const ResolvedRows& resolved, const std::vector<RowPlan>& plans,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options, ExtractStats* stats);

/// The plans as ResolveAndPlan returns them: `rows` entries, nullopt for rows without a plan.
std::vector<std::optional<PlannedReads>> ToPlannedReads(size_t rows, std::vector<RowPlan> plans);

}  // namespace lancet::media
