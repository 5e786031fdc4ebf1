#include "table/blob_input.h"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "table/blob.h"
#include "util/array_builder.h"

namespace lancet::table {
namespace {

// Streamed copies move this much at a time, so a huge value never sits in memory.
constexpr uint64_t kCopyChunk = 8ULL << 20;

bool IsListLike(TypeId id) {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kFixedSizeList || id == TypeId::kMap;
}

int ChildIndex(const DataType& type, std::string_view name) {
  for (size_t i = 0; i < type.children.size(); ++i) {
    if (type.children[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Status CheckBlobField(const Field& f, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("blob column '" + path + "': " + why +
                                   " (expected struct<data: large_binary, uri: utf8> with optional uint64 "
                                   "position and size)");
  };
  if (f.type.id != TypeId::kStruct) return bad("type is " + f.type.ToString());
  for (const Field& c : f.type.children) {
    TypeId id = c.type.id;
    if (c.name == "data") {
      if (id != TypeId::kBinary && id != TypeId::kLargeBinary) return bad("'data' is " + c.type.ToString());
    } else if (c.name == "uri") {
      if (id != TypeId::kUtf8 && id != TypeId::kLargeUtf8) return bad("'uri' is " + c.type.ToString());
    } else if (c.name == "position" || c.name == "size") {
      if (id != TypeId::kUInt64) return bad("'" + c.name + "' is " + c.type.ToString());
    } else {
      return bad("unexpected member '" + c.name + "'");
    }
  }
  if (ChildIndex(f.type, "data") < 0 && ChildIndex(f.type, "uri") < 0) return bad("neither 'data' nor 'uri'");
  return BlobThresholdsOf(f).status();
}

Status CheckField(const Field& f, const std::string& path, bool in_list) {
  if (IsBlobV2Field(f)) {
    if (in_list) {
      return Status::NotSupported("blob column '" + path +
                                  "' is inside a list; Blob V2 values can only be nested in structs");
    }
    return CheckBlobField(f, path);
  }
  bool list = in_list || IsListLike(f.type.id);
  for (const Field& c : f.type.children) RETURN_IF_ERROR(CheckField(c, path + "." + c.name, list));
  return Status::OK();
}

// Converts one batch; blob columns are numbered in pre-order so each keeps its pack.
class Storer {
 public:
  Storer(const BlobWriteContext& context, BlobSink* sink) : context_(context), sink_(sink) {}

  Result<Array> Convert(const Field& logical, const Field& read, const Array& in, const std::string& path) {
    if (IsBlobV2Field(logical)) return ConvertBlob(logical, read, in, path, next_column_++);
    if (!HasBlobField(logical)) return in;
    Array out = in;
    out.type = read.type;
    for (size_t c = 0; c < logical.type.children.size(); ++c) {
      const Field& child = logical.type.children[c];
      ASSIGN_OR_RETURN(out.children[c], Convert(child, read.type.children[c], in.children[c], path + "." + child.name));
    }
    return out;
  }

 private:
  Result<Array> ConvertBlob(const Field& logical, const Field& read, const Array& in, const std::string& path,
                            size_t column) {
    ASSIGN_OR_RETURN(BlobThresholds thresholds, BlobThresholdsOf(logical));
    const int data_idx = ChildIndex(in.type, "data"), uri_idx = ChildIndex(in.type, "uri");
    const int pos_idx = ChildIndex(in.type, "position"), size_idx = ChildIndex(in.type, "size");
    const BlobTransform* transform = nullptr;
    if (auto it = context_.transforms.find(path); it != context_.transforms.end()) transform = it->second.get();
    const int64_t n = in.length;
    std::vector<std::optional<BlobInfoValue>> infos(static_cast<size_t>(n));
    std::vector<uint8_t> kinds(static_cast<size_t>(n), 0);
    std::vector<uint64_t> positions(static_cast<size_t>(n), 0), sizes(static_cast<size_t>(n), 0);
    std::vector<uint32_t> ids(static_cast<size_t>(n), 0);
    std::vector<std::optional<std::string>> uris(static_cast<size_t>(n), std::string());
    std::vector<bool> valid(static_cast<size_t>(n), true);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ci = i + in.offset;
      const bool has_data = data_idx >= 0 && in.IsValid(i) && in.children[data_idx].IsValid(ci);
      const bool has_uri = uri_idx >= 0 && in.IsValid(i) && in.children[uri_idx].IsValid(ci);
      auto where = [&] { return "blob column '" + path + "' row " + std::to_string(i); };
      if (has_data && has_uri) return Status::InvalidArgument(where() + " sets both data and uri");
      StoredBlob stored;
      if (has_data) {
        std::string_view view = in.children[data_idx].GetView(ci);
        std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(view.data()), view.size());
        BlobSource source{bytes.size(), [bytes](const ByteSink& out) { return out(bytes); }};
        ASSIGN_OR_RETURN(stored, sink_->Put(column, thresholds, source, transform));
      } else if (has_uri) {
        uint64_t pos =
            pos_idx >= 0 && in.children[pos_idx].IsValid(ci) ? in.children[pos_idx].values<uint64_t>()[ci] : 0;
        uint64_t len =
            size_idx >= 0 && in.children[size_idx].IsValid(ci) ? in.children[size_idx].values<uint64_t>()[ci] : 0;
        std::string_view uri = in.children[uri_idx].GetView(ci);
        if (context_.uri_mode == BlobUriMode::kCopy) {
          ASSIGN_OR_RETURN(stored, Copy(uri, pos, len, column, thresholds, transform, where()));
        } else {
          if (transform != nullptr) {
            return Status::InvalidArgument(where() +
                                           ": an external reference cannot go through a media transform; "
                                           "copy the bytes into the dataset instead");
          }
          ASSIGN_OR_RETURN(stored, External(uri, pos, len, where()));
        }
      } else {
        if (!logical.nullable) return Status::InvalidArgument(where() + " is null but the column is not nullable");
        valid[static_cast<size_t>(i)] = false;
        continue;
      }
      const size_t r = static_cast<size_t>(i);
      kinds[r] = static_cast<uint8_t>(stored.kind);
      positions[r] = stored.position;
      sizes[r] = stored.size;
      ids[r] = stored.blob_id;
      uris[r] = std::move(stored.uri);
      infos[r] = std::move(stored.info);
    }
    const DataType& type = read.type;
    ASSIGN_OR_RETURN(Array kind_out, ArrayFromVector(type.children[0].type, kinds));
    ASSIGN_OR_RETURN(Array position_out, ArrayFromVector(type.children[1].type, positions));
    ASSIGN_OR_RETURN(Array size_out, ArrayFromVector(type.children[2].type, sizes));
    ASSIGN_OR_RETURN(Array id_out, ArrayFromVector(type.children[3].type, ids));
    ASSIGN_OR_RETURN(Array uri_out, MakeBinaryArray(type.children[4].type, uris));
    std::vector<Array> members = {kind_out, position_out, size_out, id_out, uri_out};
    if (context_.blob_info) {
      ASSIGN_OR_RETURN(Array info, BlobInfoArray(type.children[5].type, infos));
      members.push_back(std::move(info));
    }
    return MakeStructArray(type, n, std::move(members), valid);
  }

  static Result<Array> BlobInfoArray(const DataType& type, const std::vector<std::optional<BlobInfoValue>>& infos) {
    const size_t n = infos.size();
    std::vector<uint8_t> types(n, 0);
    std::vector<std::optional<std::string>> streams(n, std::string()), entries(n, std::string());
    std::vector<bool> valid(n, false);
    auto text = [](const BufferPtr& b) { return b ? std::string(b->view()) : std::string(); };
    for (size_t i = 0; i < n; ++i) {
      if (!infos[i]) continue;
      valid[i] = true;
      types[i] = infos[i]->blob_type;
      streams[i] = text(infos[i]->stream_info);
      entries[i] = text(infos[i]->entries);
    }
    ASSIGN_OR_RETURN(Array t, ArrayFromVector(type.children[0].type, types));
    ASSIGN_OR_RETURN(Array s, MakeBinaryArray(type.children[1].type, streams));
    ASSIGN_OR_RETURN(Array e, MakeBinaryArray(type.children[2].type, entries));
    return MakeStructArray(type, static_cast<int64_t>(n), {t, s, e}, valid);
  }

  Result<std::string> SourcePath(std::string_view uri, const std::string& where) {
    auto path = LocalPathOfUri(uri, where);
    if (!path.ok()) return Status::InvalidArgument(path.status().message());
    if (!path->starts_with('/')) {
      return Status::InvalidArgument(where + ": blob URI '" + std::string(uri) + "' is not an absolute path");
    }
    return path;
  }

  Result<std::unique_ptr<io::RandomAccessFile>> OpenSource(std::string_view uri, const std::string& where) {
    if (IsRemoteBlobUri(uri)) {
      RETURN_IF_ERROR(CheckRemoteBlobUri(uri, where));
      if (!context_.externals) return Status::Internal(where + ": no store for s3:// sources");
      return context_.externals->OpenRead(std::string(uri));
    }
    ASSIGN_OR_RETURN(std::string path, SourcePath(uri, where));
    return context_.sources->OpenRead(path);
  }

  Result<StoredBlob> Copy(std::string_view uri, uint64_t pos, uint64_t len, size_t column,
                          const BlobThresholds& thresholds, const BlobTransform* transform, const std::string& where) {
    const std::string path(uri);
    auto file = OpenSource(uri, where);
    if (!file.ok()) return file.status().WithContext(where);
    ASSIGN_OR_RETURN(uint64_t size, (*file)->Size());
    if (pos > size || (len != 0 && len > size - pos)) {
      return Status::InvalidArgument(where + ": range [" + std::to_string(pos) + ", +" + std::to_string(len) +
                                     ") is past the end of " + path + " (" + std::to_string(size) + " bytes)");
    }
    if (len == 0) len = size - pos;
    const io::RandomAccessFile& f = **file;
    BlobSource source{len, [&f, pos, len](const ByteSink& out) -> Status {
                        for (uint64_t done = 0; done < len;) {
                          uint64_t n = std::min(kCopyChunk, len - done);
                          ASSIGN_OR_RETURN(BufferPtr chunk, f.ReadAt(pos + done, n));
                          RETURN_IF_ERROR(out(chunk->span()));
                          done += n;
                        }
                        return Status::OK();
                      }};
    // A media transform rejecting the bytes (a corrupt video) is about this file.
    auto stored = sink_->Put(column, thresholds, source, transform);
    if (!stored.ok()) return stored.status().WithContext(where + " (" + path + ")");
    return stored;
  }

  Result<StoredBlob> External(std::string_view uri, uint64_t pos, uint64_t len, const std::string& where) {
    if (len > std::numeric_limits<uint64_t>::max() - pos) {
      return Status::InvalidArgument(where + ": external range [" + std::to_string(pos) + ", +" + std::to_string(len) +
                                     ") overflows");
    }
    if (IsRemoteBlobUri(uri)) return ExternalRemote(uri, pos, len, where);
    ASSIGN_OR_RETURN(std::string path, SourcePath(uri, where));
    for (const auto& part : std::filesystem::path(path)) {
      if (part == "..") {
        return Status::InvalidArgument(where + ": external blob URI '" + std::string(uri) +
                                       "' contains '..'; give the path without parent references");
      }
    }
    std::string normal = std::filesystem::path(path).lexically_normal().string();
    if (len == 0 && pos > 0) {
      // Size 0 means "the whole object" to readers; "from pos to the end" must be
      // stored with its length (lance 12 reads size 0 as the object's size from pos).
      auto size = context_.sources->Size(normal);
      if (!size.ok()) return size.status().WithContext(where + ": external blob from position " + std::to_string(pos));
      if (pos > *size) {
        return Status::InvalidArgument(where + ": external blob position " + std::to_string(pos) +
                                       " is past the end of " + normal + " (" + std::to_string(*size) + " bytes)");
      }
      len = *size - pos;
      if (len == 0) {
        return Status::InvalidArgument(where + ": external blob position " + std::to_string(pos) + " is the end of " +
                                       normal + "; an empty range cannot be referenced");
      }
    }
    StoredBlob out;
    out.kind = BlobKind::kExternal;
    out.position = pos;
    out.size = len;
    for (const ExternalBase& base : context_.bases) {
      if (normal.size() > base.dir.size() + 1 && normal.starts_with(base.dir) && normal[base.dir.size()] == '/') {
        out.blob_id = base.id;
        out.uri = normal.substr(base.dir.size() + 1);
        return out;
      }
    }
    RETURN_IF_ERROR(OutsideBases(uri, where));
    out.uri = std::string(uri);
    return out;
  }

  Status OutsideBases(std::string_view uri, const std::string& where) const {
    if (context_.allow_outside_bases) return Status::OK();
    std::string bases;
    for (const ExternalBase& b : context_.bases) bases += (bases.empty() ? "" : ", ") + b.dir;
    return Status::InvalidArgument(
        where + ": external blob URI '" + std::string(uri) + "' is outside the registered external bases (" +
        (bases.empty() ? std::string("none") : bases) + "); register its directory or allow URIs outside the bases");
  }

  // An s3:// reference: stored as given (or relative to an s3:// base); the object is
  // only asked for its size when the range runs to its end from a non-zero position.
  Result<StoredBlob> ExternalRemote(std::string_view uri, uint64_t pos, uint64_t len, const std::string& where) {
    RETURN_IF_ERROR(CheckRemoteBlobUri(uri, where));
    if (len == 0 && pos > 0) {
      if (!context_.externals) return Status::Internal(where + ": no store for s3:// references");
      auto size = context_.externals->Size(std::string(uri));
      if (!size.ok()) return size.status().WithContext(where + ": external blob from position " + std::to_string(pos));
      if (pos >= *size) {
        return Status::InvalidArgument(where + ": external blob position " + std::to_string(pos) +
                                       " is at or past the end of " + std::string(uri) + " (" + std::to_string(*size) +
                                       " bytes)");
      }
      len = *size - pos;
    }
    StoredBlob out;
    out.kind = BlobKind::kExternal;
    out.position = pos;
    out.size = len;
    for (const ExternalBase& base : context_.bases) {
      if (uri.size() > base.dir.size() + 1 && uri.starts_with(base.dir) && uri[base.dir.size()] == '/') {
        out.blob_id = base.id;
        out.uri = std::string(uri.substr(base.dir.size() + 1));
        return out;
      }
    }
    RETURN_IF_ERROR(OutsideBases(uri, where));
    out.uri = std::string(uri);
    return out;
  }

  const BlobWriteContext& context_;
  BlobSink* sink_;
  size_t next_column_ = 0;
};

}  // namespace

bool HasBlobField(const Field& field) {
  if (IsBlobV2Field(field)) return true;
  for (const Field& c : field.type.children) {
    if (HasBlobField(c)) return true;
  }
  return false;
}

Status CheckBlobInputSchema(const Schema& schema) {
  for (const Field& f : schema.fields) RETURN_IF_ERROR(CheckField(f, f.name, false));
  return Status::OK();
}

Result<RecordBatch> StoreBlobs(const RecordBatch& batch, const Schema& read_schema, const BlobWriteContext& context,
                               BlobSink* sink) {
  Storer storer(context, sink);
  RecordBatch out{read_schema, batch.num_rows, {}};
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    const Field& f = batch.schema.fields[c];
    ASSIGN_OR_RETURN(Array a, storer.Convert(f, read_schema.fields[c], batch.columns[c], f.name));
    out.columns.push_back(std::move(a));
  }
  return out;
}

Status ConvertBinaryToBlob(const std::map<std::string, BlobThresholds>& columns, Schema* schema,
                           std::vector<RecordBatch>* batches) {
  for (const auto& [name, thresholds] : columns) {
    int idx = schema->FieldIndex(name);
    if (idx < 0) return Status::InvalidArgument("cannot store column '" + name + "' as blobs: no such column");
    Field& f = schema->fields[static_cast<size_t>(idx)];
    if (f.type.id != TypeId::kBinary && f.type.id != TypeId::kLargeBinary) {
      return Status::InvalidArgument("cannot store column '" + name + "' as blobs: it is " + f.type.ToString() +
                                     ", not binary or large_binary");
    }
    Field blob = MakeBlobField(name, f.nullable, thresholds);
    for (const auto& [k, v] : f.metadata) blob.metadata.emplace(k, v);
    blob.id = f.id;
    for (RecordBatch& b : *batches) {
      if (static_cast<size_t>(idx) >= b.columns.size()) continue;  // WriteDataset reports the shape error
      Array& col = b.columns[static_cast<size_t>(idx)];
      ASSIGN_OR_RETURN(Array uri, MakeNullArray(MakeType(TypeId::kUtf8), col.length));
      // The data child keeps its binary type: StoreBlobs reads either width.
      DataType type = StructOf({MakeField("data", col.type), MakeField("uri", uri.type)});
      std::vector<bool> valid(static_cast<size_t>(col.length));
      for (int64_t i = 0; i < col.length; ++i) valid[static_cast<size_t>(i)] = col.IsValid(i);
      ASSIGN_OR_RETURN(col, MakeStructArray(type, col.length, {col, uri}, valid));
    }
    f = std::move(blob);
  }
  return Status::OK();
}

Result<std::string> NormalizeBaseDir(const std::string& dir) {
  if (IsRemoteBlobUri(dir)) {
    std::string s = dir;
    while (s.ends_with('/')) s.pop_back();
    // A base is a prefix: checked as the URI of an object inside it.
    RETURN_IF_ERROR(CheckRemoteBlobUri(s + "/x", "external base"));
    return s;
  }
  auto local = LocalPathOfUri(dir, "external base");
  if (!local.ok()) return Status::InvalidArgument(local.status().message());
  std::filesystem::path p(*local);
  if (!p.is_absolute()) p = std::filesystem::absolute(p);
  for (const auto& part : p) {
    if (part == "..") return Status::InvalidArgument("external base '" + dir + "' contains '..'");
  }
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace lancet::table
