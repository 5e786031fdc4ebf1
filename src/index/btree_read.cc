// Answers queries from a BTree segment: page_lookup is held in memory, and only the
// page_data rows of pages that may match are read, then filtered exactly.
#include <algorithm>
#include <charconv>
#include <functional>

#include "index/btree.h"
#include "index/float_nan.h"
#include "index/index_file.h"
#include "index/value_order.h"

namespace lancet::index {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

using RowTest = std::function<bool(const Array& values, int64_t i)>;

// Adjacent candidate pages are read together, this many at most, so that a broad
// range holds a bounded slice of page_data at a time.
constexpr size_t kPagesPerRead = 16;

class BTreeReader final : public ScalarIndexReader {
 public:
  static Result<std::unique_ptr<ScalarIndexReader>> Open(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                                         const DataType& type);

  ScalarIndexType type() const override { return ScalarIndexType::kBTree; }

  bool Supports(const ScalarQuery& q) const override {
    switch (q.kind) {
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn:
      case ScalarQuery::Kind::kRange:
        return ComparisonLiteralsFit(q, type_);
      case ScalarQuery::Kind::kIsNull:
        return true;
      case ScalarQuery::Kind::kPrefix:
        return type_.id == TypeId::kUtf8 || type_.id == TypeId::kLargeUtf8;
      default:
        return false;
    }
  }

  Result<SearchResult> Search(const ScalarQuery& q) const override {
    if (!Supports(q)) return Status::InvalidArgument(data_->path() + ": the BTree index cannot answer this query");
    std::vector<bool> pages(num_pages(), false);
    RowTest test;
    switch (q.kind) {
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn: {
        std::vector<int64_t> order;
        for (int64_t i = 0; i < q.values.length; ++i) {
          if (!q.values.IsValid(i)) continue;  // x IN (NULL) is never true
          MarkRange(&pages, &q.values, i, &q.values, i);
          order.push_back(i);
        }
        const Array& lits = q.values;
        std::sort(order.begin(), order.end(),
                  [&](int64_t a, int64_t b) { return CompareValues(lits, a, lits, b) < 0; });
        test = [&lits, order](const Array& v, int64_t i) {
          if (!v.IsValid(i)) return false;
          auto it = std::lower_bound(order.begin(), order.end(), i,
                                     [&](int64_t lit, int64_t row) { return CompareValues(lits, lit, v, row) < 0; });
          return it != order.end() && CompareValues(lits, *it, v, i) == 0;
        };
        break;
      }
      case ScalarQuery::Kind::kRange: {
        const Array* lo = q.lower ? &q.lower->value : nullptr;
        const Array* hi = q.upper ? &q.upper->value : nullptr;
        if ((lo && !lo->IsValid(0)) || (hi && !hi->IsValid(0))) return SearchResult{};  // x < NULL is never true
        MarkRange(&pages, lo, 0, hi, 0);
        const bool lo_inc = lo && q.lower->inclusive, hi_inc = hi && q.upper->inclusive;
        test = [lo, hi, lo_inc, hi_inc](const Array& v, int64_t i) {
          if (!v.IsValid(i)) return false;
          if (lo) {
            const int c = CompareValues(v, i, *lo, 0);
            if (c < 0 || (c == 0 && !lo_inc)) return false;
          }
          if (hi) {
            const int c = CompareValues(v, i, *hi, 0);
            if (c > 0 || (c == 0 && !hi_inc)) return false;
          }
          return true;
        };
        break;
      }
      case ScalarQuery::Kind::kIsNull:
        for (size_t p = 0; p < num_pages(); ++p) pages[p] = null_counts_[p] > 0;
        test = [](const Array& v, int64_t i) { return v.IsNull(i); };
        break;
      case ScalarQuery::Kind::kPrefix: {
        MarkPrefix(&pages, q.prefix);
        const std::string prefix = q.prefix;
        test = [prefix](const Array& v, int64_t i) { return v.IsValid(i) && StartsWith(v.GetView(i), prefix); };
        break;
      }
      default:
        break;
    }
    return ReadPages(pages, test);
  }

 private:
  size_t num_pages() const { return null_counts_.size(); }

