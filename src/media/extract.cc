#include "lancet/media/extract.h"

#include "media/extract_steps.h"

namespace lancet::media {
namespace {

const char* const kNoIndex =
    "has no blob_info (it was stored inline or without a plugin); read its bytes with take_blobs";

Result<std::vector<RowPlan>> PlanResolved(const ResolvedBlobs& resolved, std::span<const uint8_t> request,
                                          const MediaPlugin& plugin, ExtractOptions options, ExtractStats* stats) {
  options.key = resolved.key;  // rows are named as they were resolved
  return PlanRows(resolved.blobs, resolved.rows, request, plugin, options, resolved.where, kNoIndex, stats);
}

Result<std::vector<std::optional<DecodedOutput>>> PlanReadDecode(const ResolvedBlobs& resolved,
                                                                 std::span<const uint8_t> request,
                                                                 const MediaPlugin& plugin,
                                                                 const ExtractOptions& options, ExtractStats* stats) {
  ASSIGN_OR_RETURN(auto plans, PlanResolved(resolved, request, plugin, options, stats));
  return ReadAndDecode(*resolved.store, resolved.blobs, plans, request, plugin, options, stats);
}

}  // namespace

Result<ResolvedBlobs> Resolve(const table::Dataset& dataset, const std::string& column,
                              std::span<const uint64_t> rows, const ExtractOptions& options) {
  ResolvedBlobs out;
  out.store = dataset.store();
  out.where = dataset.uri() + ": blob column '" + column + "'";
  out.key = options.key;
  out.rows.assign(rows.begin(), rows.end());
  ASSIGN_OR_RETURN(out.blobs, dataset.LocateBlobsWithInfo(column, rows, options.key));
  return out;
}

Result<std::vector<std::optional<DecodedOutput>>> Extract(const ResolvedBlobs& resolved,
                                                          std::span<const uint8_t> request, const MediaPlugin& plugin,
                                                          const ExtractOptions& options, ExtractStats* stats) {
  ExtractStats local;
  ExtractStats& st = stats ? *stats : local;
  st = {};
  return PlanReadDecode(resolved, request, plugin, options, &st);
}

Result<std::vector<std::optional<DecodedOutput>>> Extract(const table::Dataset& dataset, const std::string& column,
                                                          std::span<const uint64_t> rows,
                                                          std::span<const uint8_t> request, const MediaPlugin& plugin,
                                                          const ExtractOptions& options, ExtractStats* stats) {
  ExtractStats local;
  ExtractStats& st = stats ? *stats : local;
  st = {};
  ResolvedBlobs resolved;
  {
    StepTimer timer(&st.resolve_ns);
    ASSIGN_OR_RETURN(resolved, Resolve(dataset, column, rows, options));
  }
  return PlanReadDecode(resolved, request, plugin, options, &st);
}

Result<std::vector<std::optional<PlannedReads>>> ResolveAndPlan(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options, ExtractStats* stats) {
  ExtractStats local;
  ExtractStats& st = stats ? *stats : local;
  st = {};
  ResolvedBlobs resolved;
  {
    StepTimer timer(&st.resolve_ns);
    ASSIGN_OR_RETURN(resolved, Resolve(dataset, column, rows, options));
  }
  ASSIGN_OR_RETURN(auto plans, PlanResolved(resolved, request, plugin, options, &st));
  return ToPlannedReads(rows.size(), std::move(plans));
}

}  // namespace lancet::media
