// Evaluation over a batch: SQL three-valued logic, wrapping integer arithmetic, NaN as
// the greatest float and equal to itself, strings compared by bytes.
#include <cmath>
#include <compare>
#include <cstring>

#include "expr/bound.h"
#include "expr/text.h"

namespace lancet::expr {
namespace {

bool IsSignedType(const DataType& t) { return t.id >= TypeId::kInt8 && t.id <= TypeId::kInt64; }

// The low bits of `v` as a value of integer type `t`, as wrapping arithmetic leaves them.
int64_t Wrap(__int128 v, const DataType& t) {
  const int bits = t.BitWidth();
  if (bits >= 64) return static_cast<int64_t>(static_cast<uint64_t>(v));
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = static_cast<uint64_t>(v) & mask;
  if (IsSignedType(t) && (low >> (bits - 1)) != 0) low |= ~mask;
  return static_cast<int64_t>(low);
}

__int128 IntAt(const Column& c, size_t i) { return c.kind == Kind::kUInt ? __int128{c.uints[i]} : __int128{c.ints[i]}; }

double FloatAt(const Column& c, size_t i) {
  switch (c.kind) {
    case Kind::kFloat:
      return c.floats[i];
    case Kind::kUInt:
      return static_cast<double>(c.uints[i]);
    default:
      return static_cast<double>(c.ints[i]);
  }
}

// The reference compares floats by IEEE 754 totalOrder: -NaN < -inf < ... < -0 < 0 < ...
// < inf < NaN, each NaN equal to itself. Against a literal, though, -0 equals 0.
int CompareFloat(double a, double b, bool zeros_equal) {
  if (zeros_equal && a == 0 && b == 0) return 0;
  auto key = [](double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
  };
  const uint64_t ka = key(a), kb = key(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

bool Holds(Op op, int c) {
  switch (op) {
    case Op::kEq:
      return c == 0;
    case Op::kNe:
      return c != 0;
    case Op::kLt:
      return c < 0;
    case Op::kLe:
      return c <= 0;
    case Op::kGt:
      return c > 0;
    default:
      return c >= 0;
  }
}

template <typename T>
int Three(const T& a, const T& b) {
  return a < b ? -1 : b < a ? 1 : 0;
}

Column BoolColumn(int64_t n) {
  Column c;
  c.kind = Kind::kBool;
  c.length = n;
  c.valid.assign(static_cast<size_t>(n), 1);
  c.ints.assign(static_cast<size_t>(n), 0);
  return c;
}

Column NullColumn(int64_t n) {
  Column c;
  c.kind = Kind::kNull;
  c.length = n;
  c.valid.assign(static_cast<size_t>(n), 0);
  return c;
}

class Evaluator {
 public:
  Evaluator(const RecordBatch& batch, const std::string& text) : batch_(batch), text_(text), n_(batch.num_rows) {}

  Result<Column> Eval(const BoundNode& node) {
    switch (node.op) {
      case Op::kColumn:
        return LoadColumn(batch_, node.path, node.validity_only);
      case Op::kLiteral:
        return Constant(node);
      case Op::kList:
        return Error(node, "a list literal is only an argument of array_has_any");
      case Op::kAnd:
      case Op::kOr:
        return Logical(node.args, node.op);
      case Op::kNot: {
        ASSIGN_OR_RETURN(Column c, Eval(node.args[0]));
        return Not(std::move(c));
      }
      case Op::kNegate:
        return Negate(node);
      case Op::kEq:
      case Op::kNe:
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
        return Compare(node);
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod:
        return Arithmetic(node);
      case Op::kIsNull:
      case Op::kIsNotNull:
      case Op::kIsTrue:
      case Op::kIsNotTrue:
      case Op::kIsFalse:
      case Op::kIsNotFalse:
        return Is(node);
      case Op::kIn:
      case Op::kNotIn: {
        ASSIGN_OR_RETURN(Column c, Logical(node.args, Op::kOr));
        return node.op == Op::kIn ? std::move(c) : Not(std::move(c));
      }
      case Op::kLike:
      case Op::kNotLike:
        return Like(node);
      case Op::kCast: {
        ASSIGN_OR_RETURN(Column c, Eval(node.args[0]));
        return CastColumn(c, node.args[0].type, node.type, Where(node));
      }
      case Op::kCall:
        return Call(node);
      case Op::kBetween:
      case Op::kNotBetween:
        break;  // bound as AND of two comparisons
    }
    return Error(node, "unknown expression");
  }

 private:
  std::string Where(const BoundNode& node) const {
    return "expression '" + text_ + "' at position " + std::to_string(node.position);
  }
  Status Error(const BoundNode& node, const std::string& what) const {
    return Status::InvalidArgument(Where(node) + ": " + what);
  }

  Result<Column> Constant(const BoundNode& node) {
    const Literal& l = node.literal;
    if (l.kind == Literal::Kind::kNull) return NullColumn(n_);
    Column c;
    c.kind = *KindOf(node.type);
    c.length = n_;
    c.valid.assign(static_cast<size_t>(n_), 1);
    const size_t n = static_cast<size_t>(n_);
    switch (c.kind) {
      case Kind::kBool:
      case Kind::kInt:
        c.ints.assign(n, static_cast<int64_t>(l.int_value));
        break;
      case Kind::kUInt:
        c.uints.assign(n, static_cast<uint64_t>(l.int_value));
        break;
      case Kind::kFloat:
        c.floats.assign(n, l.kind == Literal::Kind::kInt ? static_cast<double>(l.int_value) : l.float_value);
        break;
      case Kind::kString:
        c.strings.assign(n, std::string_view(l.string_value));
        break;
      default:
        return Error(node, "literal of type " + node.type.ToString());
    }
    return c;
  }

  static Column Not(Column c) {
    for (int64_t& v : c.ints) v = !v;
    return c;
  }

  Result<Column> Logical(const std::vector<BoundNode>& args, Op op) {
    // FALSE dominates AND, TRUE dominates OR; otherwise unknown wins over the other.
    const int64_t dominant = op == Op::kAnd ? 0 : 1;
    Column out = BoolColumn(n_);
    for (int64_t& v : out.ints) v = !dominant;
    for (const BoundNode& a : args) {
      ASSIGN_OR_RETURN(Column c, Eval(a));
      for (size_t i = 0; i < static_cast<size_t>(n_); ++i) {
        if (out.valid[i] && out.ints[i] == dominant) continue;
        if (c.Valid(static_cast<int64_t>(i)) && c.ints[i] == dominant) {
          out.valid[i] = 1;
          out.ints[i] = dominant;
        } else if (!c.Valid(static_cast<int64_t>(i))) {
          out.valid[i] = 0;
        }
      }
    }
    return out;
  }

  Result<Column> Is(const BoundNode& node) {
    ASSIGN_OR_RETURN(Column c, Eval(node.args[0]));
    Column out = BoolColumn(n_);
    for (size_t i = 0; i < static_cast<size_t>(n_); ++i) {
      const bool valid = c.Valid(static_cast<int64_t>(i));
      const bool t = valid && node.op != Op::kIsNull && node.op != Op::kIsNotNull && c.ints[i] != 0;
      const bool f = valid && node.op != Op::kIsNull && node.op != Op::kIsNotNull && c.ints[i] == 0;
      switch (node.op) {
        case Op::kIsNull:
          out.ints[i] = !valid;
          break;
        case Op::kIsNotNull:
          out.ints[i] = valid;
          break;
        case Op::kIsTrue:
          out.ints[i] = t;
          break;
        case Op::kIsNotTrue:
          out.ints[i] = !t;
          break;
        case Op::kIsFalse:
          out.ints[i] = f;
          break;
        default:
          out.ints[i] = !f;
          break;
      }
    }
    return out;
  }

  Result<Column> Compare(const BoundNode& node) {
    if (node.domain == Domain::kNull) {
      Column out = BoolColumn(n_);
      out.valid.assign(out.valid.size(), 0);
      return out;
    }
    ASSIGN_OR_RETURN(Column a, Eval(node.args[0]));
    ASSIGN_OR_RETURN(Column b, Eval(node.args[1]));
    Column out = BoolColumn(n_);
    for (size_t i = 0; i < static_cast<size_t>(n_); ++i) {
      const int64_t r = static_cast<int64_t>(i);
      if (!a.Valid(r) || !b.Valid(r)) {
        out.valid[i] = 0;
        continue;
      }
      int c = 0;
      switch (node.domain) {
        case Domain::kInt:
        case Domain::kBool:
          c = Three(IntAt(a, i), IntAt(b, i));
          break;
        case Domain::kFloat:
          c = CompareFloat(FloatAt(a, i), FloatAt(b, i), node.literal_side);
          break;
        case Domain::kString:
          c = Three(a.strings[i], b.strings[i]);
          break;
        case Domain::kTemporal:
          c = Three(IntAt(a, i) * node.scale[0], IntAt(b, i) * node.scale[1]);
          break;
        case Domain::kNull:
          break;
      }
      out.ints[i] = Holds(node.op, c);
    }
    return out;
  }

  Result<Column> Negate(const BoundNode& node) {
    ASSIGN_OR_RETURN(Column c, Eval(node.args[0]));
    if (c.kind == Kind::kFloat) {
      for (double& v : c.floats) v = -v;
    } else {
      // Unlike + - *, the reference's negation is checked: -(-128) of an int8 is an error.
      for (size_t i = 0; i < c.ints.size(); ++i) {
        const int64_t v = c.ints[i];
        if (c.valid[i] && Wrap(-__int128{v}, node.type) != -__int128{v}) {
          return Error(node, "overflow negating " + std::to_string(v) + " of type " + node.type.ToString());
        }
        c.ints[i] = c.valid[i] ? -v : 0;
      }
    }
    return c;
  }

  Result<Column> Arithmetic(const BoundNode& node) {
    ASSIGN_OR_RETURN(Column a, Eval(node.args[0]));
    ASSIGN_OR_RETURN(Column b, Eval(node.args[1]));
    if (node.type.id == TypeId::kNull || a.kind == Kind::kNull || b.kind == Kind::kNull) {
      Column out = NullColumn(n_);
      if (node.type.id != TypeId::kNull) {
        out.kind = *KindOf(node.type);
        out.ints.assign(static_cast<size_t>(n_), 0);
        out.uints.assign(static_cast<size_t>(n_), 0);
        out.floats.assign(static_cast<size_t>(n_), 0);
      }
      return out;
    }
    Column out;
    out.kind = *KindOf(node.type);
    out.length = n_;
    out.valid.resize(static_cast<size_t>(n_));
    const size_t n = static_cast<size_t>(n_);
    if (out.kind == Kind::kFloat) {
      const bool f32 = node.type.id == TypeId::kFloat32;
      out.floats.resize(n);
      for (size_t i = 0; i < n; ++i) {
        out.valid[i] = a.valid[i] && b.valid[i];
        // Operands of a float32 result are float32 values already, or integers cast to it.
        double x = FloatAt(a, i), y = FloatAt(b, i);
        if (f32) x = static_cast<float>(x), y = static_cast<float>(y);
        double v = 0;
        switch (node.op) {
          case Op::kAdd:
            v = x + y;
            break;
          case Op::kSub:
            v = x - y;
            break;
          case Op::kMul:
            v = x * y;
            break;
          case Op::kDiv:
            v = x / y;
            break;
          default:
            v = std::fmod(x, y);
            break;
        }
        out.floats[i] = f32 ? static_cast<float>(v) : v;
      }
      return out;
    }
    out.uints.resize(n);
    out.ints.resize(n);
    for (size_t i = 0; i < n; ++i) {
      out.valid[i] = a.valid[i] && b.valid[i];
      if (!out.valid[i]) continue;
      // Operands are first cast to the result type, as the reference's coercion does.
      const __int128 x = out.kind == Kind::kUInt ? __int128{static_cast<uint64_t>(IntAt(a, i))}
                                                 : __int128{Wrap(IntAt(a, i), node.type)};
      const __int128 y = out.kind == Kind::kUInt ? __int128{static_cast<uint64_t>(IntAt(b, i))}
                                                 : __int128{Wrap(IntAt(b, i), node.type)};
      __int128 v = 0;
      switch (node.op) {
        case Op::kAdd:
          v = x + y;
          break;
        case Op::kSub:
          v = x - y;
          break;
        case Op::kMul:
          v = x * y;
          break;
        case Op::kDiv:
        case Op::kMod:
          if (y == 0) return Error(node, "division by zero");
          v = node.op == Op::kDiv ? x / y : x % y;
          break;
        default:
          break;
      }
      if (out.kind == Kind::kUInt) {
        out.uints[i] = static_cast<uint64_t>(v);
      } else {
        out.ints[i] = Wrap(v, node.type);
      }
    }
    return out;
  }

  Result<Column> Like(const BoundNode& node) {
    ASSIGN_OR_RETURN(Column s, Eval(node.args[0]));
    const Literal& p = node.args[1].literal;
    Column out = BoolColumn(n_);
    if (s.kind == Kind::kNull || p.kind == Literal::Kind::kNull) {
      out.valid.assign(out.valid.size(), 0);
      return out;
    }
    const LikePattern pattern(p.string_value);
    const bool want = node.op == Op::kLike;
    for (size_t i = 0; i < static_cast<size_t>(n_); ++i) {
      out.valid[i] = s.valid[i];
      if (s.valid[i]) out.ints[i] = pattern.Matches(s.strings[i]) == want;
    }
    return out;
  }

  Result<Column> Call(const BoundNode& node) {
    std::vector<Column> args;
    for (const BoundNode& a : node.args) {
      if (a.op == Op::kList) {
        ASSIGN_OR_RETURN(Column c, ListConstant(a));
        args.push_back(std::move(c));
      } else {
        ASSIGN_OR_RETURN(Column c, Eval(a));
        args.push_back(std::move(c));
      }
    }
    const std::string& f = node.name;
    const size_t n = static_cast<size_t>(n_);
    auto all_valid = [&](size_t i) {
      for (const Column& c : args) {
        if (!c.Valid(static_cast<int64_t>(i))) return false;
      }
      return true;
    };
    Column out;
    out.kind = *KindOf(node.type);
    out.length = n_;
    out.valid.resize(n);
    if (f == "lower" || f == "upper") {
      out.strings.resize(n);
      out.arena = std::make_shared<std::deque<std::string>>();
      for (size_t i = 0; i < n; ++i) {
        out.valid[i] = all_valid(i);
        if (!out.valid[i]) continue;
        auto changed = ChangeCase(args[0].strings[i], f == "upper");
        if (!changed.ok()) return Error(node, changed.status().message());
        out.arena->push_back(std::move(*changed));
        out.strings[i] = out.arena->back();
      }
      return out;
    }
    out.ints.resize(n);
    out.uints.resize(n);
    for (size_t i = 0; i < n; ++i) {
      out.valid[i] = all_valid(i);
      if (!out.valid[i]) continue;
      if (f == "starts_with") {
        out.ints[i] = args[0].strings[i].starts_with(args[1].strings[i]);
      } else if (f == "isnan") {
        out.ints[i] = std::isnan(args[0].floats[i]);
      } else if (f == "octet_length") {
        out.ints[i] = static_cast<int64_t>(args[0].strings[i].size());
      } else if (f == "length" || f == "char_length" || f == "character_length") {
        out.ints[i] = CharLength(args[0].strings[i]);
      } else if (f == "array_length") {
        out.uints[i] = static_cast<uint64_t>(args[0].offsets[i + 1] - args[0].offsets[i]);
      } else if (f == "array_has") {
        const Column& items = *args[0].items;
        bool found = false;
        for (int64_t k = args[0].offsets[i]; k < args[0].offsets[i + 1] && !found; ++k) {
          found = ItemEquals(items, static_cast<size_t>(k), args[1], i);
        }
        out.ints[i] = found;
      } else if (f == "array_has_any") {
        const Column& items = *args[0].items;
        const Column& probe = *args[1].items;
        bool found = false;
        for (int64_t k = args[0].offsets[i]; k < args[0].offsets[i + 1] && !found; ++k) {
          const bool literal = node.args[1].op == Op::kList;
          const int64_t jb = literal ? 0 : args[1].offsets[i], je = literal ? probe.length : args[1].offsets[i + 1];
          for (int64_t j = jb; j < je && !found; ++j) {
            found = probe.Valid(j) && ItemEquals(items, static_cast<size_t>(k), probe, static_cast<size_t>(j));
          }
        }
        out.ints[i] = found;
      }
    }
    return out;
  }

  // Null items equal nothing.
  static bool ItemEquals(const Column& a, size_t i, const Column& b, size_t j) {
    if (!a.valid[i] || !b.valid[j]) return false;
    if (a.kind == Kind::kString) return a.strings[i] == b.strings[j];
    if (a.kind == Kind::kFloat || b.kind == Kind::kFloat) return CompareFloat(FloatAt(a, i), FloatAt(b, j), true) == 0;
    return IntAt(a, i) == IntAt(b, j);
  }

  // A list literal, the same list on every row.
  Result<Column> ListConstant(const BoundNode& node) {
    Column items;
    items.kind = *KindOf(node.type.children[0].type);
    items.length = static_cast<int64_t>(node.args.size());
    for (const BoundNode& a : node.args) {
      const Literal& l = a.literal;
      items.valid.push_back(1);
      switch (items.kind) {
        case Kind::kFloat:
          items.floats.push_back(l.kind == Literal::Kind::kInt ? static_cast<double>(l.int_value) : l.float_value);
          break;
        case Kind::kUInt:
          items.uints.push_back(static_cast<uint64_t>(l.int_value));
          break;
        case Kind::kString:
          items.strings.push_back(l.string_value);
          break;
        default:
          items.ints.push_back(static_cast<int64_t>(l.int_value));
          break;
      }
    }
    Column c;
    c.kind = Kind::kList;
    c.length = n_;
    c.valid.assign(static_cast<size_t>(n_), 1);
    c.offsets.resize(static_cast<size_t>(n_) + 1, 0);
    // Offsets stay 0: a literal's rows all see the whole list (see Call).
    c.items = std::make_shared<Column>(std::move(items));
    return c;
  }

  const RecordBatch& batch_;
  const std::string& text_;
  const int64_t n_;
};

}  // namespace

Result<Column> EvalTree(const BoundNode& node, const RecordBatch& batch, const std::string& text) {
  return Evaluator(batch, text).Eval(node);
}

}  // namespace lancet::expr
