#include "table/blob_info.h"

#include "table/blob.h"
#include "util/array_builder.h"

namespace lancet::table {
namespace {

constexpr size_t kStandardMembers = 5;
constexpr const char* kBlobInfo = "blob_info";

std::vector<Field> BlobInfoMembers() {
  return {MakeField("blob_type", MakeType(TypeId::kUInt8), false),
          MakeField("stream_info", MakeType(TypeId::kBinary), false),
          MakeField("entries", MakeType(TypeId::kBinary), false)};
}

// A copy of `a` with offset 0, so children can be combined row by row.
Result<Array> Normalized(const Array& a) {
  if (a.offset == 0) return a;
  std::vector<int64_t> rows(static_cast<size_t>(a.length));
  for (int64_t i = 0; i < a.length; ++i) rows[static_cast<size_t>(i)] = i;
  return TakeRows(a, rows);
}

std::vector<bool> Validity(const Array& a) {
  std::vector<bool> v(static_cast<size_t>(a.length));
  for (int64_t i = 0; i < a.length; ++i) v[static_cast<size_t>(i)] = a.IsValid(i);
  return v;
}

// Rebuilds a struct array with new children, keeping its validity.
Result<Array> WithChildren(const Array& s, const DataType& type, std::vector<Array> children) {
  return MakeStructArray(type, s.length, std::move(children), Validity(s));
}

}  // namespace

DataType BlobInfoType() { return StructOf(BlobInfoMembers()); }

Field BlobInfoReadField(const Field& logical) {
  Field f = BlobDescriptorField(logical);
  f.type.children.push_back(MakeField(kBlobInfo, BlobInfoType(), true));
  return f;
}

Field ToBlobInfoReadField(const Field& logical) {
  if (IsBlobV2Field(logical)) return BlobInfoReadField(logical);
  Field out = logical;
  for (Field& c : out.type.children) c = ToBlobInfoReadField(c);
  return out;
}

bool HasBlobDescriptor(const Field& field) {
  if (IsBlobInfoDescriptor(field)) return true;
  for (const Field& c : field.type.children) {
    if (HasBlobDescriptor(c)) return true;
  }
  return false;
}

bool IsBlobInfoDescriptor(const Field& field) {
  return field.type.id == TypeId::kStruct && field.type.children.size() == kStandardMembers + 1 &&
         field.type.children.back().name == kBlobInfo && field.metadata.count("lance-encoding:blob") > 0;
}

Field ToBlobInfoPhysical(const Field& read) {
  Field out = read;
  if (IsBlobInfoDescriptor(read)) {
    out.type.children.pop_back();
    for (Field& m : BlobInfoMembers()) out.type.children.push_back(std::move(m));
    return out;
  }
  for (Field& c : out.type.children) c = ToBlobInfoPhysical(c);
  return out;
}

Result<Array> BlobInfoToRead(const Field& read_field, const Array& physical_in) {
  if (read_field.type.id != TypeId::kStruct || physical_in.type.id != TypeId::kStruct) return physical_in;
  ASSIGN_OR_RETURN(Array physical, Normalized(physical_in));
  if (IsBlobInfoDescriptor(read_field)) {
    if (physical.children.size() != kStandardMembers + 3) {
      return Status::Corruption("blob column '" + read_field.name + "' has " +
                                std::to_string(physical.children.size()) +
                                " descriptor members on disk; a format 2.3 descriptor has 8");
    }
    const Array& type = physical.children[kStandardMembers];
    std::vector<bool> has_info(static_cast<size_t>(physical.length));
    for (int64_t i = 0; i < physical.length; ++i) {
      has_info[static_cast<size_t>(i)] = physical.IsValid(i) && type.values<uint8_t>()[i] != 0;
    }
    ASSIGN_OR_RETURN(Array info,
                     MakeStructArray(BlobInfoType(), physical.length,
                                     {physical.children[5], physical.children[6], physical.children[7]}, has_info));
    std::vector<Array> members(physical.children.begin(), physical.children.begin() + kStandardMembers);
    members.push_back(std::move(info));
    return WithChildren(physical, read_field.type, std::move(members));
  }
  std::vector<Array> children;
  for (size_t c = 0; c < read_field.type.children.size() && c < physical.children.size(); ++c) {
    ASSIGN_OR_RETURN(Array child, BlobInfoToRead(read_field.type.children[c], physical.children[c]));
    children.push_back(std::move(child));
  }
  return WithChildren(physical, read_field.type, std::move(children));
}

Result<Array> BlobInfoToPhysical(const Field& read_field, const Array& read_in) {
  if (read_field.type.id != TypeId::kStruct) return read_in;
  ASSIGN_OR_RETURN(Array read, Normalized(read_in));
  if (IsBlobInfoDescriptor(read_field)) {
    if (read.children.size() != kStandardMembers + 1) {
      return Status::InvalidArgument("blob column '" + read_field.name + "' descriptor lacks blob_info");
    }
    const Array& info = read.children[kStandardMembers];
    std::vector<uint8_t> types(static_cast<size_t>(read.length), 0);
    std::vector<std::optional<std::string>> streams(static_cast<size_t>(read.length), std::string());
    std::vector<std::optional<std::string>> entries(static_cast<size_t>(read.length), std::string());
    for (int64_t i = 0; i < read.length; ++i) {
      if (!read.IsValid(i) || !info.IsValid(i)) continue;
      const int64_t j = i + info.offset;
      const size_t r = static_cast<size_t>(i);
      types[r] = info.children[0].values<uint8_t>()[j];
      if (types[r] == 0) {
        return Status::InvalidArgument("blob column '" + read_field.name + "' row " + std::to_string(i) +
                                       ": blob_type 0 is reserved for 'no blob_info'");
      }
      streams[r] = std::string(info.children[1].GetView(j));
      entries[r] = std::string(info.children[2].GetView(j));
    }
    Field physical = ToBlobInfoPhysical(read_field);
    std::vector<Array> members(read.children.begin(), read.children.begin() + kStandardMembers);
    ASSIGN_OR_RETURN(Array t, ArrayFromVector(MakeType(TypeId::kUInt8), types));
    ASSIGN_OR_RETURN(Array s, MakeBinaryArray(MakeType(TypeId::kBinary), streams));
    ASSIGN_OR_RETURN(Array e, MakeBinaryArray(MakeType(TypeId::kBinary), entries));
    members.push_back(std::move(t));
    members.push_back(std::move(s));
    members.push_back(std::move(e));
    return WithChildren(read, physical.type, std::move(members));
  }
  Field physical = ToBlobInfoPhysical(read_field);
  std::vector<Array> children;
  for (size_t c = 0; c < read_field.type.children.size() && c < read.children.size(); ++c) {
    ASSIGN_OR_RETURN(Array child, BlobInfoToPhysical(read_field.type.children[c], read.children[c]));
    children.push_back(std::move(child));
  }
  return WithChildren(read, physical.type, std::move(children));
}

}  // namespace lancet::table
