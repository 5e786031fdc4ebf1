// Binding: columns resolved, literals checked against the columns they meet, operand
// types coerced as the reference does, every node typed.
#include <algorithm>
#include <cmath>
#include <limits>

#include "expr/bound.h"
#include "expr/datetime.h"

namespace lancet::expr {
namespace {

std::string PathText(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& p : path) s += (s.empty() ? "" : ".") + p;
  return s;
}

bool IsInteger(const DataType& t) {
  return KindOf(t) && (*KindOf(t) == Kind::kInt || *KindOf(t) == Kind::kUInt) && t.id >= TypeId::kInt8 &&
         t.id <= TypeId::kUInt64;
}
bool IsFloat(const DataType& t) {
  return t.id == TypeId::kFloat16 || t.id == TypeId::kFloat32 || t.id == TypeId::kFloat64;
}
bool IsNumeric(const DataType& t) { return IsInteger(t) || IsFloat(t); }
bool IsSigned(const DataType& t) { return t.id >= TypeId::kInt8 && t.id <= TypeId::kInt64; }
bool IsStringy(const DataType& t) { return KindOf(t) == Kind::kString; }
bool IsText(const DataType& t) { return t.id == TypeId::kUtf8 || t.id == TypeId::kLargeUtf8; }
bool IsDateOrTimestamp(const DataType& t) {
  return t.id == TypeId::kDate32 || t.id == TypeId::kDate64 || t.id == TypeId::kTimestamp;
}
bool IsList(const DataType& t) { return KindOf(t) == Kind::kList; }

// A dictionary column is its values to an expression.
DataType ValueType(const DataType& t) { return t.id == TypeId::kDictionary && t.value_type ? *t.value_type : t; }

DataType SignedOfWidth(int bits) {
  return MakeType(bits <= 8    ? TypeId::kInt8
                  : bits <= 16 ? TypeId::kInt16
                  : bits <= 32 ? TypeId::kInt32
                               : TypeId::kInt64);
}

// Nanoseconds per unit of a date or timestamp value, for comparing across units.
int64_t TemporalScale(const DataType& t) {
  if (t.id == TypeId::kDate32) return kNanosPerDay;
  if (t.id == TypeId::kDate64) return 1000000;
  return NanosPerUnit(t.unit);
}

class Binder {
 public:
  Binder(const Schema& schema, const std::string& text, std::vector<bool>* used)
      : schema_(schema), text_(text), used_(used) {}

  Status Error(size_t position, const std::string& what) const {
    return Status::InvalidArgument("expression '" + text_ + "': " + what + " at position " + std::to_string(position));
  }

  Result<BoundNode> Bind(const Expr& e, bool validity_only = false) {
    switch (e.op) {
      case Op::kColumn:
        return BindColumn(e, validity_only);
      case Op::kLiteral:
        return BindLiteral(e.literal, e.position);
      case Op::kList:
        return BindList(e);
      case Op::kAnd:
      case Op::kOr:
      case Op::kNot:
        return BindLogical(e);
      case Op::kNegate:
        return BindNegate(e);
      case Op::kEq:
      case Op::kNe:
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe: {
        ASSIGN_OR_RETURN(BoundNode l, Bind(*e.args[0]));
        ASSIGN_OR_RETURN(BoundNode r, Bind(*e.args[1]));
        return Compare(e.op, e.position, std::move(l), std::move(r), *e.args[0], *e.args[1]);
      }
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod:
        return BindArithmetic(e);
      case Op::kIsNull:
      case Op::kIsNotNull: {
        // A CAST keeps nulls where they are, and the reference drops it here, so a value
        // that would not cast is no error.
        const Expr* inner = e.args[0].get();
        while (inner->op == Op::kCast) inner = inner->args[0].get();
        ASSIGN_OR_RETURN(BoundNode arg, Bind(*inner, /*validity_only=*/true));
        return Node(e.op, MakeType(TypeId::kBool), e.position, {std::move(arg)});
      }
      case Op::kIsTrue:
      case Op::kIsNotTrue:
      case Op::kIsFalse:
      case Op::kIsNotFalse: {
        ASSIGN_OR_RETURN(BoundNode arg, Bind(*e.args[0]));
        RETURN_IF_ERROR(ExpectBool(arg, "IS TRUE/FALSE"));
        return Node(e.op, MakeType(TypeId::kBool), e.position, {std::move(arg)});
      }
      case Op::kIn:
      case Op::kNotIn:
        return BindIn(e);
      case Op::kBetween:
      case Op::kNotBetween:
        return BindBetween(e);
      case Op::kLike:
      case Op::kNotLike:
        return BindLike(e);
      case Op::kCast:
        return BindCast(e);
      case Op::kCall:
        return BindCall(e);
    }
    return Error(e.position, "unknown expression");
  }

