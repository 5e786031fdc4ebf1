// An expression bound to a schema: typed, checked, and evaluable over record batches.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/data_type.h"
#include "lancet/result.h"

namespace lancet::expr {

struct BoundNode;

/// \brief A value expression (`i32 * 2 + 1`, `lower(s)`, `d > date '2024-01-01'`) bound to
/// the columns of a schema. Immutable; Evaluate is safe to call from several threads.
class BoundExpression {
 public:
  /// Parses `text` and binds every column, literal, operator and function against
  /// `schema`, the reference's coercion rules included. InvalidArgument naming the
  /// position for an unknown column, function or type, operands of incompatible types,
  /// or a literal that does not fit the column it is compared with.
  static Result<BoundExpression> Bind(const std::string& text, const Schema& schema);

  /// The type of the values Evaluate returns.
  const DataType& type() const;
  /// Top-level columns the expression reads, in schema order, without repeats.
  const std::vector<std::string>& columns() const { return columns_; }
  const std::string& text() const { return text_; }

  /// The expression's value for every row of `batch`, an array of type() and length
  /// batch.num_rows. `batch` must hold every column of columns() (found by name).
  /// Errors for division by zero, a CAST that does not fit, and a string function
  /// meeting a character outside its tables, naming the expression and its position.
  Result<Array> Evaluate(const RecordBatch& batch) const;

 private:
  friend class Filter;
  friend struct Predicate AnalyzePredicate(const class Filter& filter);
  std::string text_;
  std::shared_ptr<const BoundNode> root_;
  std::vector<std::string> columns_;
};

}  // namespace lancet::expr
