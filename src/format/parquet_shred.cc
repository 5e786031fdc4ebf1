#include "format/parquet_shred.h"

#include <string>
#include <utility>

namespace lancet::format::parquet {

namespace {

// A slot on its way down the tree: the row (or list element) it stands for in the
// current array, or kAbsent once an ancestor was null or an empty list.
struct Slot {
  int64_t index;
  uint32_t def;
  uint32_t rep;
};
constexpr int64_t kAbsent = -1;

int64_t DictionaryIndex(const Array& a, int64_t i) {
  const int64_t j = a.offset + i;
  const uint8_t* p = a.buffers[1]->data();
  switch (a.type.index_type ? a.type.index_type->id : TypeId::kInt32) {
    case TypeId::kInt8:
      return reinterpret_cast<const int8_t*>(p)[j];
    case TypeId::kUInt8:
      return p[j];
    case TypeId::kInt16:
      return reinterpret_cast<const int16_t*>(p)[j];
    case TypeId::kUInt16:
      return reinterpret_cast<const uint16_t*>(p)[j];
    case TypeId::kUInt32:
      return reinterpret_cast<const uint32_t*>(p)[j];
    case TypeId::kInt64:
    case TypeId::kUInt64:
      return reinterpret_cast<const int64_t*>(p)[j];
    default:
      return reinterpret_cast<const int32_t*>(p)[j];
  }
}

class Shredder {
 public:
  explicit Shredder(std::vector<LeafLevels>* out) : out_(out) {}

