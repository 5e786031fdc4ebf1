// Binding predicates to a schema and evaluating them with three-valued logic.
#include "table/predicate.h"

#include <algorithm>
#include <compare>
#include <cstring>

#include "table/predicate_literal.h"

namespace lancet::table {
namespace {

using Node = PredicateNode;
using Literal = PredicateNode::Literal;

// Per-row truth value of SQL's three-valued logic.
enum Tri : uint8_t { kFalse = 0, kTrue = 1, kUnknown = 2 };

std::string PathText(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& p : path) s += (s.empty() ? "" : ".") + p;
  return s;
}

// The field `path` names in `schema`, or an error naming what is missing.
Result<const Field*> ResolveField(const Schema& schema, const std::vector<std::string>& path,
                                  const std::string& context) {
  int top = schema.FieldIndex(path[0]);
  if (top < 0) {
    std::string names;
    for (const Field& f : schema.fields) names += (names.empty() ? "" : ", ") + f.name;
    return Status::InvalidArgument(context + ": column '" + path[0] + "' not found (columns: " + names + ")");
  }
  const Field* field = &schema.fields[static_cast<size_t>(top)];
  for (size_t i = 1; i < path.size(); ++i) {
    std::vector<std::string> prefix(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(i));
    if (field->type.id != TypeId::kStruct) {
      return Status::InvalidArgument(context + ": column '" + PathText(prefix) + "' of type " + field->type.ToString() +
                                     " has no member '" + path[i] + "'");
    }
    auto it = std::find_if(field->type.children.begin(), field->type.children.end(),
                           [&](const Field& c) { return c.name == path[i]; });
    if (it == field->type.children.end()) {
      return Status::InvalidArgument(context + ": struct column '" + PathText(prefix) + "' has no member '" + path[i] +
                                     "'");
    }
    field = &*it;
  }
  return field;
}

Status BindNode(Node* node, const Schema& schema, const std::string& context, std::vector<bool>* used) {
  for (auto& child : node->children) RETURN_IF_ERROR(BindNode(child.get(), schema, context, used));
  if (node->path.empty()) return Status::OK();
  ASSIGN_OR_RETURN(const Field* field, ResolveField(schema, node->path, context));
  (*used)[static_cast<size_t>(schema.FieldIndex(node->path[0]))] = true;
  if (node->kind != Node::Kind::kCompare) return Status::OK();
  std::string column = PathText(node->path);
  return CheckLiteral(field->type, &node->literal, [&](const std::string& what) {
    return Status::InvalidArgument(context + ": column '" + column + "': " + what + " at position " +
                                   std::to_string(node->position));
  });
}

// A column of a batch reached through struct members: row i of the batch is element i +
// leaf_offset of `leaf`, valid only where every enclosing struct is valid too.
struct ColumnView {
  const Array* leaf = nullptr;
  int64_t leaf_offset = 0;
  std::vector<bool> parents_valid;  // empty: no enclosing struct

  bool Valid(int64_t row) const {
    if (!parents_valid.empty() && !parents_valid[static_cast<size_t>(row)]) return false;
    return leaf->IsValid(row + leaf_offset);
  }
};

Result<ColumnView> ViewColumn(const RecordBatch& batch, const std::vector<std::string>& path) {
  int top = batch.schema.FieldIndex(path[0]);
  if (top < 0 || static_cast<size_t>(top) >= batch.columns.size()) {
    return Status::InvalidArgument("predicate column '" + path[0] + "' is not in the scanned batch");
  }
  ColumnView view;
  view.leaf = &batch.columns[static_cast<size_t>(top)];
  for (size_t i = 1; i < path.size(); ++i) {
    const Array& parent = *view.leaf;
    const auto& members = parent.type.children;
    auto it = std::find_if(members.begin(), members.end(), [&](const Field& f) { return f.name == path[i]; });
    if (parent.type.id != TypeId::kStruct || it == members.end() ||
        static_cast<size_t>(it - members.begin()) >= parent.children.size()) {
      return Status::InvalidArgument("predicate column '" + PathText(path) + "' is not in the scanned batch");
    }
    if (view.parents_valid.empty()) view.parents_valid.assign(static_cast<size_t>(batch.num_rows), true);
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      if (!parent.IsValid(r + view.leaf_offset)) view.parents_valid[static_cast<size_t>(r)] = false;
    }
    view.leaf_offset += parent.offset;
    view.leaf = &parent.children[static_cast<size_t>(it - members.begin())];
  }
  if (view.leaf->length < batch.num_rows + view.leaf_offset) {
    return Status::Corruption("predicate column '" + PathText(path) + "' has fewer values than the batch has rows");
  }
  return view;
}

