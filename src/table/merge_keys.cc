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

// Bytes of one encoded value of a fixed-width key type; 0 for (large) utf8/binary.
size_t MergeKeyWidth(const DataType& t) {
  if (t.id == TypeId::kBool) return 1;
  if (t.id == TypeId::kFixedSizeBinary) return static_cast<size_t>(t.byte_width);
  if (t.IsBinaryLike() || t.IsLargeBinaryLike()) return 0;
  return static_cast<size_t>(t.BitWidth() / 8);
}

std::string MergeKeyText(const Array& a, int64_t row) {
  if (a.IsNull(row)) return "NULL";
  switch (a.type.id) {
    case TypeId::kBool:
      return a.GetBool(row) ? "true" : "false";
    case TypeId::kInt8:
      return std::to_string(a.values<int8_t>()[row]);
    case TypeId::kInt16:
      return std::to_string(a.values<int16_t>()[row]);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return std::to_string(a.values<int32_t>()[row]);
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      return std::to_string(a.values<int64_t>()[row]);
    case TypeId::kUInt8:
      return std::to_string(a.values<uint8_t>()[row]);
    case TypeId::kUInt16:
      return std::to_string(a.values<uint16_t>()[row]);
    case TypeId::kUInt32:
      return std::to_string(a.values<uint32_t>()[row]);
    case TypeId::kUInt64:
      return std::to_string(a.values<uint64_t>()[row]);
    case TypeId::kFloat32:
      return std::to_string(a.values<float>()[row]);
    case TypeId::kFloat64:
      return std::to_string(a.values<double>()[row]);
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      return std::string(a.GetView(row));
    default:
      return "<" + a.type.ToString() + " value>";
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

void MergeKeys::EncodeRun(const RecordBatch& batch, bool keys_only, int64_t begin, int64_t end,
                          MergeKeyRun* run) const {
  const size_t n = static_cast<size_t>(end - begin);
  run->bytes.clear();
  run->ends.resize(n);
  run->hashes.resize(n);
  run->valid.assign(n, 1);
  std::vector<const Array*> cols;
  size_t width = 0;  // bytes per key when every key column has a fixed width, else 0
  for (size_t k = 0; k < indices_.size(); ++k) {
    cols.push_back(&batch.columns[keys_only ? k : static_cast<size_t>(indices_[k])]);
    const size_t w = MergeKeyWidth(cols.back()->type);
    width = (k == 0 || width > 0) && w > 0 ? width + w : 0;
  }
  for (const Array* a : cols) {
    if (a->buffers.empty() || !a->buffers[0]) continue;
    for (size_t i = 0; i < n; ++i) run->valid[i] &= a->IsValid(begin + static_cast<int64_t>(i)) ? 1 : 0;
  }
  if (width > 0) {
    // Column by column into fixed-size slots: no per-row dispatch on the types.
    run->bytes.resize(n * width);
    char* out = run->bytes.data();
    size_t at = 0;
    for (const Array* a : cols) {
      const size_t w = MergeKeyWidth(a->type);
      if (a->type.id == TypeId::kBool) {
        for (size_t i = 0; i < n; ++i) out[i * width + at] = a->GetBool(begin + static_cast<int64_t>(i)) ? 1 : 0;
      } else {
        const uint8_t* p = a->buffers[1]->data() + static_cast<size_t>(a->offset + begin) * w;
        if (w == width) {
          std::memcpy(out, p, n * w);
        } else {
          for (size_t i = 0; i < n; ++i) std::memcpy(out + i * width + at, p + i * w, w);
        }
      }
      at += w;
    }
    for (size_t i = 0; i < n; ++i) run->ends[i] = (i + 1) * width;
  } else {
    for (size_t i = 0; i < n; ++i) {
      const int64_t row = begin + static_cast<int64_t>(i);
      for (const Array* a : cols) {
        if (!run->valid[i]) break;
        if (a->type.id == TypeId::kBool) {
          run->bytes.push_back(a->GetBool(row) ? 1 : 0);
        } else if (a->type.IsBinaryLike() || a->type.IsLargeBinaryLike()) {
          std::string_view v = a->GetView(row);
          // Length first, so that ("a","bc") and ("ab","c") differ.
          uint64_t len = v.size();
          run->bytes.append(reinterpret_cast<const char*>(&len), sizeof len);
          run->bytes.append(v);
        } else {
          const size_t w = MergeKeyWidth(a->type);
          run->bytes.append(reinterpret_cast<const char*>(a->buffers[1]->data() + (a->offset + row) * w), w);
        }
      }
      run->ends[i] = run->bytes.size();
    }
  }
  for (size_t i = 0; i < n; ++i) run->hashes[i] = HashMergeKey(run->key(i));
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

}  // namespace

uint64_t HashMergeKey(std::string_view key) {
  // Keys of up to 8 bytes (every integer, date and timestamp key) skip the byte hash;
  // the mix is a bijection, so for them equal hashes and lengths mean equal keys.
  if (key.size() <= 8) {
    uint64_t v = 0;
    std::memcpy(&v, key.data(), key.size());
    return MixKeyHash(v ^ (static_cast<uint64_t>(key.size()) << 59));
  }
  return MixKeyHash(std::hash<std::string_view>{}(key));
}

uint32_t KeyPartition(uint64_t hash, uint32_t partitions) {
  // The high bits: the index's slots use the low ones.
  return static_cast<uint32_t>((hash >> 32) % partitions);
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
    if (s.hash == hash && s.length == key.size() &&
        (key.size() <= 8 || std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0)) {
      return i;
    }
  }
}

int64_t* MergeKeyIndex::FindOrInsert(const MergeKeyRun& run, size_t i, int64_t row, bool* fresh) {
  const std::string_view key = run.key(i);
  const uint64_t hash = run.hashes[i];
  Slot& s = slots_[Probe(key, hash)];
  *fresh = s.row < 0;
  if (*fresh) {
    s = Slot{hash, row, arena_.size(), key.size()};
    // Short keys are told apart by their hashes alone.
    if (key.size() > 8) arena_.append(key);
  }
  return &s.row;
}

void MergeKeyIndex::FindRun(const MergeKeyRun& run, int64_t* rows) const {
  constexpr size_t kAhead = 16;
  const size_t n = run.size();
  for (size_t i = 0; i < std::min(n, kAhead); ++i) Prefetch(run.hashes[i]);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) Prefetch(run.hashes[i + kAhead]);
    rows[i] = run.valid[i] ? slots_[Probe(run.key(i), run.hashes[i])].row : -1;
  }
}

}  // namespace lancet::table
