#include "lancet/array.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "util/bit_util.h"
#include "util/interleave.h"
#include "util/type_util.h"

namespace lancet {

namespace {

using bit_util::BytesForBits;

// Keeps (offset + length) * 256 bits (decimal256) far from int64 overflow, so
// size arithmetic below never wraps. No real array comes near 2^48 values.
constexpr int64_t kMaxLogicalLength = int64_t{1} << 48;
// Nesting deeper than this is treated as hostile input rather than recursed into.
constexpr int kMaxNestingDepth = 64;

bool IsListType(TypeId id) { return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kMap; }
bool HasLargeOffsets(TypeId id) {
  return id == TypeId::kLargeList || id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary;
}
// Fixed-width types whose values are whole bytes (everything fixed but bool).
bool IsByteWidth(const DataType& t) {
  return t.id == TypeId::kFixedSizeBinary || (t.IsFixedWidth() && t.id != TypeId::kBool);
}
// a * b, or -1 when the product overflows or either factor is negative.
int64_t CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) return -1;
  return r;
}

int64_t ByteWidth(const DataType& t) { return t.id == TypeId::kFixedSizeBinary ? t.byte_width : t.BitWidth() / 8; }

// Reads integer index `i` (physical) from an index buffer of integer type `t`.
int64_t ReadIndex(const DataType& t, const uint8_t* p, int64_t i) {
  switch (t.id) {
    case TypeId::kInt8:
      return reinterpret_cast<const int8_t*>(p)[i];
    case TypeId::kUInt8:
      return p[i];
    case TypeId::kInt16:
      return reinterpret_cast<const int16_t*>(p)[i];
    case TypeId::kUInt16:
      return reinterpret_cast<const uint16_t*>(p)[i];
    case TypeId::kInt32:
      return reinterpret_cast<const int32_t*>(p)[i];
    case TypeId::kUInt32:
      return reinterpret_cast<const uint32_t*>(p)[i];
    case TypeId::kInt64:
      return reinterpret_cast<const int64_t*>(p)[i];
    case TypeId::kUInt64: {
      uint64_t v = reinterpret_cast<const uint64_t*>(p)[i];
      return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? -1 : static_cast<int64_t>(v);
    }
    default:
      return -1;
  }
}

// Offset `j` (physical) of a var-binary or list array.
int64_t OffsetAt(const Array& a, int64_t j) {
  if (HasLargeOffsets(a.type.id)) return a.buffers[1]->data_as<int64_t>()[j];
  return a.buffers[1]->data_as<int32_t>()[j];
}

const uint8_t* ValidityBits(const Array& a) {
  return (!a.buffers.empty() && a.buffers[0]) ? a.buffers[0]->data() : nullptr;
}

int64_t CountNulls(const Array& a, int64_t logical_begin, int64_t length) {
  if (a.type.id == TypeId::kNull) return length;
  const uint8_t* bits = ValidityBits(a);
  if (bits == nullptr) return 0;
  return length - bit_util::CountSetBits(bits, a.offset + logical_begin, length);
}

// A zero-copy view of rows [begin, begin+length) of `a`.
Array SliceArray(const Array& a, int64_t begin, int64_t length) {
  Array out = a;
  out.offset = a.offset + begin;
  out.length = length;
  out.null_count = CountNulls(a, begin, length);
  return out;
}

// ---------------------------------------------------------------------------
// Validate

size_t ExpectedBufferCount(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return 0;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return 3;
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
      return 1;
    default:
      return 2;
  }
}

Status Corrupt(const Array& a, const std::string& what) {
  return Status::Corruption(a.type.ToString() + " array: " + what);
}

Status CheckBufferSize(const Array& a, size_t slot, int64_t needed, const char* name) {
  const BufferPtr& b = a.buffers[slot];
  const uint64_t have = b ? b->size() : 0;
  if (needed > 0 && !b) return Corrupt(a, std::string(name) + " buffer is missing");
  if (have < static_cast<uint64_t>(needed)) {
    return Corrupt(
        a, std::string(name) + " buffer has " + std::to_string(have) + " bytes, needs " + std::to_string(needed));
  }
  return Status::OK();
}

