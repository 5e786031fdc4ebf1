#include "lancet/blob/descriptor_view.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "util/array_builder.h"

namespace lancet::blob {
namespace {

// The descriptor's children in on-disk order (docs/format §10.2).
constexpr const char* kChildNames[] = {"kind", "position", "size", "blob_id", "blob_uri"};
constexpr TypeId kChildTypes[] = {TypeId::kUInt8, TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt32, TypeId::kUtf8};
// Field metadata the read schema puts on descriptor structs.
constexpr const char* kBlobMarkerKey = "lance-encoding:blob";

Status CheckDescriptorType(const DataType& type, const std::string& what) {
  bool ok = type.id == TypeId::kStruct && type.children.size() == 5;
  for (size_t c = 0; ok && c < 5; ++c) {
    ok = type.children[c].name == kChildNames[c] && type.children[c].type.id == kChildTypes[c];
  }
  if (!ok) {
    return Status::InvalidArgument(what + " is " + type.ToString() +
                                   ", not a blob descriptor struct<kind: uint8, position: uint64, size: uint64, "
                                   "blob_id: uint32, blob_uri: utf8>");
  }
  return Status::OK();
}

DataType ViewType(const DescriptorViewOptions& options) {
  bool w = options.widen_unsigned;
  return StructOf({
      MakeField("kind", MakeType(w ? TypeId::kInt16 : TypeId::kUInt8), false),
      MakeField("position", MakeType(w ? TypeId::kInt64 : TypeId::kUInt64), false),
      MakeField("size", MakeType(w ? TypeId::kInt64 : TypeId::kUInt64), false),
      MakeField("blob_id", MakeType(w ? TypeId::kInt64 : TypeId::kUInt32), false),
      MakeField("blob_uri", MakeType(TypeId::kUtf8), false),
  });
}

// u64 values as int64, refusing those a signed engine cannot hold.
Result<std::vector<int64_t>> ToSigned(const std::vector<uint64_t>& values, const char* child) {
  std::vector<int64_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::InvalidArgument("blob descriptor row " + std::to_string(i) + ": " + child + " " +
                                     std::to_string(values[i]) + " does not fit int64");
    }
    out[i] = static_cast<int64_t>(values[i]);
  }
  return out;
}

template <typename T, typename U>
std::vector<T> Widen(const std::vector<U>& values) {
  return std::vector<T>(values.begin(), values.end());
}

bool IsDescriptorField(const Field& field) {
  auto it = field.metadata.find(kBlobMarkerKey);
  return it != field.metadata.end() && it->second == "true" && field.type.id == TypeId::kStruct;
}

// `field` and `array` with every descriptor inside replaced by its view.
Result<std::pair<Field, Array>> ApplyView(const Field& field, const Array& array,
                                          const DescriptorViewOptions& options) {
  if (IsDescriptorField(field)) {
    auto view_field = DescriptorViewField(field, options);
    if (!view_field.ok()) return view_field.status();
    auto view = DescriptorView(array, options);
    if (!view.ok()) return view.status().WithContext("blob column '" + field.name + "'");
    return std::make_pair(view_field.MoveValue(), view.MoveValue());
  }
  Field out_field = field;
  Array out_array = array;
  if (array.children.size() == field.type.children.size()) {
    for (size_t c = 0; c < array.children.size(); ++c) {
      ASSIGN_OR_RETURN(auto child, ApplyView(field.type.children[c], array.children[c], options));
      out_field.type.children[c] = std::move(child.first);
      out_array.children[c] = std::move(child.second);
    }
    out_array.type = out_field.type;
  }
  return std::make_pair(std::move(out_field), std::move(out_array));
}

}  // namespace

Result<Field> DescriptorViewField(const Field& descriptor_field, const DescriptorViewOptions& options) {
  RETURN_IF_ERROR(CheckDescriptorType(descriptor_field.type, "field '" + descriptor_field.name + "'"));
  Field out = descriptor_field;
  out.type = ViewType(options);
  if (options.null_as_sentinel) out.nullable = false;
  return out;
}

