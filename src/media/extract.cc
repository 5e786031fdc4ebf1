#include "lancet/media/extract.h"

#include "media/extract_steps.h"

namespace lancet::media {

Result<std::vector<std::optional<DecodedOutput>>> Extract(const table::Dataset& dataset, const std::string& column,
                                                          std::span<const uint64_t> rows,
                                                          std::span<const uint8_t> request, const MediaPlugin& plugin,
                                                          const ExtractOptions& options, ExtractStats* stats) {
  ExtractStats local;
  ExtractStats& st = stats ? *stats : local;
  st = {};
  // Resolve: descriptor and blob_info of every row in one projection.
  ASSIGN_OR_RETURN(ResolvedRows resolved, dataset.LocateBlobsWithInfo(column, rows, options.key));
  ASSIGN_OR_RETURN(auto plans,
                   PlanRows(resolved, rows, request, plugin, options, dataset.uri() + ": blob column '" + column + "'",
                            "has no blob_info (it was stored inline or without a plugin); read its bytes with "
                            "take_blobs",
                            &st));
  return ReadAndDecode(*dataset.store(), resolved, plans, request, plugin, options, &st);
}

}  // namespace lancet::media
