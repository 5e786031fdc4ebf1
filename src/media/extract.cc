#include "lancet/media/extract.h"

#include "media/extract_steps.h"

namespace lancet::media {
namespace {

// Resolve (descriptor and blob_info of every row in one projection) and plan: what
// Extract and ResolveAndPlan share.
Result<std::pair<ResolvedRows, std::vector<RowPlan>>> ResolveAndPlanRows(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options, ExtractStats* stats) {
  ResolvedRows resolved;
  {
    StepTimer timer(&stats->resolve_ns);
    ASSIGN_OR_RETURN(resolved, dataset.LocateBlobsWithInfo(column, rows, options.key));
  }
  ASSIGN_OR_RETURN(auto plans,
                   PlanRows(resolved, rows, request, plugin, options, dataset.uri() + ": blob column '" + column + "'",
                            "has no blob_info (it was stored inline or without a plugin); read its bytes with "
                            "take_blobs",
                            stats));
  return std::make_pair(std::move(resolved), std::move(plans));
}

}  // namespace

Result<std::vector<std::optional<DecodedOutput>>> Extract(const table::Dataset& dataset, const std::string& column,
                                                          std::span<const uint64_t> rows,
                                                          std::span<const uint8_t> request, const MediaPlugin& plugin,
                                                          const ExtractOptions& options, ExtractStats* stats) {
  ExtractStats local;
  ExtractStats& st = stats ? *stats : local;
  st = {};
  ASSIGN_OR_RETURN(auto planned, ResolveAndPlanRows(dataset, column, rows, request, plugin, options, &st));
  return ReadAndDecode(*dataset.store(), planned.first, planned.second, request, plugin, options, &st);
}

Result<std::vector<std::optional<PlannedReads>>> ResolveAndPlan(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options, ExtractStats* stats) {
  ExtractStats local;
  ExtractStats& st = stats ? *stats : local;
  st = {};
  ASSIGN_OR_RETURN(auto planned, ResolveAndPlanRows(dataset, column, rows, request, plugin, options, &st));
  return ToPlannedReads(rows.size(), std::move(planned.second));
}

}  // namespace lancet::media