// Checks the offsets buffer of a var-binary or list array; `limit` bounds the last offset.
template <typename OffsetT>
Status CheckOffsets(const Array& a, int64_t limit, const char* limit_name) {
  const int64_t end = a.offset + a.length;
  if (a.length == 0 && (!a.buffers[1] || a.buffers[1]->size() == 0)) return Status::OK();
  RETURN_IF_ERROR(CheckBufferSize(a, 1, (end + 1) * static_cast<int64_t>(sizeof(OffsetT)), "offsets"));
  const OffsetT* offsets = a.buffers[1]->data_as<OffsetT>();
  if (offsets[a.offset] < 0) return Corrupt(a, "negative first offset");
  for (int64_t j = a.offset; j < end; ++j) {
    if (offsets[j + 1] < offsets[j]) {
      return Corrupt(a, "offsets decrease at index " + std::to_string(j - a.offset));
    }
  }
  if (static_cast<int64_t>(offsets[end]) > limit) {
    return Corrupt(
        a, "last offset " + std::to_string(offsets[end]) + " exceeds " + limit_name + " " + std::to_string(limit));
  }
  return Status::OK();
}

Status ValidateImpl(const Array& a, int depth);

Status ValidateChild(const Array& a, size_t i, const DataType& expected, int64_t min_length, int depth) {
  const Array& child = a.children[i];
  if (child.type != expected) {
    return Corrupt(
        a, "child " + std::to_string(i) + " has type " + child.type.ToString() + ", expected " + expected.ToString());
  }
  Status st = ValidateImpl(child, depth + 1);
  if (!st.ok()) return st.WithContext(a.type.ToString() + " child " + std::to_string(i));
  if (child.length < min_length) {
    return Corrupt(a, "child " + std::to_string(i) + " has " + std::to_string(child.length) + " values, needs " +
                          std::to_string(min_length));
  }
  return Status::OK();
}

Status ValidateImpl(const Array& a, int depth) {
  if (depth > kMaxNestingDepth) return Corrupt(a, "nesting deeper than " + std::to_string(kMaxNestingDepth));
  if (a.length < 0 || a.offset < 0) return Corrupt(a, "negative length or offset");
  if (a.length > kMaxLogicalLength || a.offset > kMaxLogicalLength) return Corrupt(a, "length or offset too large");
  const int64_t end = a.offset + a.length;
  const TypeId id = a.type.id;

  if (id == TypeId::kNull) {
    // Tolerate a lone absent validity slot: some producers keep one for uniformity.
    if (a.buffers.size() > 1 || (a.buffers.size() == 1 && a.buffers[0])) return Corrupt(a, "null array with buffers");
    if (a.null_count != a.length) return Corrupt(a, "null_count must equal length for the null type");
    if (!a.children.empty()) return Corrupt(a, "unexpected children");
    return Status::OK();
  }
  const size_t expected_buffers = ExpectedBufferCount(id);
  if (a.buffers.size() != expected_buffers) {
    return Corrupt(
        a, "has " + std::to_string(a.buffers.size()) + " buffers, expected " + std::to_string(expected_buffers));
  }
  if (a.null_count < 0 || a.null_count > a.length) return Corrupt(a, "null_count out of range");
  if (a.buffers[0]) {
    RETURN_IF_ERROR(CheckBufferSize(a, 0, BytesForBits(end), "validity"));
    int64_t nulls = CountNulls(a, 0, a.length);
    if (nulls != a.null_count) {
      return Corrupt(a, "null_count " + std::to_string(a.null_count) + " but bitmap has " + std::to_string(nulls));
    }
  } else if (a.null_count != 0) {
    return Corrupt(a, "null_count " + std::to_string(a.null_count) + " without a validity bitmap");
  }

  const size_t expected_children = id == TypeId::kStruct                              ? a.type.children.size()
                                   : (IsListType(id) || id == TypeId::kFixedSizeList) ? 1
                                                                                      : 0;
  if (a.children.size() != expected_children || a.type.children.size() != expected_children) {
    return Corrupt(
        a, "has " + std::to_string(a.children.size()) + " children, expected " + std::to_string(expected_children));
  }
  if (id != TypeId::kDictionary && a.dictionary) return Corrupt(a, "unexpected dictionary");

  switch (id) {
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      const int64_t data_size = a.buffers[2] ? static_cast<int64_t>(a.buffers[2]->size()) : 0;
      return HasLargeOffsets(id) ? CheckOffsets<int64_t>(a, data_size, "data size")
                                 : CheckOffsets<int32_t>(a, data_size, "data size");
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      if (id == TypeId::kMap) {
        const DataType& entries = a.type.children[0].type;
        if (entries.id != TypeId::kStruct || entries.children.size() != 2) {
          return Corrupt(a, "map entries must be a struct of key and value");
        }
      }
      RETURN_IF_ERROR(ValidateChild(a, 0, a.type.children[0].type, 0, depth));
      return HasLargeOffsets(id) ? CheckOffsets<int64_t>(a, a.children[0].length, "child length")
                                 : CheckOffsets<int32_t>(a, a.children[0].length, "child length");
    }
    case TypeId::kFixedSizeList:
      if (a.type.list_size < 0) return Corrupt(a, "negative list size");
      if (CheckedMul(end, a.type.list_size) < 0) return Corrupt(a, "list size times length overflows");
      return ValidateChild(a, 0, a.type.children[0].type, end * a.type.list_size, depth);
    case TypeId::kStruct:
      for (size_t i = 0; i < a.children.size(); ++i) {
        RETURN_IF_ERROR(ValidateChild(a, i, a.type.children[i].type, end, depth));
      }
      return Status::OK();
    case TypeId::kDictionary: {
      if (!a.type.index_type || !a.type.value_type || !IsIntegerType(a.type.index_type->id)) {
        return Corrupt(a, "dictionary type needs an integer index type and a value type");
      }
      if (!a.dictionary) return Corrupt(a, "missing dictionary");
      if (a.dictionary->type != *a.type.value_type) return Corrupt(a, "dictionary has the wrong type");
      Status st = ValidateImpl(*a.dictionary, depth + 1);
      if (!st.ok()) return st.WithContext("dictionary");
      const int64_t width = a.type.index_type->BitWidth() / 8;
      RETURN_IF_ERROR(CheckBufferSize(a, 1, end * width, "indices"));
      const uint8_t* p = a.buffers[1] ? a.buffers[1]->data() : nullptr;
      for (int64_t i = 0; i < a.length; ++i) {
        if (!a.IsValid(i)) continue;
        int64_t idx = ReadIndex(*a.type.index_type, p, a.offset + i);
        if (idx < 0 || idx >= a.dictionary->length) {
          return Corrupt(a, "index " + std::to_string(idx) + " at row " + std::to_string(i) + " outside dictionary");
        }
      }
      return Status::OK();
    }
    case TypeId::kFixedSizeBinary:
      if (a.type.byte_width < 0) return Corrupt(a, "negative byte width");
      if (CheckedMul(end, a.type.byte_width) < 0) return Corrupt(a, "byte width times length overflows");
      return CheckBufferSize(a, 1, end * a.type.byte_width, "values");
    default:
      if (a.type.BitWidth() == 0) return Corrupt(a, "unsupported type");
      return CheckBufferSize(a, 1, BytesForBits(end * a.type.BitWidth()), "values");
  }
}

