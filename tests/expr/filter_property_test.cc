// Random filters over random batches (nulls, NaN, -0, negative and extreme integers, empty
// strings) against a deliberately plain row-at-a-time model written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>

#include "lancet/expr/filter.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::expr {
namespace {

// SQL's three values: nullopt is unknown.
using Tri = std::optional<bool>;

struct Row {
  std::optional<int64_t> a;  // int64
  std::optional<int32_t> b;  // int32
  std::optional<double> f;   // float64
  std::optional<std::string> s;
  std::optional<bool> t;
};

// A generated expression: its text and its value on one row.
struct Gen {
  std::string text;
  std::function<Tri(const Row&)> eval;
};
struct IntGen {
  std::string text;
  int width;  // 32 or 64: the type the reference computes it in
  std::function<std::optional<int64_t>(const Row&)> eval;
};

int64_t WrapTo(int width, uint64_t v) {
  return width == 32 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v))) : static_cast<int64_t>(v);
}

// LIKE by plain recursion over bytes (the strings here are ASCII, no escapes).
bool LikeModel(const char* s, const char* p) {
  if (*p == 0) return *s == 0;
  if (*p == '%') return LikeModel(s, p + 1) || (*s != 0 && LikeModel(s + 1, p));
  if (*s == 0) return false;
  return (*p == '_' || *p == *s) && LikeModel(s + 1, p + 1);
}

// Floats in totalOrder as a (class, value) pair: -NaN, numbers, NaN; -0 below 0 unless
// compared with a literal.
int FloatOrder(double x, double y, bool literal) {
  auto cls = [](double v) { return std::isnan(v) ? (std::signbit(v) ? 0 : 2) : 1; };
  if (cls(x) != cls(y)) return cls(x) < cls(y) ? -1 : 1;
  if (cls(x) != 1) return 0;
  if (x != y) return x < y ? -1 : 1;
  if (literal || std::signbit(x) == std::signbit(y)) return 0;
  return std::signbit(x) ? -1 : 1;
}

