#include "table/merge_keys.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

namespace lancet::table {
namespace {

bool MergeKeyType(const DataType& t) {
  return t.id != TypeId::kNull && !t.IsNested() && t.id != TypeId::kDictionary && t.id != TypeId::kFloat16;
}

std::string MergeKeyText(const Array& a, int64_t row) {
  if (a.IsNull(row)) return "NULL";
  switch (a.type.id) {
    case TypeId::kBool: return a.GetBool(row) ? "true" : "false";
    case TypeId::kInt8: return std::to_string(a.values<int8_t>()[row]);
    case TypeId::kInt16: return std::to_string(a.values<int16_t>()[row]);
    case TypeId::kInt32: case TypeId::kDate32: case TypeId::kTime32:
      return std::to_string(a.values<int32_t>()[row]);
    case TypeId::kInt64: case TypeId::kDate64: case TypeId::kTime64: case TypeId::kTimestamp:
    case TypeId::kDuration:
      return std::to_string(a.values<int64_t>()[row]);
    case TypeId::kUInt8: return std::to_string(a.values<uint8_t>()[row]);
    case TypeId::kUInt16: return std::to_string(a.values<uint16_t>()[row]);
    case TypeId::kUInt32: return std::to_string(a.values<uint32_t>()[row]);
    case TypeId::kUInt64: return std::to_string(a.values<uint64_t>()[row]);
    case TypeId::kFloat32: return std::to_string(a.values<float>()[row]);
    case TypeId::kFloat64: return std::to_string(a.values<double>()[row]);
    case TypeId::kUtf8: case TypeId::kLargeUtf8: return std::string(a.GetView(row));
    default: return "<" + a.type.ToString() + " value>";
  }
}

}  // namespace

Result<MergeKeys> MergeKeys::Make(const Schema& schema, const std::vector<std::string>& on, const std::string& what) {
  if (on.empty()) return Status::InvalidArgument("no key columns (on) given");
  MergeKeys keys;
  std::set<std::string> seen;
  for (const std::string& name : on) {
    if (!seen.insert(name).second) return Status::InvalidArgument("key column '" + name + "' given twice");
    int i = schema.FieldIndex(name);
    if (i < 0) return Status::InvalidArgument("the " + what + " has no key column '" + name + "'");
    if (!MergeKeyType(schema.fields[i].type)) {
      return Status::InvalidArgument("key column '" + name + "' of the " + what + " has type " +
                                     schema.fields[i].type.ToString() + ", which cannot be a key");
    }
    keys.names_.push_back(name);
    keys.indices_.push_back(i);
  }
  return keys;
}

bool MergeKeys::Encode(const RecordBatch& batch, int64_t row, std::string* out) const {
  return EncodeColumns(batch, row, false, out);
}

bool MergeKeys::EncodeKeysOnly(const RecordBatch& keys, int64_t row, std::string* out) const {
  return EncodeColumns(keys, row, true, out);
}

bool MergeKeys::EncodeColumns(const RecordBatch& batch, int64_t row, bool keys_only, std::string* out) const {
  out->clear();
  for (size_t k = 0; k < indices_.size(); ++k) {
    const Array& a = batch.columns[keys_only ? k : static_cast<size_t>(indices_[k])];
    if (a.IsNull(row)) return false;
    if (a.type.id == TypeId::kBool) {
      out->push_back(a.GetBool(row) ? 1 : 0);
    } else if (a.type.IsBinaryLike() || a.type.IsLargeBinaryLike()) {
      std::string_view v = a.GetView(row);
      // Length first, so that ("a","bc") and ("ab","c") differ.
      uint64_t n = v.size();
      out->append(reinterpret_cast<const char*>(&n), sizeof n);
      out->append(v);
    } else {
      int width = a.type.id == TypeId::kFixedSizeBinary ? a.type.byte_width : a.type.BitWidth() / 8;
      const uint8_t* p = a.buffers[1]->data() + (a.offset + row) * width;
      out->append(reinterpret_cast<const char*>(p), static_cast<size_t>(width));
    }
  }
  return true;
}

std::string MergeKeys::Describe(const RecordBatch& batch, int64_t row) const {
  std::string s;
  for (size_t k = 0; k < indices_.size(); ++k) {
    if (k) s += ", ";
    s += names_[k] + " = " + MergeKeyText(batch.columns[indices_[k]], row);
  }
  return s;
}

namespace {

uint64_t MixKeyHash(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

uint64_t HashKey(std::string_view key) {
  // Keys of up to 8 bytes (every integer, date and timestamp key) skip the byte hash.
  if (key.size() <= 8) {
    uint64_t v = 0;
    std::memcpy(&v, key.data(), key.size());
    return MixKeyHash(v ^ (static_cast<uint64_t>(key.size()) << 59));
  }
  return MixKeyHash(std::hash<std::string_view>{}(key));
}

}  // namespace

uint32_t KeyPartition(const std::string& key, uint32_t partitions) {
  // The high bits: the index's slots use the low ones.
  return static_cast<uint32_t>((HashKey(key) >> 32) % partitions);
}

MergeKeyIndex::MergeKeyIndex(size_t expected) {
  size_t capacity = 16;
  while (capacity < expected * 2) capacity <<= 1;
  slots_.resize(capacity);
}

size_t MergeKeyIndex::Probe(std::string_view key, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.row < 0) return i;
    if (s.hash == hash && s.length == key.size() && std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0) {
      return i;
    }
  }
}

int64_t* MergeKeyIndex::FindOrInsert(std::string_view key, int64_t row, bool* fresh) {
  const uint64_t hash = HashKey(key);
  Slot& s = slots_[Probe(key, hash)];
  *fresh = s.row < 0;
  if (*fresh) {
    s = Slot{hash, row, arena_.size(), key.size()};
    arena_.append(key);
  }
  return &s.row;
}

int64_t MergeKeyIndex::Find(std::string_view key) const {
  return slots_[Probe(key, HashKey(key))].row;
}

}  // namespace lancet::table
