// The parsed form of a filter or value expression: an SQL subset as the reference's
// `query().where(...)` accepts it (see docs/filters.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::expr {

/// A constant written in the text.
struct Literal {
  enum class Kind : uint8_t { kNull, kInt, kFloat, kString, kBool, kDate, kTimestamp };
  Kind kind = Kind::kNull;
  __int128 int_value = 0;  // kInt; kDate: days since 1970-01-01; kTimestamp: UTC nanoseconds
  double float_value = 0;
  std::string string_value;
  bool bool_value = false;
  std::string text;  // as written, for messages
};

enum class Op : uint8_t {
  kColumn,   // path
  kLiteral,  // literal
  kList,     // [a, b, ...]: args
  kAnd,
  kOr,  // n-ary (two or more args)
  kNot,
  kNegate,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kIsNull,
  kIsNotNull,
  kIsTrue,
  kIsNotTrue,
  kIsFalse,
  kIsNotFalse,
  kIn,
  kNotIn,  // args[0] IN (args[1..])
  kBetween,
  kNotBetween,  // args[0] BETWEEN args[1] AND args[2]
  kLike,
  kNotLike,  // args[0] LIKE args[1]
  kCast,     // CAST(args[0] AS name)
  kCall,     // name(args...), name lower-cased
};

/// \brief One node of a parsed expression.
struct Expr {
  Op op = Op::kLiteral;
  std::vector<std::unique_ptr<Expr>> args;
  std::vector<std::string> path;  // kColumn: the column, then struct members
  Literal literal;                // kLiteral
  std::string name;               // kCall: function; kCast: the target type as written, upper-cased
  size_t position = 0;            // offset of the node's first token in the text
};

/// \brief Parses `text`. InvalidArgument naming what was expected, the position and the
/// token found, e.g. "expression 'x >': expected an operand at position 3 (end of input)".
/// Input longer than 1 MiB, nesting deeper than 256 or with more than 10000 nodes is
/// refused, so every recursion over the tree stays bounded.
Result<std::unique_ptr<Expr>> Parse(const std::string& text);

/// The tree in a canonical parenthesised form, e.g. "((a = 1) OR (NOT (b IS NULL)))".
std::string ToString(const Expr& expr);

}  // namespace lancet::expr
