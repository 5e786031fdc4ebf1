// AnalyzePredicate: walks the bound tree, so literals arrive already converted to the
// column's type by the same rules that evaluate the filter.
#include "lancet/expr/predicate.h"

#include "expr/bound.h"
#include "util/array_builder.h"

namespace lancet::expr {
namespace {

bool IsBareColumn(const BoundNode& n) { return n.op == Op::kColumn && n.path.size() == 1; }

// One literal as a length-1 array of `type`; nullopt when it does not fit or is null.
std::optional<Array> LiteralValue(const Literal& l, const DataType& type) {
  if (l.kind == Literal::Kind::kNull) return std::nullopt;
  auto fits = [&](__int128 lo, __int128 hi) {
    return l.kind == Literal::Kind::kInt && l.int_value >= lo && l.int_value <= hi;
  };
  Result<Array> r = Status::InvalidArgument("unsupported");
  switch (type.id) {
    case TypeId::kInt8:
      if (!fits(INT8_MIN, INT8_MAX)) return std::nullopt;
      r = ArrayFromVector<int8_t>(type, {static_cast<int8_t>(l.int_value)});
      break;
    case TypeId::kInt16:
      if (!fits(INT16_MIN, INT16_MAX)) return std::nullopt;
      r = ArrayFromVector<int16_t>(type, {static_cast<int16_t>(l.int_value)});
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      if (!fits(INT32_MIN, INT32_MAX)) return std::nullopt;
      r = ArrayFromVector<int32_t>(type, {static_cast<int32_t>(l.int_value)});
      break;
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
      if (!fits(INT64_MIN, INT64_MAX)) return std::nullopt;
      r = ArrayFromVector<int64_t>(type, {static_cast<int64_t>(l.int_value)});
      break;
    case TypeId::kUInt8:
      if (!fits(0, UINT8_MAX)) return std::nullopt;
      r = ArrayFromVector<uint8_t>(type, {static_cast<uint8_t>(l.int_value)});
      break;
    case TypeId::kUInt16:
      if (!fits(0, UINT16_MAX)) return std::nullopt;
      r = ArrayFromVector<uint16_t>(type, {static_cast<uint16_t>(l.int_value)});
      break;
    case TypeId::kUInt32:
      if (!fits(0, UINT32_MAX)) return std::nullopt;
      r = ArrayFromVector<uint32_t>(type, {static_cast<uint32_t>(l.int_value)});
      break;
    case TypeId::kUInt64:
      if (!fits(0, UINT64_MAX)) return std::nullopt;
      r = ArrayFromVector<uint64_t>(type, {static_cast<uint64_t>(l.int_value)});
      break;
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      if (l.kind != Literal::Kind::kFloat && l.kind != Literal::Kind::kInt) return std::nullopt;
      const double v = l.kind == Literal::Kind::kFloat ? l.float_value : static_cast<double>(l.int_value);
      if (type.id == TypeId::kFloat32) {
        r = ArrayFromVector<float>(type, {static_cast<float>(v)});
      } else {
        r = ArrayFromVector<double>(type, {v});
      }
      break;
    }
    case TypeId::kBool:
      if (l.kind != Literal::Kind::kBool) return std::nullopt;
      r = MakeBoolArray({l.bool_value});
      break;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      if (l.kind != Literal::Kind::kString) return std::nullopt;
      r = MakeBinaryArray(type, {l.string_value});
      break;
    default:
      return std::nullopt;
  }
  if (!r.ok()) return std::nullopt;
  return r.MoveValue();
}

std::optional<Array> LiteralValues(const std::vector<const BoundNode*>& lits, const DataType& type) {
  std::vector<Array> parts;
  for (const BoundNode* n : lits) {
    std::optional<Array> v = LiteralValue(n->literal, type);
    if (!v) return std::nullopt;
    parts.push_back(std::move(*v));
  }
  if (parts.size() == 1) return parts[0];
  auto joined = Concatenate(parts);
  if (!joined.ok()) return std::nullopt;
  return joined.MoveValue();
}

Op Flip(Op op) {
  switch (op) {
    case Op::kLt:
      return Op::kGt;
    case Op::kLe:
      return Op::kGe;
    case Op::kGt:
      return Op::kLt;
    case Op::kGe:
      return Op::kLe;
    default:
      return op;
  }
}

const char* CmpText(Op op) {
  switch (op) {
    case Op::kEq:
      return " = ";
    case Op::kLt:
      return " < ";
    case Op::kLe:
      return " <= ";
    case Op::kGt:
      return " > ";
    default:
      return " >= ";
  }
}

Predicate Other() { return Predicate{}; }

Predicate Comparison(const BoundNode& n) {
  const BoundNode* col = &n.args[0];
  const BoundNode* lit = &n.args[1];
  Op op = n.op;
  if (!IsBareColumn(*col)) {
    std::swap(col, lit);
    op = Flip(op);
  }
  if (!IsBareColumn(*col) || lit->op != Op::kLiteral || op == Op::kNe) return Other();
  std::optional<Array> v = LiteralValue(lit->literal, col->type);
  if (!v) return Other();
  Predicate p;
  p.kind = Predicate::Kind::kLeaf;
  p.column = col->path[0];
  p.text = p.column + CmpText(op) + lit->literal.text;
  if (op == Op::kEq) {
    p.op = Predicate::LeafOp::kEquals;
    p.values = std::move(*v);
    return p;
  }
  p.op = Predicate::LeafOp::kRange;
  if (op == Op::kGt || op == Op::kGe) {
    p.lower = std::move(*v);
    p.lower_inclusive = op == Op::kGe;
  } else {
    p.upper = std::move(*v);
    p.upper_inclusive = op == Op::kLe;
  }
  return p;
}

Predicate In(const BoundNode& n) {
  // Bound as one `column = item` comparison per item.
  std::vector<const BoundNode*> lits;
  const BoundNode* col = nullptr;
  std::string items;
  for (const BoundNode& eq : n.args) {
    if (eq.op != Op::kEq || eq.args.size() != 2 || !IsBareColumn(eq.args[0]) || eq.args[1].op != Op::kLiteral) {
      return Other();
    }
    if (col && col->path != eq.args[0].path) return Other();
    col = &eq.args[0];
    lits.push_back(&eq.args[1]);
    items += (items.empty() ? "" : ", ") + eq.args[1].literal.text;
  }
  if (!col) return Other();
  std::optional<Array> v = LiteralValues(lits, col->type);
  if (!v) return Other();
  Predicate p;
  p.kind = Predicate::Kind::kLeaf;
  p.column = col->path[0];
  p.op = Predicate::LeafOp::kIn;
  p.values = std::move(*v);
  p.text = p.column + " IN (" + items + ")";
  return p;
}

Predicate Like(const BoundNode& n) {
  if (n.args.size() != 2 || !IsBareColumn(n.args[0]) || n.args[1].op != Op::kLiteral ||
      n.args[1].literal.kind != Literal::Kind::kString) {
    return Other();
  }
  const std::string& pattern = n.args[1].literal.string_value;
  if (pattern.empty() || pattern.back() != '%') return Other();
  const std::string prefix = pattern.substr(0, pattern.size() - 1);
  if (prefix.find_first_of("%_\\") != std::string::npos) return Other();
  Predicate p;
  p.kind = Predicate::Kind::kLeaf;
  p.column = n.args[0].path[0];
  p.op = Predicate::LeafOp::kPrefix;
  p.prefix = prefix;
  p.text = p.column + " LIKE " + n.args[1].literal.text;
  return p;
}

Predicate ArrayHas(const BoundNode& n) {
  if (n.args.size() != 2 || !IsBareColumn(n.args[0]) || n.args[0].type.children.empty()) return Other();
  const DataType& item = n.args[0].type.children[0].type;
  std::vector<const BoundNode*> lits;
  std::string items;
  if (n.name == "array_has") {
    if (n.args[1].op != Op::kLiteral) return Other();
    lits.push_back(&n.args[1]);
  } else {
    if (n.args[1].op != Op::kList) return Other();
    for (const BoundNode& a : n.args[1].args) lits.push_back(&a);
  }
  for (const BoundNode* l : lits) items += (items.empty() ? "" : ", ") + l->literal.text;
  std::optional<Array> v = LiteralValues(lits, item);
  if (!v) return Other();
  Predicate p;
  p.kind = Predicate::Kind::kLeaf;
  p.column = n.args[0].path[0];
  p.op = Predicate::LeafOp::kHasAny;
  p.values = std::move(*v);
  p.text = n.name + "(" + p.column + ", " + (n.name == "array_has" ? items : "[" + items + "]") + ")";
  return p;
}

Predicate Walk(const BoundNode& n) {
  switch (n.op) {
    case Op::kAnd:
    case Op::kOr: {
      Predicate p;
      p.kind = n.op == Op::kAnd ? Predicate::Kind::kAnd : Predicate::Kind::kOr;
      for (const BoundNode& a : n.args) {
        p.args.push_back(Walk(a));
        p.text += (p.text.empty() ? "(" : (n.op == Op::kAnd ? " AND " : " OR ")) + p.args.back().text;
      }
      p.text += ")";
      return p;
    }
    case Op::kNot: {
      Predicate p;
      p.kind = Predicate::Kind::kNot;
      p.args.push_back(Walk(n.args[0]));
      p.text = "NOT " + p.args[0].text;
      return p;
    }
    case Op::kIn:
      return In(n);
    case Op::kNotIn: {
      Predicate p;
      p.kind = Predicate::Kind::kNot;
      p.args.push_back(In(n));
      p.text = "NOT " + p.args[0].text;
      return p;
    }
    case Op::kEq:
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe:
      return Comparison(n);
    case Op::kIsNull:
    case Op::kIsNotNull: {
      if (!IsBareColumn(n.args[0])) return Other();
      Predicate leaf;
      leaf.kind = Predicate::Kind::kLeaf;
      leaf.column = n.args[0].path[0];
      leaf.op = Predicate::LeafOp::kIsNull;
      leaf.text = leaf.column + " IS NULL";
      if (n.op == Op::kIsNull) return leaf;
      Predicate p;
      p.kind = Predicate::Kind::kNot;
      p.args.push_back(std::move(leaf));
      p.text = p.args[0].column + " IS NOT NULL";
      return p;
    }
    case Op::kLike:
      return Like(n);
    case Op::kCall:
      if (n.name == "array_has" || n.name == "array_has_any") return ArrayHas(n);
      return Other();
    default:
      return Other();
  }
}

}  // namespace

Predicate AnalyzePredicate(const Filter& filter) {
  const BoundExpression& e = filter.expr_;
  if (!e.root_) return Predicate{};
  Predicate p = Walk(*e.root_);
  if (p.kind == Predicate::Kind::kOther) p.text = e.text();
  return p;
}

}  // namespace lancet::expr
