#include "table/blob.h"

#include <limits>

#include "table/external_stores.h"
#include "table/manifest.h"

namespace lancet::table {
namespace {

// Metadata the reference puts on the descriptor struct it scans (peer README).
constexpr const char* kBlobMarkerKey = "lance-encoding:blob";
constexpr const char* kPackedKey = "lance-encoding:packed";

std::string RangeText(uint64_t position, uint64_t size) {
  return "[" + std::to_string(position) + ", +" + std::to_string(size) + ")";
}

}  // namespace

Field BlobDescriptorField(const Field& logical) {
  Field f;
  f.name = logical.name;
  f.nullable = logical.nullable;
  f.id = logical.id;
  f.type = StructOf({
      MakeField("kind", MakeType(TypeId::kUInt8), false),
      MakeField("position", MakeType(TypeId::kUInt64), false),
      MakeField("size", MakeType(TypeId::kUInt64), false),
      MakeField("blob_id", MakeType(TypeId::kUInt32), false),
      MakeField("blob_uri", MakeType(TypeId::kUtf8), false),
  });
  f.metadata = {{kBlobMarkerKey, "true"}, {kPackedKey, "true"}};
  return f;
}

Field ToReadField(const Field& field) {
  if (IsBlobV2Field(field)) return BlobDescriptorField(field);
  Field out = field;
  for (Field& child : out.type.children) child = ToReadField(child);
  return out;
}

std::string BlobSidecarFileName(uint32_t blob_id) {
  std::string name(32, '0');
  for (int bit = 0; bit < 32; ++bit) {
    if ((blob_id >> bit) & 1) name[bit] = '1';
  }
  return name + ".blob";
}

Result<std::string> LocalPathOfUri(std::string_view uri, const std::string& context) {
  constexpr std::string_view kFileScheme = "file://";
  if (uri.starts_with(kFileScheme)) {
    uri.remove_prefix(kFileScheme.size());
    // file://host/path is not meaningful for us; file:///path leaves "/path".
    if (!uri.starts_with('/')) {
      return Status::NotSupported(context + ": file URI with a host is not supported: file://" + std::string(uri));
    }
    return std::string(uri);
  }
  auto scheme_end = uri.find("://");
  if (scheme_end != std::string_view::npos) {
    return Status::NotSupported(context + ": URI scheme '" + std::string(uri.substr(0, scheme_end)) +
                                "' is not supported (" + std::string(uri) + ")");
  }
  return std::string(uri);
}

Result<ResolvedBlob> ResolveBlob(const BlobDescriptor& desc, const std::string& data_file, const std::string& data_dir,
                                 const lance::table::Manifest& manifest) {
  ResolvedBlob loc;
  loc.offset = desc.position;
  loc.length = desc.size;
  if (desc.size > std::numeric_limits<uint64_t>::max() - desc.position) {
    return Status::Corruption(data_file + ": blob descriptor range " + RangeText(desc.position, desc.size) +
                              " overflows");
  }
  loc.kind = static_cast<BlobKind>(desc.kind);
  switch (loc.kind) {
    case BlobKind::kInline:
      loc.object = data_file;
      return loc;
    case BlobKind::kPacked:
    case BlobKind::kDedicated: {
      std::string_view file = data_file;
      size_t slash = file.rfind('/');
      std::string_view name = slash == std::string_view::npos ? file : file.substr(slash + 1);
      if (name.ends_with(".lance")) name.remove_suffix(6);
      loc.object = JoinPath(JoinPath(data_dir, name), BlobSidecarFileName(desc.blob_id));
      return loc;
    }
    case BlobKind::kExternal: {
      if (desc.uri.empty()) {
        return Status::Corruption(data_file + ": external blob descriptor has an empty blob_uri");
      }
      if (desc.blob_id == 0 && IsRemoteBlobUri(desc.uri)) {
        // Read through a store for the URI's bucket (ExternalStores).
        Status checked = CheckRemoteBlobUri(desc.uri, data_file);
        if (!checked.ok()) return Status::Corruption(checked.message());
        loc.object = std::string(desc.uri);
      } else if (desc.blob_id == 0) {
        ASSIGN_OR_RETURN(loc.object, LocalPathOfUri(desc.uri, data_file));
        if (!loc.object.starts_with('/')) {
          return Status::Corruption(data_file + ": external blob URI '" + std::string(desc.uri) +
                                    "' is relative but names no base path");
        }
      } else {
        const lance::table::BasePath* base = nullptr;
        for (const auto& b : manifest.base_paths()) {
          if (b.id() == desc.blob_id) base = &b;
        }
        if (base == nullptr) {
          return Status::Corruption(data_file + ": external blob names base path id " + std::to_string(desc.blob_id) +
                                    ", which the manifest does not define");
        }
        if (IsRemoteBlobUri(base->path())) {
          std::string base_dir = base->path();
          while (base_dir.ends_with('/')) base_dir.pop_back();
          loc.object = base_dir + "/" + std::string(desc.uri);
          Status checked = CheckRemoteBlobUri(loc.object, data_file);
          if (!checked.ok()) return Status::Corruption(checked.message());
        } else {
          ASSIGN_OR_RETURN(std::string base_dir, LocalPathOfUri(base->path(), data_file));
          loc.object = JoinPath(base_dir, desc.uri);
        }
      }
      // size 0 means "the whole object"; the reference reads from `position` to its end.
      loc.to_end = desc.size == 0;
      return loc;
    }
  }
  return Status::Corruption(data_file + ": unknown blob kind " + std::to_string(desc.kind));
}

}  // namespace lancet::table