bool Holds(Node::Op op, std::partial_ordering c) {
  switch (op) {
    case Node::Op::kEq:
      return c == 0;
    case Node::Op::kNe:
      return c != 0;  // also true for NaN, as in IEEE and SQL engines
    case Node::Op::kLt:
      return c < 0;
    case Node::Op::kLe:
      return c <= 0;
    case Node::Op::kGt:
      return c > 0;
    case Node::Op::kGe:
      return c >= 0;
  }
  return false;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: renormalise
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::partial_ordering CompareNumber(long double v, const Literal& lit) {
  long double l = lit.kind == Literal::Kind::kInt ? static_cast<long double>(lit.int_value) : lit.float_value;
  return v <=> l;
}

std::partial_ordering CompareInt(__int128 v, const Literal& lit) {
  if (lit.kind == Literal::Kind::kInt) return v <=> lit.int_value;
  return static_cast<long double>(v) <=> static_cast<long double>(lit.float_value);
}

// Sets each row's truth: unknown where the column is null, else truth(element index).
template <typename Fn>
void ForRows(const ColumnView& col, int64_t rows, std::vector<uint8_t>* out, Fn&& truth) {
  for (int64_t r = 0; r < rows; ++r) {
    (*out)[static_cast<size_t>(r)] = col.Valid(r) ? (truth(r + col.leaf_offset) ? kTrue : kFalse) : kUnknown;
  }
}

Status EvalCompare(const Node& n, const ColumnView& col, int64_t rows, std::vector<uint8_t>* out);

// A dictionary column: compare the dictionary once, then look rows up by index.
Status EvalDictionaryCompare(const Node& n, const ColumnView& col, int64_t rows, std::vector<uint8_t>* out) {
  const Array& a = *col.leaf;
  if (!a.dictionary) return Status::Corruption("predicate column '" + PathText(n.path) + "' has no dictionary");
  ColumnView dict;
  dict.leaf = a.dictionary.get();
  std::vector<uint8_t> per_value(static_cast<size_t>(dict.leaf->length));
  RETURN_IF_ERROR(EvalCompare(n, dict, dict.leaf->length, &per_value));
  for (int64_t r = 0; r < rows; ++r) {
    if (!col.Valid(r)) {
      (*out)[static_cast<size_t>(r)] = kUnknown;
      continue;
    }
    int64_t i = r + col.leaf_offset + a.offset;
    int64_t key;
    switch (a.type.index_type ? a.type.index_type->id : TypeId::kInt32) {
      case TypeId::kInt8:
        key = a.buffers[1]->data_as<int8_t>()[i];
        break;
      case TypeId::kUInt8:
        key = a.buffers[1]->data_as<uint8_t>()[i];
        break;
      case TypeId::kInt16:
        key = a.buffers[1]->data_as<int16_t>()[i];
        break;
      case TypeId::kUInt16:
        key = a.buffers[1]->data_as<uint16_t>()[i];
        break;
      case TypeId::kUInt32:
        key = a.buffers[1]->data_as<uint32_t>()[i];
        break;
      case TypeId::kInt64:
      case TypeId::kUInt64:
        key = a.buffers[1]->data_as<int64_t>()[i];
        break;
      default:
        key = a.buffers[1]->data_as<int32_t>()[i];
        break;
    }
    if (key < 0 || key >= dict.leaf->length) {
      return Status::Corruption("predicate column '" + PathText(n.path) + "': dictionary index " + std::to_string(key) +
                                " is out of range");
    }
    (*out)[static_cast<size_t>(r)] = per_value[static_cast<size_t>(key)];
  }
  return Status::OK();
}

Status EvalCompare(const Node& n, const ColumnView& col, int64_t rows, std::vector<uint8_t>* out) {
  const Array& a = *col.leaf;
  const Literal& lit = n.literal;
  if (lit.kind == Literal::Kind::kNull) {
    std::fill(out->begin(), out->begin() + rows, kUnknown);
    return Status::OK();
  }
  if (a.type.id == TypeId::kDictionary) return EvalDictionaryCompare(n, col, rows, out);
  auto ints = [&]<typename T>(T) {
    const T* v = a.values<T>();
    ForRows(col, rows, out, [&](int64_t i) { return Holds(n.op, CompareInt(v[i], lit)); });
  };
  switch (a.type.id) {
    case TypeId::kInt8:
      ints(int8_t{});
      break;
    case TypeId::kInt16:
      ints(int16_t{});
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      ints(int32_t{});
      break;
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      ints(int64_t{});
      break;
    case TypeId::kUInt8:
      ints(uint8_t{});
      break;
    case TypeId::kUInt16:
      ints(uint16_t{});
      break;
    case TypeId::kUInt32:
      ints(uint32_t{});
      break;
    case TypeId::kUInt64:
      ints(uint64_t{});
      break;
    case TypeId::kFloat16: {
      const uint16_t* v = a.values<uint16_t>();
      ForRows(col, rows, out, [&](int64_t i) { return Holds(n.op, CompareNumber(HalfToFloat(v[i]), lit)); });
      break;
    }
    case TypeId::kFloat32: {
      const float* v = a.values<float>();
      ForRows(col, rows, out, [&](int64_t i) { return Holds(n.op, CompareNumber(v[i], lit)); });
      break;
    }
    case TypeId::kFloat64: {
      const double* v = a.values<double>();
      ForRows(col, rows, out, [&](int64_t i) { return Holds(n.op, CompareNumber(v[i], lit)); });
      break;
    }
    case TypeId::kBool:
      ForRows(col, rows, out, [&](int64_t i) { return Holds(n.op, a.GetBool(i) <=> lit.bool_value); });
      break;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      std::string_view l = lit.string_value;
      ForRows(col, rows, out, [&](int64_t i) { return Holds(n.op, a.GetView(i) <=> l); });
      break;
    }
    default:
      return Status::InvalidArgument("predicate column '" + PathText(n.path) + "' of type " + a.type.ToString() +
                                     " cannot be compared");
  }
  return Status::OK();
}