// ---------------------------------------------------------------------------
// ArraysEqual

bool RangeEqual(const Array& a, int64_t ai, const Array& b, int64_t bi, int64_t n);

bool Float16IsNaN(uint16_t v) { return (v & 0x7c00) == 0x7c00 && (v & 0x03ff) != 0; }

// Compares valid value a[i] with b[j] (logical indices); types are already equal.
bool ValueEqual(const Array& a, int64_t i, const Array& b, int64_t j) {
  const TypeId id = a.type.id;
  switch (id) {
    case TypeId::kNull:
      return true;
    case TypeId::kBool:
      return a.GetBool(i) == b.GetBool(j);
    case TypeId::kFloat16: {
      uint16_t x = a.values<uint16_t>()[i], y = b.values<uint16_t>()[j];
      return x == y || (Float16IsNaN(x) && Float16IsNaN(y));
    }
    case TypeId::kFloat32: {
      float x = a.values<float>()[i], y = b.values<float>()[j];
      return std::memcmp(&x, &y, sizeof(x)) == 0 || (std::isnan(x) && std::isnan(y));
    }
    case TypeId::kFloat64: {
      double x = a.values<double>()[i], y = b.values<double>()[j];
      return std::memcmp(&x, &y, sizeof(x)) == 0 || (std::isnan(x) && std::isnan(y));
    }
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return a.GetView(i) == b.GetView(j);
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      auto [ab, ae] = a.ListRange(i);
      auto [bb, be] = b.ListRange(j);
      return ae - ab == be - bb && RangeEqual(a.children[0], ab, b.children[0], bb, ae - ab);
    }
    case TypeId::kFixedSizeList: {
      const int64_t size = a.type.list_size;
      return RangeEqual(a.children[0], (a.offset + i) * size, b.children[0], (b.offset + j) * size, size);
    }
    case TypeId::kStruct:
      for (size_t k = 0; k < a.children.size(); ++k) {
        if (!RangeEqual(a.children[k], a.offset + i, b.children[k], b.offset + j, 1)) return false;
      }
      return true;
    case TypeId::kDictionary: {
      int64_t x = ReadIndex(*a.type.index_type, a.buffers[1]->data(), a.offset + i);
      int64_t y = ReadIndex(*b.type.index_type, b.buffers[1]->data(), b.offset + j);
      return RangeEqual(*a.dictionary, x, *b.dictionary, y, 1);
    }
    default: {
      const int64_t w = ByteWidth(a.type);
      return std::memcmp(a.buffers[1]->data() + (a.offset + i) * w, b.buffers[1]->data() + (b.offset + j) * w,
                         static_cast<size_t>(w)) == 0;
    }
  }
}

