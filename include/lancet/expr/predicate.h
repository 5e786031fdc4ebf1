// The parts of a bound filter that an index may answer: comparisons of a top-level
// column with literals, under AND/OR/NOT.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/expr/filter.h"

namespace lancet::expr {

/// \brief A filter as a tree of index-answerable leaves and everything else.
///
/// A leaf stands for the rows where it is TRUE. Its literals are converted to the
/// column's type (the item type for list functions), so an index compares them with
/// its own values directly.
struct Predicate {
  enum class Kind : uint8_t { kAnd, kOr, kNot, kLeaf, kOther };
  enum class LeafOp : uint8_t {
    kEquals,  // column = values[0]
    kIn,      // column IN (values)
    kRange,   // lower and/or upper
    kIsNull,
    kPrefix,  // column LIKE 'prefix%'
    kHasAny,  // array_has(column, v), array_has_any(column, [values])
  };
  Kind kind = Kind::kOther;
  std::vector<Predicate> args;  // kAnd, kOr (two or more), kNot (one)
  // kLeaf:
  std::string column;
  LeafOp op = LeafOp::kEquals;
  Array values;
  std::optional<Array> lower, upper;  // kRange: length 1 each
  bool lower_inclusive = true, upper_inclusive = true;
  std::string prefix;
  /// The part of the filter text this node came from, canonical (for explain output).
  std::string text;
};

/// Splits `filter` into a Predicate. Never fails: whatever is not a recognised
/// comparison of a bare top-level column with literals becomes kOther.
Predicate AnalyzePredicate(const Filter& filter);

}  // namespace lancet::expr