bool Apply(const std::string& op, int c) {
  if (op == "=") return c == 0;
  if (op == "!=" || op == "<>") return c != 0;
  if (op == "<") return c < 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  return c >= 0;
}

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  Gen Bool(int depth) {
    switch (Pick(depth <= 0 ? 7 : 12)) {
      case 0:
        return CompareInt(depth);
      case 1:
        return CompareFloat();
      case 2:
        return CompareString();
      case 3: {
        Gen g{"t", [](const Row& r) -> Tri { return r.t; }};
        return g;
      }
      case 4:
        return IsNull(depth);
      case 5:
        return In();
      case 6:
        return Like();
      case 7: {
        Gen x = Bool(depth - 1);
        return {"NOT (" + x.text + ")", [x](const Row& r) -> Tri {
                  Tri v = x.eval(r);
                  return v ? Tri(!*v) : std::nullopt;
                }};
      }
      case 8:
      case 9: {
        const bool is_and = Pick(2) == 0;
        Gen x = Bool(depth - 1), y = Bool(depth - 1);
        return {"(" + x.text + (is_and ? " AND " : " OR ") + y.text + ")", [x, y, is_and](const Row& r) -> Tri {
                  Tri p = x.eval(r), q = y.eval(r);
                  if (is_and) {
                    if ((p && !*p) || (q && !*q)) return false;
                    if (!p || !q) return std::nullopt;
                    return true;
                  }
                  if ((p && *p) || (q && *q)) return true;
                  if (!p || !q) return std::nullopt;
                  return false;
                }};
      }
      case 10: {
        static const char* kIs[] = {"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"};
        const int k = Pick(4);
        Gen x = Bool(depth - 1);
        return {"(" + x.text + ") " + kIs[k], [x, k](const Row& r) -> Tri {
                  Tri v = x.eval(r);
                  bool t = v && *v, f = v && !*v;
                  return k == 0 ? t : k == 1 ? !t : k == 2 ? f : !f;
                }};
      }
      default:
        return Between(depth);
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string Op() {
    static const char* kOps[] = {"=", "!=", "<>", "<", "<=", ">", ">="};
    return kOps[Pick(7)];
  }

  int64_t SmallInt() {
    static const int64_t kEdges[] = {0, -1, 1, 2147483647, -2147483648};
    return Pick(4) == 0 ? kEdges[Pick(5)] : Pick(41) - 20;
  }

  IntGen Int(int depth) {
    const int k = Pick(depth <= 0 ? 3 : 6);
    if (k == 0) return {"a", 64, [](const Row& r) { return r.a; }};
    if (k == 1) return {"b", 32, [](const Row& r) -> std::optional<int64_t> { return r.b; }};
    if (k == 2) {
      const int64_t v = SmallInt();
      return {std::to_string(v), 64, [v](const Row&) -> std::optional<int64_t> { return v; }};
    }
    if (k == 5) {
      static const int64_t kDiv[] = {2, 3, 7, -3};
      const int64_t d = kDiv[Pick(4)];
      const bool mod = Pick(2) == 0;
      IntGen x = Int(depth - 1);
      return {"(" + x.text + (mod ? " % " : " / ") + std::to_string(d) + ")", 64,
              [x, d, mod](const Row& r) -> std::optional<int64_t> {
                auto v = x.eval(r);
                if (!v) return std::nullopt;
                return mod ? *v % d : *v / d;
              }};
    }
    static const char* kArith[] = {"+", "-", "*"};
    const std::string op = kArith[k - 3 + Pick(2)];
    IntGen x = Int(depth - 1), y = Int(depth - 1);
    const int width = std::max(x.width, y.width);
    return {"(" + x.text + " " + op + " " + y.text + ")", width,
            [x, y, op, width](const Row& r) -> std::optional<int64_t> {
              auto p = x.eval(r), q = y.eval(r);
              if (!p || !q) return std::nullopt;
              const uint64_t u = static_cast<uint64_t>(*p), v = static_cast<uint64_t>(*q);
              return WrapTo(width, op == "+" ? u + v : op == "-" ? u - v : u * v);
            }};
  }

  Gen CompareInt(int depth) {
    IntGen x = Int(depth - 1), y = Int(depth - 1);
    const std::string op = Op();
    return {"(" + x.text + " " + op + " " + y.text + ")", [x, y, op](const Row& r) -> Tri {
              auto p = x.eval(r), q = y.eval(r);
              if (!p || !q) return std::nullopt;
              return Apply(op, *p < *q ? -1 : *p > *q ? 1 : 0);
            }};
  }

  Gen CompareFloat() {
    static const char* kLits[] = {"0", "-0.0", "1.5", "-2", "1e300", "-1e-300", "3"};
    const std::string op = Op();
    if (Pick(3) == 0) {
      return {"f " + op + " f", [op](const Row& r) -> Tri {
                if (!r.f) return std::nullopt;
                return Apply(op, FloatOrder(*r.f, *r.f, false));
              }};
    }
    const std::string lit = kLits[Pick(7)];
    const double v = std::strtod(lit.c_str(), nullptr);
    return {"f " + op + " " + lit, [op, v](const Row& r) -> Tri {
              if (!r.f) return std::nullopt;
              return Apply(op, FloatOrder(*r.f, v, true));
            }};
  }

  std::string Word(int max) {
    static const char kChars[] = "ab%_";
    std::string s;
    for (int n = Pick(max + 1); n > 0; --n) s += kChars[Pick(2)];
    return s;
  }

  Gen CompareString() {
    const std::string op = Op(), lit = Word(3);
    return {"s " + op + " '" + lit + "'", [op, lit](const Row& r) -> Tri {
              if (!r.s) return std::nullopt;
              int c = r.s->compare(lit);
              return Apply(op, c < 0 ? -1 : c > 0 ? 1 : 0);
            }};
  }

  Gen IsNull(int depth) {
    const bool negated = Pick(2) == 0;
    const std::string suffix = negated ? " IS NOT NULL" : " IS NULL";
    switch (Pick(3)) {
      case 0: {
        IntGen x = Int(depth - 1);
        return {"(" + x.text + ")" + suffix,
                [x, negated](const Row& r) -> Tri { return x.eval(r).has_value() == negated; }};
      }
      case 1:
        return {"s" + suffix, [negated](const Row& r) -> Tri { return r.s.has_value() == negated; }};
      default:
        return {"f" + suffix, [negated](const Row& r) -> Tri { return r.f.has_value() == negated; }};
    }
  }

  Gen In() {
    const bool negated = Pick(2) == 0;
    std::vector<std::optional<int64_t>> items;
    std::string text = negated ? "b NOT IN (" : "b IN (";
    for (int n = 1 + Pick(4); n > 0; --n) {
      std::optional<int64_t> v;
      if (Pick(6) != 0) v = SmallInt();
      text += (items.empty() ? "" : ", ") + (v ? std::to_string(*v) : std::string("NULL"));
      items.push_back(v);
    }
    return {text + ")", [items, negated](const Row& r) -> Tri {
              if (!r.b) return std::nullopt;
              bool unknown = false;
              for (const auto& v : items) {
                if (!v) {
                  unknown = true;
                } else if (*v == *r.b) {
                  return !negated;
                }
              }
              if (unknown) return std::nullopt;
              return negated;
            }};
  }

  Gen Between(int depth) {
    IntGen x = Int(depth - 1);
    const int64_t lo = SmallInt(), hi = SmallInt();
    const bool negated = Pick(2) == 0;
    return {"(" + x.text + (negated ? " NOT BETWEEN " : " BETWEEN ") + std::to_string(lo) + " AND " +
                std::to_string(hi) + ")",
            [x, lo, hi, negated](const Row& r) -> Tri {
              auto v = x.eval(r);
              if (!v) return std::nullopt;
              return (*v >= lo && *v <= hi) != negated;
            }};
  }

  Gen Like() {
    const std::string p = Word(4);
    const bool negated = Pick(2) == 0;
    // The data's '%' and '_' are plain characters; a pattern's are wildcards.
    return {std::string("s") + (negated ? " NOT LIKE '" : " LIKE '") + p + "'", [p, negated](const Row& r) -> Tri {
              if (!r.s) return std::nullopt;
              return LikeModel(r.s->c_str(), p.c_str()) != negated;
            }};
  }

  std::mt19937 rng_;
};

std::vector<Row> RandomRows(std::mt19937& rng, int n) {
  auto pick = [&](int k) { return std::uniform_int_distribution<int>(0, k - 1)(rng); };
  static const int64_t kA[] = {0,  -1, 1, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                               20, -20};
  static const int32_t kB[] = {0, -1, 1, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
                               7, -7};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  static const double kF[] = {0.0, -0.0,  nan,     -nan, 1.5,
                              -2,  1e300, -1e-300, 3,    std::numeric_limits<double>::infinity()};
  static const char* kS[] = {"", "a", "b", "ab", "ba", "a%", "_b", "aab", "%"};
  std::vector<Row> rows(static_cast<size_t>(n));
  for (Row& r : rows) {
    if (pick(5)) r.a = pick(2) ? kA[pick(7)] : pick(41) - 20;
    if (pick(5)) r.b = pick(2) ? kB[pick(7)] : pick(41) - 20;
    if (pick(5)) r.f = kF[pick(10)];
    if (pick(5)) r.s = kS[pick(9)];
    if (pick(5)) r.t = pick(2) == 0;
  }
  return rows;
}

RecordBatch ToBatch(const std::vector<Row>& rows) {
  std::vector<int64_t> a;
  std::vector<int32_t> b;
  std::vector<double> f;
  std::vector<bool> t, va, vb, vf, vt;
  std::vector<std::optional<std::string>> s;
  for (const Row& r : rows) {
    a.push_back(r.a.value_or(0));
    va.push_back(r.a.has_value());
    b.push_back(r.b.value_or(0));
    vb.push_back(r.b.has_value());
    f.push_back(r.f.value_or(0));
    vf.push_back(r.f.has_value());
    t.push_back(r.t.value_or(false));
    vt.push_back(r.t.has_value());
    s.push_back(r.s);
  }
  return *MakeRecordBatch(
      {"a", "b", "f", "s", "t"},
      {*ArrayFromVector(MakeType(TypeId::kInt64), a, va), *ArrayFromVector(MakeType(TypeId::kInt32), b, vb),
       *ArrayFromVector(MakeType(TypeId::kFloat64), f, vf), StringArray(s), *MakeBoolArray(t, vt)});
}

TEST(FilterProperty, MatchesRowAtATimeModel) {
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Generator gen(seed);
  int matched_some = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<Row> rows = RandomRows(rng, 64);
    RecordBatch batch = ToBatch(rows);
    for (int k = 0; k < 50; ++k) {
      Gen g = gen.Bool(4);
      auto filter = Filter::Bind(g.text, batch.schema);
      ASSERT_TRUE(filter.ok()) << g.text << ": " << filter.status().ToString();
      auto got = filter->Evaluate(batch);
      ASSERT_TRUE(got.ok()) << g.text << ": " << got.status().ToString();
      for (size_t i = 0; i < rows.size(); ++i) {
        Tri want = g.eval(rows[i]);
        ASSERT_EQ((*got)[i], want.value_or(false)) << g.text << " on row " << i;
      }
      matched_some += std::count(got->begin(), got->end(), true) > 0;
    }
  }
  // The generator must produce filters that select something, or the test proves little.
  EXPECT_GT(matched_some, 500);
}

}  // namespace
}  // namespace lancet::expr