 private:
  static BoundNode Node(Op op, DataType type, size_t position, std::vector<BoundNode> args) {
    BoundNode n;
    n.op = op;
    n.type = std::move(type);
    n.position = position;
    n.args = std::move(args);
    return n;
  }

  Status ExpectBool(const BoundNode& n, const char* where) const {
    if (n.type.id == TypeId::kBool || n.type.id == TypeId::kNull) return Status::OK();
    return Error(n.position, std::string(where) + " needs a boolean operand, not " + n.type.ToString());
  }

  Result<BoundNode> BindColumn(const Expr& e, bool validity_only) {
    const auto& path = e.path;
    int top = schema_.FieldIndex(path[0]);
    if (top < 0) {
      std::string names;
      for (const Field& f : schema_.fields) names += (names.empty() ? "" : ", ") + f.name;
      return Error(e.position, "column '" + path[0] + "' not found (columns: " + names + ")");
    }
    const Field* field = &schema_.fields[static_cast<size_t>(top)];
    for (size_t i = 1; i < path.size(); ++i) {
      std::vector<std::string> prefix(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(i));
      if (field->type.id != TypeId::kStruct) {
        return Error(e.position, "column '" + PathText(prefix) + "' of type " + field->type.ToString() +
                                     " has no member '" + path[i] + "'");
      }
      auto it = std::find_if(field->type.children.begin(), field->type.children.end(),
                             [&](const Field& c) { return c.name == path[i]; });
      if (it == field->type.children.end()) {
        return Error(e.position, "struct column '" + PathText(prefix) + "' has no member '" + path[i] + "'");
      }
      field = &*it;
    }
    (*used_)[static_cast<size_t>(top)] = true;
    DataType type = ValueType(field->type);
    if (!validity_only && !KindOf(type)) {
      return Error(e.position, "column '" + PathText(path) + "' of type " + field->type.ToString() +
                                   " is not supported in expressions (only IS [NOT] NULL)");
    }
    BoundNode n = Node(Op::kColumn, type, e.position, {});
    n.path = path;
    n.validity_only = validity_only;
    return n;
  }

  Result<BoundNode> BindLiteral(const Literal& lit, size_t position) {
    BoundNode n = Node(Op::kLiteral, MakeType(TypeId::kNull), position, {});
    n.literal = lit;
    switch (lit.kind) {
      case Literal::Kind::kNull:
        break;
      case Literal::Kind::kInt:
        n.type = MakeType(lit.int_value > std::numeric_limits<int64_t>::max() ? TypeId::kUInt64 : TypeId::kInt64);
        break;
      case Literal::Kind::kFloat:
        n.type = MakeType(TypeId::kFloat64);
        break;
      case Literal::Kind::kString:
        n.type = MakeType(TypeId::kUtf8);
        break;
      case Literal::Kind::kBool:
        n.type = MakeType(TypeId::kBool);
        n.literal.int_value = lit.bool_value;
        break;
      case Literal::Kind::kDate:
        n.type = MakeType(TypeId::kDate32);
        break;
      case Literal::Kind::kTimestamp:
        n.type = TimestampType(TimeUnit::kNano);
        if (lit.int_value < std::numeric_limits<int64_t>::min() ||
            lit.int_value > std::numeric_limits<int64_t>::max()) {
          return Error(position, "timestamp literal " + lit.text + " is out of the nanosecond range");
        }
        break;
    }
    return n;
  }

