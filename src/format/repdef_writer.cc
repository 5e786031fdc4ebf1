#include "format/repdef_writer.h"

#include <utility>

#include "lancet/format/file_reader.h"

namespace lancet::format::internal {

namespace pb = ::lance::encodings21;

namespace {

void CollectLeaves(const Field& field, std::vector<LeafColumn::Step> path, const std::string& prefix,
                   int top_index, std::vector<LeafColumn>* out) {
  const std::string name = prefix.empty() ? field.name : prefix + "." + field.name;
  LeafColumn::Step step;
  step.field = &field;
  if (IsLeafFieldForWrite(field)) {
    step.kind = LeafColumn::Step::Kind::kLeaf;
    path.push_back(step);
    LeafColumn col;
    col.path = std::move(path);
    col.top_level_index = top_index;
    col.name = name;
    out->push_back(std::move(col));
    return;
  }
  if (field.type.id == TypeId::kStruct) {
    step.kind = LeafColumn::Step::Kind::kStruct;
    for (size_t i = 0; i < field.type.children.size(); ++i) {
      step.child_index = static_cast<int>(i);
      auto child_path = path;
      child_path.push_back(step);
      CollectLeaves(field.type.children[i], std::move(child_path), name, top_index, out);
    }
    return;
  }
  step.kind = LeafColumn::Step::Kind::kList;
  path.push_back(step);
  CollectLeaves(field.type.children[0], std::move(path), name, top_index, out);
}

// Assigns layers and level numbers. Definition levels count up from the innermost
// layer; a layer that can be both null and empty reserves null below empty.
void AssignLevels(LeafColumn* col) {
  uint16_t num_lists = 0;
  for (const auto& s : col->path) num_lists += s.kind == LeafColumn::Step::Kind::kList;
  col->max_rep = num_lists;
  uint16_t depth = 0;
  for (auto& s : col->path) {
    if (s.kind == LeafColumn::Step::Kind::kList) {
      ++depth;
      s.cont_rep = static_cast<uint16_t>(num_lists - depth);
    }
  }
  uint16_t level = 0;
  bool seen_list = false;
  for (auto it = col->path.rbegin(); it != col->path.rend(); ++it) {
    // A null-typed leaf holds only nulls, whatever the field says.
    const bool nullable = it->field->nullable || it->field->type.id == TypeId::kNull;
    if (it->kind == LeafColumn::Step::Kind::kList) {
      if (!seen_list) col->max_visible_def = level;
      seen_list = true;
      if (nullable) {
        it->null_def = ++level;
        it->empty_def = ++level;
        col->layers.push_back(pb::REPDEF_NULL_AND_EMPTY_LIST);
      } else {
        it->empty_def = ++level;
        col->layers.push_back(pb::REPDEF_EMPTYABLE_LIST);
      }
    } else if (nullable) {
      it->null_def = ++level;
      col->layers.push_back(pb::REPDEF_NULLABLE_ITEM);
    } else {
      col->layers.push_back(pb::REPDEF_ALL_VALID_ITEM);
    }
  }
  col->max_def = level;
}

Status NullInNonNullable(const LeafColumn& column, const Field& field) {
  return Status::InvalidArgument("column '" + column.name + "': field '" + field.name +
                                 "' is not nullable but the data has a null");
}

}  // namespace

bool IsLeafFieldForWrite(const Field& field) {
  switch (field.type.id) {
    case TypeId::kStruct: {
      auto it = field.metadata.find(kPackedStructKey);
      return it != field.metadata.end() && (it->second == "true" || it->second == "1");
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
      return false;
    default:
      return true;
  }
}

Result<std::vector<LeafColumn>> LeafColumnsOf(const Schema& schema) {
  std::vector<LeafColumn> out;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    CollectLeaves(schema.fields[i], {}, "", static_cast<int>(i), &out);
  }
  for (auto& col : out) AssignLevels(&col);
  return out;
}

Status Shred(const LeafColumn& column, const Array& top, int64_t begin, int64_t end, Shredded* out) {
  const int64_t n = end - begin;
  std::vector<uint16_t> rep(n, column.max_rep);
  std::vector<uint16_t> def(n, 0);
  std::vector<int64_t> idx(n);
  for (int64_t i = 0; i < n; ++i) idx[i] = begin + i;
  const Array* cur = &top;
  for (const auto& step : column.path) {
    const Field& field = *step.field;
    switch (step.kind) {
      case LeafColumn::Step::Kind::kStruct: {
        for (size_t i = 0; i < idx.size(); ++i) {
          if (idx[i] < 0 || def[i] != 0) continue;
          if (cur->IsNull(idx[i])) {
            if (step.null_def == 0) return NullInNonNullable(column, field);
            def[i] = step.null_def;
          }
        }
        // Struct members are not sliced by the parent's offset.
        for (auto& v : idx) {
          if (v >= 0) v += cur->offset;
        }
        cur = &cur->children[step.child_index];
        break;
      }
      case LeafColumn::Step::Kind::kList: {
        std::vector<uint16_t> nrep, ndef;
        std::vector<int64_t> nidx;
        nrep.reserve(idx.size());
        ndef.reserve(idx.size());
        nidx.reserve(idx.size());
        for (size_t i = 0; i < idx.size(); ++i) {
          if (idx[i] < 0 || def[i] != 0) {
            // Nulls above a list hide everything below it: one level, no slot.
            nrep.push_back(rep[i]);
            ndef.push_back(def[i]);
            nidx.push_back(-1);
            continue;
          }
          if (cur->IsNull(idx[i])) {
            if (step.null_def == 0) return NullInNonNullable(column, field);
            nrep.push_back(rep[i]);
            ndef.push_back(step.null_def);
            nidx.push_back(-1);
            continue;
          }
          auto [b, e] = cur->ListRange(idx[i]);
          if (b == e) {
            nrep.push_back(rep[i]);
            ndef.push_back(step.empty_def);
            nidx.push_back(-1);
            continue;
          }
          for (int64_t c = b; c < e; ++c) {
            nrep.push_back(c == b ? rep[i] : step.cont_rep);
            ndef.push_back(0);
            nidx.push_back(c);
          }
        }
        rep = std::move(nrep);
        def = std::move(ndef);
        idx = std::move(nidx);
        cur = &cur->children[0];
        break;
      }
      case LeafColumn::Step::Kind::kLeaf: {
        for (size_t i = 0; i < idx.size(); ++i) {
          if (idx[i] < 0 || def[i] != 0) continue;
          if (cur->type.id == TypeId::kNull || cur->IsNull(idx[i])) {
            if (step.null_def == 0) return NullInNonNullable(column, field);
            def[i] = step.null_def;
          }
        }
        break;
      }
    }
  }
  out->slots.clear();
  out->slot_null.clear();
  out->slots.reserve(idx.size());
  out->slot_null.reserve(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0) continue;
    out->slots.push_back(idx[i]);
    out->slot_null.push_back(def[i] != 0);
  }
  out->rep = column.max_rep > 0 ? std::move(rep) : std::vector<uint16_t>{};
  out->def = column.max_def > 0 ? std::move(def) : std::vector<uint16_t>{};
  out->leaf = *cur;
  return Status::OK();
}

}  // namespace lancet::format::internal
