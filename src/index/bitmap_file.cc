#include "index/bitmap_file.h"

#include <algorithm>
#include <numeric>

#include "index/row_addr_map.h"
#include "index/value_order.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

// What one key costs beyond its bytes: the hash node, the string and an empty map.
constexpr uint64_t kKeyOverheadBytes = 128;
// Keys written, or bitmaps read, per batch: bounds the encoded bitmaps held at once.
constexpr size_t kKeysPerBatch = 1024;

std::string KeyBytes(const Array& a, int64_t i) {
  if (a.type.id == TypeId::kBool) return std::string(1, a.GetBool(i) ? '\1' : '\0');
  if (a.type.IsFixedWidth()) {
    const size_t width = static_cast<size_t>(a.type.BitWidth() / 8);
    const uint8_t* p = a.buffers[1]->data() + static_cast<size_t>(a.offset + i) * width;
    return std::string(reinterpret_cast<const char*>(p), width);
  }
  return std::string(a.GetView(i));
}

// The keys as an array of `type`, null first when `with_null`.
Result<Array> KeysArray(const DataType& type, const std::vector<const std::string*>& keys, bool with_null) {
  if (type.IsBinaryLike() || type.IsLargeBinaryLike()) {
    std::vector<std::optional<std::string>> values;
    if (with_null) values.emplace_back();
    for (const std::string* k : keys) values.emplace_back(*k);
    return MakeBinaryArray(type, values);
  }
  std::vector<bool> validity;
  if (with_null) {
    validity.assign(keys.size() + 1, true);
    validity[0] = false;
  }
  if (type.id == TypeId::kBool) {
    std::vector<bool> values;
    if (with_null) values.push_back(false);
    for (const std::string* k : keys) values.push_back((*k)[0] != 0);
    return MakeBoolArray(values, validity);
  }
  const size_t width = static_cast<size_t>(type.BitWidth() / 8);
  std::vector<uint8_t> bytes(with_null ? width : 0, 0);
  for (const std::string* k : keys) bytes.insert(bytes.end(), k->begin(), k->end());
  return MakeFixedWidthArray(type, bytes, static_cast<int64_t>(keys.size() + (with_null ? 1 : 0)), validity);
}

}  // namespace

BitmapAccumulator::BitmapAccumulator(DataType type, uint64_t budget, std::string what)
    : type_(std::move(type)), budget_(budget), what_(std::move(what)) {}

Status BitmapAccumulator::AddOne(const Array& keys, int64_t i, uint64_t row) {
  if (keys.IsNull(i)) {
    if (!null_rows_) null_rows_.emplace();
    null_rows_->add(row);
    return Status::OK();
  }
  auto [it, inserted] = keys_.try_emplace(KeyBytes(keys, i));
  if (inserted) {
    bytes_ += it->first.size() + kKeyOverheadBytes;
    if (bytes_ > budget_) {
      return Status::InvalidArgument(what_ + ": more than " + std::to_string(keys_.size() - 1) +
                                     " distinct values exceed the memory budget of " + std::to_string(budget_) +
                                     " bytes; a BTree index suits this column");
    }
  }
  it->second.add(row);
  return Status::OK();
}

Result<IndexFileEntry> BitmapAccumulator::Write(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                                Metadata metadata,
                                                const std::optional<std::vector<uint8_t>>& global_buffer) {
  std::vector<const std::string*> names;
  std::vector<const Roaring64Map*> rows;
  for (const auto& [k, v] : keys_) {
    names.push_back(&k);
    rows.push_back(&v);
  }
  const bool with_null = null_rows_.has_value();
  if (with_null) rows.insert(rows.begin(), &*null_rows_);
  ASSIGN_OR_RETURN(Array keys, KeysArray(type_, names, with_null));
  std::vector<int64_t> order(static_cast<size_t>(keys.length));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&keys](int64_t a, int64_t b) { return CompareValues(keys, a, keys, b) < 0; });

  Schema schema;
  schema.fields = {MakeField("keys", type_, true), MakeField("bitmaps", MakeType(TypeId::kBinary), true)};
  schema.metadata = std::move(metadata);
  schema.metadata[kIndexStatsKey] = "{\"num_bitmaps\":" + std::to_string(order.size()) + "}";
  ASSIGN_OR_RETURN(auto writer, CreateIndexFile(std::move(store), dir, kBitmapFile, schema));
  if (global_buffer) RETURN_IF_ERROR(writer->WriteGlobalBuffer(*global_buffer).status());
  for (size_t begin = 0; begin < order.size(); begin += kKeysPerBatch) {
    const size_t end = std::min(order.size(), begin + kKeysPerBatch);
    std::vector<int64_t> slice(order.begin() + static_cast<ptrdiff_t>(begin),
                               order.begin() + static_cast<ptrdiff_t>(end));
    ASSIGN_OR_RETURN(Array batch_keys, TakeRows(keys, slice));
    std::vector<std::optional<std::string>> encoded;
    for (int64_t k : slice) {
      const std::vector<uint8_t> bytes = EncodeRowAddrMap(*rows[static_cast<size_t>(k)]);
      encoded.emplace_back(std::string(bytes.begin(), bytes.end()));
    }
    ASSIGN_OR_RETURN(Array bitmaps, MakeBinaryArray(MakeType(TypeId::kBinary), encoded));
    RETURN_IF_ERROR(
        writer->Write(RecordBatch{writer->schema(), static_cast<int64_t>(slice.size()), {batch_keys, bitmaps}}));
  }
  return FinishIndexFile(*writer, kBitmapFile);
}

