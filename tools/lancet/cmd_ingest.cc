// `lancet ingest`: every file under a directory as one row with a Blob V2 column.
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/file_walk.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/media_option.h"
#include "lancet/media_type.h"
#include "lancet/progress.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::cli {
namespace {

// Rows per batch handed to the writer: the batches hold only paths, the bytes are
// streamed from the files by the writer (BlobUriMode::kCopy).
constexpr size_t kFilesPerBatch = 1024;

std::string ProgressBar(uint64_t done, uint64_t total) {
  constexpr int kWidth = 30;
  const double frac = total == 0 ? 1.0 : std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
  const int filled = static_cast<int>(frac * kWidth);
  std::string bar = "[" + std::string(filled, '#') + std::string(kWidth - filled, ' ') + "] ";
  char pct[16];
  std::snprintf(pct, sizeof(pct), "%3d%% ", static_cast<int>(frac * 100));
  return bar + pct + HumanBytes(done) + " / " + HumanBytes(total);
}

Schema IngestSchema(const std::string& blob_column) {
  Schema schema;
  schema.fields = {MakeField("path", MakeType(TypeId::kUtf8), false),
                   MakeField("size", MakeType(TypeId::kUInt64), false),
                   MakeField("media_type", MakeType(TypeId::kUtf8), false), table::MakeBlobField(blob_column)};
  return schema;
}

Result<RecordBatch> IngestBatch(const Schema& schema, std::span<const WalkedFile> files) {
  std::vector<std::optional<std::string>> paths, types, uris;
  std::vector<uint64_t> sizes;
  for (const WalkedFile& f : files) {
    paths.emplace_back(f.relative);
    types.emplace_back(std::string(MediaTypeForPath(f.relative)));
    uris.emplace_back(f.absolute);
    sizes.push_back(f.size);
  }
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(files.size());
  const DataType& blob_type = schema.fields[3].type;
  ASSIGN_OR_RETURN(Array path_array, MakeBinaryArray(MakeType(TypeId::kUtf8), paths));
  ASSIGN_OR_RETURN(Array size_array, ArrayFromVector(MakeType(TypeId::kUInt64), sizes));
  ASSIGN_OR_RETURN(Array type_array, MakeBinaryArray(MakeType(TypeId::kUtf8), types));
  ASSIGN_OR_RETURN(Array data, MakeBinaryArray(MakeType(TypeId::kLargeBinary),
                                               std::vector<std::optional<std::string>>(files.size())));
  ASSIGN_OR_RETURN(Array uri, MakeBinaryArray(MakeType(TypeId::kUtf8), uris));
  ASSIGN_OR_RETURN(Array blob, MakeStructArray(blob_type, batch.num_rows, {std::move(data), std::move(uri)}));
  batch.columns = {std::move(path_array), std::move(size_array), std::move(type_array), std::move(blob)};
  return batch;
}

struct IngestState {
  std::string dir;
  std::string dataset;
  std::string glob;
  std::string column = "blob";
  std::vector<std::string> media;
  bool append = false;
  bool overwrite = false;
  std::vector<std::string> external_bases;
  Progress progress;

