// Row predicates of DeleteWhere: a small SQL-like filter language, parsed, bound to a
// schema and evaluated over record batches. Internal to the table layer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::table {

/// One node of a parsed predicate. Exposed so tests can check the tree's shape.
struct PredicateNode {
  enum class Kind : uint8_t { kAnd, kOr, kNot, kCompare, kIsNull, kIsNotNull };
  enum class Op : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
  struct Literal {
    enum class Kind : uint8_t { kNull, kInt, kFloat, kString, kBool };
    Kind kind = Kind::kNull;
    __int128 int_value = 0;  // wide enough for every uint64 and int64 literal
    double float_value = 0;
    std::string string_value;
    bool bool_value = false;
    std::string text;  // as written, for error messages
  };

  Kind kind = Kind::kCompare;
  std::vector<std::unique_ptr<PredicateNode>> children;  // and/or: 2, not: 1
  // Compare and IS [NOT] NULL: the column, then struct members.
  std::vector<std::string> path;
  // Compare: `path op literal`; `literal op path` is stored with the operator mirrored.
  Op op = Op::kEq;
  Literal literal;
  size_t position = 0;  // offset of the node's first token in the text
};

/// The tree in a canonical parenthesised form, e.g. "(a = 1 OR (NOT b IS NULL))".
std::string PredicateToString(const PredicateNode& node);

/// \brief Parses `text`. InvalidArgument naming the offending token, its position and,
/// inside a comparison, the column, e.g. "predicate 'x >': column 'x': expected a literal
/// (number, 'string', TRUE, FALSE or NULL) at position 3 (end of input)". Inputs nesting
/// deeper than 256 or with more than 4096 terms are refused, so recursion stays bounded.
Result<std::unique_ptr<PredicateNode>> ParsePredicate(const std::string& text);

/// \brief A predicate bound to the columns of a schema.
///
/// Evaluation follows SQL three-valued logic: a comparison with a null value is unknown,
/// NOT unknown is unknown, and only rows that are true match.
class BoundPredicate {
 public:
  /// Parses `text` and checks every column and literal against `schema`:
  /// InvalidArgument naming the column for an unknown column or struct member,
  /// a comparison on a type without an order (lists, structs...) or a literal
  /// that does not fit the column (out of range, wrong kind, malformed date or timestamp).
  static Result<BoundPredicate> Bind(const std::string& text, const Schema& schema);

  /// Top-level columns the predicate reads, in schema order, without repeats.
  const std::vector<std::string>& columns() const { return columns_; }

  /// Rows of `batch` for which the predicate is true. `batch` must hold every column of
  /// columns() (found by name; other columns are ignored).
  Result<std::vector<bool>> Evaluate(const RecordBatch& batch) const;

 private:
  std::string text_;
  std::shared_ptr<const PredicateNode> root_;
  std::vector<std::string> columns_;
};

}  // namespace lancet::table
