// Full-text search: the column's inverted index answers the fragments it covers (through
// an allowed-row set when a filter, deletions or stable row ids need one), the other
// fragments are tokenized and scored as they are read, and the best rows are taken.
#include "lancet/scan/text_search.h"

#include <algorithm>
#include <map>
#include <set>

#include "scan/index_plan.h"
#include "scan/row_sets.h"
#include "util/array_builder.h"

namespace lancet::scan {
namespace {

using TextSegments = SegmentCache<index::TextIndex, 16>;

Result<const Field*> ResolveTextColumn(const table::Dataset& dataset, const std::string& name) {
  const Schema& schema = dataset.schema();
  if (!name.empty()) {
    const int pos = schema.FieldIndex(name);
    if (pos < 0) return Status::NotFound(dataset.uri() + ": no top-level column named '" + name + "'");
    return &schema.fields[static_cast<size_t>(pos)];
  }
  ASSIGN_OR_RETURN(std::vector<table::IndexMetadata> all, dataset.ListIndices());
  std::set<int32_t> ids;
  for (const table::IndexMetadata& m : all) {
    if (index::IsTextIndex(m) && m.fields.size() == 1) ids.insert(m.fields[0]);
  }
  if (ids.size() > 1) {
    return Status::InvalidArgument(dataset.uri() + ": several columns have a full-text index: name the one to search");
  }
  if (ids.empty()) {
    // No index: the only string column is searched by a flat scan.
    const Field* only = nullptr;
    for (const Field& f : schema.fields) {
      if (f.type.id != TypeId::kUtf8 && f.type.id != TypeId::kLargeUtf8) continue;
      if (only) {
        return Status::InvalidArgument(dataset.uri() +
                                       ": no column has a full-text index and several are strings: name the one "
                                       "to search");
      }
      only = &f;
    }
    if (!only) return Status::InvalidArgument(dataset.uri() + ": no string column to search");
    return only;
  }
  for (const Field& f : schema.fields) {
    if (f.id == *ids.begin()) return &f;
  }
  return Status::InvalidArgument(dataset.uri() + ": the full-text index names a column that is gone");
}

// The k best rows of `request` with their scores, best first.
Result<std::vector<index::TextHit>> BestRows(const table::Dataset& dataset, const table::ScanOptions& options,
                                             const TextSearchRequest& request, size_t want,
                                             TextSearchExplain* explain) {
  ASSIGN_OR_RETURN(const Field* field, ResolveTextColumn(dataset, request.column));
  if (field->type.id != TypeId::kUtf8 && field->type.id != TypeId::kLargeUtf8) {
    return Status::InvalidArgument(dataset.uri() + ": column '" + field->name + "' is " + field->type.ToString() +
                                   ", not a string column");
  }
  ASSIGN_OR_RETURN(std::optional<SegmentPlan> found_plan, PlanSegments(dataset, *field, index::IsTextIndex));
  // Without an index every fragment is scanned and scored as an index over them would.
  const SegmentPlan no_index;
  const SegmentPlan* plan = found_plan ? &*found_plan : &no_index;
  std::vector<std::shared_ptr<const index::TextIndex>> opened;
  for (const table::IndexMetadata& m : plan->segments) {
    ASSIGN_OR_RETURN(auto seg, TextSegments::Get().Open(dataset, m));
    opened.push_back(std::move(seg));
  }
  std::vector<uint64_t> flat_fragments;
  for (const table::FragmentInfo& f : dataset.fragments()) {
    if (!plan->covered.count(f.id)) flat_fragments.push_back(f.id);
  }
  std::vector<index::TextHit> found;
  if (!plan->covered.empty()) {
    ASSIGN_OR_RETURN(const std::function<bool(uint64_t)> admit, AdmitRows(dataset, *plan, options.filter));
    for (const auto& seg : opened) {
      ASSIGN_OR_RETURN(std::vector<index::TextHit> hits, seg->Search(request.query, want, admit ? &admit : nullptr));
      found.insert(found.end(), hits.begin(), hits.end());
    }
  }
  if (!flat_fragments.empty()) {
    std::unique_ptr<index::TextIndex::FlatScorer> scorer;
    // Without an index every row counts in the statistics, as in an index, and the filter
    // only picks the rows scored; with one, the reference scores scanned (filtered) rows.
    std::optional<Roaring64Map> passing;
    if (opened.empty()) {
      ASSIGN_OR_RETURN(scorer, index::MakeFlatTextScorer(request.query, request.params));
      if (!options.filter.empty()) {
        const std::set<uint64_t> all(flat_fragments.begin(), flat_fragments.end());
        ASSIGN_OR_RETURN(passing, AllowedRows(dataset, all, options.filter));
      }
    } else {
      ASSIGN_OR_RETURN(scorer, opened.front()->MakeFlatScorer(request.query));
    }
    table::ScanOptions scan;
    scan.columns = {field->name};
    scan.filter = passing ? "" : options.filter;
    scan.fragment_ids = flat_fragments;
    scan.with_row_id = true;
    scan.io_parallelism = options.io_parallelism;
    ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, dataset.NewScan(scan));
    for (;;) {
      ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
      if (!batch) break;
      const Array& text = batch->columns[0];
      const uint64_t* rows = batch->columns[1].values<uint64_t>();
      for (int64_t i = 0; i < batch->num_rows; ++i) {
        if (!text.IsNull(i)) scorer->Add(rows[i], text.GetView(i), !passing || passing->contains(rows[i]));
      }
    }
    std::vector<index::TextHit> flat = scorer->Finish();
    found.insert(found.end(), flat.begin(), flat.end());
  }
  const size_t keep = std::min(want, found.size());
  std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(),
                    [](const index::TextHit& a, const index::TextHit& b) {
                      return a.score > b.score || (a.score == b.score && a.row < b.row);
                    });
  found.resize(keep);
  if (explain) {
    explain->column = field->name;
    explain->index = found_plan ? plan->name + "(Inverted)" : "";
    explain->indexed_fragments.assign(plan->covered.begin(), plan->covered.end());
    explain->flat_fragments = flat_fragments;
    explain->filter = options.filter;
  }
  return found;
}

}  // namespace