  // The first page whose last value is not below the literal: pages run in value
  // order, so every page before it holds only smaller values (or nulls).
  size_t FirstPageReaching(const Array* lo, int64_t li) const {
    size_t a = 0, b = num_pages();
    while (a < b) {
      const size_t m = (a + b) / 2;
      const bool below =
          maxs_.IsNull(static_cast<int64_t>(m)) || (lo && CompareValues(maxs_, static_cast<int64_t>(m), *lo, li) < 0);
      if (below) {
        a = m + 1;
      } else {
        b = m;
      }
    }
    return a;
  }

  // Marks the pages that may hold a valid value within [lo, hi] (either may be absent).
  void MarkRange(std::vector<bool>* pages, const Array* lo, int64_t li, const Array* hi, int64_t hj) const {
    for (size_t p = FirstPageReaching(lo, li); p < num_pages(); ++p) {
      const int64_t pi = static_cast<int64_t>(p);
      if (hi && mins_.IsValid(pi) && CompareValues(mins_, pi, *hi, hj) > 0) break;
      (*pages)[p] = true;
    }
  }

  void MarkPrefix(std::vector<bool>* pages, const std::string& prefix) const {
    size_t a = 0, b = num_pages();
    while (a < b) {
      const size_t m = (a + b) / 2;
      const int64_t mi = static_cast<int64_t>(m);
      if (maxs_.IsNull(mi) || maxs_.GetView(mi) < std::string_view(prefix)) {
        a = m + 1;
      } else {
        b = m;
      }
    }
    for (size_t p = a; p < num_pages(); ++p) {
      const int64_t pi = static_cast<int64_t>(p);
      if (mins_.IsValid(pi) && mins_.GetView(pi) > std::string_view(prefix) && !StartsWith(mins_.GetView(pi), prefix)) {
        break;
      }
      (*pages)[p] = true;
    }
  }

  // Reads each run of marked pages once and keeps the ids of the rows that pass.
  Result<SearchResult> ReadPages(const std::vector<bool>& pages, const RowTest& test) const {
    SearchResult out;
    const uint64_t rows = data_->num_rows();
    for (size_t p = 0; p < pages.size();) {
      if (!pages[p]) {
        ++p;
        continue;
      }
      size_t end = p;
      while (end < pages.size() && pages[end] && end - p < kPagesPerRead) ++end;
      const uint64_t begin_row = p * batch_size_, end_row = std::min<uint64_t>(rows, end * batch_size_);
      ASSIGN_OR_RETURN(Array values, ReadIndexColumn(*data_, 0, begin_row, end_row));
      if (values.length != static_cast<int64_t>(end_row - begin_row)) {
        return Status::Corruption(data_->path() + ": page_data rows [" + std::to_string(begin_row) + ", " +
                                  std::to_string(end_row) + ") read back wrong");
      }
      std::vector<uint64_t> hits;
      for (int64_t i = 0; i < values.length; ++i) {
        if (test(values, i)) hits.push_back(begin_row + static_cast<uint64_t>(i));
      }
      if (hits.empty()) {
        p = end;
        continue;
      }
      // A lookup matches a few rows of the page: their ids alone are fetched, not the
      // page's (a point lookup reads half the bytes).
      const bool few = hits.size() * 8 < end_row - begin_row;
      ASSIGN_OR_RETURN(Array ids,
                       few ? TakeIndexColumn(*data_, 1, hits) : ReadIndexColumn(*data_, 1, begin_row, end_row));
      const int64_t want = few ? static_cast<int64_t>(hits.size()) : static_cast<int64_t>(end_row - begin_row);
      if (ids.length != want || ids.null_count != 0) {
        return Status::Corruption(data_->path() + ": page_data ids of rows [" + std::to_string(begin_row) + ", " +
                                  std::to_string(end_row) + ") read back wrong");
      }
      const uint64_t* id = ids.values<uint64_t>();
      for (size_t k = 0; k < hits.size(); ++k) out.rows.add(id[few ? k : hits[k] - begin_row]);
      p = end;
    }
    return out;
  }