  Status Walk(const Field& field, bool nullable, const Array& a, std::vector<Slot> slots, uint32_t rep_depth) {
    if (a.type.id != field.type.id) {
      return Status::InvalidArgument("field '" + field.name + "': array of type " + a.type.ToString() +
                                     " where the schema has " + field.type.ToString());
    }
    for (Slot& s : slots) {
      if (s.index == kAbsent) continue;
      if (a.IsValid(s.index)) {
        if (nullable) ++s.def;
      } else if (nullable) {
        s.index = kAbsent;
      } else {
        return Status::InvalidArgument("field '" + field.name + "' is not nullable but holds a null");
      }
    }
    switch (a.type.id) {
      case TypeId::kStruct: {
        if (a.children.size() != field.type.children.size()) return Shape(field);
        for (size_t k = 0; k < a.children.size(); ++k) {
          std::vector<Slot> child = slots;
          for (Slot& s : child) {
            if (s.index != kAbsent) s.index += a.offset;
          }
          const Field& f = field.type.children[k];
          RETURN_IF_ERROR(Walk(f, f.nullable, a.children[k], std::move(child), rep_depth));
        }
        return Status::OK();
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kFixedSizeList:
      case TypeId::kMap: {
        if (a.children.size() != 1 || field.type.children.size() != 1) return Shape(field);
        std::vector<Slot> elements = Expand(a, slots, rep_depth + 1);
        const Field& item = field.type.children[0];
        if (a.type.id != TypeId::kMap)
          return Walk(item, item.nullable, a.children[0], std::move(elements), rep_depth + 1);
        // The key_value group is repeated, not optional: its struct adds no level.
        const Array& entries = a.children[0];
        if (entries.children.size() != 2 || item.type.children.size() != 2) return Shape(field);
        for (Slot& s : elements) {
          if (s.index != kAbsent) s.index += entries.offset;
        }
        const Field& key = item.type.children[0];
        const Field& value = item.type.children[1];
        RETURN_IF_ERROR(Walk(key, false, entries.children[0], elements, rep_depth + 1));
        return Walk(value, value.nullable, entries.children[1], std::move(elements), rep_depth + 1);
      }
      case TypeId::kDictionary:
        return DictionaryLeaf(field, nullable, a, std::move(slots), rep_depth > 0);
      default:
        return Leaf(a, slots, rep_depth > 0);
    }
  }

 private:
  static Status Shape(const Field& field) {
    return Status::InvalidArgument("field '" + field.name + "': array children do not match its type");
  }

  // One slot per list element; an empty or absent list keeps a single slot.
  static std::vector<Slot> Expand(const Array& a, const std::vector<Slot>& slots, uint32_t list_rep) {
    std::vector<Slot> out;
    out.reserve(slots.size());
    for (const Slot& s : slots) {
      if (s.index == kAbsent) {
        out.push_back(s);
        continue;
      }
      int64_t begin, end;
      if (a.type.id == TypeId::kFixedSizeList) {
        begin = (a.offset + s.index) * a.type.list_size;
        end = begin + a.type.list_size;
      } else {
        std::tie(begin, end) = a.ListRange(s.index);
      }
      if (begin == end) {
        out.push_back({kAbsent, s.def, s.rep});
        continue;
      }
      for (int64_t j = begin; j < end; ++j) out.push_back({j, s.def + 1, j == begin ? s.rep : list_rep});
    }
    return out;
  }

  // Leaves outside any list have no repetition levels to keep.
  Status Leaf(const Array& a, const std::vector<Slot>& slots, bool repeated) {
    LeafLevels leaf;
    leaf.def.reserve(slots.size());
    leaf.values.reserve(slots.size());
    if (repeated) leaf.rep.reserve(slots.size());
    for (const Slot& s : slots) {
      leaf.def.push_back(s.def);
      if (repeated) leaf.rep.push_back(s.rep);
      if (s.index != kAbsent) leaf.values.push_back(s.index);
    }
    leaf.values_array = a;
    out_->push_back(std::move(leaf));
    return Status::OK();
  }

  // Written as its values: each present index is replaced by the dictionary entry it
  // names; a null entry is a null value.
  Status DictionaryLeaf(const Field& field, bool nullable, const Array& a, std::vector<Slot> slots, bool repeated) {
    if (!a.dictionary) return Shape(field);
    const Array& dict = *a.dictionary;
    for (Slot& s : slots) {
      if (s.index == kAbsent) continue;
      const int64_t d = DictionaryIndex(a, s.index);
      if (d < 0 || d >= dict.length) {
        return Status::InvalidArgument("field '" + field.name + "': dictionary index out of range");
      }
      s.index = d;
      if (dict.IsValid(d)) continue;
      if (!nullable) return Status::InvalidArgument("field '" + field.name + "' is not nullable but holds a null");
      s.index = kAbsent;
      --s.def;
    }
    return Leaf(dict, slots, repeated);
  }

  std::vector<LeafLevels>* out_;
};

// A top-level primitive column: its levels are its validity, with no slots to carry.
Status ShredFlat(const Field& field, const Array& array, std::vector<LeafLevels>* out) {
  LeafLevels leaf;
  leaf.def.resize(static_cast<size_t>(array.length));
  leaf.values.reserve(static_cast<size_t>(array.length));
  const bool has_nulls = array.type.id == TypeId::kNull || (!array.buffers.empty() && array.buffers[0]);
  for (int64_t i = 0; i < array.length; ++i) {
    if (!has_nulls || array.IsValid(i)) {
      leaf.def[static_cast<size_t>(i)] = field.nullable ? 1 : 0;
      leaf.values.push_back(i);
    } else if (!field.nullable) {
      return Status::InvalidArgument("field '" + field.name + "' is not nullable but holds a null");
    }
  }
  leaf.values_array = array;
  out->push_back(std::move(leaf));
  return Status::OK();
}

}  // namespace

Status ShredColumn(const Field& field, const Array& array, std::vector<LeafLevels>* out) {
  if (array.type.id == field.type.id && !array.type.IsNested() && array.type.id != TypeId::kDictionary) {
    return ShredFlat(field, array, out);
  }
  std::vector<Slot> slots(static_cast<size_t>(array.length));
  for (int64_t i = 0; i < array.length; ++i) slots[static_cast<size_t>(i)] = {i, 0, 0};
  Shredder shredder(out);
  return shredder.Walk(field, field.nullable, array, std::move(slots), 0);
}

}  // namespace lancet::format::parquet
