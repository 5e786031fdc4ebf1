// `lancet import`: rows from an Arrow IPC file/stream, Parquet or NDJSON into a dataset.
#include <cstdio>
#include <filesystem>

#include "lancet/blob_spec.h"
#include "lancet/commands.h"
#include "lancet/import_source.h"
#include "lancet/io/uri.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/media_option.h"
#include "lancet/progress.h"
#include "lancet/table/write.h"

namespace lancet::cli {
namespace {

// The source's batches under the schema the --blob specs annotated (the writer takes
// fields from the schema, so the batches pass through unchanged).
class WithSchema final : public RecordBatchReader {
 public:
  WithSchema(RecordBatchReader& in, Schema schema) : in_(in), schema_(std::move(schema)) {}
  const Schema& schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override { return in_.Next(); }

 private:
  RecordBatchReader& in_;
  Schema schema_;
};

struct ImportState {
  std::string source;
  std::string dataset;
  std::string mode = "create";
  std::optional<std::string> schema;
  uint64_t max_rows_per_file = table::WriteParams{}.max_rows_per_file;
  bool stable_row_ids = false;
  std::vector<std::string> blob_specs;
  std::vector<std::string> external_bases;
  std::vector<std::string> media;
  bool allow_external = false;
  Progress progress;

  // The writer's own mismatch error prints both schemas whole; name the first
  // differing column instead.
  Status CheckAppendSchema(const Schema& incoming, const table::BlobWriteOptions& blobs) const {
    std::error_code ec;
    if (!io::IsRemoteUri(dataset) && !std::filesystem::exists(dataset, ec)) return Status::OK();
    table::OpenOptions open;
    open.storage_options = GlobalStorageOptions();
    auto ds = table::Dataset::Open(dataset, open);
    if (!ds.ok()) return Status::OK();  // not a dataset yet: the writer decides
    const Schema& have = (*ds)->schema();
    for (const Field& f : incoming.fields) {
      const int i = have.FieldIndex(f.name);
      if (i < 0) return Status::InvalidArgument(source + " has column '" + f.name + "', which the dataset lacks");
      // A binary column named by --blob arrives as a blob column.
      const DataType type = blobs.binary_as_blob.count(f.name) ? table::MakeBlobField(f.name).type : f.type;
      if (have.fields[i].type.ToString() != type.ToString()) {
        return Status::InvalidArgument("column '" + f.name + "' is " + type.ToString() + " in " + source + " but " +
                                       have.fields[i].type.ToString() + " in the dataset");
      }
    }
    for (const Field& f : have.fields) {
      if (incoming.FieldIndex(f.name) < 0) {
        return Status::InvalidArgument(source + " lacks the dataset's column '" + f.name + "'");
      }
    }
    return Status::OK();
  }

