// The canonical text of a parsed expression, for tests and messages.
#include "lancet/expr/expression.h"

namespace lancet::expr {
namespace {

const char* OpText(Op op) {
  switch (op) {
    case Op::kAnd:
      return " AND ";
    case Op::kOr:
      return " OR ";
    case Op::kEq:
      return " = ";
    case Op::kNe:
      return " != ";
    case Op::kLt:
      return " < ";
    case Op::kLe:
      return " <= ";
    case Op::kGt:
      return " > ";
    case Op::kGe:
      return " >= ";
    case Op::kAdd:
      return " + ";
    case Op::kSub:
      return " - ";
    case Op::kMul:
      return " * ";
    case Op::kDiv:
      return " / ";
    case Op::kMod:
      return " % ";
    case Op::kIsNull:
      return " IS NULL";
    case Op::kIsNotNull:
      return " IS NOT NULL";
    case Op::kIsTrue:
      return " IS TRUE";
    case Op::kIsNotTrue:
      return " IS NOT TRUE";
    case Op::kIsFalse:
      return " IS FALSE";
    case Op::kIsNotFalse:
      return " IS NOT FALSE";
    case Op::kIn:
      return " IN ";
    case Op::kNotIn:
      return " NOT IN ";
    case Op::kBetween:
      return " BETWEEN ";
    case Op::kNotBetween:
      return " NOT BETWEEN ";
    case Op::kLike:
      return " LIKE ";
    case Op::kNotLike:
      return " NOT LIKE ";
    default:
      return "";
  }
}

std::string Join(const std::vector<std::unique_ptr<Expr>>& args, size_t from, const char* sep) {
  std::string s;
  for (size_t i = from; i < args.size(); ++i) s += (i > from ? sep : "") + ToString(*args[i]);
  return s;
}

}  // namespace

std::string ToString(const Expr& e) {
  switch (e.op) {
    case Op::kColumn: {
      std::string s;
      for (const std::string& p : e.path) s += (s.empty() ? "" : ".") + p;
      return s;
    }
    case Op::kLiteral:
      return e.literal.text;
    case Op::kList:
      return "[" + Join(e.args, 0, ", ") + "]";
    case Op::kAnd:
    case Op::kOr:
      return "(" + Join(e.args, 0, OpText(e.op)) + ")";
    case Op::kNot:
      return "(NOT " + ToString(*e.args[0]) + ")";
    case Op::kNegate:
      return "(-" + ToString(*e.args[0]) + ")";
    case Op::kIsNull:
    case Op::kIsNotNull:
    case Op::kIsTrue:
    case Op::kIsNotTrue:
    case Op::kIsFalse:
    case Op::kIsNotFalse:
      return "(" + ToString(*e.args[0]) + OpText(e.op) + ")";
    case Op::kIn:
    case Op::kNotIn:
      return "(" + ToString(*e.args[0]) + OpText(e.op) + "(" + Join(e.args, 1, ", ") + "))";
    case Op::kBetween:
    case Op::kNotBetween:
      return "(" + ToString(*e.args[0]) + OpText(e.op) + ToString(*e.args[1]) + " AND " + ToString(*e.args[2]) + ")";
    case Op::kCast:
      return "CAST(" + ToString(*e.args[0]) + " AS " + e.name + ")";
    case Op::kCall:
      return e.name + "(" + Join(e.args, 0, ", ") + ")";
    default:
      return "(" + ToString(*e.args[0]) + OpText(e.op) + ToString(*e.args[1]) + ")";
  }
}

}  // namespace lancet::expr
