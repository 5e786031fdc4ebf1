// Writing the index-column layout: plugin ingest per value, index into regular columns.
#include "lancet/media/index_columns.h"

#include "lancet/io/uri.h"
#include "util/array_builder.h"

namespace lancet::media {
namespace {

struct MediaColumn {
  size_t field = 0;
  std::shared_ptr<MediaPlugin> plugin;
  table::BlobThresholds thresholds;
};

struct Index {
  std::string stream_info;
  std::string entries;
};

std::string ToString(const BufferPtr& b) { return b ? std::string(b->view()) : std::string(); }

// Appends the plugin's stored stream for `source` to `stored`.
Result<Index> Ingest(const MediaPlugin& plugin, std::string_view source, std::vector<uint8_t>* stored) {
  ASSIGN_OR_RETURN(auto session, plugin.StartIngest());
  ByteSink sink = [&](std::span<const uint8_t> bytes) {
    stored->insert(stored->end(), bytes.begin(), bytes.end());
    return Status::OK();
  };
  RETURN_IF_ERROR(session->Push({reinterpret_cast<const uint8_t*>(source.data()), source.size()}, sink));
  ASSIGN_OR_RETURN(IngestResult result, session->Finish(sink));
  return Index{ToString(result.stream_info), ToString(result.entries)};
}

// The media column with its stored streams, then its blob_type, stream_info and
// entries columns.
Result<std::vector<Array>> IngestColumn(const Array& col, const Field& field, const MediaColumn& media,
                                        const std::string& where) {
  const Array& data = col.children[0];
  const Array& uri = col.children[1];
  const auto n = static_cast<size_t>(col.length);
  std::vector<bool> valid(n), has_data(n, false);
  // The stored streams are built in place (one large_binary buffer), since payloads
  // are large and a copy per value would double the write's memory traffic.
  std::vector<uint8_t> stored;
  std::vector<int64_t> offsets = {0};
  // Most plugins store about as many bytes as they read: reserving that avoids regrowth.
  uint64_t source_bytes = 0;
  for (int64_t i = 0; i < col.length; ++i) {
    if (col.IsValid(i) && data.IsValid(col.offset + i)) source_bytes += data.GetView(col.offset + i).size();
  }
  stored.reserve(source_bytes);
  std::vector<std::optional<std::string>> stream_info(n), entries(n);
  std::vector<uint8_t> blob_type(n, 0);
  std::vector<bool> indexed(n, false);
  for (size_t i = 0; i < n; ++i) {
    const int64_t row = col.offset + static_cast<int64_t>(i);
    valid[i] = col.IsValid(static_cast<int64_t>(i));
    if (valid[i] && uri.IsValid(row)) {
      return Status::NotSupported(where + " row " + std::to_string(i) +
                                  ": the index-column layout ingests data values only, not uri values");
    }
    has_data[i] = valid[i] && data.IsValid(row);
    if (has_data[i]) {
      std::string_view source = data.GetView(row);
      if (source.size() <= media.thresholds.inline_max) {
        stored.insert(stored.end(), source.begin(), source.end());
      } else {
        ASSIGN_OR_RETURN(Index index, Ingest(*media.plugin, source, &stored));
        stream_info[i] = std::move(index.stream_info);
        entries[i] = std::move(index.entries);
        blob_type[i] = media.plugin->blob_type();
        indexed[i] = true;
      }
    }
    offsets.push_back(static_cast<int64_t>(stored.size()));
  }
  Array new_data;
  new_data.type = data.type;
  new_data.length = col.length;
  new_data.buffers = {ValidityFromVector(has_data, &new_data.null_count),
                      Buffer::Copy(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(offsets.data()),
                                                            offsets.size() * sizeof(int64_t))),
                      Buffer::FromVector(std::move(stored))};
  RETURN_IF_ERROR(new_data.Validate());
  std::vector<Array> out;
  ASSIGN_OR_RETURN(Array no_uri, MakeNullArray(uri.type, col.length));
  ASSIGN_OR_RETURN(Array blob, MakeStructArray(field.type, col.length, {new_data, no_uri}, valid));
  out.push_back(std::move(blob));
  ASSIGN_OR_RETURN(Array types, ArrayFromVector(MakeType(TypeId::kUInt8), blob_type, indexed));
  out.push_back(std::move(types));
  ASSIGN_OR_RETURN(Array infos, MakeBinaryArray(MakeType(TypeId::kBinary), stream_info));
  out.push_back(std::move(infos));
  ASSIGN_OR_RETURN(Array entry_col, MakeBinaryArray(MakeType(TypeId::kBinary), entries));
  out.push_back(std::move(entry_col));
  return out;
}

bool IsBlobColumn(const Field& f) {
  auto it = f.metadata.find(kArrowExtensionName);
  return it != f.metadata.end() && it->second == kBlobV2ExtensionName && f.type.id == TypeId::kStruct &&
         f.type.children.size() == 2 && f.type.children[0].name == "data" &&
         f.type.children[0].type.id == TypeId::kLargeBinary && f.type.children[1].name == "uri";
}

}  // namespace

