// BoundExpression and Filter: parse, bind, evaluate.
#include "lancet/expr/bound_expression.h"

#include "expr/bound.h"
#include "lancet/expr/filter.h"

namespace lancet::expr {

Result<BoundExpression> BoundExpression::Bind(const std::string& text, const Schema& schema) {
  ASSIGN_OR_RETURN(std::unique_ptr<Expr> tree, Parse(text));
  std::vector<bool> used(schema.fields.size(), false);
  ASSIGN_OR_RETURN(BoundNode root, BindTree(*tree, schema, text, &used));
  if (root.op == Op::kList) {
    return Status::InvalidArgument("expression '" + text + "': a list literal is only an argument of array_has_any");
  }
  BoundExpression e;
  e.text_ = text;
  e.root_ = std::make_shared<const BoundNode>(std::move(root));
  for (size_t i = 0; i < used.size(); ++i) {
    if (used[i]) e.columns_.push_back(schema.fields[i].name);
  }
  return e;
}

const DataType& BoundExpression::type() const { return root_->type; }

Result<Array> BoundExpression::Evaluate(const RecordBatch& batch) const {
  ASSIGN_OR_RETURN(Column col, EvalTree(*root_, batch, text_));
  return ToArray(col, root_->type);
}

Result<Filter> Filter::Bind(const std::string& text, const Schema& schema) {
  ASSIGN_OR_RETURN(BoundExpression e, BoundExpression::Bind(text, schema));
  if (e.type().id != TypeId::kBool) {
    return Status::InvalidArgument("expression '" + text + "' is of type " + e.type().ToString() +
                                   ", not boolean, so it cannot filter rows");
  }
  Filter f;
  f.expr_ = std::move(e);
  return f;
}

Result<std::vector<bool>> Filter::Evaluate(const RecordBatch& batch) const {
  ASSIGN_OR_RETURN(Column col, EvalTree(*expr_.root_, batch, expr_.text_));
  std::vector<bool> match(static_cast<size_t>(batch.num_rows));
  for (size_t i = 0; i < match.size(); ++i) match[i] = col.Valid(static_cast<int64_t>(i)) && col.ints[i] != 0;
  return match;
}

}  // namespace lancet::expr
