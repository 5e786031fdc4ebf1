#include "index_test_util.h"

#include "index/value_order.h"
#include "util/array_builder.h"

namespace lancet::index {

namespace {

bool Matches(const Array& col, int64_t i, const ScalarQuery& q) {
  using K = ScalarQuery::Kind;
  switch (q.kind) {
    case K::kEquals:
    case K::kIn:
      if (col.IsNull(i)) return false;
      for (int64_t j = 0; j < q.values.length; ++j) {
        if (q.values.IsValid(j) && CompareValues(col, i, q.values, j) == 0) return true;
      }
      return false;
    case K::kRange:
      if (col.IsNull(i)) return false;
      if (q.lower) {
        if (q.lower->value.IsNull(0)) return false;
        const int c = CompareValues(col, i, q.lower->value, 0);
        if (c < 0 || (c == 0 && !q.lower->inclusive)) return false;
      }
      if (q.upper) {
        if (q.upper->value.IsNull(0)) return false;
        const int c = CompareValues(col, i, q.upper->value, 0);
        if (c > 0 || (c == 0 && !q.upper->inclusive)) return false;
      }
      return true;
    case K::kIsNull:
      return col.IsNull(i);
    case K::kPrefix:
      return col.IsValid(i) && col.GetView(i).substr(0, q.prefix.size()) == q.prefix;
    case K::kHasAny:
    case K::kHasAll: {
      if (col.IsNull(i)) return false;
      auto [b, e] = col.ListRange(i);
      const Array& items = col.children[0];
      for (int64_t j = 0; j < q.values.length; ++j) {
        bool found = false;
        for (int64_t k = b; k < e && !found; ++k) found = items.IsValid(k) && CompareValues(items, k, q.values, j) == 0;
        if (found && q.kind == K::kHasAny) return true;
        if (!found && q.kind == K::kHasAll) return false;
      }
      return q.kind == K::kHasAll;
    }
  }
  return false;
}

ScalarQuery Range(const Array& lits, int64_t lo, bool lo_inc, int64_t hi, bool hi_inc) {
  ScalarQuery q;
  q.kind = ScalarQuery::Kind::kRange;
  if (lo >= 0) q.lower = ScalarQuery::Bound{ArraySlice(lits, lo, 1), lo_inc};
  if (hi >= 0) q.upper = ScalarQuery::Bound{ArraySlice(lits, hi, 1), hi_inc};
  return q;
}

}  // namespace

std::set<uint64_t> BruteForce(const Array& column, const std::vector<uint64_t>& ids, const ScalarQuery& q) {
  std::set<uint64_t> out;
  for (int64_t i = 0; i < column.length; ++i) {
    if (Matches(column, i, q)) out.insert(ids[static_cast<size_t>(i)]);
  }
  return out;
}

std::set<uint64_t> ToSet(const Roaring64Map& rows) {
  // Through toUint64Array: the set's iterator's != is ambiguous to clang in C++20.
  std::vector<uint64_t> all(rows.cardinality());
  rows.toUint64Array(all.data());
  return std::set<uint64_t>(all.begin(), all.end());
}

std::vector<ScalarQuery> QueriesOver(const Array& lits) {
  std::vector<ScalarQuery> qs;
  const int64_t n = lits.length;
  for (int64_t i = 0; i < n; ++i) {
    ScalarQuery eq;
    eq.kind = ScalarQuery::Kind::kEquals;
    eq.values = ArraySlice(lits, i, 1);
    qs.push_back(eq);
    for (int64_t j = 0; j < n; j += 2) {
      qs.push_back(Range(lits, i, true, j, true));
      qs.push_back(Range(lits, i, false, j, false));
    }
    qs.push_back(Range(lits, i, true, -1, false));
    qs.push_back(Range(lits, i, false, -1, false));
    qs.push_back(Range(lits, -1, false, i, true));
    qs.push_back(Range(lits, -1, false, i, false));
  }
  ScalarQuery in;
  in.kind = ScalarQuery::Kind::kIn;
  in.values = lits;
  qs.push_back(in);
  if (n > 2) {
    in.values = ArraySlice(lits, 1, 2);
    qs.push_back(in);
  }
  ScalarQuery null;
  null.kind = ScalarQuery::Kind::kIsNull;
  qs.push_back(null);
  return qs;
}

std::vector<uint64_t> SpreadIds(int64_t n) {
  std::vector<uint64_t> ids;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t frag = static_cast<uint64_t>(i % 3) * 7 + 1;
    ids.push_back((frag << 32) | static_cast<uint64_t>(i / 3));
  }
  return ids;
}