Result<Array> DescriptorView(const Array& descriptors, const DescriptorViewOptions& options) {
  RETURN_IF_ERROR(CheckDescriptorType(descriptors.type, "the descriptor array"));
  const int64_t n = descriptors.length;
  const Array& kind = descriptors.children[0];
  const Array& position = descriptors.children[1];
  const Array& size = descriptors.children[2];
  const Array& blob_id = descriptors.children[3];
  const Array& uri = descriptors.children[4];
  // Hand-built arrays reach here too: check buffers before reading values.
  RETURN_IF_ERROR(descriptors.Validate());
  std::vector<uint8_t> kinds(n, 0);
  std::vector<uint64_t> positions(n, 0), sizes(n, 0);
  std::vector<uint32_t> ids(n, 0);
  std::vector<std::optional<std::string>> uris(n, std::string());
  std::vector<bool> validity(n, true);
  for (int64_t i = 0; i < n; ++i) {
    // Children are indexed past the struct's own offset (Arrow semantics).
    int64_t r = i + descriptors.offset;
    if (descriptors.IsNull(i) || kind.IsNull(r)) {
      validity[i] = false;
      continue;
    }
    kinds[i] = kind.values<uint8_t>()[r];
    positions[i] = position.values<uint64_t>()[r];
    sizes[i] = size.values<uint64_t>()[r];
    ids[i] = blob_id.values<uint32_t>()[r];
    if (uri.IsValid(r)) uris[i] = std::string(uri.GetView(r));
  }
  const DataType type = ViewType(options);
  std::vector<Array> children(5);
  if (options.widen_unsigned) {
    ASSIGN_OR_RETURN(children[0], ArrayFromVector(type.children[0].type, Widen<int16_t>(kinds)));
    ASSIGN_OR_RETURN(auto signed_positions, ToSigned(positions, "position"));
    ASSIGN_OR_RETURN(auto signed_sizes, ToSigned(sizes, "size"));
    ASSIGN_OR_RETURN(children[1], ArrayFromVector(type.children[1].type, signed_positions));
    ASSIGN_OR_RETURN(children[2], ArrayFromVector(type.children[2].type, signed_sizes));
    ASSIGN_OR_RETURN(children[3], ArrayFromVector(type.children[3].type, Widen<int64_t>(ids)));
  } else {
    ASSIGN_OR_RETURN(children[0], ArrayFromVector(type.children[0].type, kinds));
    ASSIGN_OR_RETURN(children[1], ArrayFromVector(type.children[1].type, positions));
    ASSIGN_OR_RETURN(children[2], ArrayFromVector(type.children[2].type, sizes));
    ASSIGN_OR_RETURN(children[3], ArrayFromVector(type.children[3].type, ids));
  }
  ASSIGN_OR_RETURN(children[4], MakeBinaryArray(type.children[4].type, uris));
  if (options.null_as_sentinel) validity.clear();
  return MakeStructArray(type, n, std::move(children), validity);
}

Result<RecordBatch> DescriptorViewOfBatch(const RecordBatch& scanned, const DescriptorViewOptions& options) {
  if (scanned.columns.size() != scanned.schema.fields.size()) {
    return Status::InvalidArgument("batch has " + std::to_string(scanned.columns.size()) + " columns but its schema " +
                                   std::to_string(scanned.schema.fields.size()) + " fields");
  }
  RecordBatch out = scanned;
  for (size_t c = 0; c < scanned.columns.size(); ++c) {
    ASSIGN_OR_RETURN(auto viewed, ApplyView(scanned.schema.fields[c], scanned.columns[c], options));
    out.schema.fields[c] = std::move(viewed.first);
    out.columns[c] = std::move(viewed.second);
  }
  return out;
}

}  // namespace lancet::blob
