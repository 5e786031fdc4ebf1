#include "scan/index_plan.h"

#include "scan/row_sets.h"
#include "util/array_builder.h"

namespace lancet::scan {

Result<std::optional<SegmentPlan>> PlanSegments(const table::Dataset& dataset, const Field& field,
                                                const std::function<bool(const table::IndexMetadata&)>& is_kind) {
  ASSIGN_OR_RETURN(std::vector<table::IndexMetadata> all, dataset.ListIndices());
  std::map<uint64_t, const table::FragmentInfo*> live;
  for (const table::FragmentInfo& f : dataset.fragments()) live[f.id] = &f;
  std::optional<SegmentPlan> plan;
  for (const table::IndexMetadata& m : all) {
    if (!is_kind(m) || m.fields.size() != 1 || m.fields[0] != field.id) continue;
    if (plan && plan->name != m.name) continue;
    if (!plan) plan = SegmentPlan{m.name, {}, {}, false};
    plan->segments.push_back(m);
    for (uint64_t id : m.fragment_ids) {
      auto it = live.find(id);
      if (it == live.end()) continue;
      plan->covered.insert(id);
      if (it->second->deleted_rows > 0) plan->deletions = true;
    }
  }
  return plan;
}

Result<std::function<bool(uint64_t)>> AdmitRows(const table::Dataset& dataset, const SegmentPlan& plan,
                                                const std::string& filter) {
  // Index rows are valid only in the live fragments the index covers: fragments
  // compacted away drop out of its bitmap while their rows stay in its files.
  const bool stable = dataset.stable_row_ids();
  const bool all_covered = plan.covered.size() == dataset.fragments().size();
  if (!filter.empty() || plan.deletions || (stable && !all_covered)) {
    ASSIGN_OR_RETURN(Roaring64Map rows, AllowedRows(dataset, plan.covered, filter));
    auto allowed = std::make_shared<Roaring64Map>(std::move(rows));
    return std::function<bool(uint64_t)>([allowed](uint64_t row) { return allowed->contains(row); });
  }
  if (!stable && !all_covered) {
    auto covered = std::make_shared<std::set<uint64_t>>(plan.covered);
    return std::function<bool(uint64_t)>([covered](uint64_t row) { return covered->count(row >> 32) > 0; });
  }
  return std::function<bool(uint64_t)>();
}

std::string JoinIds(const std::vector<uint64_t>& ids) {
  std::string s;
  for (uint64_t id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
  return "[" + s + "]";
}

Result<RecordBatch> TakeScored(const table::Dataset& dataset, const table::ScanOptions& options,
                               const std::vector<uint64_t>& rows, const std::vector<float>& scores,
                               const std::string& score_name, std::optional<uint32_t> query_index) {
  std::vector<std::string> columns = options.columns;
  if (columns.empty()) {
    for (const Field& f : dataset.read_schema().fields) columns.push_back(f.name);
  }
  std::vector<std::string> take_columns = columns;
  if (options.with_row_id) take_columns.push_back("_rowid");
  if (options.with_row_addr) take_columns.push_back("_rowaddr");
  ASSIGN_OR_RETURN(RecordBatch taken, dataset.TakeRowIds(rows, take_columns));
  RecordBatch out;
  out.num_rows = static_cast<int64_t>(rows.size());
  if (query_index) {
    std::vector<uint32_t> qi(rows.size(), *query_index);
    ASSIGN_OR_RETURN(Array a, ArrayFromVector(MakeType(TypeId::kUInt32), qi));
    out.schema.fields.push_back(MakeField("query_index", MakeType(TypeId::kUInt32), false));
    out.columns.push_back(std::move(a));
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    out.schema.fields.push_back(taken.schema.fields[c]);
    out.columns.push_back(taken.columns[c]);
  }
  ASSIGN_OR_RETURN(Array s, ArrayFromVector(MakeType(TypeId::kFloat32), scores));
  out.schema.fields.push_back(MakeField(score_name, MakeType(TypeId::kFloat32), true));
  out.columns.push_back(std::move(s));
  for (size_t c = columns.size(); c < take_columns.size(); ++c) {
    out.schema.fields.push_back(taken.schema.fields[c]);
    out.columns.push_back(taken.columns[c]);
  }
  return out;
}

}  // namespace lancet::scan
