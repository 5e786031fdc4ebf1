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
#include "scan/knn.h"
#include "scan/row_sets.h"
#include "util/array_builder.h"

namespace lancet::scan {
namespace {

// The reference's default number of partitions probed (its plans show minimum_nprobes=20).
constexpr uint32_t kDefaultNprobes = 20;

class SegmentCache {
 public:
  static SegmentCache& Get() {
    static SegmentCache cache;
    return cache;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    open_.clear();
  }
  Result<std::shared_ptr<const index::VectorIndex>> Open(const table::Dataset& dataset,
                                                         const table::IndexMetadata& meta) {
    ASSIGN_OR_RETURN(const std::string dir, dataset.IndexDirectory(meta));
    const std::string key = std::to_string(reinterpret_cast<uintptr_t>(dataset.store().get())) + "|" + dir;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = open_.find(key);
      if (it != open_.end()) return it->second;
    }
    ASSIGN_OR_RETURN(std::shared_ptr<const index::VectorIndex> opened, index::VectorIndex::Open(dataset, meta));
    std::lock_guard<std::mutex> lock(mu_);
    if (open_.size() >= kMaxOpen) open_.clear();
    open_[key] = opened;
    return opened;
  }

 private:
  static constexpr size_t kMaxOpen = 32;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const index::VectorIndex>> open_;
};

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

// The segments of one vector index on `field`, and the live fragments they cover.
struct IndexPlan {
  std::string name;
  index::VectorIndexType type{};
  std::vector<table::IndexMetadata> segments;
  std::set<uint64_t> covered;
  bool deletions = false;  // a covered fragment has deleted rows
};

Result<std::optional<IndexPlan>> FindIndex(const table::Dataset& dataset, const Field& field) {
  ASSIGN_OR_RETURN(std::vector<table::IndexMetadata> all, dataset.ListIndices());
  std::map<uint64_t, const table::FragmentInfo*> live;
  for (const table::FragmentInfo& f : dataset.fragments()) live[f.id] = &f;
  std::optional<IndexPlan> plan;
  for (const table::IndexMetadata& m : all) {
    std::optional<index::VectorIndexType> type = index::VectorTypeOf(m);
    if (!type || m.fields.size() != 1 || m.fields[0] != field.id) continue;
    if (plan && plan->name != m.name) continue;  // one index per column is searched
    if (!plan) plan = IndexPlan{m.name, *type, {}, {}, false};
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

Result<Array> Float32Array(const std::vector<float>& values) {
  return ArrayFromVector(MakeType(TypeId::kFloat32), values);
}

std::string Join(const std::vector<uint64_t>& ids) {
  std::string s;
  for (uint64_t id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
  return "[" + s + "]";
}

}  // namespace

std::string SearchExplain::ToString() const {
  std::string s;
  if (!index.empty()) {
    s += "ANNIvfPartition: index=" + index + " segments=" + std::to_string(segments) +
         " nprobes=" + std::to_string(nprobes) +
         " refine_factor=" + (refine_factor ? std::to_string(*refine_factor) : "--") + " metric=" + distance +
         " fragments=" + Join(indexed_fragments) + "\n";
  }
  if (!flat_fragments.empty() || index.empty()) {
    s += "KNNVectorDistance: column=" + column + " metric=" + distance + " fragments=" + Join(flat_fragments) + "\n";
  }
  if (!filter.empty()) s += std::string(postfilter ? "PostFilter: " : "PreFilter: ") + filter + "\n";
  return s;
}

void ClearVectorIndexCache() { SegmentCache::Get().Clear(); }

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

  std::optional<IndexPlan> plan;
  if (query.use_index) {
    ASSIGN_OR_RETURN(plan, FindIndex(dataset, *field));
  }
  if (plan && plan->covered.empty()) plan.reset();  // e.g. every fragment it named was compacted
  std::vector<std::shared_ptr<const index::VectorIndex>> opened;
  if (plan) {
    for (const table::IndexMetadata& m : plan->segments) {
      ASSIGN_OR_RETURN(std::shared_ptr<const index::VectorIndex> seg, SegmentCache::Get().Open(dataset, m));
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
    // Index rows are valid only in the live fragments the index covers: fragments
    // compacted away drop out of its bitmap while their rows stay in its files. Row
    // addresses name their fragment; stable row ids need the covered rows listed
    // whenever some fragment (appended or compacted) is not covered.
    const bool stable = dataset.stable_row_ids();
    const bool all_covered = plan->covered.size() == dataset.fragments().size();
    std::optional<Roaring64Map> allowed;
    if (!search_filter.empty() || plan->deletions || (stable && !all_covered)) {
      ASSIGN_OR_RETURN(allowed, AllowedRows(dataset, plan->covered, search_filter));
    }
    const std::set<uint64_t>& covered = plan->covered;
    std::function<bool(uint64_t)> admit;
    if (allowed) {
      admit = [&](uint64_t row) { return allowed->contains(row); };
    } else if (!stable && !all_covered) {
      admit = [&](uint64_t row) { return covered.count(row >> 32) > 0; };
    }
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
      explain->index = plan->name + "(" + index::VectorIndexTypeName(plan->type) + ")";
      explain->segments = opened.size();
      explain->nprobes = query.nprobes ? query.nprobes : kDefaultNprobes;
      explain->refine_factor = query.refine_factor;
      explain->indexed_fragments.assign(plan->covered.begin(), plan->covered.end());
    }
  }

  // Output: the projected columns of the winners, then _distance, then the meta columns.
  std::vector<std::string> columns = options.columns;
  if (columns.empty()) {
    for (const Field& f : dataset.read_schema().fields) columns.push_back(f.name);
  }
  std::vector<std::string> take_columns = columns;
  if (options.with_row_id) take_columns.push_back("_rowid");
  if (options.with_row_addr) take_columns.push_back("_rowaddr");
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
    ASSIGN_OR_RETURN(RecordBatch taken, dataset.TakeRowIds(rows, take_columns));
    RecordBatch out;
    out.num_rows = static_cast<int64_t>(rows.size());
    if (multi) {
      std::vector<uint32_t> qi(rows.size(), static_cast<uint32_t>(q));
      ASSIGN_OR_RETURN(Array a, ArrayFromVector(MakeType(TypeId::kUInt32), qi));
      out.schema.fields.push_back(MakeField("query_index", MakeType(TypeId::kUInt32), false));
      out.columns.push_back(std::move(a));
    }
    const size_t meta_count = take_columns.size() - columns.size();
    for (size_t c = 0; c < columns.size(); ++c) {
      out.schema.fields.push_back(taken.schema.fields[c]);
      out.columns.push_back(taken.columns[c]);
    }
    ASSIGN_OR_RETURN(Array dist, Float32Array(distances));
    out.schema.fields.push_back(MakeField("_distance", MakeType(TypeId::kFloat32), true));
    out.columns.push_back(std::move(dist));
    for (size_t c = columns.size(); c < columns.size() + meta_count; ++c) {
      out.schema.fields.push_back(taken.schema.fields[c]);
      out.columns.push_back(taken.columns[c]);
    }
    if (!schema) schema = out.schema;
    out.schema = *schema;
    batches.push_back(std::move(out));
  }
  return MakeBatchVectorReader(*schema, std::move(batches));
}

}  // namespace lancet::scan