std::vector<uint8_t> ReadAll(io::ObjectStore& store, const std::string& path) {
  auto file = store.OpenRead(path).MoveValue();
  auto bytes = file->ReadAt(0, file->Size().value()).MoveValue();
  return std::vector<uint8_t>(bytes->data(), bytes->data() + bytes->size());
}

}  // namespace lancet::index

#include <gtest/gtest.h>

namespace lancet::index {

Result<std::vector<IndexFileEntry>> BuildIndex(ScalarIndexType type, const Field& field, const Array& values,
                                               const std::vector<uint64_t>& ids,
                                               std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                               const BuildOptions& options) {
  ASSIGN_OR_RETURN(auto builder, MakeScalarIndexBuilder(type, field, store, dir, options));
  const int64_t step = std::max<int64_t>(1, values.length / 3 + 1);
  for (int64_t begin = 0; begin < values.length; begin += step) {
    const int64_t n = std::min(step, values.length - begin);
    RETURN_IF_ERROR(builder->Add(ArraySlice(values, begin, n),
                                 std::span<const uint64_t>(ids.data() + begin, static_cast<size_t>(n))));
  }
  return builder->Finish();
}

int CheckQueries(ScalarIndexType type, std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                 const DataType& value_type, const Array& column, const std::vector<uint64_t>& ids,
                 const std::vector<ScalarQuery>& queries) {
  auto reader = OpenScalarIndex(type, store, dir, value_type);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return 0;
  int checked = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    if (!(*reader)->Supports(queries[i])) continue;
    auto got = (*reader)->Search(queries[i]);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) continue;
    EXPECT_TRUE(got->exact);
    EXPECT_EQ(ToSet(got->rows), BruteForce(column, ids, queries[i])) << "query " << i;
    ++checked;
  }
  return checked;
}

Status OpenAndSearch(ScalarIndexType type, std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                     const DataType& value_type, const std::vector<ScalarQuery>& queries) {
  ASSIGN_OR_RETURN(auto reader, OpenScalarIndex(type, store, dir, value_type));
  for (const ScalarQuery& q : queries) {
    if (!reader->Supports(q)) continue;
    RETURN_IF_ERROR(reader->Search(q).status());
  }
  return Status::OK();
}

}  // namespace lancet::index

#include <random>

namespace lancet::index {

void CheckDamage(ScalarIndexType type, io::ObjectStore& store, const std::string& dir,
                 const std::vector<IndexFileEntry>& files, const DataType& value_type,
                 const std::vector<ScalarQuery>& queries) {
  std::vector<std::vector<uint8_t>> bytes;
  for (const auto& f : files) bytes.push_back(ReadAll(store, dir + "/" + f.path));
  std::mt19937 rng(7);
  for (size_t target = 0; target < files.size(); ++target) {
    auto with = [&](const std::vector<uint8_t>& damaged) {
      auto copy = io::NewMemoryStore();
      for (size_t f = 0; f < files.size(); ++f) {
        const auto& b = f == target ? damaged : bytes[f];
        EXPECT_TRUE(copy->Put(dir + "/" + files[f].path, b).ok());
      }
      return OpenAndSearch(type, copy, dir, value_type, queries);
    };
    const std::vector<uint8_t>& orig = bytes[target];
    for (size_t len : {size_t{0}, size_t{3}, orig.size() / 2, orig.size() - 41, orig.size() - 1}) {
      std::vector<uint8_t> cut(orig.begin(), orig.begin() + static_cast<ptrdiff_t>(std::min(len, orig.size())));
      Status st = with(cut);
      EXPECT_FALSE(st.ok()) << files[target].path << " cut to " << len;
    }
    for (int flip = 0; flip < 100; ++flip) {
      std::vector<uint8_t> bad = orig;
      bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      (void)with(bad);
    }
  }
}

}  // namespace lancet::index