bool RangeEqual(const Array& a, int64_t ai, const Array& b, int64_t bi, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    const bool va = a.IsValid(ai + k);
    if (va != b.IsValid(bi + k)) return false;
    if (va && !ValueEqual(a, ai + k, b, bi + k)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Concatenate and TakeRows

Result<Array> ConcatImpl(const DataType& type, const std::vector<Array>& arrays);

// Builds the validity buffer for `out` from row ranges of the inputs; leaves it
// absent when no row is null.
template <typename ForEachRange>
void BuildValidity(Array* out, ForEachRange&& for_each_range) {
  bit_util::BitmapBuilder bits;
  bits.Reserve(out->length);
  for_each_range(
      [&](const Array& a, int64_t begin, int64_t n) { bits.AppendBits(ValidityBits(a), a.offset + begin, n); });
  out->null_count = bits.false_count();
  auto buffer = bits.Finish();
  if (out->null_count > 0) out->buffers[0] = std::move(buffer);
}

template <typename OffsetT>
Status ConcatVarBinary(const std::vector<Array>& arrays, Array* out) {
  BufferBuilder offsets, data;
  offsets.Reserve((out->length + 1) * sizeof(OffsetT));
  int64_t total = 0;
  offsets.AppendValue<OffsetT>(0);
  for (const Array& a : arrays) {
    if (a.length == 0) continue;
    const int64_t first = OffsetAt(a, a.offset);
    const int64_t last = OffsetAt(a, a.offset + a.length);
    if (total + (last - first) > static_cast<int64_t>(std::numeric_limits<OffsetT>::max())) {
      return Status::OutOfRange("concatenated " + out->type.ToString() + " data exceeds its offset range");
    }
    if (last > first) data.Append(a.buffers[2]->data() + first, static_cast<size_t>(last - first));
    for (int64_t j = a.offset + 1; j <= a.offset + a.length; ++j) {
      offsets.AppendValue<OffsetT>(static_cast<OffsetT>(total + OffsetAt(a, j) - first));
    }
    total += last - first;
  }
  out->buffers[1] = offsets.Finish();
  out->buffers[2] = data.Finish();
  return Status::OK();
}

template <typename OffsetT>
Status ConcatList(const std::vector<Array>& arrays, Array* out) {
  BufferBuilder offsets;
  offsets.Reserve((out->length + 1) * sizeof(OffsetT));
  offsets.AppendValue<OffsetT>(0);
  std::vector<Array> child_slices;
  int64_t total = 0;
  for (const Array& a : arrays) {
    if (a.length == 0) continue;
    const int64_t first = OffsetAt(a, a.offset);
    const int64_t last = OffsetAt(a, a.offset + a.length);
    if (total + (last - first) > static_cast<int64_t>(std::numeric_limits<OffsetT>::max())) {
      return Status::OutOfRange("concatenated " + out->type.ToString() + " children exceed the offset range");
    }
    for (int64_t j = a.offset + 1; j <= a.offset + a.length; ++j) {
      offsets.AppendValue<OffsetT>(static_cast<OffsetT>(total + OffsetAt(a, j) - first));
    }
    child_slices.push_back(SliceArray(a.children[0], first, last - first));
    total += last - first;
  }
  out->buffers[1] = offsets.Finish();
  const DataType& child_type = out->type.children[0].type;
  if (child_slices.empty()) {
    ASSIGN_OR_RETURN(Array child, MakeNullArray(child_type, 0));
    out->children.push_back(std::move(child));
  } else {
    ASSIGN_OR_RETURN(Array child, ConcatImpl(child_type, child_slices));
    out->children.push_back(std::move(child));
  }
  return Status::OK();
}

Result<Array> ConcatImpl(const DataType& type, const std::vector<Array>& arrays) {
  Array out;
  out.type = type;
  for (const Array& a : arrays) {
    if (a.type != type) {
      return Status::InvalidArgument("cannot concatenate " + a.type.ToString() + " with " + type.ToString());
    }
    out.length += a.length;
    if (out.length > kMaxLogicalLength) return Status::OutOfRange("concatenated length too large");
  }
  if (type.id == TypeId::kNull) {
    out.null_count = out.length;
    return out;
  }
  out.buffers.resize(ExpectedBufferCount(type.id));
  // Inputs without validity bitmaps (most, and every embedding's items) need none built.
  if (std::any_of(arrays.begin(), arrays.end(), [](const Array& a) { return ValidityBits(a) != nullptr; })) {
    BuildValidity(&out, [&](auto&& emit) {
      for (const Array& a : arrays) emit(a, 0, a.length);
    });
  }

  switch (type.id) {
    case TypeId::kBool: {
      bit_util::BitmapBuilder bits;
      bits.Reserve(out.length);
      for (const Array& a : arrays) bits.AppendBits(a.buffers[1]->data(), a.offset, a.length);
      out.buffers[1] = bits.Finish();
      return out;
    }
    case TypeId::kUtf8:
    case TypeId::kBinary:
      RETURN_IF_ERROR(ConcatVarBinary<int32_t>(arrays, &out));
      return out;
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
      RETURN_IF_ERROR(ConcatVarBinary<int64_t>(arrays, &out));
      return out;
    case TypeId::kList:
    case TypeId::kMap:
      RETURN_IF_ERROR(ConcatList<int32_t>(arrays, &out));
      return out;
    case TypeId::kLargeList:
      RETURN_IF_ERROR(ConcatList<int64_t>(arrays, &out));
      return out;
    case TypeId::kFixedSizeList: {
      const int64_t size = type.list_size;
      std::vector<Array> slices;
      for (const Array& a : arrays) slices.push_back(SliceArray(a.children[0], a.offset * size, a.length * size));
      ASSIGN_OR_RETURN(Array child, ConcatImpl(type.children[0].type, slices));
      out.children.push_back(std::move(child));
      return out;
    }
    case TypeId::kStruct: {
      for (size_t k = 0; k < type.children.size(); ++k) {
        std::vector<Array> slices;
        for (const Array& a : arrays) slices.push_back(SliceArray(a.children[k], a.offset, a.length));
        ASSIGN_OR_RETURN(Array child, ConcatImpl(type.children[k].type, slices));
        out.children.push_back(std::move(child));
      }
      return out;
    }
    case TypeId::kDictionary: {
      // All-null inputs never reference their dictionary, so they need not match it.
      std::shared_ptr<Array> dictionary;
      for (const Array& a : arrays) {
        if (!a.dictionary) return Status::InvalidArgument("dictionary array without a dictionary");
        if (a.null_count == a.length && a.length > 0) continue;
        if (!dictionary) {
          dictionary = a.dictionary;
        } else if (a.dictionary != dictionary && !ArraysEqual(*a.dictionary, *dictionary)) {
          return Status::NotSupported("concatenating dictionary arrays with different dictionaries");
        }
      }
      if (!dictionary) dictionary = arrays[0].dictionary;
      const int64_t w = type.index_type->BitWidth() / 8;
      BufferBuilder values;
      values.Reserve(out.length * w);
      for (const Array& a : arrays) values.Append(a.buffers[1]->data() + a.offset * w, a.length * w);
      out.buffers[1] = values.Finish();
      out.dictionary = std::move(dictionary);
      return out;
    }
    default: {
      if (!IsByteWidth(type)) return Status::NotSupported("concatenating " + type.ToString());
      const int64_t w = ByteWidth(type);
      BufferBuilder values;
      values.Reserve(out.length * w);
      for (const Array& a : arrays) {
        if (w > 0) values.Append(a.buffers[1]->data() + a.offset * w, a.length * w);
      }
      out.buffers[1] = values.Finish();
      return out;
    }
  }
}

// A take reads from one array or, to gather a take over several fragments in one pass,
// from several of one type: an index is its source's number shifted by kSourceShift,
// plus a logical row of that source. Rows stay below kMaxLogicalLength, so the two
// never overlap, and with one source an index is just the row.
constexpr int kSourceShift = 48;
constexpr int64_t kRowMask = (int64_t{1} << kSourceShift) - 1;
using Sources = std::vector<const Array*>;

const Array& SourceOf(const Sources& src, int64_t index) { return *src[static_cast<size_t>(index >> kSourceShift)]; }
int64_t RowOf(int64_t index) { return index & kRowMask; }
int64_t SourceBits(int64_t index) { return index & ~kRowMask; }

Sources ChildSources(const Sources& src, size_t k) {
  Sources out;
  out.reserve(src.size());
  for (const Array* a : src) out.push_back(&a->children[k]);
  return out;
}

Result<Array> TakeImpl(const Sources& src, const std::vector<int64_t>& indices);

template <typename OffsetT>
Status TakeVarBinary(const Sources& src, const std::vector<int64_t>& indices, Array* out) {
  // Sized first, so the values are copied once into memory of their exact size (a
  // growing buffer copies them again and faults in fresh pages at every doubling).
  int64_t total = 0;
  for (int64_t i : indices) {
    const Array& a = SourceOf(src, i);
    if (a.IsValid(RowOf(i))) total += static_cast<int64_t>(a.GetView(RowOf(i)).size());
  }
  if (total > static_cast<int64_t>(std::numeric_limits<OffsetT>::max())) {
    return Status::OutOfRange("taken " + out->type.ToString() + " data exceeds its offset range");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> offsets,
                   Buffer::AllocateUninitialized((indices.size() + 1) * sizeof(OffsetT)));
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> data, Buffer::AllocateUninitialized(static_cast<uint64_t>(total)));
  OffsetT* off = reinterpret_cast<OffsetT*>(offsets->mutable_data());
  uint8_t* dst = data->mutable_data();
  OffsetT at = 0;
  *off++ = 0;
  for (int64_t i : indices) {
    const Array& a = SourceOf(src, i);
    if (a.IsValid(RowOf(i))) {
      std::string_view v = a.GetView(RowOf(i));
      if (!v.empty()) std::memcpy(dst + at, v.data(), v.size());
      at += static_cast<OffsetT>(v.size());
    }
    *off++ = at;
  }
  out->buffers[1] = std::move(offsets);
  out->buffers[2] = std::move(data);
  return Status::OK();
}

template <typename OffsetT>
Status TakeList(const Sources& src, const std::vector<int64_t>& indices, Array* out) {
  BufferBuilder offsets;
  offsets.Reserve((indices.size() + 1) * sizeof(OffsetT));
  offsets.AppendValue<OffsetT>(0);
  std::vector<int64_t> child_indices;
  for (int64_t i : indices) {
    const Array& a = SourceOf(src, i);
    // Null lists get empty ranges, whatever the input's offsets say.
    if (a.IsValid(RowOf(i))) {
      auto [begin, end] = a.ListRange(RowOf(i));
      if (static_cast<int64_t>(child_indices.size()) + (end - begin) >
          static_cast<int64_t>(std::numeric_limits<OffsetT>::max())) {
        return Status::OutOfRange("taken " + a.type.ToString() + " children exceed the offset range");
      }
      for (int64_t c = begin; c < end; ++c) child_indices.push_back(SourceBits(i) | c);
    }
    offsets.AppendValue<OffsetT>(static_cast<OffsetT>(child_indices.size()));
  }
  out->buffers[1] = offsets.Finish();
  ASSIGN_OR_RETURN(Array child, TakeImpl(ChildSources(src, 0), child_indices));
  out->children.push_back(std::move(child));
  return Status::OK();
}

// `indices` are bounds-checked; every source has the type of the first.
Result<Array> TakeImpl(const Sources& src, const std::vector<int64_t>& indices) {
  const DataType& type = src[0]->type;
  Array out;
  out.type = type;
  out.length = static_cast<int64_t>(indices.size());
  if (type.id == TypeId::kNull) {
    out.null_count = out.length;
    return out;
  }
  out.buffers.resize(ExpectedBufferCount(type.id));
  // Without a validity bitmap every taken row is valid too: nothing to build.
  if (std::any_of(src.begin(), src.end(), [](const Array* a) { return ValidityBits(*a) != nullptr; })) {
    BuildValidity(&out, [&](auto&& emit) {
      for (int64_t i : indices) emit(SourceOf(src, i), RowOf(i), 1);
    });
  }
  switch (type.id) {
    case TypeId::kBool: {
      bit_util::BitmapBuilder bits;
      bits.Reserve(out.length);
      for (int64_t i : indices) bits.Append(SourceOf(src, i).GetBool(RowOf(i)));
      out.buffers[1] = bits.Finish();
      return out;
    }
    case TypeId::kUtf8:
    case TypeId::kBinary:
      RETURN_IF_ERROR(TakeVarBinary<int32_t>(src, indices, &out));
      return out;
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
      RETURN_IF_ERROR(TakeVarBinary<int64_t>(src, indices, &out));
      return out;
    case TypeId::kList:
    case TypeId::kMap:
      RETURN_IF_ERROR(TakeList<int32_t>(src, indices, &out));
      return out;
    case TypeId::kLargeList:
      RETURN_IF_ERROR(TakeList<int64_t>(src, indices, &out));
      return out;
    case TypeId::kFixedSizeList: {
      const int64_t size = type.list_size;
      const DataType& item_type = type.children[0].type;
      // Fixed-width items without nulls (embeddings): a row's items are one run of bytes.
      if (IsByteWidth(item_type) && ByteWidth(item_type) > 0 &&
          std::none_of(src.begin(), src.end(),
                       [](const Array* a) { return ValidityBits(a->children[0]) != nullptr; })) {
        const int64_t w = ByteWidth(item_type), row_bytes = size * w;
        ASSIGN_OR_RETURN(std::shared_ptr<Buffer> values,
                         Buffer::AllocateUninitialized(static_cast<size_t>(out.length * row_bytes)));
        uint8_t* dst = values->mutable_data();
        for (int64_t i : indices) {
          const Array& a = SourceOf(src, i);
          const Array& items = a.children[0];
          const uint8_t* base = items.buffers[1]->data() + items.offset * w;
          std::memcpy(dst, base + (a.offset + RowOf(i)) * row_bytes, static_cast<size_t>(row_bytes));
          dst += row_bytes;
        }
        Array child;
        child.type = item_type;
        child.length = out.length * size;
        child.buffers = {nullptr, std::move(values)};
        out.children.push_back(std::move(child));
        return out;
      }
      std::vector<int64_t> child_indices;
      child_indices.reserve(indices.size() * size);
      for (int64_t i : indices) {
        const int64_t first = (SourceOf(src, i).offset + RowOf(i)) * size;
        for (int64_t k = 0; k < size; ++k) child_indices.push_back(SourceBits(i) | (first + k));
      }
      ASSIGN_OR_RETURN(Array child, TakeImpl(ChildSources(src, 0), child_indices));
      out.children.push_back(std::move(child));
      return out;
    }
    case TypeId::kStruct: {
      std::vector<int64_t> child_indices;
      child_indices.reserve(indices.size());
      for (int64_t i : indices) child_indices.push_back(SourceBits(i) | (SourceOf(src, i).offset + RowOf(i)));
      for (size_t k = 0; k < type.children.size(); ++k) {
        ASSIGN_OR_RETURN(Array taken, TakeImpl(ChildSources(src, k), child_indices));
        out.children.push_back(std::move(taken));
      }
      return out;
    }
    case TypeId::kDictionary: {
      for (const Array* a : src) {
        if (!a->dictionary) return Status::InvalidArgument("dictionary array without a dictionary");
        if (a->dictionary != src[0]->dictionary && !ArraysEqual(*a->dictionary, *src[0]->dictionary)) {
          return Status::NotSupported("taking from dictionary arrays with different dictionaries");
        }
      }
      const int64_t w = type.index_type->BitWidth() / 8;
      BufferBuilder values;
      values.Reserve(out.length * w);
      for (int64_t i : indices) {
        const Array& a = SourceOf(src, i);
        values.Append(a.buffers[1]->data() + (a.offset + RowOf(i)) * w, w);
      }
      out.buffers[1] = values.Finish();
      out.dictionary = src[0]->dictionary;
      return out;
    }
    default: {
      if (!IsByteWidth(type)) return Status::NotSupported("taking from " + type.ToString());
      const int64_t w = ByteWidth(type);
      ASSIGN_OR_RETURN(std::shared_ptr<Buffer> values,
                       Buffer::AllocateUninitialized(static_cast<size_t>(out.length * w)));
      uint8_t* dst = values->mutable_data();
      if (w > 0) {
        for (int64_t i : indices) {
          const Array& a = SourceOf(src, i);
          std::memcpy(dst, a.buffers[1]->data() + (a.offset + RowOf(i)) * w, static_cast<size_t>(w));
          dst += w;
        }
      }
      out.buffers[1] = std::move(values);
      return out;
    }
  }
}

Result<Array> MakeNullImpl(const DataType& type, int64_t length, int depth) {
  if (depth > kMaxNestingDepth) return Status::InvalidArgument("type nesting too deep: " + type.ToString());
  Array out;
  out.type = type;
  out.length = length;
  out.null_count = length;
  if (type.id == TypeId::kNull) return out;
  out.buffers.resize(ExpectedBufferCount(type.id));
  ASSIGN_OR_RETURN(out.buffers[0], Buffer::Allocate(BytesForBits(length)));
  switch (type.id) {  // NOLINT: every case returns
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      ASSIGN_OR_RETURN(out.buffers[1], Buffer::Allocate((length + 1) * (HasLargeOffsets(type.id) ? 8 : 4)));
      out.buffers[2] = Buffer::Empty();
      return out;
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      if (type.children.size() != 1) return Status::InvalidArgument(type.ToString() + " needs one child field");
      ASSIGN_OR_RETURN(out.buffers[1], Buffer::Allocate((length + 1) * (HasLargeOffsets(type.id) ? 8 : 4)));
      ASSIGN_OR_RETURN(Array child, MakeNullImpl(type.children[0].type, 0, depth + 1));
      out.children.push_back(std::move(child));
      return out;
    }
    case TypeId::kFixedSizeList: {
      if (type.children.size() != 1 || type.list_size < 0) {
        return Status::InvalidArgument("malformed type " + type.ToString());
      }
      if (type.list_size > 0 && length > kMaxLogicalLength / type.list_size) {
        return Status::OutOfRange("null " + type.ToString() + " array too large");
      }
      ASSIGN_OR_RETURN(Array child, MakeNullImpl(type.children[0].type, length * type.list_size, depth + 1));
      out.children.push_back(std::move(child));
      return out;
    }
    case TypeId::kStruct:
      for (const Field& f : type.children) {
        ASSIGN_OR_RETURN(Array child, MakeNullImpl(f.type, length, depth + 1));
        out.children.push_back(std::move(child));
      }
      return out;
    case TypeId::kDictionary: {
      if (!type.index_type || !type.value_type || !IsIntegerType(type.index_type->id)) {
        return Status::InvalidArgument("malformed dictionary type " + type.ToString());
      }
      ASSIGN_OR_RETURN(out.buffers[1], Buffer::Allocate(length * (type.index_type->BitWidth() / 8)));
      ASSIGN_OR_RETURN(Array dict, MakeNullImpl(*type.value_type, 0, depth + 1));
      out.dictionary = std::make_shared<Array>(std::move(dict));
      return out;
    }
    case TypeId::kFixedSizeBinary: {
      if (type.byte_width < 0) return Status::InvalidArgument("negative byte width");
      if (CheckedMul(length, type.byte_width) < 0) return Status::OutOfRange("null array too large");
      ASSIGN_OR_RETURN(out.buffers[1], Buffer::Allocate(length * type.byte_width));
      return out;
    }
    default: {
      if (type.BitWidth() == 0) return Status::NotSupported("null array of " + type.ToString());
      ASSIGN_OR_RETURN(out.buffers[1], Buffer::Allocate(BytesForBits(length * type.BitWidth())));
      return out;
    }
  }
}

}  // namespace

