// The planner: filter → Predicate tree → index searches per leaf → one row set over the
// fragments every used index covers → a RowSelection handed to the table's scanner.
#include "lancet/scan/scanner.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <type_traits>

#include "index/scalar_index.h"
#include "lancet/expr/predicate.h"
#include "lancet/index/scalar_index.h"

namespace lancet::scan {
namespace {

using expr::Predicate;

// Calls f(value) for each member in ascending order (Roaring64Map's own iterator is
// ambiguous to C++20's rewritten comparisons).
template <typename F>
void ForEachRow(const Roaring64Map& rows, F&& f) {
  using Fn = std::remove_reference_t<F>;
  rows.iterate(
      [](uint64_t v, void* p) {
        (*static_cast<Fn*>(p))(v);
        return true;
      },
      &f);
}

// Opened segments, by directory: a segment never changes once committed, so a later
// scan (or version) that uses it again pays no second open.
class ReaderCache {
 public:
  static ReaderCache& Get() {
    static ReaderCache cache;
    return cache;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    readers_.clear();
  }
  Result<std::shared_ptr<index::ScalarIndexReader>> Open(index::ScalarIndexType type,
                                                         const std::shared_ptr<io::ObjectStore>& store,
                                                         const std::string& dir, const DataType& value_type) {
    const std::string key =
        std::to_string(reinterpret_cast<uintptr_t>(store.get())) + "|" + dir + "|" + value_type.ToString();
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = readers_.find(key);
      if (it != readers_.end()) return it->second;
    }
    ASSIGN_OR_RETURN(std::unique_ptr<index::ScalarIndexReader> opened,
                     index::OpenScalarIndex(type, store, dir, value_type));
    std::shared_ptr<index::ScalarIndexReader> reader = std::move(opened);
    std::lock_guard<std::mutex> lock(mu_);
    if (readers_.size() >= kMaxReaders) readers_.clear();
    readers_[key] = reader;
    return reader;
  }

 private:
  static constexpr size_t kMaxReaders = 64;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<index::ScalarIndexReader>> readers_;
};

// All segments of one index name.
struct IndexOnColumn {
  std::string name;
  index::ScalarIndexType type;
  DataType value_type;
  std::vector<table::IndexMetadata> segments;
  std::set<uint64_t> covered;  // fragment ids of this version the segments cover
};

struct RowSet {
  Roaring64Map rows;  // row addresses
  bool exact = true;
};

index::ScalarQuery ToQuery(const Predicate& p) {
  index::ScalarQuery q;
  switch (p.op) {
    case Predicate::LeafOp::kEquals:
      q.kind = index::ScalarQuery::Kind::kEquals;
      break;
    case Predicate::LeafOp::kIn:
      q.kind = index::ScalarQuery::Kind::kIn;
      break;
    case Predicate::LeafOp::kRange:
      q.kind = index::ScalarQuery::Kind::kRange;
      if (p.lower) q.lower = index::ScalarQuery::Bound{*p.lower, p.lower_inclusive};
      if (p.upper) q.upper = index::ScalarQuery::Bound{*p.upper, p.upper_inclusive};
      break;
    case Predicate::LeafOp::kIsNull:
      q.kind = index::ScalarQuery::Kind::kIsNull;
      break;
    case Predicate::LeafOp::kPrefix:
      q.kind = index::ScalarQuery::Kind::kPrefix;
      q.prefix = p.prefix;
      break;
    case Predicate::LeafOp::kHasAny:
      q.kind = index::ScalarQuery::Kind::kHasAny;
      break;
  }
  q.values = p.values;
  return q;
}

class Planner {
 public:
  Planner(const table::Dataset& dataset, ScanExplain* explain) : dataset_(dataset), explain_(explain) {}

