#include "format/parquet_read_arrow.h"

#include <vector>

#include "format/ipc_reader.h"

namespace lancet::format::parquet {
namespace {

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

std::optional<std::vector<uint8_t>> DecodeBase64(const std::string& text) {
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    if (c == '\n' || c == '\r') continue;
    const int v = Base64Value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return out;
}

bool SameChildren(const std::vector<Field>& read, const std::vector<Field>& arrow) {
  if (read.size() != arrow.size()) return false;
  for (size_t i = 0; i < read.size(); ++i) {
    if (read[i].name != arrow[i].name || !CanRestore(read[i].type, arrow[i].type)) return false;
  }
  return true;
}

// Offsets of a binary-like or list array widened from int32 to int64.
BufferPtr WidenOffsets(const Array& a) {
  std::vector<uint8_t> bytes((a.length + 1) * sizeof(int64_t));
  auto* out = reinterpret_cast<int64_t*>(bytes.data());
  const int32_t* in = a.buffers[1]->data_as<int32_t>() + a.offset;
  for (int64_t i = 0; i <= a.length; ++i) out[i] = in[i];
  return Buffer::FromVector(std::move(bytes));
}

// A list whose rows all hold `size` elements (null rows may hold none) as a
// fixed_size_list: null rows without elements get `size` null elements.
Result<Array> ToFixedSizeList(const Array& a, const DataType& to) {
  const int64_t size = to.list_size;
  ASSIGN_OR_RETURN(Array child, RestoreArray(a.children[0], to.children[0].type));
  std::vector<int64_t> take;
  bool padded = false;
  for (int64_t i = 0; i < a.length; ++i) {
    auto [begin, end] = a.ListRange(i);
    if (end - begin == size) {
      for (int64_t j = begin; j < end; ++j) take.push_back(j);
    } else if (end == begin && a.IsNull(i)) {
      for (int64_t j = 0; j < size; ++j) take.push_back(child.length + j);
      padded = true;
    } else {
      return Status::Corruption("a row of " + std::to_string(end - begin) + " elements in a " + to.ToString() +
                                " column");
    }
  }
  if (padded) {
    ASSIGN_OR_RETURN(Array nulls, MakeNullArray(child.type, size));
    ASSIGN_OR_RETURN(child, Concatenate({child, nulls}));
  }
  ASSIGN_OR_RETURN(Array items, TakeRows(child, take));
  Array out;
  out.type = to;
  out.length = a.length;
  out.null_count = a.null_count;
  out.buffers = {a.buffers[0]};
  out.children.push_back(std::move(items));
  return out;
}

// Values of a fixed-width array mapped one by one into a new values buffer (Parquet has
// no date64, second-resolution timestamps or times: the writer stores them as days and
// milliseconds). `map` returns false for a value that cannot come back exactly.
template <typename From, typename To, typename Map>
Result<Array> MapValues(const Array& a, const DataType& to, Map map) {
  std::vector<uint8_t> bytes(static_cast<size_t>(a.length) * sizeof(To));
  auto* out = reinterpret_cast<To*>(bytes.data());
  const From* in = a.values<From>();
  for (int64_t i = 0; i < a.length; ++i) {
    if (a.IsValid(i) && !map(in[i], &out[i])) {
      return Status::Corruption("value " + std::to_string(in[i]) + " does not convert back to " + to.ToString());
    }
  }
  Array result = a;
  result.type = to;
  result.buffers[1] = Buffer::FromVector(std::move(bytes));
  if (a.offset != 0 && a.buffers[0]) {
    // The new values start at 0: the validity bits move there too.
    std::vector<uint8_t> bits(static_cast<size_t>((a.length + 7) / 8), 0);
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.IsValid(i)) bits[static_cast<size_t>(i >> 3)] |= static_cast<uint8_t>(1u << (i & 7));
    }
    result.buffers[0] = Buffer::FromVector(std::move(bits));
  }
  result.offset = 0;
  return result;
}

constexpr int64_t kMillisPerDay = 86400000;

}  // namespace

std::optional<Schema> StoredArrowSchema(const std::string& base64) {
  auto bytes = DecodeBase64(base64);
  if (!bytes) return std::nullopt;
  auto schema = ReadIpcStreamSchema(Buffer::FromVector(std::move(*bytes)));
  if (!schema.ok()) return std::nullopt;
  return std::move(*schema);
}

bool CanRestore(const DataType& read, const DataType& arrow) {
  switch (arrow.id) {
    case TypeId::kLargeUtf8:
      return read.id == TypeId::kUtf8;
    case TypeId::kLargeBinary:
      return read.id == TypeId::kBinary;
    case TypeId::kDuration:
      return read.id == TypeId::kInt64;
    case TypeId::kDate64:
      return read.id == TypeId::kDate32;
    case TypeId::kTime32:
      return read.id == TypeId::kTime32 &&
             (read.unit == arrow.unit || (arrow.unit == TimeUnit::kSecond && read.unit == TimeUnit::kMilli));
    case TypeId::kTimestamp:
      // The values are the same instants; only the zone's name (and a second unit, which
      // Parquet stores as milliseconds) is Arrow's.
      return read.id == TypeId::kTimestamp &&
             (read.unit == arrow.unit || (arrow.unit == TimeUnit::kSecond && read.unit == TimeUnit::kMilli)) &&
             read.timezone.has_value() == arrow.timezone.has_value();
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
      return read.id == TypeId::kList && read.children.size() == 1 && arrow.children.size() == 1 &&
             CanRestore(read.children[0].type, arrow.children[0].type);
    case TypeId::kStruct:
      return read.id == TypeId::kStruct && SameChildren(read.children, arrow.children);
    case TypeId::kMap:
      return read.id == TypeId::kMap && read.children.size() == 1 && arrow.children.size() == 1 &&
             CanRestore(read.children[0].type, arrow.children[0].type);
    default:
      return read == arrow;
  }
}

Result<Array> RestoreArray(const Array& a, const DataType& to) {
  Array out = a;
  switch (to.id) {
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
      out.buffers[1] = WidenOffsets(a);
      out.offset = 0;
      break;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      ASSIGN_OR_RETURN(out.children[0], RestoreArray(a.children[0], to.children[0].type));
      if (to.id == TypeId::kLargeList) {
        out.buffers[1] = WidenOffsets(a);
        out.offset = 0;
      }
      break;
    }
    case TypeId::kFixedSizeList:
      return ToFixedSizeList(a, to);
    case TypeId::kDate64:
      return MapValues<int32_t, int64_t>(a, to, [](int32_t days, int64_t* ms) {
        *ms = int64_t{days} * kMillisPerDay;
        return true;
      });
    case TypeId::kTime32:
      if (a.type.unit == to.unit) break;
      return MapValues<int32_t, int32_t>(a, to, [](int32_t ms, int32_t* s) {
        *s = ms / 1000;
        return ms % 1000 == 0;
      });
    case TypeId::kTimestamp:
      if (a.type.unit == to.unit) break;
      return MapValues<int64_t, int64_t>(a, to, [](int64_t ms, int64_t* s) {
        *s = ms / 1000;
        return ms % 1000 == 0;
      });
    case TypeId::kStruct:
      for (size_t i = 0; i < a.children.size(); ++i) {
        ASSIGN_OR_RETURN(out.children[i], RestoreArray(a.children[i], to.children[i].type));
      }
      break;
    default:
      break;
  }
  out.type = to;
  return out;
}

}  // namespace lancet::format::parquet
