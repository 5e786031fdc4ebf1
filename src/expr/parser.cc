// Tokenizer and recursive-descent parser of expressions.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "expr/datetime.h"
#include "lancet/expr/expression.h"

namespace lancet::expr {
namespace {

enum class Tok : uint8_t { kIdent, kNumber, kString, kOp, kEnd };

struct Token {
  Tok tok = Tok::kEnd;
  std::string text;  // identifier (unquoted), number digits, string contents, operator
  std::string raw;   // as written, for messages
  size_t pos = 0;
  bool quoted = false;  // a `backquoted` identifier is never a keyword
};

bool IsKeyword(const Token& t, const char* kw) {
  if (t.tok != Tok::kIdent || t.quoted || t.text.size() != std::strlen(kw)) return false;
  for (size_t i = 0; i < t.text.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(t.text[i])) != kw[i]) return false;
  }
  return true;
}

bool IsReserved(const Token& t) {
  for (const char* kw :
       {"AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "IN", "BETWEEN", "LIKE", "ILIKE", "ESCAPE", "CAST", "AS"}) {
    if (IsKeyword(t, kw)) return true;
  }
  return false;
}

bool IsOp(const Token& t, const char* op) { return t.tok == Tok::kOp && t.text == op; }

std::string Describe(const Token& t) { return t.tok == Tok::kEnd ? "end of input" : "'" + t.raw + "'"; }

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  Result<std::unique_ptr<Expr>> Run() {
    if (text_.size() > kMaxText) {
      return Status::InvalidArgument("expression of " + std::to_string(text_.size()) + " bytes is longer than " +
                                     std::to_string(kMaxText));
    }
    RETURN_IF_ERROR(Tokenize());
    if (tokens_.size() == 1) return Error("the expression is empty", tokens_[0]);
    ASSIGN_OR_RETURN(auto root, ParseOr());
    if (Peek().tok != Tok::kEnd) return Error("expected an operator or the end of the expression", Peek());
    return root;
  }

 private:
  Status Error(const std::string& what, const Token& at) const {
    return Status::InvalidArgument("expression '" + text_ + "': " + what + " at position " + std::to_string(at.pos) +
                                   " (" + Describe(at) + ")");
  }

  Status Tokenize() {
    size_t i = 0;
    const size_t n = text_.size();
    while (true) {
      while (i < n && std::isspace(static_cast<unsigned char>(text_[i]))) ++i;
      Token t;
      t.pos = i;
      if (i == n) {
        tokens_.push_back(t);
        return Status::OK();
      }
      char c = text_[i];
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t b = i;
        while (i < n && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) ++i;
        t.tok = Tok::kIdent;
        t.text = text_.substr(b, i - b);
      } else if (c == '`' || c == '"') {
        size_t close = text_.find(c, i + 1);
        if (close == std::string::npos) return Error("unterminated quoted name", t);
        t.tok = Tok::kIdent;
        t.quoted = true;
        t.text = text_.substr(i + 1, close - i - 1);
        if (t.text.empty()) return Error("empty quoted name", t);
        i = close + 1;
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text_[i + 1])))) {
        size_t b = i;
        while (i < n && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '.' ||
                         ((text_[i] == '+' || text_[i] == '-') && (text_[i - 1] == 'e' || text_[i - 1] == 'E')))) {
          ++i;
        }
        t.tok = Tok::kNumber;
        t.text = text_.substr(b, i - b);
      } else if (c == '\'') {
        ++i;
        while (true) {
          if (i == n) return Error("unterminated string literal", t);
          if (text_[i] == '\'') {
            if (i + 1 < n && text_[i + 1] == '\'') {
              t.text.push_back('\'');
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          t.text.push_back(text_[i++]);
        }
        t.tok = Tok::kString;
      } else if (std::strchr("()[],.+-*/%", c) != nullptr) {
        t.tok = Tok::kOp;
        t.text = std::string(1, c);
        ++i;
      } else if (c == '=' || c == '<' || c == '>' || c == '!') {
        size_t len = 1;
        if (i + 1 < n && (text_[i + 1] == '=' || (c == '<' && text_[i + 1] == '>'))) len = 2;
        t.tok = Tok::kOp;
        t.text = text_.substr(i, len);
        if (t.text == "!") {
          t.raw = t.text;
          return Error("unknown operator (use != or NOT)", t);
        }
        if (t.text == "==") t.text = "=";
        i += len;
      } else {
        t.raw = std::string(1, c);
        return Error("unexpected character", t);
      }
      t.raw = text_.substr(t.pos, i - t.pos);
      tokens_.push_back(std::move(t));
    }
  }

  const Token& Peek(size_t ahead = 0) const { return tokens_[std::min(next_ + ahead, tokens_.size() - 1)]; }
  const Token& Take() { return tokens_[next_ < tokens_.size() - 1 ? next_++ : next_]; }

  Result<std::unique_ptr<Expr>> Node(Op op, size_t position) {
    if (++nodes_ > kMaxNodes) {
      return Error("the expression has more than " + std::to_string(kMaxNodes) + " nodes", Peek());
    }
    auto e = std::make_unique<Expr>();
    e->op = op;
    e->position = position;
    return e;
  }

  // Restores the nesting depth when a parse step returns, on success or error.
  struct DepthGuard {
    explicit DepthGuard(Parser* p) : parser(p), saved(p->depth_) {}
    ~DepthGuard() { parser->depth_ = saved; }
    Parser* parser;
    int saved;
  };

  // Every recursive step goes through here, so a hostile nesting stops at kMaxDepth.
  Status Enter() {
    if (++depth_ > kMaxDepth) return Error("the expression nests deeper than " + std::to_string(kMaxDepth), Peek());
    return Status::OK();
  }

  Status Expect(const char* op) {
    if (!IsOp(Peek(), op)) return Error(std::string("expected '") + op + "'", Peek());
    Take();
    return Status::OK();
  }

  // AND and OR chains become one n-ary node, so long chains add no depth.
  Result<std::unique_ptr<Expr>> ParseChain(Op op, const char* kw) {
    const size_t pos = Peek().pos;
    ASSIGN_OR_RETURN(auto first, op == Op::kOr ? ParseChain(Op::kAnd, "AND") : ParseNot());
    if (!IsKeyword(Peek(), kw)) {
      return first;
    }
    ASSIGN_OR_RETURN(auto chain, Node(op, pos));
    chain->args.push_back(std::move(first));
    while (IsKeyword(Peek(), kw)) {
      Take();
      ASSIGN_OR_RETURN(auto next, op == Op::kOr ? ParseChain(Op::kAnd, "AND") : ParseNot());
      chain->args.push_back(std::move(next));
    }
    return chain;
  }

  Result<std::unique_ptr<Expr>> ParseOr() { return ParseChain(Op::kOr, "OR"); }

  Result<std::unique_ptr<Expr>> ParseNot() {
    if (!IsKeyword(Peek(), "NOT")) return ParsePredicate();
    DepthGuard guard(this);
    RETURN_IF_ERROR(Enter());
    ASSIGN_OR_RETURN(auto n, Node(Op::kNot, Take().pos));
    ASSIGN_OR_RETURN(auto inner, ParseNot());
    n->args.push_back(std::move(inner));
    return n;
  }

  static Result<Op> CompareOp(const std::string& s) {
    if (s == "=") return Op::kEq;
    if (s == "!=" || s == "<>") return Op::kNe;
    if (s == "<") return Op::kLt;
    if (s == "<=") return Op::kLe;
    if (s == ">") return Op::kGt;
    if (s == ">=") return Op::kGe;
    return Status::NotFound(s);
  }

  // An operand followed by at most one comparison, IS, IN, BETWEEN or LIKE.
  Result<std::unique_ptr<Expr>> ParsePredicate() {
    const size_t pos = Peek().pos;
    ASSIGN_OR_RETURN(auto lhs, ParseAdditive());
    std::unique_ptr<Expr> out;
    if (Peek().tok == Tok::kOp && CompareOp(Peek().text).ok()) {
      ASSIGN_OR_RETURN(out, Node(*CompareOp(Take().text), pos));
      ASSIGN_OR_RETURN(auto rhs, ParseAdditive());
      out->args.push_back(std::move(lhs));
      out->args.push_back(std::move(rhs));
    } else if (IsKeyword(Peek(), "IS")) {
      Take();
      bool negated = IsKeyword(Peek(), "NOT");
      if (negated) Take();
      Op op;
      if (IsKeyword(Peek(), "NULL")) {
        op = negated ? Op::kIsNotNull : Op::kIsNull;
      } else if (IsKeyword(Peek(), "TRUE")) {
        op = negated ? Op::kIsNotTrue : Op::kIsTrue;
      } else if (IsKeyword(Peek(), "FALSE")) {
        op = negated ? Op::kIsNotFalse : Op::kIsFalse;
      } else {
        return Error("expected NULL, TRUE or FALSE after IS", Peek());
      }
      Take();
      ASSIGN_OR_RETURN(out, Node(op, pos));
      out->args.push_back(std::move(lhs));
    } else {
      bool negated = false;
      if (IsKeyword(Peek(), "NOT") &&
          (IsKeyword(Peek(1), "IN") || IsKeyword(Peek(1), "BETWEEN") || IsKeyword(Peek(1), "LIKE"))) {
        Take();
        negated = true;
      }
      if (IsKeyword(Peek(), "IN")) {
        Take();
        ASSIGN_OR_RETURN(out, Node(negated ? Op::kNotIn : Op::kIn, pos));
        out->args.push_back(std::move(lhs));
        RETURN_IF_ERROR(Expect("("));
        while (true) {
          ASSIGN_OR_RETURN(auto item, ParseAdditive());
          out->args.push_back(std::move(item));
          if (!IsOp(Peek(), ",")) break;
          Take();
        }
        RETURN_IF_ERROR(Expect(")"));
      } else if (IsKeyword(Peek(), "BETWEEN")) {
        Take();
        ASSIGN_OR_RETURN(out, Node(negated ? Op::kNotBetween : Op::kBetween, pos));
        out->args.push_back(std::move(lhs));
        ASSIGN_OR_RETURN(auto low, ParseAdditive());
        if (!IsKeyword(Peek(), "AND")) return Error("expected AND in BETWEEN", Peek());
        Take();
        ASSIGN_OR_RETURN(auto high, ParseAdditive());
        out->args.push_back(std::move(low));
        out->args.push_back(std::move(high));
      } else if (IsKeyword(Peek(), "LIKE")) {
        Take();
        ASSIGN_OR_RETURN(out, Node(negated ? Op::kNotLike : Op::kLike, pos));
        out->args.push_back(std::move(lhs));
        ASSIGN_OR_RETURN(auto pattern, ParseAdditive());
        out->args.push_back(std::move(pattern));
        if (IsKeyword(Peek(), "ESCAPE")) {
          Take();
          // The reference's LIKE knows only the backslash escape.
          if (Peek().tok != Tok::kString || Peek().text != "\\") {
            return Error("LIKE supports only ESCAPE '\\' (the default)", Peek());
          }
          Take();
        }
      } else if (IsKeyword(Peek(), "ILIKE")) {
        return Error("ILIKE is not supported (use lower(x) LIKE ...)", Peek());
      } else {
        return lhs;
      }
    }
    return out;
  }

  Result<std::unique_ptr<Expr>> ParseAdditive() {
    DepthGuard guard(this);
    const size_t pos = Peek().pos;
    ASSIGN_OR_RETURN(auto lhs, ParseMultiplicative());
    while (IsOp(Peek(), "+") || IsOp(Peek(), "-")) {
      ASSIGN_OR_RETURN(auto n, Node(Take().text == "+" ? Op::kAdd : Op::kSub, pos));
      ASSIGN_OR_RETURN(auto rhs, ParseMultiplicative());
      n->args.push_back(std::move(lhs));
      n->args.push_back(std::move(rhs));
      lhs = std::move(n);
      RETURN_IF_ERROR(Enter());  // a left-deep chain is as deep as it is long
    }
    return lhs;
  }

  Result<std::unique_ptr<Expr>> ParseMultiplicative() {
    DepthGuard guard(this);
    const size_t pos = Peek().pos;
    ASSIGN_OR_RETURN(auto lhs, ParseUnary());
    while (IsOp(Peek(), "*") || IsOp(Peek(), "/") || IsOp(Peek(), "%")) {
      const std::string& o = Take().text;
      ASSIGN_OR_RETURN(auto n, Node(o == "*" ? Op::kMul : o == "/" ? Op::kDiv : Op::kMod, pos));
      ASSIGN_OR_RETURN(auto rhs, ParseUnary());
      n->args.push_back(std::move(lhs));
      n->args.push_back(std::move(rhs));
      lhs = std::move(n);
      RETURN_IF_ERROR(Enter());
    }
    return lhs;
  }

  Result<std::unique_ptr<Expr>> ParseUnary() {
    if (IsOp(Peek(), "-") || IsOp(Peek(), "+")) {
      const Token& sign = Peek();
      // A minus sign before a number is part of the literal, which the reference then
      // converts to the type of a column it meets (`i8 = -5`).
      if (sign.text == "-" && Peek(1).tok == Tok::kNumber) {
        return ParsePrimary();
      }
      DepthGuard guard(this);
      RETURN_IF_ERROR(Enter());
      Take();
      if (sign.text == "+") {
        auto inner = ParseUnary();
        return inner;
      }
      ASSIGN_OR_RETURN(auto n, Node(Op::kNegate, sign.pos));
      ASSIGN_OR_RETURN(auto inner, ParseUnary());
      n->args.push_back(std::move(inner));
      return n;
    }
    return ParsePrimary();
  }

  Result<std::unique_ptr<Expr>> ParsePrimary() {
    const Token& t = Peek();
    if (IsOp(t, "(")) {
      DepthGuard guard(this);
      RETURN_IF_ERROR(Enter());
      Take();
      ASSIGN_OR_RETURN(auto inner, ParseOr());
      RETURN_IF_ERROR(Expect(")"));
      return inner;
    }
    if (IsOp(t, "[")) return ParseList();
    if (IsKeyword(t, "CAST")) return ParseCast();
    if ((IsKeyword(t, "DATE") || IsKeyword(t, "TIMESTAMP")) && Peek(1).tok == Tok::kString) return ParseTyped();
    if (t.tok == Tok::kIdent && !IsReserved(t)) {
      if (IsOp(Peek(1), "(")) return ParseCall();
      return ParseColumn();
    }
    ASSIGN_OR_RETURN(auto n, Node(Op::kLiteral, t.pos));
    ASSIGN_OR_RETURN(n->literal, ParseLiteral());
    return n;
  }

  Result<std::unique_ptr<Expr>> ParseColumn() {
    ASSIGN_OR_RETURN(auto n, Node(Op::kColumn, Peek().pos));
    n->path.push_back(Take().text);
    while (IsOp(Peek(), ".")) {
      Take();
      if (Peek().tok != Tok::kIdent) return Error("expected a struct member name after '.'", Peek());
      n->path.push_back(Take().text);
    }
    return n;
  }

  Result<std::unique_ptr<Expr>> ParseCall() {
    DepthGuard guard(this);
    RETURN_IF_ERROR(Enter());
    ASSIGN_OR_RETURN(auto n, Node(Op::kCall, Peek().pos));
    n->name = Take().text;
    for (char& c : n->name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    Take();  // (
    if (!IsOp(Peek(), ")")) {
      while (true) {
        ASSIGN_OR_RETURN(auto arg, ParseOr());
        n->args.push_back(std::move(arg));
        if (!IsOp(Peek(), ",")) break;
        Take();
      }
    }
    RETURN_IF_ERROR(Expect(")"));
    return n;
  }

  Result<std::unique_ptr<Expr>> ParseList() {
    DepthGuard guard(this);
    RETURN_IF_ERROR(Enter());
    ASSIGN_OR_RETURN(auto n, Node(Op::kList, Take().pos));
    if (!IsOp(Peek(), "]")) {
      while (true) {
        ASSIGN_OR_RETURN(auto item, ParseAdditive());
        n->args.push_back(std::move(item));
        if (!IsOp(Peek(), ",")) break;
        Take();
      }
    }
    RETURN_IF_ERROR(Expect("]"));
    return n;
  }

  Result<std::unique_ptr<Expr>> ParseCast() {
    DepthGuard guard(this);
    RETURN_IF_ERROR(Enter());
    ASSIGN_OR_RETURN(auto n, Node(Op::kCast, Take().pos));
    RETURN_IF_ERROR(Expect("("));
    ASSIGN_OR_RETURN(auto inner, ParseOr());
    n->args.push_back(std::move(inner));
    if (!IsKeyword(Peek(), "AS")) return Error("expected AS in CAST", Peek());
    Take();
    // The type: words (BIGINT UNSIGNED), optionally with a precision, e.g. TIMESTAMP(6).
    if (Peek().tok != Tok::kIdent) return Error("expected a type name after AS", Peek());
    while (Peek().tok == Tok::kIdent) n->name += (n->name.empty() ? "" : " ") + Upper(Take().text);
    if (IsOp(Peek(), "(")) {
      Take();
      if (Peek().tok != Tok::kNumber) return Error("expected a precision", Peek());
      n->name += "(" + Take().text + ")";
      RETURN_IF_ERROR(Expect(")"));
    }
    RETURN_IF_ERROR(Expect(")"));
    return n;
  }

  // DATE 'YYYY-MM-DD' and TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.f][Z|+HH:MM]'.
  Result<std::unique_ptr<Expr>> ParseTyped() {
    const Token& kw = Take();
    const Token& s = Take();
    ASSIGN_OR_RETURN(auto n, Node(Op::kLiteral, kw.pos));
    n->literal.text = text_.substr(kw.pos, s.pos + s.raw.size() - kw.pos);
    if (IsKeyword(kw, "DATE")) {
      std::optional<int64_t> days = ParseDate(s.text);
      if (!days) return Error("malformed date literal (expected 'YYYY-MM-DD')", s);
      n->literal.kind = Literal::Kind::kDate;
      n->literal.int_value = *days;
    } else {
      std::optional<__int128> nanos = ParseTimestampNanos(s.text);
      if (!nanos) return Error("malformed timestamp literal (expected 'YYYY-MM-DD[ HH:MM:SS[.f]][Z|+HH:MM]')", s);
      n->literal.kind = Literal::Kind::kTimestamp;
      n->literal.int_value = *nanos;
    }
    return n;
  }

  Result<Literal> ParseLiteral() {
    Literal lit;
    const Token& first = Peek();
    const size_t begin = first.pos;
    bool negative = false;
    if (IsOp(first, "-")) {
      Take();
      negative = true;
    }
    const Token& t = Peek();
    if (!negative && t.tok == Tok::kString) {
      lit.kind = Literal::Kind::kString;
      lit.string_value = t.text;
    } else if (!negative && IsKeyword(t, "NULL")) {
      lit.kind = Literal::Kind::kNull;
    } else if (!negative && (IsKeyword(t, "TRUE") || IsKeyword(t, "FALSE"))) {
      lit.kind = Literal::Kind::kBool;
      lit.bool_value = IsKeyword(t, "TRUE");
    } else if (t.tok == Tok::kNumber) {
      RETURN_IF_ERROR(ParseNumber(t, negative, &lit));
    } else {
      return Error("expected an operand (column, literal, function call or '(')", t);
    }
    const Token& last = Take();
    lit.text = text_.substr(begin, last.pos + last.raw.size() - begin);
    return lit;
  }

  Status ParseNumber(const Token& t, bool negative, Literal* lit) const {
    const std::string& s = t.text;
    if (s.find_first_not_of("0123456789") == std::string::npos) {
      // Up to 20 digits always fit the 128-bit accumulator; more fit no integer type.
      if (s.size() > 20) return Error("integer literal out of range", t);
      unsigned __int128 v = 0;
      for (char c : s) v = v * 10 + static_cast<unsigned>(c - '0');
      if (v > std::numeric_limits<uint64_t>::max()) return Error("integer literal out of range", t);
      if (negative && v > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) {
        // The reference negates the uint64 literal into a float64 one (-9223372036854775808
        // included), so it does not fit an int64 column either.
        lit->kind = Literal::Kind::kFloat;
        lit->float_value = -static_cast<double>(v);
        return Status::OK();
      }
      lit->kind = Literal::Kind::kInt;
      lit->int_value = negative ? -static_cast<__int128>(v) : static_cast<__int128>(v);
      return Status::OK();
    }
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || s.find_first_of("xXpPnNiI") != std::string::npos) {
      return Error("malformed number", t);
    }
    if (errno == ERANGE && std::isinf(d)) return Error("float literal out of range", t);
    lit->kind = Literal::Kind::kFloat;
    lit->float_value = negative ? -d : d;
    return Status::OK();
  }

  static constexpr size_t kMaxText = size_t{1} << 20;
  static constexpr int kMaxDepth = 256;
  static constexpr int kMaxNodes = 10000;
  const std::string& text_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  int depth_ = 0;
  int nodes_ = 0;
};

}  // namespace

Result<std::unique_ptr<Expr>> Parse(const std::string& text) { return Parser(text).Run(); }

}  // namespace lancet::expr