  Result<BoundNode> BindList(const Expr& e) {
    BoundNode n = Node(Op::kList, MakeType(TypeId::kNull), e.position, {});
    DataType item = MakeType(TypeId::kNull);
    for (const auto& a : e.args) {
      if (a->op != Op::kLiteral) return Error(a->position, "a list holds only literals");
      if (a->literal.kind == Literal::Kind::kNull) return Error(a->position, "NULL in a list literal is not supported");
      ASSIGN_OR_RETURN(BoundNode v, Bind(*a));
      if (item.id == TypeId::kNull) {
        item = v.type;
      } else if (IsNumeric(item) && IsNumeric(v.type) && (IsFloat(item) || IsFloat(v.type))) {
        item = MakeType(TypeId::kFloat64);
      } else if (item != v.type) {
        return Error(a->position, "list items of types " + item.ToString() + " and " + v.type.ToString());
      }
      n.args.push_back(std::move(v));
    }
    if (n.args.empty()) return Error(e.position, "an empty list literal has no type");
    n.type = ListOf(MakeField("item", item));
    return n;
  }

  Result<BoundNode> BindLogical(const Expr& e) {
    BoundNode n = Node(e.op, MakeType(TypeId::kBool), e.position, {});
    for (const auto& a : e.args) {
      ASSIGN_OR_RETURN(BoundNode b, Bind(*a));
      RETURN_IF_ERROR(ExpectBool(b, e.op == Op::kAnd ? "AND" : e.op == Op::kOr ? "OR" : "NOT"));
      n.args.push_back(std::move(b));
    }
    return n;
  }

  Result<BoundNode> BindNegate(const Expr& e) {
    ASSIGN_OR_RETURN(BoundNode a, Bind(*e.args[0]));
    if (a.type.id == TypeId::kNull) return a;
    if (!IsNumeric(a.type) || (IsInteger(a.type) && !IsSigned(a.type)) || a.type.id == TypeId::kFloat16) {
      return Error(e.position, "unary '-' needs a signed number, not " + a.type.ToString());
    }
    DataType t = a.type;
    return Node(Op::kNegate, t, e.position, {std::move(a)});
  }

  // The reference converts a literal compared with a column to the column's type and
  // refuses the expression when it does not fit (`i8 = 1000`, `i32 = 1.5`, `d = '2024-01-01'`).
  Status FitLiteral(const DataType& column, const std::string& column_name, BoundNode* lit) const {
    Literal& l = lit->literal;
    if (l.kind == Literal::Kind::kNull) return Status::OK();
    auto refuse = [&]() {
      return Error(lit->position,
                   "literal " + l.text + " does not fit column '" + column_name + "' of type " + column.ToString());
    };
    auto in_range = [&](__int128 lo, __int128 hi) { return l.int_value >= lo && l.int_value <= hi; };
    const int bits = column.BitWidth();
    switch (column.id) {
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kTime32:  // the reference takes an integer for time32 but not time64 or duration
        if (l.kind != Literal::Kind::kInt || !in_range(-(__int128{1} << (bits - 1)), (__int128{1} << (bits - 1)) - 1)) {
          return refuse();
        }
        break;
      case TypeId::kUInt8:
      case TypeId::kUInt16:
      case TypeId::kUInt32:
      case TypeId::kUInt64:
        if (l.kind != Literal::Kind::kInt || !in_range(0, (__int128{1} << bits) - 1)) return refuse();
        break;
      case TypeId::kFloat16:
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        if (l.kind != Literal::Kind::kInt && l.kind != Literal::Kind::kFloat) return refuse();
        double v = l.kind == Literal::Kind::kInt ? static_cast<double>(l.int_value) : l.float_value;
        if (column.id == TypeId::kFloat32) v = static_cast<float>(v);
        if (column.id == TypeId::kFloat16)
          return Error(lit->position, "comparing float16 columns with literals is not supported");
        l.kind = Literal::Kind::kFloat;
        l.float_value = v;
        break;
      }
      case TypeId::kBool:
        if (l.kind != Literal::Kind::kBool) return refuse();
        break;
      case TypeId::kUtf8:
      case TypeId::kLargeUtf8:
        if (l.kind != Literal::Kind::kString) return refuse();
        break;
      case TypeId::kDate32:
      case TypeId::kDate64:
        if (l.kind != Literal::Kind::kDate) return refuse();
        if (column.id == TypeId::kDate64) l.int_value *= 86400000;
        break;
      case TypeId::kTimestamp:
        if (l.kind != Literal::Kind::kTimestamp) return refuse();
        l.int_value = FloorDiv(l.int_value, NanosPerUnit(column.unit));
        break;
      default:
        return refuse();
    }
    l.kind = l.kind == Literal::Kind::kDate || l.kind == Literal::Kind::kTimestamp ? Literal::Kind::kInt : l.kind;
    lit->type = column;
    return Status::OK();
  }

