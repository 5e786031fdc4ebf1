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
    case TypeId::kTimestamp:
      // The values are the same instants; only the zone's name is Arrow's.
      return read.id == TypeId::kTimestamp && read.unit == arrow.unit &&
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
