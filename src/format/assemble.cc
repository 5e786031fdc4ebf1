#include "format/assemble.h"

#include <cstring>
#include <limits>

#include "format/block_builder.h"
#include "lancet/format/file_reader.h"

namespace lancet::format::internal {

namespace {

bool IsListType(const DataType& t) {
  return t.id == TypeId::kList || t.id == TypeId::kLargeList || t.id == TypeId::kMap;
}

void Collect(const Field& f, std::vector<LayerKind>* path, std::vector<std::vector<LayerKind>>* out,
             std::vector<const Field*>* leaves) {
  if (IsLeafField(f)) {
    path->push_back(LayerKind::kItem);
    out->push_back(*path);
    leaves->push_back(&f);
    path->pop_back();
    return;
  }
  path->push_back(IsListType(f.type) ? LayerKind::kList : LayerKind::kItem);
  for (const auto& c : f.type.children) Collect(c, path, out, leaves);
  path->pop_back();
}

}  // namespace

void LeafLayerKinds(const Field& field, std::vector<std::vector<LayerKind>>* out,
                    std::vector<const Field*>* leaves) {
  std::vector<LayerKind> path;
  Collect(field, &path, out, leaves);
}

size_t CountLeaves(const Field& field) {
  if (IsLeafField(field)) return 1;
  size_t n = 0;
  for (const auto& c : field.type.children) n += CountLeaves(c);
  return n;
}

Result<LeafData> Unravel(const LeafLevels& lv, const std::vector<LayerKind>& kinds, const DataType& leaf_type,
                         const std::string& context) {
  const size_t n = kinds.size();
  if (n == 0 || kinds.back() != LayerKind::kItem) return Status::Internal(context + ": leaf without an item layer");
  auto corrupt = [&](const std::string& what) { return Status::Corruption(context + ": " + what); };
  LeafData out;
  out.layers.resize(n);

  // list_layer[r] = outer-first index of the list with repetition number r+1 (lists
  // numbered innermost first, as the levels count them).
  std::vector<size_t> list_layer;
  for (size_t k = n; k-- > 0;) {
    if (kinds[k] == LayerKind::kList) list_layer.push_back(k);
  }
  const uint16_t max_rep = static_cast<uint16_t>(list_layer.size());
  const uint64_t num_levels = lv.num_levels;
  if (num_levels > kMaxAllocation) return corrupt("too many levels");
  if (max_rep > 0 && lv.rep.size() != num_levels && num_levels > 0) {
    return corrupt("list column without repetition levels");
  }
  if (max_rep == 0 && !lv.rep.empty()) return corrupt("repetition levels in a column without lists");
  if (!lv.def.empty() && lv.def.size() != num_levels) return corrupt("definition level count mismatch");

  if (lv.rep.empty() && lv.def.empty()) {
    // Flat and all valid: every layer has one valid slot per level.
    for (auto& l : out.layers) l.valid.assign(num_levels, 1);
  } else {
    std::vector<uint8_t> open(n, 0);
    for (auto& l : out.layers) l.valid.reserve(num_levels);
    auto add_slot = [&](size_t k, bool valid, bool opens) {
      if (kinds[k] == LayerKind::kList) {
        out.layers[k].offsets.push_back(k + 1 < n ? static_cast<int64_t>(out.layers[k + 1].valid.size()) : 0);
        open[k] = opens;
      }
      out.layers[k].valid.push_back(valid ? 1 : 0);
    };
    for (uint64_t li = 0; li < num_levels; ++li) {
      size_t start = 0;
      if (max_rep > 0) {
        uint16_t r = lv.rep[li];
        if (r > max_rep) return corrupt("repetition level " + std::to_string(r) + " above " + std::to_string(max_rep));
        if (r < max_rep) {
          size_t parent = list_layer[r];
          if (!open[parent]) {
            return corrupt("level " + std::to_string(li) + " continues a list that is not open");
          }
          start = parent + 1;
        }
      }
      size_t stop = n;
      bool is_null = false;
      if (!lv.def.empty() && lv.def[li] != 0) {
        size_t i = (lv.def[li] - 1) / 2;
        if (i >= n) return corrupt("definition level " + std::to_string(lv.def[li]) + " beyond the layers");
        stop = n - 1 - i;
        is_null = (lv.def[li] & 1) != 0;
        if (!is_null && kinds[stop] != LayerKind::kList) return corrupt("empty-list level on a non-list layer");
        if (stop < start) return corrupt("level " + std::to_string(li) + " ends above where it starts");
      }
      for (size_t k = start; k < n; ++k) {
        if (k < stop) {
          add_slot(k, true, true);
          continue;
        }
        if (!is_null) {  // empty list
          add_slot(k, true, false);
          break;
        }
        add_slot(k, false, false);
        if (kinds[k] == LayerKind::kList) break;
        // A null struct still has one (null) slot in each child down to the next list.
        for (size_t k2 = k + 1; k2 < n; ++k2) {
          add_slot(k2, false, false);
          if (kinds[k2] == LayerKind::kList) break;
        }
        break;
      }
    }
  }
  for (size_t k = 0; k + 1 < n; ++k) {
    if (kinds[k] == LayerKind::kList) {
      out.layers[k].offsets.push_back(static_cast<int64_t>(out.layers[k + 1].valid.size()));
    }
  }
  const auto& leaf_valid = out.layers.back().valid;
  if (leaf_valid.size() != lv.values.num_values) {
    return corrupt(std::to_string(leaf_valid.size()) + " visible items but " + std::to_string(lv.values.num_values) +
                   " decoded values");
  }
  bool all_valid = true;
  for (uint8_t v : leaf_valid) all_valid &= v != 0;
  static const std::vector<uint8_t> kNone;
  ASSIGN_OR_RETURN(out.leaf, BlockToArray(leaf_type, lv.values, all_valid ? kNone : leaf_valid, context));
  return out;
}

namespace {

Result<BufferPtr> OffsetsBuffer(const std::vector<int64_t>& offsets, bool large, const std::string& context) {
  ASSIGN_OR_RETURN(auto buf, Buffer::Allocate(offsets.size() * (large ? 8 : 4)));
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (large) {
      std::memcpy(buf->mutable_data() + i * 8, &offsets[i], 8);
    } else {
      if (offsets[i] > std::numeric_limits<int32_t>::max()) {
        return Status::NotSupported(context + ": more than 2^31 list items in one array; read fewer rows");
      }
      int32_t v = static_cast<int32_t>(offsets[i]);
      std::memcpy(buf->mutable_data() + i * 4, &v, 4);
    }
  }
  return BufferPtr(buf);
}

Result<Array> Build(const Field& f, size_t depth, const std::vector<const LeafData*>& leaves, size_t* cursor,
                    int64_t length, const std::string& context) {
  const size_t count = CountLeaves(f);
  if (*cursor + count > leaves.size()) return Status::Internal(context + ": leaf count mismatch");
  const LeafData* first = nullptr;
  for (size_t i = *cursor; i < *cursor + count && !first; ++i) first = leaves[i];
  if (!first) {
    *cursor += count;
    return NullArrayOf(f.type, length);
  }
  if (depth >= first->layers.size()) return Status::Internal(context + ": layer depth mismatch");
  const LayerSlots& slots = first->layers[depth];
  if (slots.valid.size() != static_cast<uint64_t>(length)) {
    return Status::Corruption(context + ": field '" + f.name + "' has " + std::to_string(slots.valid.size()) +
                              " slots where its parent expects " + std::to_string(length));
  }
  if (IsLeafField(f)) {
    *cursor += 1;
    Array leaf = first->leaf;
    // The caller's type wins (names, metadata); the decoded layout is the same.
    if (f.type.id == leaf.type.id) leaf.type = f.type;
    return leaf;
  }
  Array a;
  a.type = f.type;
  a.length = length;
  a.buffers.push_back(PackValidity(slots.valid, &a.null_count));
  if (f.type.id == TypeId::kStruct) {
    for (const auto& c : f.type.children) {
      ASSIGN_OR_RETURN(Array child, Build(c, depth + 1, leaves, cursor, length, context));
      a.children.push_back(std::move(child));
    }
    return a;
  }
  if (IsListType(f.type)) {
    if (f.type.children.size() != 1 || slots.offsets.size() != slots.valid.size() + 1) {
      return Status::Corruption(context + ": malformed list layer for '" + f.name + "'");
    }
    ASSIGN_OR_RETURN(BufferPtr offsets, OffsetsBuffer(slots.offsets, f.type.id == TypeId::kLargeList, context));
    a.buffers.push_back(offsets);
    ASSIGN_OR_RETURN(Array child,
                     Build(f.type.children[0], depth + 1, leaves, cursor, slots.offsets.back(), context));
    a.children.push_back(std::move(child));
    return a;
  }
  return Status::NotSupported(context + ": reading " + f.type.ToString() + " fields with child columns");
}

}  // namespace

Result<Array> AssembleField(const Field& field, const std::vector<const LeafData*>& leaves, int64_t num_rows,
                            const std::string& context) {
  size_t cursor = 0;
  ASSIGN_OR_RETURN(Array a, Build(field, 0, leaves, &cursor, num_rows, context));
  if (cursor != leaves.size()) return Status::Internal(context + ": unused leaf columns");
  return a;
}

}  // namespace lancet::format::internal