  int Run() {
    auto resolved = ResolveDatasetPathForWrite(dataset);
    if (!resolved.ok()) return ReportError(resolved.status());
    dataset = *resolved;
    // On a branch the writes go to its directory, a dataset of its own.
    auto target = BranchWriteUri(dataset);
    if (!target.ok()) return ReportError(target.status(), dataset);
    dataset = *target;
    table::WriteParams params;
    params.storage_options = GlobalStorageOptions();
    params.mode = mode == "append"      ? table::WriteMode::kAppend
                  : mode == "overwrite" ? table::WriteMode::kOverwrite
                                        : table::WriteMode::kCreate;
    if (max_rows_per_file == 0) return ReportUsage("--max-rows-per-file must be at least 1");
    params.max_rows_per_file = max_rows_per_file;
    params.enable_stable_row_ids = stable_row_ids;
    std::vector<BlobColumnSpec> specs;
    for (const std::string& text : blob_specs) {
      auto spec = ParseBlobSpec(text);
      if (!spec.ok()) return ReportUsage(spec.status().message());
      specs.push_back(std::move(*spec));
    }
    params.blobs.external_bases = external_bases;
    params.blobs.allow_external_outside_bases = allow_external;
    media::MediaOptions media_options;
    for (const std::string& text : media) {
      auto parsed = ParseMediaOption(text);
      if (!parsed.ok()) return ReportUsage(parsed.status().message());
      media_options[parsed->first] = std::move(parsed->second);
    }
    auto src = OpenImportSource(source, schema, [this](uint64_t rows) {
      progress.Report("imported " + std::to_string(rows) + " rows from " + source);
    });
    if (!src.ok()) return ReportError(src.status(), source);
    Schema input_schema = (*src)->schema();
    Status applied = ApplyBlobSpecs(specs, &input_schema, &params.blobs);
    if (!applied.ok()) return ReportError(applied, source);
    if (params.mode == table::WriteMode::kAppend) {
      Status st = CheckAppendSchema(input_schema, params.blobs);
      if (!st.ok()) return ReportError(st, dataset);
    }
    // Rows go to data files as they are read; the version is committed at the end.
    WithSchema rows(**src, std::move(input_schema));
    auto version = media_options.empty() ? table::WriteDataset(dataset, rows, params)
                                         : media::WriteDatasetWithBlobInfo(dataset, rows, params, media_options);
    progress.Done();
    if (!version.ok()) {
      // A failed read names the source; anything else is about the dataset.
      const bool source_error = version.status().message().starts_with(source);
      return source_error ? ReportError(version.status()) : ReportError(version.status(), dataset);
    }
    std::printf("imported %llu rows into %s: version %llu\n", static_cast<unsigned long long>((*src)->rows_read()),
                dataset.c_str(), static_cast<unsigned long long>(*version));
    return kExitOk;
  }
};

}  // namespace

Command AddImportCommand(CLI::App& root) {
  auto state = std::make_shared<ImportState>();
  CLI::App* app =
      root.add_subcommand("import", "Write rows from an Arrow IPC file/stream, Parquet or NDJSON into a dataset");
  app->footer(
      "SRC is detected by its first bytes: an Arrow IPC file (ARROW1), "
      "an Arrow IPC stream,\n"
      "a Parquet file (PAR1; read a row group at a time, field ids kept as PARQUET:field_id),\n"
      "or NDJSON (one JSON object per line), which needs --schema.\n"
      "SCHEMA.json: {\"fields\": [FIELD...], \"metadata\": {}} as "
      "`lancet dump` prints schemas\n"
      "(a whole dump document works too), FIELD = {\"name\", \"type\", "
      "\"nullable\", \"metadata\",\n"
      "\"children\"} plus type keys (byte_width, precision, scale, "
      "unit, timezone, list_size).\n"
      "NDJSON values (as `lancet dump` writes rows): integers as "
      "numbers or strings, floats as\n"
      "numbers or \"NaN\"/\"Infinity\"/\"-Infinity\"/\"-0\", binary as "
      "hex strings, decimals as the\n"
      "unscaled integer or \"1.23\", lists as arrays, structs as "
      "objects, maps as\n"
      "[{\"key\", \"value\"}...], null. Keys _rowaddr/_rowid are "
      "ignored. See docs/cli.md.\n"
      "SRC '-' reads an Arrow IPC stream from standard input. Rows are checked (schema,\n"
      "UTF-8) and written as they are read, so any input size fits in memory; the new\n"
      "version is committed at the end, and a bad row commits nothing.\n"
      "--blob COLUMN[:inline=SIZE,dedicated=SIZE,pack=SIZE] stores a binary, large_binary\n"
      "or struct<data: large_binary, uri: utf8> column as a Blob V2 column: values up to\n"
      "'inline' bytes (default 64k) stay in the data file, up to 'dedicated' (default 4m)\n"
      "go to shared pack files of about 'pack' bytes (default 1g), larger ones to a file\n"
      "of their own. SIZE: bytes, or a number with k, m or g (KiB units).\n"
      "A blob 'uri' is stored as a reference to that file; it must lie inside an\n"
      "--external-base directory unless --allow-external is given.");
  app->add_option("SRC", state->source,
                  "Arrow IPC file or stream, Parquet file, NDJSON file, or - (an IPC stream on stdin)")
      ->required();
  app->add_option("DATASET", state->dataset, "Dataset directory (with --namespace: a table id, declared if new)")
      ->required();
  app->add_option("--mode", state->mode, "create (default; fails if it exists), append or overwrite")
      ->check(CLI::IsMember({"create", "append", "overwrite"}));
  app->add_option("--schema", state->schema, "Schema JSON file (required for NDJSON)");
  app->add_option("--max-rows-per-file", state->max_rows_per_file, "Rows per data file / fragment (default 1048576)");
  app->add_flag("--enable-stable-row-ids", state->stable_row_ids,
                "Give rows stable row ids (only when the dataset is created or "
                "overwritten)");
  app->add_option("--blob", state->blob_specs,
                  "Store COLUMN as a Blob V2 column, with optional thresholds "
                  "(COLUMN[:inline=SIZE,dedicated=SIZE,pack=SIZE]; repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--external-base", state->external_bases,
                  "A directory blob URIs may point into; registered when the dataset is created (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--media", state->media,
                  "COLUMN=LIBRARY[:CONFIG_FILE]: ingest the blob column through a media plugin, storing "
                  "blob_info (creates a storage-2.3 dataset that only readers knowing 2.3 open; repeatable)");
  app->add_flag("--allow-external", state->allow_external,
                "Accept blob URIs outside every --external-base (stored as absolute URIs)");
  state->progress.AddOption(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