Array ArraySlice(const Array& array, int64_t begin, int64_t length) { return SliceArray(array, begin, length); }

std::string_view Array::GetView(int64_t i) const {
  const int64_t begin = OffsetAt(*this, offset + i);
  const int64_t end = OffsetAt(*this, offset + i + 1);
  if (end == begin) return {};
  return {reinterpret_cast<const char*>(buffers[2]->data()) + begin, static_cast<size_t>(end - begin)};
}

std::pair<int64_t, int64_t> Array::ListRange(int64_t i) const {
  return {OffsetAt(*this, offset + i), OffsetAt(*this, offset + i + 1)};
}

Status Array::Validate() const { return ValidateImpl(*this, 0); }

bool ArraysEqual(const Array& a, const Array& b) {
  if (a.type != b.type || a.length != b.length) return false;
  return RangeEqual(a, 0, b, 0, a.length);
}

Result<Array> Concatenate(const std::vector<Array>& arrays) {
  if (arrays.empty()) return Status::InvalidArgument("Concatenate needs at least one array");
  return ConcatImpl(arrays[0].type, arrays);
}

Result<Array> TakeRows(const Array& array, const std::vector<int64_t>& indices) {
  for (int64_t i : indices) {
    if (i < 0 || i >= array.length) {
      return Status::OutOfRange("take index " + std::to_string(i) + " outside array of length " +
                                std::to_string(array.length));
    }
  }
  return TakeImpl({&array}, indices);
}