Result<uint64_t> WriteDatasetWithIndexColumns(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                              const Schema& schema, std::vector<RecordBatch> batches,
                                              table::WriteParams params, const MediaOptions& media) {
  Schema out_schema = schema;
  std::vector<MediaColumn> columns;
  for (const auto& [path, spec] : media) {
    const int idx = schema.FieldIndex(path);
    if (idx < 0 || !IsBlobColumn(schema.fields[idx])) {
      return Status::InvalidArgument(root + ": '" + path +
                                     "' is not a top-level blob column (the index-column layout needs one)");
    }
    MediaColumn mc;
    mc.field = static_cast<size_t>(idx);
    ASSIGN_OR_RETURN(mc.plugin, MediaPlugin::Load(spec));
    if (mc.plugin->blob_type() == 0) {
      return Status::InvalidArgument(
          root + ": plugin '" + mc.plugin->name() + "' (" + mc.plugin->library() +
          ") declares blob type 0, so it cannot store an index (which needs a type from 1 to 255): "
          "configure a blob type in the plugin's config (the chunks plugin: blob_type=N)");
    }
    ASSIGN_OR_RETURN(mc.thresholds, table::BlobThresholdsOf(schema.fields[idx]));
    Field& field = out_schema.fields[idx];
    field.metadata[kMediaPluginKey] = mc.plugin->name();
    field.metadata[kMediaBlobTypeKey] = std::to_string(mc.plugin->blob_type());
    for (const char* suffix : {kIndexBlobTypeSuffix, kIndexStreamInfoSuffix, kIndexEntriesSuffix}) {
      const std::string name = path + suffix;
      if (schema.FieldIndex(name) >= 0) {
        return Status::InvalidArgument(root + ": index column '" + name + "' of blob column '" + path +
                                       "' is already in the schema");
      }
      const bool is_type = std::string_view(suffix) == kIndexBlobTypeSuffix;
      out_schema.fields.push_back(MakeField(name, MakeType(is_type ? TypeId::kUInt8 : TypeId::kBinary)));
    }
    columns.push_back(std::move(mc));
  }
  for (size_t b = 0; b < batches.size(); ++b) {
    RecordBatch& batch = batches[b];
    if (batch.columns.size() != schema.fields.size()) {
      return Status::InvalidArgument(root + ": batch " + std::to_string(b) + " has " +
                                     std::to_string(batch.columns.size()) + " columns but the schema has " +
                                     std::to_string(schema.fields.size()));
    }
    std::vector<Array> index_arrays;
    for (const MediaColumn& mc : columns) {
      const Field& field = schema.fields[mc.field];
      const Array& col = batch.columns[mc.field];
      if (col.type.id != TypeId::kStruct || col.children.size() != 2 || col.length != batch.num_rows) {
        return Status::InvalidArgument(root + ": batch " + std::to_string(b) + " column '" + field.name +
                                       "' is not a blob struct of the batch's length");
      }
      ASSIGN_OR_RETURN(auto arrays, IngestColumn(col, field, mc, root + ": blob column '" + field.name + "'"));
      batch.columns[mc.field] = std::move(arrays[0]);
      index_arrays.insert(index_arrays.end(), arrays.begin() + 1, arrays.end());
    }
    batch.schema = out_schema;
    for (Array& a : index_arrays) batch.columns.push_back(std::move(a));
  }
  params.storage_version = table::StorageVersion::k2_2;
  return table::WriteDataset(std::move(store), root, out_schema, std::move(batches), params);
}

Result<uint64_t> WriteDatasetWithIndexColumns(const std::string& uri, const Schema& schema,
                                              std::vector<RecordBatch> batches, table::WriteParams params,
                                              const MediaOptions& media) {
  ASSIGN_OR_RETURN(io::ResolvedUri where, io::ResolveUri(uri, params.storage_options));
  return WriteDatasetWithIndexColumns(std::move(where.store), where.root, schema, std::move(batches), std::move(params),
                                      media);
}

}  // namespace lancet::media