  int Run() {
    // On a branch the writes go to its directory, a dataset of its own.
    auto target = BranchWriteUri(dataset);
    if (!target.ok()) return ReportError(target.status(), dataset);
    dataset = *target;
    if (column == "path" || column == "size" || column == "media_type") {
      return ReportUsage("--column " + column + ": that name is taken by the path, size and media_type columns");
    }
    if (column.empty()) return ReportUsage("--column needs a name");
    auto files = WalkFiles(dir, glob);
    if (!files.ok()) return ReportError(files.status(), dir);
    if (files->empty()) {
      return ReportError(Status::InvalidArgument(dir + ": no regular files to ingest" +
                                                 (glob.empty() ? std::string() : " matching '" + glob + "'")));
    }
    uint64_t total = 0;
    for (const WalkedFile& f : *files) total += f.size;
    media::MediaOptions media_options;
    for (const std::string& text : media) {
      auto parsed = ParseMediaOption(text);
      if (!parsed.ok()) return ReportUsage(parsed.status().message());
      media_options[parsed->first] = std::move(parsed->second);
    }
    const Schema schema = IngestSchema(column);
    std::vector<RecordBatch> batches;
    for (size_t i = 0; i < files->size(); i += kFilesPerBatch) {
      const size_t n = std::min(kFilesPerBatch, files->size() - i);
      auto batch = IngestBatch(schema, std::span<const WalkedFile>(*files).subspan(i, n));
      if (!batch.ok()) return ReportError(batch.status(), dir);
      batches.push_back(std::move(*batch));
    }
    table::WriteParams params;
    params.storage_options = GlobalStorageOptions();
    params.mode = append      ? table::WriteMode::kAppend
                  : overwrite ? table::WriteMode::kOverwrite
                              : table::WriteMode::kCreate;
    params.blobs.uri_mode = table::BlobUriMode::kCopy;
    params.blobs.external_bases = external_bases;
    if (progress.enabled()) {
      params.blobs.on_progress = [this, total](uint64_t bytes) { progress.Report(ProgressBar(bytes, total)); };
    }
    auto version = media_options.empty()
                       ? table::WriteDataset(dataset, schema, std::move(batches), params)
                       : media::WriteDatasetWithBlobInfo(dataset, schema, std::move(batches), params, media_options);
    if (version.ok() && progress.enabled()) progress.Report(ProgressBar(total, total), true);
    progress.Done();
    if (!version.ok()) return ReportError(version.status(), dataset);
    std::printf("ingested %zu files (%llu bytes) into %s: version %llu\n", files->size(),
                static_cast<unsigned long long>(total), dataset.c_str(), static_cast<unsigned long long>(*version));
    return kExitOk;
  }
};

}  // namespace

Command AddIngestCommand(CLI::App& root) {
  auto state = std::make_shared<IngestState>();
  CLI::App* app = root.add_subcommand("ingest", "Store every file under a directory as a row with a Blob V2 column");
  app->footer(
      "Rows: path (utf8, relative to DIR), size (uint64), media_type (utf8, from the\n"
      "file extension) and the blob column (default 'blob'). Regular files only, walked\n"
      "recursively in sorted order; symbolic links are skipped. The bytes are copied into\n"
      "the dataset (placed by size: inline, packed or dedicated), streamed from the files.\n"
      "--glob is matched against the relative path with fnmatch(3); '*' also matches '/'.\n"
      "With --media, values stored packed or dedicated (above 64 KiB) go through the plugin;\n"
      "a file the plugin rejects fails the whole write, naming the file, and the dataset\n"
      "keeps its previous version. Example for videos:\n"
      "  lancet ingest clips/ ds.lance --glob '*.mp4' --column video \\\n"
      "      --media video=build/plugins/liblancet_video_ffmpeg.so");
  app->add_option("DIR", state->dir, "Directory to ingest")->required();
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--glob", state->glob, "Only files whose relative path matches (e.g. '*.jpg')");
  app->add_option("--column", state->column, "Name of the blob column (default: blob)");
  auto* a = app->add_flag("--append", state->append, "Add the rows to an existing dataset (same columns)");
  auto* o = app->add_flag("--overwrite", state->overwrite, "Replace the dataset's rows and schema");
  a->excludes(o);
  app->add_option("--external-base", state->external_bases,
                  "Register DIR as an external base of a new dataset (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--media", state->media,
                  "COLUMN=LIBRARY[:CONFIG_FILE]: ingest the blob column through a media plugin, storing "
                  "blob_info (creates a storage-2.3 dataset that only readers knowing 2.3 open; repeatable)");
  state->progress.AddOption(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
