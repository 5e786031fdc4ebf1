// Nearest-neighbour search: resolve the column and metric, search index segments on
// the fragments they cover (prefiltered through an allowed-row set) and the rest
// exactly, refine, merge by (distance, row id), then take the winning rows.
#include "lancet/scan/search.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <roaring/roaring64map.hh>
#include "lancet/index/vector_index.h"
#include "lancet/table/row_selection.h"
#include "scan/index_plan.h"
#include "scan/knn.h"
#include "scan/row_sets.h"
#include "util/array_builder.h"

namespace lancet::scan {
namespace {

// The reference's default number of partitions probed (its plans show minimum_nprobes=20).
constexpr uint32_t kDefaultNprobes = 20;

using VectorSegments = SegmentCache<index::VectorIndex, 32>;

bool IsVectorType(const DataType& t) {
  if (t.id != TypeId::kFixedSizeList || t.children.size() != 1) return false;
  const TypeId item = t.children[0].type.id;
  return item == TypeId::kFloat16 || item == TypeId::kFloat32 || item == TypeId::kFloat64 || item == TypeId::kUInt8;
}

// Without a name, the vector column whose width matches the queries (as the reference
// picks it).
Result<const Field*> ResolveColumn(const table::Dataset& dataset, const std::string& name, size_t dim) {
  const Schema& schema = dataset.schema();
  if (!name.empty()) {
    const int pos = schema.FieldIndex(name);
    if (pos < 0) return Status::NotFound(dataset.uri() + ": no top-level column named '" + name + "'");
    return &schema.fields[static_cast<size_t>(pos)];
  }
  std::vector<const Field*> found;
  for (const Field& f : schema.fields) {
    if (IsVectorType(f.type) && static_cast<size_t>(f.type.list_size) == dim) found.push_back(&f);
  }
  if (found.size() > 1) {
    return Status::InvalidArgument(dataset.uri() + ": several vector columns of dim " + std::to_string(dim) + " ('" +
                                   found[0]->name + "', '" + found[1]->name + "'): name the one to search");
  }
  if (found.empty()) {
    return Status::InvalidArgument(dataset.uri() + ": no vector column (fixed_size_list) of dim " +
                                   std::to_string(dim));
  }
  return found[0];
}

Result<PreparedQueries> Prepare(const VectorQuery& query, const VectorColumn& column) {
  PreparedQueries out;
  out.bits = column.bits;
  for (const std::vector<float>& v : query.vectors) {
    if (v.size() != column.dim) {
      return Status::InvalidArgument("query dim(" + std::to_string(v.size()) + ") doesn't match the column " +
                                     column.name + " vector dim(" + std::to_string(column.dim) + ")");
    }
    if (!column.bits) {
      out.floats.push_back(v);
      continue;
    }
    std::vector<uint8_t> bytes;
    for (float x : v) {
      if (!(x >= 0 && x <= 255) || x != static_cast<float>(static_cast<int>(x))) {
        return Status::InvalidArgument("a query on uint8 column " + column.name + " takes whole numbers 0..255");
      }
      bytes.push_back(static_cast<uint8_t>(x));
    }
    out.bytes.push_back(std::move(bytes));
  }
  return out;
}

}  // namespace

std::string SearchExplain::ToString() const {
  std::string s;
  if (!index.empty()) {
    s += "ANNIvfPartition: index=" + index + " segments=" + std::to_string(segments) +
         " nprobes=" + std::to_string(nprobes) +
         " refine_factor=" + (refine_factor ? std::to_string(*refine_factor) : "--") + " metric=" + distance +
         " fragments=" + JoinIds(indexed_fragments) + "\n";
  }
  if (!flat_fragments.empty() || index.empty()) {
    s += "KNNVectorDistance: column=" + column + " metric=" + distance + " fragments=" + JoinIds(flat_fragments) + "\n";
  }
  if (!filter.empty()) s += std::string(postfilter ? "PostFilter: " : "PreFilter: ") + filter + "\n";
  return s;
}

void ClearVectorIndexCache() { VectorSegments::Get().Clear(); }

Result<std::unique_ptr<RecordBatchReader>> Search(const table::Dataset& dataset, const table::ScanOptions& options,
                                                  const VectorQuery& query, SearchExplain* explain) {
  if (query.vectors.empty()) return Status::InvalidArgument("a vector search needs at least one query vector");
  ASSIGN_OR_RETURN(const Field* field, ResolveColumn(dataset, query.column, query.vectors[0].size()));
  if (!IsVectorType(field->type)) {
    return Status::InvalidArgument(dataset.uri() + ": column '" + field->name +
                                   "' is not a vector column (fixed_size_list of float16/float32/float64 or "
                                   "uint8): " +
                                   field->type.ToString());
  }
  VectorColumn column;
  column.name = field->name;
  column.dim = static_cast<uint32_t>(field->type.list_size);
  column.bits = field->type.children[0].type.id == TypeId::kUInt8;

  std::optional<SegmentPlan> plan;
  if (query.use_index) {
    ASSIGN_OR_RETURN(plan, PlanSegments(dataset, *field, [](const table::IndexMetadata& m) {
                       return index::VectorTypeOf(m).has_value();
                     }));
  }
  if (plan && plan->covered.empty()) plan.reset();  // e.g. every fragment it named was compacted
  std::vector<std::shared_ptr<const index::VectorIndex>> opened;
  if (plan) {
    for (const table::IndexMetadata& m : plan->segments) {
      ASSIGN_OR_RETURN(std::shared_ptr<const index::VectorIndex> seg, VectorSegments::Get().Open(dataset, m));
      opened.push_back(std::move(seg));
    }
  }
  if (column.bits) {
    column.distance = index::DistanceType::kHamming;
  } else if (query.distance) {
    column.distance = *query.distance;
  } else if (!opened.empty()) {
    column.distance = opened.front()->distance();
  }
  RETURN_IF_ERROR(
      index::CheckVectorType(field->type, column.distance, dataset.uri() + ": column '" + column.name + "'"));
  // An index built for another metric cannot answer this one: search exactly.
  if (!opened.empty() && opened.front()->distance() != column.distance) {
    plan.reset();
    opened.clear();
  }
  ASSIGN_OR_RETURN(PreparedQueries queries, Prepare(query, column));

  const bool postfilter = query.postfilter && !options.filter.empty();
  const std::string search_filter = postfilter ? "" : options.filter;
  const size_t want = static_cast<size_t>(query.k) + static_cast<size_t>(options.offset);
  // Postfiltering keeps the k nearest that pass, so more candidates than k are needed
  // only in the sense that the reference filters its top k: it does not widen them.
  std::vector<TopK> tops(queries.size(), TopK(want));

  std::vector<uint64_t> flat_fragments;
  for (const table::FragmentInfo& f : dataset.fragments()) {
    if (!plan || !plan->covered.count(f.id)) flat_fragments.push_back(f.id);
  }
  if (plan && !opened.empty()) {
    ASSIGN_OR_RETURN(const std::function<bool(uint64_t)> admit, AdmitRows(dataset, *plan, search_filter));
    index::VectorSearchParams params;
    params.nprobes = query.nprobes ? query.nprobes : kDefaultNprobes;
    params.ef = query.ef;
    // With unindexed fragments the reference re-ranks the index's k candidates by exact
    // distance before merging them with the exact search of the rest (a refine factor
    // of 1), so approximate and exact distances never compete.
    const size_t refine = query.refine_factor      ? std::max<uint32_t>(1, *query.refine_factor)
                          : flat_fragments.empty() ? 0
                                                   : 1;
    params.k = static_cast<uint32_t>(refine ? want * refine : want);
    for (size_t q = 0; q < queries.size(); ++q) {
      std::vector<float> as_float;
      const float* qv = nullptr;
      if (column.bits) {
        as_float.assign(queries.bytes[q].begin(), queries.bytes[q].end());
        qv = as_float.data();
      } else {
        qv = queries.floats[q].data();
      }
      std::vector<index::VectorHit> hits;
      for (const auto& seg : opened) {
        ASSIGN_OR_RETURN(std::vector<index::VectorHit> found, seg->Search(qv, params, admit ? &admit : nullptr));
        hits.insert(hits.end(), found.begin(), found.end());
      }
      if (refine) {
        std::vector<uint64_t> rows;
        for (const index::VectorHit& h : hits) rows.push_back(h.row);
        PreparedQueries one;
        one.bits = queries.bits;
        if (column.bits) {
          one.bytes = {queries.bytes[q]};
        } else {
          one.floats = {queries.floats[q]};
        }
        ASSIGN_OR_RETURN(std::vector<std::vector<float>> exact, ExactDistances(dataset, column, one, rows));
        for (size_t i = 0; i < rows.size(); ++i) tops[q].Offer(exact[0][i], rows[i]);
      } else {
        for (const index::VectorHit& h : hits) tops[q].Offer(h.distance, h.row);
      }
    }
  }
  if (!flat_fragments.empty()) {
    table::ScanOptions scan;
    scan.filter = search_filter;
    scan.fragment_ids = flat_fragments;
    scan.io_parallelism = options.io_parallelism;
    ASSIGN_OR_RETURN(std::vector<TopK> found, FlatSearch(dataset, scan, column, queries, want));
    for (size_t q = 0; q < tops.size(); ++q) tops[q].Merge(found[q]);
  }

  if (explain) {
    explain->column = column.name;
    explain->distance = index::DistanceTypeName(column.distance);
    explain->filter = options.filter;
    explain->postfilter = postfilter;
    explain->flat_fragments = flat_fragments;
    if (plan && !opened.empty()) {
      explain->index = plan->name + "(" + index::VectorIndexTypeName(opened.front()->type()) + ")";
      explain->segments = opened.size();
      explain->nprobes = query.nprobes ? query.nprobes : kDefaultNprobes;
      explain->refine_factor = query.refine_factor;
      explain->indexed_fragments.assign(plan->covered.begin(), plan->covered.end());
    }
  }

  const bool multi = queries.size() > 1;
  std::vector<RecordBatch> batches;
  std::optional<Schema> schema;
  for (size_t q = 0; q < tops.size(); ++q) {
    std::vector<Neighbor> best = tops[q].Sorted();
    best.erase(best.begin(), best.begin() + std::min(best.size(), static_cast<size_t>(options.offset)));
    std::vector<uint64_t> rows;
    std::vector<float> distances;
    for (const Neighbor& n : best) {
      rows.push_back(n.row);
      distances.push_back(n.distance);
    }
    if (postfilter && !rows.empty()) {
      // Keep the rows that pass, in distance order.
      ASSIGN_OR_RETURN(Roaring64Map passing, PassingRows(dataset, rows, options.filter));
      std::vector<uint64_t> kept_rows;
      std::vector<float> kept_distances;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (!passing.contains(rows[i])) continue;
        kept_rows.push_back(rows[i]);
        kept_distances.push_back(distances[i]);
      }
      rows.swap(kept_rows);
      distances.swap(kept_distances);
    }
    ASSIGN_OR_RETURN(RecordBatch out,
                     TakeScored(dataset, options, rows, distances, "_distance",
                                multi ? std::optional<uint32_t>(static_cast<uint32_t>(q)) : std::nullopt));
    if (!schema) schema = out.schema;
    out.schema = *schema;
    batches.push_back(std::move(out));
  }
  return MakeBatchVectorReader(*schema, std::move(batches));
}

}  // namespace lancet::scan