  // The reference compares CAST(int_column AS int_type) with an integer literal that
  // fits the column as the column itself, so a value that would not cast is no error.
  static bool UnwrapsCast(const BoundNode& cast, const BoundNode& lit) {
    if (cast.op != Op::kCast || lit.op != Op::kLiteral || lit.literal.kind != Literal::Kind::kInt) return false;
    const DataType& from = cast.args[0].type;
    if (cast.args[0].op != Op::kColumn || !IsInteger(from) || !IsInteger(cast.type)) return false;
    const int bits = from.BitWidth();
    const __int128 lo = IsSigned(from) ? -(__int128{1} << (bits - 1)) : 0;
    const __int128 hi = IsSigned(from) ? (__int128{1} << (bits - 1)) - 1 : (__int128{1} << bits) - 1;
    return lit.literal.int_value >= lo && lit.literal.int_value <= hi;
  }

  Result<BoundNode> Compare(Op op, size_t position, BoundNode l, BoundNode r, const Expr& le, const Expr& re) {
    if (UnwrapsCast(l, r)) l = BoundNode(l.args[0]);
    if (UnwrapsCast(r, l)) r = BoundNode(r.args[0]);
    if (le.op == Op::kColumn && r.op == Op::kLiteral) RETURN_IF_ERROR(FitLiteral(l.type, PathText(le.path), &r));
    if (re.op == Op::kColumn && l.op == Op::kLiteral) RETURN_IF_ERROR(FitLiteral(r.type, PathText(re.path), &l));
    BoundNode n = Node(op, MakeType(TypeId::kBool), position, {});
    const DataType& a = l.type;
    const DataType& b = r.type;
    if (a.id == TypeId::kNull || b.id == TypeId::kNull) {
      n.domain = Domain::kNull;
    } else if (IsNumeric(a) && IsNumeric(b)) {
      n.domain = IsFloat(a) || IsFloat(b) ? Domain::kFloat : Domain::kInt;
    } else if (IsStringy(a) && IsStringy(b)) {
      n.domain = Domain::kString;
    } else if (a.id == TypeId::kBool && b.id == TypeId::kBool) {
      n.domain = Domain::kBool;
    } else if (IsDateOrTimestamp(a) && IsDateOrTimestamp(b)) {
      n.domain = Domain::kTemporal;
      n.scale[0] = TemporalScale(a);
      n.scale[1] = TemporalScale(b);
    } else if ((a.id == b.id && a.id == TypeId::kDuration) || ((a.id == TypeId::kTime32 || a.id == TypeId::kTime64) &&
                                                               (b.id == TypeId::kTime32 || b.id == TypeId::kTime64))) {
      n.domain = Domain::kTemporal;
      n.scale[0] = NanosPerUnit(a.unit);
      n.scale[1] = NanosPerUnit(b.unit);
    } else {
      return Error(position, "cannot compare " + a.ToString() + " with " + b.ToString());
    }
    n.literal_side = l.op == Op::kLiteral || r.op == Op::kLiteral;
    n.args.push_back(std::move(l));
    n.args.push_back(std::move(r));
    return n;
  }

  // The result type of arithmetic on two numbers, as DataFusion coerces them.
  Result<DataType> ArithmeticType(const DataType& a, const DataType& b, size_t position) const {
    if (a.id == TypeId::kFloat16 || b.id == TypeId::kFloat16) {
      return Error(position, "arithmetic on float16 is not supported");
    }
    if (a.id == TypeId::kFloat64 || b.id == TypeId::kFloat64) return MakeType(TypeId::kFloat64);
    if (a.id == TypeId::kFloat32 || b.id == TypeId::kFloat32) return MakeType(TypeId::kFloat32);
    const int wa = a.BitWidth(), wb = b.BitWidth();
    if (IsSigned(a) == IsSigned(b)) return a.BitWidth() >= b.BitWidth() ? a : b;
    const DataType& u = IsSigned(a) ? b : a;
    const int ws = IsSigned(a) ? wa : wb, wu = u.BitWidth();
    if (wu == 64) return Error(position, "arithmetic mixing uint64 with signed integers is not supported");
    return SignedOfWidth(std::max(ws, wu * 2));
  }

