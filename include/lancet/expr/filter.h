// Filters: boolean expressions that pick rows (delete, scan, update).
#pragma once

#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/expr/bound_expression.h"
#include "lancet/result.h"

namespace lancet::expr {

struct Predicate;

/// \brief A boolean expression bound to a schema. A row matches only when the expression
/// is true for it: false and null (SQL's unknown) both leave it out.
class Filter {
 public:
  /// As BoundExpression::Bind, and InvalidArgument when the expression is not boolean
  /// (e.g. `i32 + 1`).
  static Result<Filter> Bind(const std::string& text, const Schema& schema);

  /// Top-level columns the filter reads, in schema order, without repeats.
  const std::vector<std::string>& columns() const { return expr_.columns(); }

  /// Rows of `batch` for which the filter is true. `batch` must hold every column of
  /// columns() (found by name; other columns are ignored).
  Result<std::vector<bool>> Evaluate(const RecordBatch& batch) const;

 private:
  friend Predicate AnalyzePredicate(const Filter& filter);
  BoundExpression expr_;
};

}  // namespace lancet::expr