  Status LoadIndices() {
    ASSIGN_OR_RETURN(std::vector<table::IndexMetadata> all, dataset_.ListIndices());
    std::set<uint64_t> live;
    for (const table::FragmentInfo& f : dataset_.fragments()) live.insert(f.id);
    for (table::IndexMetadata& m : all) {
      std::optional<index::ScalarIndexType> type = index::ScalarTypeOf(m);
      if (!type || !index::IsUsable(m) || m.fields.size() != 1) continue;
      const Field* field = nullptr;
      for (const Field& f : dataset_.schema().fields) {
        if (f.id == m.fields[0]) field = &f;
      }
      if (!field) continue;
      auto& slot = by_column_[field->name];
      auto it = std::find_if(slot.begin(), slot.end(), [&](const IndexOnColumn& c) { return c.name == m.name; });
      if (it == slot.end()) {
        IndexOnColumn c;
        c.name = m.name;
        c.type = *type;
        c.value_type = *type == index::ScalarIndexType::kLabelList && !field->type.children.empty()
                           ? field->type.children[0].type
                           : field->type;
        slot.push_back(std::move(c));
        it = slot.end() - 1;
      }
      for (uint64_t id : m.fragment_ids) {
        if (live.count(id)) it->covered.insert(id);
      }
      it->segments.push_back(std::move(m));
    }
    // Exact indexes first: they need no recheck.
    for (auto& [col, list] : by_column_) {
      std::stable_sort(list.begin(), list.end(),
                       [](const IndexOnColumn& a, const IndexOnColumn& b) { return Exact(a.type) && !Exact(b.type); });
    }
    return Status::OK();
  }

  // The index a leaf would use: the first on its column whose reader answers it.
  Result<const IndexOnColumn*> Choose(const Predicate& leaf) {
    auto it = by_column_.find(leaf.column);
    if (it == by_column_.end()) return nullptr;
    const index::ScalarQuery q = ToQuery(leaf);
    for (const IndexOnColumn& c : it->second) {
      if (c.covered.empty()) continue;
      ASSIGN_OR_RETURN(auto readers, Readers(c));
      if (!readers.empty() && readers[0]->Supports(q)) return &c;
    }
    return nullptr;
  }

  // Pass 1: the fragments every index the tree would use covers.
  Status Cover(const Predicate& p) {
    if (p.kind == Predicate::Kind::kLeaf) {
      ASSIGN_OR_RETURN(const IndexOnColumn* c, Choose(p));
      if (!c) return Status::OK();
      if (!coverage_) {
        coverage_ = c->covered;
      } else {
        std::set<uint64_t> both;
        std::set_intersection(coverage_->begin(), coverage_->end(), c->covered.begin(), c->covered.end(),
                              std::inserter(both, both.end()));
        coverage_ = std::move(both);
      }
      return Status::OK();
    }
    for (const Predicate& a : p.args) RETURN_IF_ERROR(Cover(a));
    return Status::OK();
  }

  const std::optional<std::set<uint64_t>>& coverage() const { return coverage_; }

  // Pass 2: the rows (addresses within the coverage) where `p` may be true; nullopt
  // when the indexes cannot narrow it down.
  Result<std::optional<RowSet>> Eval(const Predicate& p) {
    switch (p.kind) {
      case Predicate::Kind::kLeaf:
        return Leaf(p);
      case Predicate::Kind::kAnd: {
        std::optional<RowSet> acc;
        bool all = true;
        for (const Predicate& a : p.args) {
          ASSIGN_OR_RETURN(std::optional<RowSet> r, Eval(a));
          if (!r) {
            all = false;
            continue;
          }
          if (!acc) {
            acc = std::move(r);
          } else {
            acc->rows &= r->rows;
            acc->exact = acc->exact && r->exact;
          }
        }
        if (acc && !all) acc->exact = false;
        return acc;
      }
      case Predicate::Kind::kOr: {
        RowSet acc;
        for (const Predicate& a : p.args) {
          ASSIGN_OR_RETURN(std::optional<RowSet> r, Eval(a));
          if (!r) return std::optional<RowSet>();
          acc.rows |= r->rows;
          acc.exact = acc.exact && r->exact;
        }
        return std::optional<RowSet>(std::move(acc));
      }
      case Predicate::Kind::kNot: {
        ASSIGN_OR_RETURN(std::optional<RowSet> r, Eval(p.args[0]));
        // The complement of a superset is no superset; that of an exact set still holds
        // the rows where the inner part is NULL, so the filter rechecks it.
        if (!r || !r->exact) return std::optional<RowSet>();
        RowSet out;
        out.rows = Universe();
        out.rows -= r->rows;
        out.exact = false;
        return std::optional<RowSet>(std::move(out));
      }
      case Predicate::Kind::kOther:
        return std::optional<RowSet>();
    }
    return std::optional<RowSet>();
  }