std::string TextSearchExplain::ToString() const {
  std::string s;
  if (!indexed_fragments.empty()) {
    s += "MatchQuery: column=" + column + " index=" + index + " fragments=" + JoinIds(indexed_fragments) + "\n";
  }
  if (!flat_fragments.empty()) s += "FlatMatchQuery: column=" + column + " fragments=" + JoinIds(flat_fragments) + "\n";
  if (!filter.empty()) s += "PreFilter: " + filter + "\n";
  return s;
}

void ClearTextIndexCache() { TextSegments::Get().Clear(); }

Result<std::unique_ptr<RecordBatchReader>> TextSearch(const table::Dataset& dataset, const table::ScanOptions& options,
                                                      const TextSearchRequest& request, TextSearchExplain* explain) {
  const size_t want = static_cast<size_t>(request.k) + static_cast<size_t>(options.offset);
  ASSIGN_OR_RETURN(std::vector<index::TextHit> best, BestRows(dataset, options, request, want, explain));
  best.erase(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(best.size(), options.offset)));
  std::vector<uint64_t> rows;
  std::vector<float> scores;
  for (const index::TextHit& s : best) {
    rows.push_back(s.row);
    scores.push_back(s.score);
  }
  ASSIGN_OR_RETURN(RecordBatch out, TakeScored(dataset, options, rows, scores, "_score"));
  Schema schema = out.schema;
  std::vector<RecordBatch> batches;
  batches.push_back(std::move(out));
  return MakeBatchVectorReader(schema, std::move(batches));
}