  Result<BoundNode> BindArithmetic(const Expr& e) {
    ASSIGN_OR_RETURN(BoundNode l, Bind(*e.args[0]));
    ASSIGN_OR_RETURN(BoundNode r, Bind(*e.args[1]));
    const DataType& a = l.type;
    const DataType& b = r.type;
    DataType t;
    if (a.id == TypeId::kNull || b.id == TypeId::kNull) {
      const DataType& other = a.id == TypeId::kNull ? b : a;
      if (other.id != TypeId::kNull && !IsNumeric(other)) {
        return Error(e.position, "arithmetic needs numbers, not " + other.ToString());
      }
      t = other;
    } else if (IsNumeric(a) && IsNumeric(b)) {
      ASSIGN_OR_RETURN(t, ArithmeticType(a, b, e.position));
    } else {
      return Error(e.position, "arithmetic needs numbers, not " + a.ToString() + " and " + b.ToString());
    }
    return Node(e.op, t, e.position, {std::move(l), std::move(r)});
  }

  Result<BoundNode> BindIn(const Expr& e) {
    // x IN (a, b) is x = a OR x = b, with each item bound as that comparison.
    BoundNode n = Node(e.op, MakeType(TypeId::kBool), e.position, {});
    for (size_t i = 1; i < e.args.size(); ++i) {
      ASSIGN_OR_RETURN(BoundNode l, Bind(*e.args[0]));
      ASSIGN_OR_RETURN(BoundNode r, Bind(*e.args[i]));
      ASSIGN_OR_RETURN(BoundNode eq,
                       Compare(Op::kEq, e.args[i]->position, std::move(l), std::move(r), *e.args[0], *e.args[i]));
      n.args.push_back(std::move(eq));
    }
    return n;
  }

  Result<BoundNode> BindBetween(const Expr& e) {
    ASSIGN_OR_RETURN(BoundNode x1, Bind(*e.args[0]));
    ASSIGN_OR_RETURN(BoundNode lo, Bind(*e.args[1]));
    ASSIGN_OR_RETURN(BoundNode ge, Compare(Op::kGe, e.position, std::move(x1), std::move(lo), *e.args[0], *e.args[1]));
    ASSIGN_OR_RETURN(BoundNode x2, Bind(*e.args[0]));
    ASSIGN_OR_RETURN(BoundNode hi, Bind(*e.args[2]));
    ASSIGN_OR_RETURN(BoundNode le, Compare(Op::kLe, e.position, std::move(x2), std::move(hi), *e.args[0], *e.args[2]));
    BoundNode both = Node(Op::kAnd, MakeType(TypeId::kBool), e.position, {std::move(ge), std::move(le)});
    if (e.op == Op::kBetween) return both;
    return Node(Op::kNot, MakeType(TypeId::kBool), e.position, {std::move(both)});
  }

  Result<BoundNode> BindLike(const Expr& e) {
    ASSIGN_OR_RETURN(BoundNode v, Bind(*e.args[0]));
    if (v.type.id != TypeId::kNull && !IsText(v.type)) {
      return Error(v.position, "LIKE needs a string, not " + v.type.ToString());
    }
    const Expr& p = *e.args[1];
    if (p.op != Op::kLiteral || (p.literal.kind != Literal::Kind::kString && p.literal.kind != Literal::Kind::kNull)) {
      return Error(p.position, "the LIKE pattern must be a 'string' literal");
    }
    ASSIGN_OR_RETURN(BoundNode pattern, Bind(p));
    return Node(e.op, MakeType(TypeId::kBool), e.position, {std::move(v), std::move(pattern)});
  }

  Result<BoundNode> BindCast(const Expr& e) {
    ASSIGN_OR_RETURN(BoundNode v, Bind(*e.args[0]));
    std::optional<DataType> to = CastTarget(e.name);
    if (!to) {
      return Error(e.position, "CAST to unknown type " + e.name +
                                   " (supported: TINYINT, SMALLINT, INT, BIGINT [UNSIGNED], FLOAT, DOUBLE, STRING, "
                                   "BINARY, DATE, TIMESTAMP, BOOLEAN)");
    }
    if (!CanCast(v.type, *to))
      return Error(e.position, "CAST from " + v.type.ToString() + " to " + to->ToString() + " is not supported");
    return Node(Op::kCast, *to, e.position, {std::move(v)});
  }