  Roaring64Map Universe() const {
    Roaring64Map all;
    for (const table::FragmentInfo& f : dataset_.fragments()) {
      if (!coverage_->count(f.id) || f.physical_rows == 0) continue;
      all.flip(f.id << 32, (f.id << 32) + f.physical_rows);  // an empty range: flip sets it
    }
    return all;
  }

 private:
  static bool Exact(index::ScalarIndexType t) {
    return t != index::ScalarIndexType::kZoneMap && t != index::ScalarIndexType::kBloomFilter;
  }

  Result<std::vector<std::shared_ptr<index::ScalarIndexReader>>> Readers(const IndexOnColumn& c) {
    auto it = readers_.find(c.name);
    if (it != readers_.end()) return it->second;
    std::vector<std::shared_ptr<index::ScalarIndexReader>> out;
    for (const table::IndexMetadata& m : c.segments) {
      ASSIGN_OR_RETURN(std::string dir, dataset_.IndexDirectory(m));
      RETURN_IF_ERROR(CheckFileSizes(m, dir));
      ASSIGN_OR_RETURN(auto r, ReaderCache::Get().Open(c.type, dataset_.store(), dir, c.value_type));
      out.push_back(std::move(r));
    }
    readers_[c.name] = out;
    return out;
  }

  // A segment's files must have the sizes its metadata recorded (the reference reads
  // them by those sizes): a truncated or replaced file is named, not misread.
  Status CheckFileSizes(const table::IndexMetadata& m, const std::string& dir) const {
    for (const table::IndexFileInfo& f : m.files) {
      const std::string path = dir + "/" + f.path;
      ASSIGN_OR_RETURN(uint64_t size, dataset_.store()->Size(path));
      if (size != f.size_bytes) {
        return Status::Corruption(path + ": index file has " + std::to_string(size) + " bytes, its index '" + m.name +
                                  "' recorded " + std::to_string(f.size_bytes));
      }
    }
    return Status::OK();
  }

  // Row ids (stable row ids) → addresses; ids of rows no longer live are dropped.
  Result<Roaring64Map> ToAddresses(const Roaring64Map& ids) const {
    Roaring64Map out;
    std::vector<uint64_t> chunk;
    auto flush = [&]() -> Status {
      auto addrs = dataset_.RowIdsToAddresses(chunk);
      if (addrs.ok()) {
        for (uint64_t a : *addrs) out.add(a);
      } else {
        for (uint64_t id : chunk) {
          auto one = dataset_.RowIdsToAddresses(std::span<const uint64_t>(&id, 1));
          if (one.ok()) out.add((*one)[0]);
        }
      }
      chunk.clear();
      return Status::OK();
    };
    Status st;
    ForEachRow(ids, [&](uint64_t id) {
      chunk.push_back(id);
      if (chunk.size() == 4096 && st.ok()) st = flush();
    });
    RETURN_IF_ERROR(st);
    if (!chunk.empty()) RETURN_IF_ERROR(flush());
    return out;
  }

  Result<std::optional<RowSet>> Leaf(const Predicate& p) {
    ASSIGN_OR_RETURN(const IndexOnColumn* c, Choose(p));
    if (!c) return std::optional<RowSet>();
    ASSIGN_OR_RETURN(auto readers, Readers(*c));
    RowSet out;
    const index::ScalarQuery q = ToQuery(p);
    for (const auto& r : readers) {
      ASSIGN_OR_RETURN(index::SearchResult found, r->Search(q));
      out.exact = out.exact && found.exact;
      if (Exact(c->type) && dataset_.stable_row_ids()) {
        ASSIGN_OR_RETURN(Roaring64Map addrs, ToAddresses(found.rows));
        out.rows |= addrs;
      } else {
        out.rows |= found.rows;
      }
    }
    out.rows &= Universe();
    if (explain_) {
      explain_->uses.push_back(
          {p.text, c->name, index::ScalarIndexTypeName(c->type), out.rows.cardinality(), out.exact});
    }
    return std::optional<RowSet>(std::move(out));
  }