Status EvalNode(const Node& n, const RecordBatch& batch, std::vector<uint8_t>* out) {
  const int64_t rows = batch.num_rows;
  switch (n.kind) {
    case Node::Kind::kAnd:
    case Node::Kind::kOr: {
      std::vector<uint8_t> rhs(out->size());
      RETURN_IF_ERROR(EvalNode(*n.children[0], batch, out));
      RETURN_IF_ERROR(EvalNode(*n.children[1], batch, &rhs));
      // FALSE dominates AND, TRUE dominates OR; otherwise unknown wins over the other.
      const uint8_t dominant = n.kind == Node::Kind::kAnd ? kFalse : kTrue;
      for (size_t i = 0; i < out->size(); ++i) {
        uint8_t a = (*out)[i], b = rhs[i];
        if (a == dominant || b == dominant) {
          (*out)[i] = dominant;
        } else if (a == kUnknown || b == kUnknown) {
          (*out)[i] = kUnknown;
        }
      }
      return Status::OK();
    }
    case Node::Kind::kNot:
      RETURN_IF_ERROR(EvalNode(*n.children[0], batch, out));
      for (uint8_t& v : *out) v = v == kUnknown ? kUnknown : (v == kTrue ? kFalse : kTrue);
      return Status::OK();
    case Node::Kind::kIsNull:
    case Node::Kind::kIsNotNull: {
      ASSIGN_OR_RETURN(ColumnView col, ViewColumn(batch, n.path));
      const bool want_null = n.kind == Node::Kind::kIsNull;
      for (int64_t r = 0; r < rows; ++r) (*out)[static_cast<size_t>(r)] = (col.Valid(r) != want_null) ? kTrue : kFalse;
      return Status::OK();
    }
    case Node::Kind::kCompare: {
      ASSIGN_OR_RETURN(ColumnView col, ViewColumn(batch, n.path));
      return EvalCompare(n, col, rows, out);
    }
  }
  return Status::OK();
}

}  // namespace

Result<BoundPredicate> BoundPredicate::Bind(const std::string& text, const Schema& schema) {
  ASSIGN_OR_RETURN(std::unique_ptr<Node> root, ParsePredicate(text));
  std::vector<bool> used(schema.fields.size(), false);
  RETURN_IF_ERROR(BindNode(root.get(), schema, "predicate '" + text + "'", &used));
  BoundPredicate p;
  p.text_ = text;
  p.root_ = std::move(root);
  for (size_t i = 0; i < used.size(); ++i) {
    if (used[i]) p.columns_.push_back(schema.fields[i].name);
  }
  return p;
}

Result<std::vector<bool>> BoundPredicate::Evaluate(const RecordBatch& batch) const {
  std::vector<uint8_t> tri(static_cast<size_t>(batch.num_rows));
  Status st = EvalNode(*root_, batch, &tri);
  if (!st.ok()) return st.WithContext("predicate '" + text_ + "'");
  std::vector<bool> match(tri.size());
  for (size_t i = 0; i < tri.size(); ++i) match[i] = tri[i] == kTrue;
  return match;
}

}  // namespace lancet::table
