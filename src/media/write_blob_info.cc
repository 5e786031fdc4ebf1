#include "lancet/media/write_blob_info.h"
#include "lancet/io/uri.h"

namespace lancet::media {
namespace {

class PluginSession final : public table::BlobTransformSession {
 public:
  PluginSession(std::shared_ptr<MediaPlugin> plugin, std::unique_ptr<IngestSession> session)
      : plugin_(std::move(plugin)), session_(std::move(session)) {}

  Status Push(std::span<const uint8_t> source, const table::ByteSink& out) override {
    return session_->Push(source, out);
  }
  Result<table::BlobInfoValue> Finish(const table::ByteSink& out) override {
    ASSIGN_OR_RETURN(IngestResult result, session_->Finish(out));
    table::BlobInfoValue info;
    info.blob_type = plugin_->blob_type();
    info.stream_info = result.stream_info ? result.stream_info : Buffer::Empty();
    info.entries = result.entries ? result.entries : Buffer::Empty();
    return info;
  }

 private:
  std::shared_ptr<MediaPlugin> plugin_;
  std::unique_ptr<IngestSession> session_;
};

class Transform final : public table::BlobTransform {
 public:
  explicit Transform(std::shared_ptr<MediaPlugin> plugin) : plugin_(std::move(plugin)) {}
  Result<std::unique_ptr<table::BlobTransformSession>> Start() const override {
    ASSIGN_OR_RETURN(auto session, plugin_->StartIngest());
    return std::unique_ptr<table::BlobTransformSession>(std::make_unique<PluginSession>(plugin_, std::move(session)));
  }

 private:
  std::shared_ptr<MediaPlugin> plugin_;
};

// Records the plugin on the blob field at `path` (a no-op if the path is not there:
// WriteDataset reports that).
void Annotate(std::vector<Field>* fields, const std::string& path, const MediaPlugin& plugin) {
  size_t dot = path.find('.');
  std::string head = path.substr(0, dot);
  for (Field& f : *fields) {
    if (f.name != head) continue;
    if (dot == std::string::npos) {
      f.metadata[kMediaPluginKey] = plugin.name();
      f.metadata[kMediaBlobTypeKey] = std::to_string(plugin.blob_type());
    } else if (f.type.id == TypeId::kStruct) {
      Annotate(&f.type.children, path.substr(dot + 1), plugin);
    }
  }
}

// `in`'s batches under the schema with the plugin annotations (the writer stores the
// schema it is given and takes each batch's columns as they are).
class AnnotatedReader final : public RecordBatchReader {
 public:
  AnnotatedReader(RecordBatchReader& in, Schema schema) : in_(in), schema_(std::move(schema)) {}
  const Schema& schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override { return in_.Next(); }

 private:
  RecordBatchReader& in_;
  Schema schema_;
};

}  // namespace

std::shared_ptr<const table::BlobTransform> PluginTransform(std::shared_ptr<MediaPlugin> plugin) {
  return std::make_shared<Transform>(std::move(plugin));
}

Result<uint64_t> WriteDatasetWithBlobInfo(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                          RecordBatchReader& batches, table::WriteParams params,
                                          const MediaOptions& media) {
  Schema annotated = batches.schema();
  for (const auto& [path, spec] : media) {
    ASSIGN_OR_RETURN(auto plugin, MediaPlugin::Load(spec));
    if (plugin->blob_type() == 0) {
      // Stored blob_info needs a blob type: 0 marks "no blob_info" on disk.
      return Status::InvalidArgument(
          root + ": plugin '" + plugin->name() + "' (" + plugin->library() +
          ") declares blob type 0, so it cannot store blob_info (which needs a type from 1 to 255): "
          "configure a blob type in the plugin's config (the chunks plugin: blob_type=N)");
    }
    Annotate(&annotated.fields, path, *plugin);
    params.blobs.transforms[path] = PluginTransform(std::move(plugin));
  }
  params.storage_version = table::StorageVersion::k2_3;
  AnnotatedReader annotated_batches(batches, std::move(annotated));
  return table::WriteDataset(std::move(store), root, annotated_batches, params);
}

Result<uint64_t> WriteDatasetWithBlobInfo(const std::string& uri, RecordBatchReader& batches, table::WriteParams params,
                                          const MediaOptions& media) {
  ASSIGN_OR_RETURN(io::ResolvedUri where, io::ResolveUri(uri, params.storage_options));
  return WriteDatasetWithBlobInfo(std::move(where.store), where.root, batches, std::move(params), media);
}

Result<uint64_t> WriteDatasetWithBlobInfo(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                          const Schema& schema, std::vector<RecordBatch> batches,
                                          table::WriteParams params, const MediaOptions& media) {
  std::unique_ptr<RecordBatchReader> reader = MakeBatchVectorReader(schema, std::move(batches));
  return WriteDatasetWithBlobInfo(std::move(store), root, *reader, std::move(params), media);
}

Result<uint64_t> WriteDatasetWithBlobInfo(const std::string& uri, const Schema& schema,
                                          std::vector<RecordBatch> batches, table::WriteParams params,
                                          const MediaOptions& media) {
  std::unique_ptr<RecordBatchReader> reader = MakeBatchVectorReader(schema, std::move(batches));
  return WriteDatasetWithBlobInfo(uri, *reader, std::move(params), media);
}

}  // namespace lancet::media