Result<Array> InterleaveRows(const std::vector<Array>& parts, std::span<const std::pair<uint32_t, int64_t>> rows) {
  if (parts.empty()) return Status::InvalidArgument("InterleaveRows needs at least one array");
  if (parts.size() > (size_t{1} << (63 - kSourceShift))) {
    return Status::InvalidArgument("InterleaveRows of " + std::to_string(parts.size()) + " arrays");
  }
  Sources src;
  for (const Array& a : parts) {
    if (a.type != parts[0].type) {
      return Status::InvalidArgument("cannot interleave " + a.type.ToString() + " with " + parts[0].type.ToString());
    }
    src.push_back(&a);
  }
  std::vector<int64_t> indices;
  indices.reserve(rows.size());
  for (auto [part, row] : rows) {
    if (part >= parts.size() || row < 0 || row >= parts[part].length) {
      return Status::OutOfRange("interleave row " + std::to_string(row) + " of array " + std::to_string(part) +
                                " is outside the " + std::to_string(parts.size()) + " arrays given");
    }
    indices.push_back((static_cast<int64_t>(part) << kSourceShift) | row);
  }
  return TakeImpl(src, indices);
}

Result<Array> MakeNullArray(const DataType& type, int64_t length) {
  if (length < 0 || length > kMaxLogicalLength) {
    return Status::InvalidArgument("invalid null array length " + std::to_string(length));
  }
  return MakeNullImpl(type, length, 0);
}

}  // namespace lancet