  const table::Dataset& dataset_;
  ScanExplain* explain_;
  std::map<std::string, std::vector<IndexOnColumn>> by_column_;
  std::map<std::string, std::vector<std::shared_ptr<index::ScalarIndexReader>>> readers_;
  std::optional<std::set<uint64_t>> coverage_;
};

// The selection for `rows` over the covered fragments.
std::shared_ptr<table::RowSelection> ToSelection(const Roaring64Map& rows, bool exact,
                                                 const std::set<uint64_t>& coverage) {
  auto sel = std::make_shared<table::RowSelection>();
  for (uint64_t id : coverage) sel->fragments[id].exact = exact;
  ForEachRow(rows, [&](uint64_t addr) {
    table::FragmentSelection& f = sel->fragments[addr >> 32];
    const uint64_t o = addr & 0xffffffffULL;
    if (!f.ranges.empty() && f.ranges.back().second == o) {
      ++f.ranges.back().second;
    } else {
      f.ranges.emplace_back(o, o + 1);
    }
  });
  return sel;
}

// Plans `options`; sets options.selection when indexes narrow the scan.
Status Plan(const table::Dataset& dataset, table::ScanOptions* options, ScanExplain* explain) {
  if (options->filter.empty() || options->selection) return Status::OK();
  auto filter = expr::Filter::Bind(options->filter, dataset.read_schema());
  // Filters on meta columns (or errors) are the table scanner's to handle.
  if (!filter.ok()) return Status::OK();
  const Predicate pred = expr::AnalyzePredicate(*filter);
  Planner planner(dataset, explain);
  RETURN_IF_ERROR(planner.LoadIndices());
  RETURN_IF_ERROR(planner.Cover(pred));
  if (!planner.coverage() || planner.coverage()->empty()) {
    if (explain) {
      for (const table::FragmentInfo& f : dataset.fragments()) explain->scanned_fragments.push_back(f.id);
    }
    return Status::OK();
  }
  ASSIGN_OR_RETURN(std::optional<RowSet> rows, planner.Eval(pred));
  if (!rows) return Status::OK();
  const std::set<uint64_t>& coverage = *planner.coverage();
  options->selection = ToSelection(rows->rows, rows->exact, coverage);
  if (explain) {
    for (const table::FragmentInfo& f : dataset.fragments()) {
      (coverage.count(f.id) ? explain->indexed_fragments : explain->scanned_fragments).push_back(f.id);
    }
    explain->selected_rows = rows->rows.cardinality();
    explain->rechecked = !rows->exact;
  }
  return Status::OK();
}

}  // namespace

std::string ScanExplain::ToString() const {
  std::string out;
  for (const IndexUse& u : uses) {
    out += "ScalarIndexQuery: query=[" + u.query + "]@" + u.index + "(" + u.type + ") " +
           (u.exact ? "rows=" : "candidate_rows=") + std::to_string(u.rows) + "\n";
  }
  if (uses.empty()) out += "no index used: every fragment is scanned with the filter\n";
  if (!indexed_fragments.empty()) {
    out += "fragments: " + std::to_string(indexed_fragments.size()) + " through indexes (" +
           std::to_string(selected_rows) + " rows read, filter " + (rechecked ? "rechecked" : "not rechecked: exact") +
           "), " + std::to_string(scanned_fragments.size()) + " scanned with the filter\n";
  }
  return out;
}

Result<std::unique_ptr<RecordBatchReader>> NewScan(const table::Dataset& dataset, table::ScanOptions options,
                                                   ScanExplain* explain) {
  RETURN_IF_ERROR(Plan(dataset, &options, explain));
  return dataset.NewScan(options);
}

void ClearIndexCache() { ReaderCache::Get().Clear(); }

Result<ScanExplain> Explain(const table::Dataset& dataset, const table::ScanOptions& options) {
  ScanExplain explain;
  table::ScanOptions planned = options;
  RETURN_IF_ERROR(Plan(dataset, &planned, &explain));
  return explain;
}

}  // namespace lancet::scan
