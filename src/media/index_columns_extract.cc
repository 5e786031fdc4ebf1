// Extraction over the index-column layout: the index and the descriptor are two
// projections, so resolve costs one logical read more than with blob_info.
#include "lancet/media/index_columns.h"
#include "media/extract_steps.h"

namespace lancet::media {
namespace {

bool IsBinary(const Array& a) { return a.type.id == TypeId::kBinary || a.type.id == TypeId::kLargeBinary; }

Result<ResolvedRows> Resolve(const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
                             const ExtractOptions& options, const std::string& where) {
  const std::vector<std::string> names = {column + kIndexBlobTypeSuffix, column + kIndexStreamInfoSuffix,
                                          column + kIndexEntriesSuffix};
  auto taken =
      options.key == table::RowKey::kRowId ? dataset.TakeRowIds(rows, names) : dataset.TakeRowAddresses(rows, names);
  if (!taken.ok()) return taken.status().WithContext(where + ": reading its index columns");
  const RecordBatch& index = *taken;
  const Array& types = index.columns[0];
  const Array& infos = index.columns[1];
  const Array& entries = index.columns[2];
  if (types.type.id != TypeId::kUInt8 || !IsBinary(infos) || !IsBinary(entries)) {
    return Status::Corruption(where + ": index columns " + names[0] + "/" + names[1] + "/" + names[2] + " are " +
                              types.type.ToString() + "/" + infos.type.ToString() + "/" + entries.type.ToString() +
                              ", not uint8/binary/binary");
  }
  ASSIGN_OR_RETURN(auto located, dataset.LocateBlobs(column, rows, options.key));
  ResolvedRows out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto r = static_cast<int64_t>(i);
    const bool has_type = types.IsValid(r);
    if (has_type != infos.IsValid(r) || has_type != entries.IsValid(r) ||
        (has_type && types.values<uint8_t>()[r] == 0)) {
      return Status::Corruption(where + " " + RowName(options, rows[i]) + ": index columns " + names[0] + ", " +
                                names[1] + " and " + names[2] + " disagree (null in some, or blob type 0)");
    }
    if (!located[i]) continue;
    table::Dataset::BlobWithInfo& row = out[i].emplace();
    row.location = std::move(*located[i]);
    if (!has_type) continue;
    row.info = table::BlobInfoValue{types.values<uint8_t>()[r], Buffer::Copy(infos.GetView(r)),
                                    Buffer::Copy(entries.GetView(r))};
  }
  return out;
}

std::string NoIndex(const std::string& column) {
  return "has no index (its " + column + kIndexStreamInfoSuffix +
         " is null: stored inline or without a plugin); read its bytes with take_blobs";
}

// Resolve in two projections (the index columns, then the descriptors) and plan: what
// ExtractWithIndexColumns and ResolveAndPlanWithIndexColumns share.
Result<std::pair<ResolvedRows, std::vector<RowPlan>>> ResolveAndPlanRows(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options, ExtractStats* stats) {
  const std::string where = dataset.uri() + ": blob column '" + column + "'";
  ResolvedRows resolved;
  {
    StepTimer timer(&stats->resolve_ns);
    ASSIGN_OR_RETURN(resolved, Resolve(dataset, column, rows, options, where));
  }
  ASSIGN_OR_RETURN(auto plans, PlanRows(resolved, rows, request, plugin, options, where, NoIndex(column), stats));
  return std::make_pair(std::move(resolved), std::move(plans));
}

}  // namespace

Result<std::vector<std::optional<DecodedOutput>>> ExtractWithIndexColumns(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options, ExtractStats* stats) {
  ExtractStats local;
  ExtractStats& st = stats ? *stats : local;
  st = {};
  ASSIGN_OR_RETURN(auto planned, ResolveAndPlanRows(dataset, column, rows, request, plugin, options, &st));
  return ReadAndDecode(*dataset.store(), planned.first, planned.second, request, plugin, options, &st);
}

Result<std::vector<std::optional<PlannedReads>>> ResolveAndPlanWithIndexColumns(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    std::span<const uint8_t> request, const MediaPlugin& plugin, const ExtractOptions& options, ExtractStats* stats) {
  ExtractStats local;
  ExtractStats& st = stats ? *stats : local;
  st = {};
  ASSIGN_OR_RETURN(auto planned, ResolveAndPlanRows(dataset, column, rows, request, plugin, options, &st));
  return ToPlannedReads(rows.size(), std::move(planned.second));
}

}  // namespace lancet::media