Result<std::unique_ptr<BitmapLookup>> BitmapLookup::Open(std::shared_ptr<io::ObjectStore> store,
                                                         const std::string& dir, const DataType& type) {
  auto r = std::make_unique<BitmapLookup>();
  ASSIGN_OR_RETURN(r->file_, OpenIndexFile(*store, dir, kBitmapFile));
  RETURN_IF_ERROR(CheckIndexColumn(*r->file_, 0, "keys", type));
  RETURN_IF_ERROR(CheckIndexColumn(*r->file_, 1, "bitmaps", MakeType(TypeId::kBinary)));
  const uint64_t n = r->file_->num_rows();
  ASSIGN_OR_RETURN(r->keys_, ReadIndexColumn(*r->file_, 0, 0, n));
  if (r->keys_.length != static_cast<int64_t>(n)) {
    return Status::Corruption(r->file_->path() + ": keys read back short");
  }
  // The reference sorts Bitmap keys but not LabelList keys, so order is not assumed.
  const Array& keys = r->keys_;
  for (int64_t i = 0; i < keys.length; ++i) {
    if (keys.IsValid(i)) {
      r->sorted_.push_back(i);
    } else {
      r->null_rows_.push_back(static_cast<uint64_t>(i));
    }
  }
  std::stable_sort(r->sorted_.begin(), r->sorted_.end(),
                   [&keys](int64_t a, int64_t b) { return CompareValues(keys, a, keys, b) < 0; });
  return r;
}

Result<Roaring64Map> BitmapLookup::Equal(const Array& lit, int64_t i) const {
  if (lit.IsNull(i)) return Roaring64Map();
  const Array& keys = keys_;
  auto first = std::lower_bound(sorted_.begin(), sorted_.end(), i,
                                [&](int64_t k, int64_t) { return CompareValues(keys, k, lit, i) < 0; });
  auto last = std::upper_bound(first, sorted_.end(), i,
                               [&](int64_t, int64_t k) { return CompareValues(lit, i, keys, k) < 0; });
  return Load(static_cast<size_t>(first - sorted_.begin()), static_cast<size_t>(last - sorted_.begin()));
}

Result<Roaring64Map> BitmapLookup::Range(const Array* lo, bool lo_inclusive, const Array* hi,
                                         bool hi_inclusive) const {
  if ((lo && lo->IsNull(0)) || (hi && hi->IsNull(0))) return Roaring64Map();
  const Array& keys = keys_;
  auto first = sorted_.begin();
  if (lo) {
    first = std::partition_point(sorted_.begin(), sorted_.end(), [&](int64_t k) {
      const int c = CompareValues(keys, k, *lo, 0);
      return c < 0 || (c == 0 && !lo_inclusive);
    });
  }
  auto last = sorted_.end();
  if (hi) {
    last = std::partition_point(first, sorted_.end(), [&](int64_t k) {
      const int c = CompareValues(keys, k, *hi, 0);
      return c < 0 || (c == 0 && hi_inclusive);
    });
  }
  return Load(static_cast<size_t>(first - sorted_.begin()), static_cast<size_t>(last - sorted_.begin()));
}

Result<Roaring64Map> BitmapLookup::Nulls() const { return LoadRows(null_rows_); }

Result<Roaring64Map> BitmapLookup::Load(size_t first, size_t last) const {
  std::vector<uint64_t> rows;
  for (size_t i = first; i < last; ++i) rows.push_back(static_cast<uint64_t>(sorted_[i]));
  return LoadRows(rows);
}

Result<Roaring64Map> BitmapLookup::LoadRows(std::span<const uint64_t> rows) const {
  Roaring64Map out;
  uint32_t whole_left = kMaxWholeFragments;  // for all the bitmaps together
  const int column = 1;
  for (size_t begin = 0; begin < rows.size(); begin += kKeysPerBatch) {
    const size_t end = std::min(rows.size(), begin + kKeysPerBatch);
    std::span<const uint64_t> slice = rows.subspan(begin, end - begin);
    ASSIGN_OR_RETURN(Array bitmaps, file_->Take(file_->file_schema().fields[1], std::span<const int>(&column, 1), slice));
    if (bitmaps.length != static_cast<int64_t>(slice.size())) {
      return Status::Corruption(file_->path() + ": bitmaps read back short");
    }
    for (int64_t i = 0; i < bitmaps.length; ++i) {
      if (bitmaps.IsNull(i)) continue;  // a key with no rows
      const std::string_view bytes = bitmaps.GetView(i);
      ASSIGN_OR_RETURN(Roaring64Map one,
                       DecodeRowAddrMap(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                                 bytes.size()),
                                        file_->path() + " key row " + std::to_string(slice[i]), &whole_left));
      out |= one;
    }
  }
  return out;
}

}  // namespace lancet::index