  Result<BoundNode> BindCall(const Expr& e) {
    const std::string& f = e.name;
    auto arity = [&](size_t n) -> Status {
      if (e.args.size() != n)
        return Error(e.position, f + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s"));
      return Status::OK();
    };
    std::vector<BoundNode> args;
    for (const auto& a : e.args) {
      ASSIGN_OR_RETURN(BoundNode b, Bind(*a));
      args.push_back(std::move(b));
    }
    auto need = [&](size_t i, bool ok, const char* what) -> Status {
      if (ok || args[i].type.id == TypeId::kNull) return Status::OK();
      return Error(args[i].position, f + "() needs " + what + ", not " + args[i].type.ToString());
    };
    BoundNode n = Node(Op::kCall, MakeType(TypeId::kBool), e.position, {});
    n.name = f;
    if (f == "lower" || f == "upper") {
      RETURN_IF_ERROR(arity(1));
      RETURN_IF_ERROR(need(0, IsText(args[0].type), "a string"));
      n.type = args[0].type.id == TypeId::kNull ? MakeType(TypeId::kUtf8) : args[0].type;
    } else if (f == "starts_with") {
      RETURN_IF_ERROR(arity(2));
      RETURN_IF_ERROR(need(0, IsText(args[0].type), "a string"));
      RETURN_IF_ERROR(need(1, IsText(args[1].type), "a string"));
    } else if (f == "length" || f == "char_length" || f == "character_length" || f == "octet_length") {
      RETURN_IF_ERROR(arity(1));
      RETURN_IF_ERROR(need(0, IsText(args[0].type), "a string"));
      n.type = MakeType(args[0].type.id == TypeId::kLargeUtf8 ? TypeId::kInt64 : TypeId::kInt32);
    } else if (f == "isnan") {
      RETURN_IF_ERROR(arity(1));
      RETURN_IF_ERROR(need(0, IsFloat(args[0].type), "a float"));
    } else if (f == "array_has" || f == "array_contains") {
      RETURN_IF_ERROR(arity(2));
      RETURN_IF_ERROR(need(0, IsList(args[0].type), "a list"));
      if (IsList(args[0].type) && args[1].type.id != TypeId::kNull) {
        RETURN_IF_ERROR(ItemComparable(args[0].type.children[0].type, args[1]));
      }
      n.name = "array_has";
    } else if (f == "array_has_any") {
      RETURN_IF_ERROR(arity(2));
      RETURN_IF_ERROR(need(0, IsList(args[0].type), "a list"));
      RETURN_IF_ERROR(need(1, IsList(args[1].type), "a list"));
      if (IsList(args[0].type) && IsList(args[1].type)) {
        BoundNode probe = Node(Op::kLiteral, args[1].type.children[0].type, args[1].position, {});
        RETURN_IF_ERROR(ItemComparable(args[0].type.children[0].type, probe));
      }
    } else if (f == "array_length") {
      RETURN_IF_ERROR(arity(1));
      RETURN_IF_ERROR(need(0, IsList(args[0].type), "a list"));
      n.type = MakeType(TypeId::kUInt64);
    } else {
      return Error(e.position, "unknown function " + f +
                                   "() (supported: lower, upper, starts_with, length, char_length, octet_length, "
                                   "isnan, array_has, array_contains, array_has_any, array_length)");
    }
    n.args = std::move(args);
    return n;
  }

  Status ItemComparable(const DataType& item, const BoundNode& v) const {
    if ((IsNumeric(item) && IsNumeric(v.type)) || (IsStringy(item) && IsStringy(v.type)) ||
        (item.id == TypeId::kBool && v.type.id == TypeId::kBool)) {
      return Status::OK();
    }
    return Error(v.position, "list items of type " + item.ToString() + " cannot be compared with " + v.type.ToString());
  }

  const Schema& schema_;
  const std::string& text_;
  std::vector<bool>* used_;
};

}  // namespace

Result<BoundNode> BindTree(const Expr& expr, const Schema& schema, const std::string& text, std::vector<bool>* used) {
  return Binder(schema, text, used).Bind(expr);
}

}  // namespace lancet::expr
