#include "index/zone_index_test_util.h"

#include <cstring>

#include <gtest/gtest.h>

#include "index/value_order.h"

namespace lancet::index::testing {

std::vector<uint64_t> RowAddresses(const std::vector<uint64_t>& fragments, const std::vector<uint64_t>& sizes,
                                   const std::function<bool(uint64_t, uint64_t)>& deleted) {
  std::vector<uint64_t> rows;
  for (size_t f = 0; f < fragments.size(); ++f) {
    for (uint64_t o = 0; o < sizes[f]; ++o) {
      if (!deleted || !deleted(fragments[f], o)) rows.push_back(fragments[f] << 32 | o);
    }
  }
  return rows;
}

Result<std::unique_ptr<ScalarIndexReader>> BuildAndOpen(ScalarIndexType type,
                                                        const std::shared_ptr<io::ObjectStore>& store,
                                                        const Array& values, const std::vector<uint64_t>& rows,
                                                        std::map<std::string, std::string> params, int64_t batch) {
  BuildOptions options;
  options.params = std::move(params);
  ASSIGN_OR_RETURN(auto builder, MakeScalarIndexBuilder(type, MakeField("x", values.type), store, "/idx", options));
  for (int64_t begin = 0; begin < values.length; begin += batch) {
    const int64_t n = std::min(batch, values.length - begin);
    RETURN_IF_ERROR(builder->Add(ArraySlice(values, begin, n), std::span(rows).subspan(begin, n)));
  }
  ASSIGN_OR_RETURN(auto files, builder->Finish());
  if (files.size() != 1 || files[0].size_bytes != store->Size("/idx/" + files[0].path).value()) {
    return Status::Internal("Finish did not report the one file it wrote");
  }
  return OpenScalarIndex(type, store, "/idx", values.type);
}

namespace {

bool IsFloat(TypeId id) { return id == TypeId::kFloat32 || id == TypeId::kFloat64; }

double FloatAt(const Array& a, int64_t i) {
  return a.type.id == TypeId::kFloat32 ? static_cast<double>(a.values<float>()[i]) : a.values<double>()[i];
}

}  // namespace

int ScanCompare(const Array& column, int64_t i, const Array& literal, int64_t j) {
  if (!IsFloat(column.type.id)) return CompareValues(column, i, literal, j);
  const double a = FloatAt(column, i), b = FloatAt(literal, j);
  if (a == 0 && b == 0) return 0;
  auto key = [](double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
  };
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

bool RowMatches(const Array& column, int64_t i, const ScalarQuery& q) {
  if (q.kind == ScalarQuery::Kind::kIsNull) return column.IsNull(i);
  if (column.IsNull(i)) return false;
  switch (q.kind) {
    case ScalarQuery::Kind::kEquals:
    case ScalarQuery::Kind::kIn:
      for (int64_t j = 0; j < q.values.length; ++j) {
        if (q.values.IsValid(j) && ScanCompare(column, i, q.values, j) == 0) return true;
      }
      return false;
    case ScalarQuery::Kind::kRange:
      if (q.lower) {
        const int c = ScanCompare(column, i, q.lower->value, 0);
        if (q.lower->inclusive ? c < 0 : c <= 0) return false;
      }
      if (q.upper) {
        const int c = ScanCompare(column, i, q.upper->value, 0);
        if (q.upper->inclusive ? c > 0 : c >= 0) return false;
      }
      return true;
    case ScalarQuery::Kind::kPrefix:
      return column.GetView(i).starts_with(q.prefix);
    default:
      ADD_FAILURE() << "no brute force for this query kind";
      return false;
  }
}

uint64_t ExpectCovers(const Array& column, const std::vector<uint64_t>& rows, const ScalarQuery& query,
                      const SearchResult& result) {
  EXPECT_FALSE(result.exact);
  int missed = 0;
  for (int64_t i = 0; i < column.length; ++i) {
    if (RowMatches(column, i, query) && !result.rows.contains(rows[i])) {
      if (++missed <= 3) ADD_FAILURE() << "row " << rows[i] << " (value index " << i << ") matches but was skipped";
    }
  }
  return result.rows.cardinality();
}

ScalarQuery Equals(Array value) {
  ScalarQuery q;
  q.kind = ScalarQuery::Kind::kEquals;
  q.values = std::move(value);
  return q;
}

ScalarQuery In(Array values) {
  ScalarQuery q = Equals(std::move(values));
  q.kind = ScalarQuery::Kind::kIn;
  return q;
}

ScalarQuery Range(std::optional<Array> lower, bool lower_inclusive, std::optional<Array> upper, bool upper_inclusive) {
  ScalarQuery q;
  q.kind = ScalarQuery::Kind::kRange;
  if (lower) q.lower = ScalarQuery::Bound{std::move(*lower), lower_inclusive};
  if (upper) q.upper = ScalarQuery::Bound{std::move(*upper), upper_inclusive};
  return q;
}

ScalarQuery IsNull() {
  ScalarQuery q;
  q.kind = ScalarQuery::Kind::kIsNull;
  return q;
}

}  // namespace lancet::index::testing