Result<std::unique_ptr<RecordBatchReader>> HybridSearch(const table::Dataset& dataset,
                                                        const table::ScanOptions& options, const VectorQuery& vector,
                                                        const TextSearchRequest& text, const HybridOptions& hybrid) {
  if (vector.vectors.size() != 1) return Status::InvalidArgument("a hybrid search takes exactly one query vector");
  // Each side returns its k best with row ids; the fusion needs only ranks and scores.
  table::ScanOptions side = options;
  side.with_row_id = false;
  side.with_row_addr = false;
  side.offset = 0;
  const size_t k = text.k;
  VectorQuery vq = vector;
  vq.k = text.k;
  // Only the row ids are needed from the vector side: project one cheap column.
  side.columns = {"_rowid"};
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> vec_reader, Search(dataset, side, vq));
  std::vector<uint64_t> vec_rows;
  std::vector<float> vec_dist;
  for (;;) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, vec_reader->Next());
    if (!batch) break;
    const int rid = batch->schema.FieldIndex("_rowid");
    const int dist = batch->schema.FieldIndex("_distance");
    for (int64_t i = 0; i < batch->num_rows; ++i) {
      vec_rows.push_back(batch->columns[static_cast<size_t>(rid)].values<uint64_t>()[i]);
      vec_dist.push_back(batch->columns[static_cast<size_t>(dist)].values<float>()[i]);
    }
  }
  ASSIGN_OR_RETURN(std::vector<index::TextHit> fts, BestRows(dataset, options, text, k, nullptr));

  // Rows in the order the reference merges them: the vector side's, then the text side's new ones.
  std::vector<uint64_t> rows;
  std::map<uint64_t, float> fused;
  auto add_row = [&](uint64_t row) {
    if (!fused.count(row)) {
      fused[row] = 0;
      rows.push_back(row);
    }
  };
  for (uint64_t r : vec_rows) add_row(r);
  for (const index::TextHit& s : fts) add_row(s.row);
  if (hybrid.fusion == Fusion::kRrf) {
    for (size_t i = 0; i < vec_rows.size(); ++i) fused[vec_rows[i]] += 1.0f / (static_cast<float>(i) + hybrid.rrf_k);
    for (size_t i = 0; i < fts.size(); ++i) fused[fts[i].row] += 1.0f / (static_cast<float>(i) + hybrid.rrf_k);
  } else {
    auto normalise = [](std::vector<float> v) {
      if (v.empty()) return v;
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      const float min = *lo, range = *hi - *lo;
      for (float& x : v) x = range > 0 ? (x - min) / range : 0.0f;
      return v;
    };
    const std::vector<float> d = normalise(vec_dist);
    std::vector<float> s;
    for (const index::TextHit& x : fts) s.push_back(x.score);
    s = normalise(s);
    for (size_t i = 0; i < vec_rows.size(); ++i) fused[vec_rows[i]] += hybrid.vector_weight * (1.0f - d[i]);
    for (size_t i = 0; i < fts.size(); ++i) fused[fts[i].row] += (1.0f - hybrid.vector_weight) * s[i];
  }
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fused[rows[a]] > fused[rows[b]]; });
  const size_t skip = std::min<size_t>(options.offset, order.size());
  const size_t end = std::min(order.size(), skip + k);
  std::vector<uint64_t> out_rows;
  std::vector<float> out_scores;
  for (size_t i = skip; i < end; ++i) {
    out_rows.push_back(rows[order[i]]);
    out_scores.push_back(fused[rows[order[i]]]);
  }
  ASSIGN_OR_RETURN(RecordBatch out, TakeScored(dataset, options, out_rows, out_scores, "_relevance_score"));
  Schema schema = out.schema;
  std::vector<RecordBatch> batches;
  batches.push_back(std::move(out));
  return MakeBatchVectorReader(schema, std::move(batches));
}

}  // namespace lancet::scan
