#include "util/array_builder.h"

#include <limits>

#include "util/bit_util.h"

namespace lancet {

namespace {

Status CheckValidity(const std::vector<bool>& validity, int64_t length) {
  if (!validity.empty() && static_cast<int64_t>(validity.size()) != length) {
    return Status::InvalidArgument("validity has " + std::to_string(validity.size()) + " entries for " +
                                   std::to_string(length) + " values");
  }
  return Status::OK();
}

// Builders take caller-supplied layouts; a layout error is the caller's bad argument.
Result<Array> Finish(Array array) {
  Status st = array.Validate();
  if (!st.ok()) return Status::InvalidArgument(st.message());
  return array;
}

template <typename OffsetT>
Result<Array> BuildBinary(const DataType& type, const std::vector<std::optional<std::string>>& values) {
  BufferBuilder offsets, data;
  offsets.AppendValue<OffsetT>(0);
  std::vector<bool> validity;
  validity.reserve(values.size());
  int64_t total = 0;
  for (const auto& v : values) {
    validity.push_back(v.has_value());
    if (v) {
      total += static_cast<int64_t>(v->size());
      if (total > static_cast<int64_t>(std::numeric_limits<OffsetT>::max())) {
        return Status::OutOfRange(type.ToString() + " data exceeds its offset range");
      }
      data.Append(v->data(), v->size());
    }
    offsets.AppendValue<OffsetT>(static_cast<OffsetT>(total));
  }
  Array out;
  out.type = type;
  out.length = static_cast<int64_t>(values.size());
  out.buffers = {ValidityFromVector(validity, &out.null_count), offsets.Finish(), data.Finish()};
  return Finish(std::move(out));
}

}  // namespace

BufferPtr ValidityFromVector(const std::vector<bool>& validity, int64_t* null_count) {
  bit_util::BitmapBuilder bits;
  bits.Reserve(static_cast<int64_t>(validity.size()));
  for (bool v : validity) bits.Append(v);
  *null_count = bits.false_count();
  auto buffer = bits.Finish();
  if (*null_count == 0) return nullptr;
  return buffer;
}

Result<Array> MakeFixedWidthArray(const DataType& type, std::span<const uint8_t> values, int64_t length,
                                  const std::vector<bool>& validity) {
  const int64_t width = type.id == TypeId::kFixedSizeBinary ? type.byte_width : type.BitWidth() / 8;
  if (type.id == TypeId::kBool || (type.id != TypeId::kFixedSizeBinary && !type.IsFixedWidth()) || width < 0) {
    return Status::InvalidArgument(type.ToString() + " is not a byte-width fixed type");
  }
  if (length < 0 || static_cast<uint64_t>(values.size()) != static_cast<uint64_t>(length) * width) {
    return Status::InvalidArgument("expected " + std::to_string(length) + " values of " + std::to_string(width) +
                                   " bytes, got " + std::to_string(values.size()) + " bytes");
  }
  RETURN_IF_ERROR(CheckValidity(validity, length));
  Array out;
  out.type = type;
  out.length = length;
  out.buffers = {ValidityFromVector(validity, &out.null_count), Buffer::Copy(values)};
  return Finish(std::move(out));
}

Result<Array> MakeBoolArray(const std::vector<bool>& values, const std::vector<bool>& validity) {
  const auto length = static_cast<int64_t>(values.size());
  RETURN_IF_ERROR(CheckValidity(validity, length));
  bit_util::BitmapBuilder bits;
  for (bool v : values) bits.Append(v);
  Array out;
  out.type = MakeType(TypeId::kBool);
  out.length = length;
  out.buffers = {ValidityFromVector(validity, &out.null_count), bits.Finish()};
  return Finish(std::move(out));
}

Result<Array> MakeBinaryArray(const DataType& type, const std::vector<std::optional<std::string>>& values) {
  if (type.IsBinaryLike()) return BuildBinary<int32_t>(type, values);
  if (type.IsLargeBinaryLike()) return BuildBinary<int64_t>(type, values);
  return Status::InvalidArgument(type.ToString() + " is not a binary type");
}

Array StringArray(const std::vector<std::optional<std::string>>& values) {
  Result<Array> r = MakeBinaryArray(MakeType(TypeId::kUtf8), values);
  if (r.ok()) return r.MoveValue();
  Array empty;
  empty.type = MakeType(TypeId::kUtf8);
  empty.buffers = {nullptr, Buffer::Copy(std::string_view("\0\0\0\0", 4)), Buffer::Empty()};
  return empty;
}

Result<Array> MakeListArray(const DataType& type, const std::vector<int64_t>& offsets, Array child,
                            const std::vector<bool>& validity) {
  if (type.id != TypeId::kList && type.id != TypeId::kLargeList && type.id != TypeId::kMap) {
    return Status::InvalidArgument(type.ToString() + " is not a list type");
  }
  if (offsets.empty()) return Status::InvalidArgument("list offsets need at least one entry");
  const auto length = static_cast<int64_t>(offsets.size()) - 1;
  RETURN_IF_ERROR(CheckValidity(validity, length));
  BufferBuilder offset_bytes;
  for (int64_t o : offsets) {
    if (type.id == TypeId::kLargeList) {
      offset_bytes.AppendValue<int64_t>(o);
    } else {
      if (o < std::numeric_limits<int32_t>::min() || o > std::numeric_limits<int32_t>::max()) {
        return Status::InvalidArgument("list offset " + std::to_string(o) + " exceeds int32");
      }
      offset_bytes.AppendValue<int32_t>(static_cast<int32_t>(o));
    }
  }
  Array out;
  out.type = type;
  out.length = length;
  out.buffers = {ValidityFromVector(validity, &out.null_count), offset_bytes.Finish()};
  out.children.push_back(std::move(child));
  return Finish(std::move(out));
}

Result<Array> MakeFixedSizeListArray(const DataType& type, int64_t length, Array child,
                                     const std::vector<bool>& validity) {
  if (type.id != TypeId::kFixedSizeList) return Status::InvalidArgument(type.ToString() + " is not a fixed_size_list");
  RETURN_IF_ERROR(CheckValidity(validity, length));
  Array out;
  out.type = type;
  out.length = length;
  out.buffers = {ValidityFromVector(validity, &out.null_count)};
  out.children.push_back(std::move(child));
  return Finish(std::move(out));
}

Result<Array> MakeStructArray(const DataType& type, int64_t length, std::vector<Array> children,
                              const std::vector<bool>& validity) {
  if (type.id != TypeId::kStruct) return Status::InvalidArgument(type.ToString() + " is not a struct");
  RETURN_IF_ERROR(CheckValidity(validity, length));
  Array out;
  out.type = type;
  out.length = length;
  out.buffers = {ValidityFromVector(validity, &out.null_count)};
  out.children = std::move(children);
  return Finish(std::move(out));
}

Result<Array> MakeStructArray(const std::vector<std::string>& names, int64_t length, std::vector<Array> children,
                              const std::vector<bool>& validity) {
  if (names.size() != children.size()) return Status::InvalidArgument("struct names and children differ in count");
  std::vector<Field> fields;
  for (size_t i = 0; i < names.size(); ++i) fields.push_back(MakeField(names[i], children[i].type));
  return MakeStructArray(StructOf(std::move(fields)), length, std::move(children), validity);
}

Result<Array> MakeDictionaryArray(Array indices, Array dictionary) {
  DataType type = MakeType(TypeId::kDictionary);
  type.index_type = std::make_shared<DataType>(indices.type);
  type.value_type = std::make_shared<DataType>(dictionary.type);
  if (indices.buffers.size() != 2) return Status::InvalidArgument("dictionary indices must be an integer array");
  Array out;
  out.type = std::move(type);
  out.length = indices.length;
  out.null_count = indices.null_count;
  out.offset = indices.offset;
  out.buffers = std::move(indices.buffers);
  out.dictionary = std::make_shared<Array>(std::move(dictionary));
  return Finish(std::move(out));
}

Result<RecordBatch> MakeRecordBatch(const std::vector<std::string>& names, std::vector<Array> columns) {
  if (names.size() != columns.size()) return Status::InvalidArgument("record batch names and columns differ in count");
  RecordBatch batch;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0 && columns[i].length != columns[0].length) {
      return Status::InvalidArgument("column " + names[i] + " has a different length");
    }
    batch.schema.fields.push_back(MakeField(names[i], columns[i].type));
  }
  batch.num_rows = columns.empty() ? 0 : columns[0].length;
  batch.columns = std::move(columns);
  return batch;
}

}  // namespace lancet