  DataType type_;
  std::unique_ptr<format::FileReader> data_;
  uint64_t batch_size_ = kBTreeDefaultBatchSize;
  // Per page, in page order.
  Array mins_, maxs_;
  std::vector<uint32_t> null_counts_;
};

Result<uint64_t> ParseBatchSize(const format::FileReader& lookup) {
  const std::string text = IndexFileMetadata(lookup, kBTreeBatchSizeKey);
  if (text.empty()) return kBTreeDefaultBatchSize;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v == 0 || v > (uint64_t{1} << 32)) {
    return Status::Corruption(lookup.path() + ": batch_size '" + text + "' is not a row count");
  }
  return v;
}

Result<std::unique_ptr<ScalarIndexReader>> BTreeReader::Open(std::shared_ptr<io::ObjectStore> store,
                                                             const std::string& dir, const DataType& type) {
  auto r = std::make_unique<BTreeReader>();
  r->type_ = type;
  ASSIGN_OR_RETURN(auto lookup, OpenIndexFile(*store, dir, kBTreePageLookup));
  ASSIGN_OR_RETURN(r->data_, OpenIndexFile(*store, dir, kBTreePageData));
  const DataType u32 = MakeType(TypeId::kUInt32);
  RETURN_IF_ERROR(CheckIndexColumn(*lookup, 0, "min", type));
  RETURN_IF_ERROR(CheckIndexColumn(*lookup, 1, "max", type));
  RETURN_IF_ERROR(CheckIndexColumn(*lookup, 2, "null_count", u32));
  RETURN_IF_ERROR(CheckIndexColumn(*lookup, 3, "page_idx", u32));
  RETURN_IF_ERROR(CheckIndexColumn(*r->data_, 0, "values", type));
  RETURN_IF_ERROR(CheckIndexColumn(*r->data_, 1, "ids", MakeType(TypeId::kUInt64)));
  ASSIGN_OR_RETURN(r->batch_size_, ParseBatchSize(*lookup));

  const uint64_t n = lookup->num_rows();
  const uint64_t rows = r->data_->num_rows();
  if (n != (rows + r->batch_size_ - 1) / r->batch_size_) {
    return Status::Corruption(lookup->path() + ": " + std::to_string(n) + " pages for " + std::to_string(rows) +
                              " rows of page_data in pages of " + std::to_string(r->batch_size_));
  }
  ASSIGN_OR_RETURN(Array mins, ReadIndexColumn(*lookup, 0, 0, n));
  ASSIGN_OR_RETURN(Array maxs, ReadIndexColumn(*lookup, 1, 0, n));
  ASSIGN_OR_RETURN(Array counts, ReadIndexColumn(*lookup, 2, 0, n));
  ASSIGN_OR_RETURN(Array idx, ReadIndexColumn(*lookup, 3, 0, n));
  const int64_t len = static_cast<int64_t>(n);
  if (mins.length != len || maxs.length != len || counts.length != len || idx.length != len || counts.null_count != 0 ||
      idx.null_count != 0) {
    return Status::Corruption(lookup->path() + ": page lookup columns read back wrong");
  }
  // The rows may list pages in any order; they are kept in page order.
  std::vector<int64_t> by_page(n, -1);
  for (int64_t i = 0; i < len; ++i) {
    const uint32_t p = idx.values<uint32_t>()[i];
    if (p >= n || by_page[p] >= 0) {
      return Status::Corruption(lookup->path() + ": page_idx " + std::to_string(p) + " is out of range or repeated");
    }
    by_page[p] = i;
  }
  ASSIGN_OR_RETURN(r->mins_, TakeRows(mins, by_page));
  ASSIGN_OR_RETURN(r->maxs_, TakeRows(maxs, by_page));
  for (int64_t i : by_page) r->null_counts_.push_back(counts.values<uint32_t>()[i]);
  return std::unique_ptr<ScalarIndexReader>(std::move(r));
}

}  // namespace

Result<std::unique_ptr<ScalarIndexReader>> OpenBTreeIndex(std::shared_ptr<io::ObjectStore> store,
                                                          const std::string& dir, const DataType& value_type) {
  if (!IsOrderable(value_type)) {
    return Status::InvalidArgument("BTree index over " + value_type.ToString() + ", which cannot be ordered");
  }
  return BTreeReader::Open(std::move(store), dir, value_type);
}

}  // namespace lancet::index
