// The bound expression tree and the column values it evaluates to. Internal to the expr
// layer.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/array.h"
#include "lancet/expr/expression.h"

namespace lancet::expr {

/// How values of a type are held while evaluating.
enum class Kind : uint8_t { kNull, kBool, kInt, kUInt, kFloat, kString, kList };

/// kInt: every signed integer, u8-u32, dates, times, timestamps, durations (raw units);
/// kUInt: u64; kFloat: every float; kString: utf8 and binary; nullopt: not evaluable.
std::optional<Kind> KindOf(const DataType& type);

/// The values of one expression for every row of a batch.
struct Column {
  Kind kind = Kind::kNull;
  int64_t length = 0;
  std::vector<uint8_t> valid;                      // 1 where valid; every kind but kNull
  std::vector<int64_t> ints;                       // kBool (0/1) and kInt
  std::vector<uint64_t> uints;                     // kUInt
  std::vector<double> floats;                      // kFloat
  std::vector<std::string_view> strings;           // kString: views into the batch or `arena`
  std::shared_ptr<std::deque<std::string>> arena;  // computed strings (a deque never moves them)
  std::vector<int64_t> offsets;                    // kList: length + 1 offsets into `items`
  std::shared_ptr<Column> items;                   // kList

  bool Valid(int64_t i) const { return kind != Kind::kNull && valid[static_cast<size_t>(i)] != 0; }
};

/// How a comparison compares its two sides.
enum class Domain : uint8_t { kNull, kInt, kFloat, kString, kBool, kTemporal };

struct BoundNode {
  Op op = Op::kLiteral;
  DataType type;  // of the result
  std::vector<BoundNode> args;
  size_t position = 0;
  std::vector<std::string> path;  // kColumn
  bool validity_only = false;     // kColumn under IS [NOT] NULL: values are not read
  Literal literal;                // kLiteral, in the raw units of `type`
  std::string name;               // kCall
  Domain domain = Domain::kNull;  // comparisons
  int64_t scale[2] = {1, 1};      // kTemporal comparisons: nanoseconds per unit of each side
  bool literal_side = false;      // a comparison with a literal: -0 equals 0
};

/// Binds `expr` against `schema`; `text` is for messages. Marks used top-level columns.
Result<BoundNode> BindTree(const Expr& expr, const Schema& schema, const std::string& text, std::vector<bool>* used);

/// Evaluates `node` over `batch`; `text` is for messages.
Result<Column> EvalTree(const BoundNode& node, const RecordBatch& batch, const std::string& text);

/// The column at `path` of `batch` (struct members followed, parents' nulls applied),
/// values loaded unless `validity_only`.
Result<Column> LoadColumn(const RecordBatch& batch, const std::vector<std::string>& path, bool validity_only);

/// CAST of `in` (of type `from`) to `to`; errors name `where`.
Result<Column> CastColumn(const Column& in, const DataType& from, const DataType& to, const std::string& where);

/// The target of CAST(x AS name), or nullopt for a name outside the reference's list.
std::optional<DataType> CastTarget(const std::string& name);

/// Whether CAST from `from` to `to` is supported.
bool CanCast(const DataType& from, const DataType& to);

/// An Arrow array of `type` holding `col`.
Result<Array> ToArray(const Column& col, const DataType& type);

}  // namespace lancet::expr
