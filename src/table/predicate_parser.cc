// Tokenizer and recursive-descent parser of DeleteWhere predicates.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "table/predicate.h"

namespace lancet::table {
namespace {

using Node = PredicateNode;
using Literal = PredicateNode::Literal;

enum class Tok : uint8_t { kIdent, kNumber, kString, kOp, kLParen, kRParen, kDot, kMinus, kEnd };

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
  for (const char* kw : {"AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE"}) {
    if (IsKeyword(t, kw)) return true;
  }
  return false;
}

std::string Describe(const Token& t) {
  if (t.tok == Tok::kEnd) return "end of input";
  return "'" + t.raw + "'";
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  Result<std::unique_ptr<Node>> Run() {
    RETURN_IF_ERROR(Tokenize());
    if (tokens_.size() == 1) return Error("the predicate is empty", tokens_[0]);
    ASSIGN_OR_RETURN(auto root, ParseOr());
    if (Peek().tok != Tok::kEnd) return Error("expected AND, OR or the end of the predicate", Peek());
    return root;
  }

 private:
  Status Error(const std::string& what, const Token& at, const std::string& column = "") const {
    std::string msg = "predicate '" + text_ + "': ";
    if (!column.empty()) msg += "column '" + column + "': ";
    return Status::InvalidArgument(msg + what + " at position " + std::to_string(at.pos) + " (" + Describe(at) + ")");
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
      } else if (c == '`') {
        size_t close = text_.find('`', i + 1);
        if (close == std::string::npos) return Error("unterminated `quoted` name", t);
        t.tok = Tok::kIdent;
        t.quoted = true;
        t.text = text_.substr(i + 1, close - i - 1);
        if (t.text.empty()) return Error("empty `quoted` name", t);
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
      } else if (c == '(' || c == ')' || c == '.' || c == '-') {
        t.tok = c == '(' ? Tok::kLParen : c == ')' ? Tok::kRParen : c == '.' ? Tok::kDot : Tok::kMinus;
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
        i += len;
      } else {
        t.raw = std::string(1, c);
        return Error("unexpected character", t);
      }
      t.raw = text_.substr(t.pos, i - t.pos);
      tokens_.push_back(std::move(t));
    }
  }

  const Token& Peek() const { return tokens_[next_]; }
  const Token& Take() { return tokens_[next_ < tokens_.size() - 1 ? next_++ : next_]; }

  static std::unique_ptr<Node> Binary(Node::Kind kind, std::unique_ptr<Node> a, std::unique_ptr<Node> b) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->position = a->position;
    n->children.push_back(std::move(a));
    n->children.push_back(std::move(b));
    return n;
  }

  Result<std::unique_ptr<Node>> ParseOr() {
    ASSIGN_OR_RETURN(auto lhs, ParseAnd());
    while (IsKeyword(Peek(), "OR")) {
      Take();
      ASSIGN_OR_RETURN(auto rhs, ParseAnd());
      lhs = Binary(Node::Kind::kOr, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  Result<std::unique_ptr<Node>> ParseAnd() {
    ASSIGN_OR_RETURN(auto lhs, ParseNot());
    while (IsKeyword(Peek(), "AND")) {
      Take();
      ASSIGN_OR_RETURN(auto rhs, ParseNot());
      lhs = Binary(Node::Kind::kAnd, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  Result<std::unique_ptr<Node>> ParseNot() {
    if (IsKeyword(Peek(), "NOT")) {
      // Bounded like the parentheses below: a deep chain must not exhaust the stack.
      if (++depth_ > kMaxDepth) return Error("the predicate nests too deeply", Peek());
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::kNot;
      n->position = Take().pos;
      ASSIGN_OR_RETURN(auto child, ParseNot());
      n->children.push_back(std::move(child));
      --depth_;
      return n;
    }
    return ParsePrimary();
  }

  Result<std::unique_ptr<Node>> ParsePrimary() {
    if (Peek().tok == Tok::kLParen) {
      if (++depth_ > kMaxDepth) return Error("the predicate nests too deeply", Peek());
      Take();
      ASSIGN_OR_RETURN(auto inner, ParseOr());
      if (Peek().tok != Tok::kRParen) return Error("expected ')'", Peek());
      Take();
      --depth_;
      return inner;
    }
    if (Peek().tok == Tok::kIdent && !IsReserved(Peek())) return ParseColumnFirst();
    return ParseLiteralFirst();
  }

  // `path IS [NOT] NULL` or `path op literal`.
  Result<std::unique_ptr<Node>> ParseColumnFirst() {
    RETURN_IF_ERROR(CountTerm());
    auto n = std::make_unique<Node>();
    n->position = Peek().pos;
    ASSIGN_OR_RETURN(n->path, ParsePath());
    std::string column = JoinedPath(n->path);
    if (IsKeyword(Peek(), "IS")) {
      Take();
      n->kind = Node::Kind::kIsNull;
      if (IsKeyword(Peek(), "NOT")) {
        Take();
        n->kind = Node::Kind::kIsNotNull;
      }
      if (!IsKeyword(Peek(), "NULL")) return Error("expected NULL after IS", Peek(), column);
      Take();
      return n;
    }
    if (Peek().tok != Tok::kOp) return Error("expected a comparison operator or IS", Peek(), column);
    n->kind = Node::Kind::kCompare;
    n->op = ParseOp(Take().text);
    ASSIGN_OR_RETURN(n->literal, ParseLiteral(column));
    return n;
  }

  // `literal op path`, stored as `path op' literal`.
  Result<std::unique_ptr<Node>> ParseLiteralFirst() {
    RETURN_IF_ERROR(CountTerm());
    auto n = std::make_unique<Node>();
    n->position = Peek().pos;
    n->kind = Node::Kind::kCompare;
    ASSIGN_OR_RETURN(n->literal, ParseLiteral(""));
    if (Peek().tok != Tok::kOp) return Error("expected a comparison operator after a literal", Peek());
    n->op = Mirror(ParseOp(Take().text));
    if (Peek().tok != Tok::kIdent || IsReserved(Peek())) return Error("expected a column name", Peek());
    ASSIGN_OR_RETURN(n->path, ParsePath());
    return n;
  }

  // Binding, evaluation and destruction recurse over the tree, whose depth grows with the
  // number of terms of an AND/OR chain.
  Status CountTerm() {
    if (++terms_ > kMaxTerms)
      return Error("the predicate has more than " + std::to_string(kMaxTerms) + " terms", Peek());
    return Status::OK();
  }

  Result<std::vector<std::string>> ParsePath() {
    std::vector<std::string> path{Take().text};
    while (Peek().tok == Tok::kDot) {
      Take();
      if (Peek().tok != Tok::kIdent) return Error("expected a struct member name after '.'", Peek(), JoinedPath(path));
      path.push_back(Take().text);
    }
    return path;
  }

  Result<Literal> ParseLiteral(const std::string& column) {
    Literal lit;
    const Token& first = Peek();
    const size_t begin = first.pos;
    bool negative = false;
    if (first.tok == Tok::kMinus) {
      Take();
      negative = true;
      if (Peek().tok != Tok::kNumber) return Error("expected a number after '-'", Peek(), column);
    }
    const Token& t = Peek();
    if (t.tok == Tok::kString) {
      lit.kind = Literal::Kind::kString;
      lit.string_value = t.text;
    } else if (IsKeyword(t, "NULL")) {
      lit.kind = Literal::Kind::kNull;
    } else if (IsKeyword(t, "TRUE") || IsKeyword(t, "FALSE")) {
      lit.kind = Literal::Kind::kBool;
      lit.bool_value = IsKeyword(t, "TRUE");
    } else if (t.tok == Tok::kNumber) {
      RETURN_IF_ERROR(ParseNumber(t, negative, column, &lit));
    } else {
      return Error("expected a literal (number, 'string', TRUE, FALSE or NULL)", t, column);
    }
    const Token& last = Take();
    lit.text = text_.substr(begin, last.pos + last.raw.size() - begin);
    return lit;
  }

  Status ParseNumber(const Token& t, bool negative, const std::string& column, Literal* lit) const {
    const std::string& s = t.text;
    bool integral = s.find_first_not_of("0123456789") == std::string::npos;
    if (integral) {
      // Up to 20 digits always fit the 128-bit accumulator; more cannot fit any column.
      if (s.size() > 20) return Error("integer literal out of range", t, column);
      unsigned __int128 v = 0;
      for (char c : s) v = v * 10 + static_cast<unsigned>(c - '0');
      lit->kind = Literal::Kind::kInt;
      lit->int_value = negative ? -static_cast<__int128>(v) : static_cast<__int128>(v);
      return Status::OK();
    }
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || s.find_first_of("xXpP") != std::string::npos) {
      return Error("malformed number", t, column);
    }
    if (errno == ERANGE && std::isinf(d)) return Error("float literal out of range", t, column);
    lit->kind = Literal::Kind::kFloat;
    lit->float_value = negative ? -d : d;
    return Status::OK();
  }

  static Node::Op ParseOp(const std::string& op) {
    if (op == "=") return Node::Op::kEq;
    if (op == "!=" || op == "<>") return Node::Op::kNe;
    if (op == "<") return Node::Op::kLt;
    if (op == "<=") return Node::Op::kLe;
    if (op == ">") return Node::Op::kGt;
    return Node::Op::kGe;  // the tokenizer makes no other operator
  }

  static Node::Op Mirror(Node::Op op) {
    switch (op) {
      case Node::Op::kLt:
        return Node::Op::kGt;
      case Node::Op::kLe:
        return Node::Op::kGe;
      case Node::Op::kGt:
        return Node::Op::kLt;
      case Node::Op::kGe:
        return Node::Op::kLe;
      default:
        return op;
    }
  }

  static std::string JoinedPath(const std::vector<std::string>& path) {
    std::string s;
    for (const std::string& p : path) s += (s.empty() ? "" : ".") + p;
    return s;
  }

  static constexpr int kMaxDepth = 256;
  static constexpr int kMaxTerms = 4096;
  const std::string& text_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  int depth_ = 0;
  int terms_ = 0;
};

const char* OpText(Node::Op op) {
  switch (op) {
    case Node::Op::kEq:
      return "=";
    case Node::Op::kNe:
      return "!=";
    case Node::Op::kLt:
      return "<";
    case Node::Op::kLe:
      return "<=";
    case Node::Op::kGt:
      return ">";
    case Node::Op::kGe:
      return ">=";
  }
  return "?";
}

}  // namespace

std::string PredicateToString(const PredicateNode& node) {
  std::string path;
  for (const std::string& p : node.path) path += (path.empty() ? "" : ".") + p;
  switch (node.kind) {
    case Node::Kind::kAnd:
    case Node::Kind::kOr:
      return "(" + PredicateToString(*node.children[0]) + (node.kind == Node::Kind::kAnd ? " AND " : " OR ") +
             PredicateToString(*node.children[1]) + ")";
    case Node::Kind::kNot:
      return "(NOT " + PredicateToString(*node.children[0]) + ")";
    case Node::Kind::kIsNull:
      return path + " IS NULL";
    case Node::Kind::kIsNotNull:
      return path + " IS NOT NULL";
    case Node::Kind::kCompare:
      return path + " " + OpText(node.op) + " " + node.literal.text;
  }
  return "";
}

Result<std::unique_ptr<PredicateNode>> ParsePredicate(const std::string& text) { return Parser(text).Run(); }

}  // namespace lancet::table
