// A new Iceberg snapshot from Lance's changes since the exported version (see
// include/lancet/catalog/iceberg.h): inserts and the new side of updates as data
// files, deletes and the old side of updates as one position delete file.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <tuple>

#include "catalog/iceberg_files.h"
#include "catalog/iceberg_metadata.h"
#include "lancet/catalog/iceberg.h"
#include "lancet/table/changes.h"
#include "util/array_builder.h"

namespace lancet::catalog {
namespace {

namespace fs = std::filesystem;
namespace avro = format::avro;
using namespace iceberg;  // NOLINT: this file is the glue of the iceberg_* parts
using Json = nlohmann::json;

// Reserved field ids of position delete files (spec, "Reserved Field IDs").
constexpr int32_t kDeleteFilePathId = 2147483546;
constexpr int32_t kDeletePosId = 2147483545;

struct PositionDelete {
  std::string file;
  int64_t pos;
  bool operator<(const PositionDelete& o) const { return std::tie(file, pos) < std::tie(o.file, o.pos); }
};

std::optional<int64_t> ParseInt(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string SummaryValue(const Json& snapshot, const char* key) {
  const Json& summary = snapshot["summary"];
  if (!summary.contains(key) || !summary[key].is_string()) return {};
  return summary[key].get<std::string>();
}

Result<DataFile> WritePositionDeletes(std::vector<PositionDelete> deletes, const fs::path& path) {
  // Readers merge deletes by (file_path, pos), so the spec asks for that order.
  std::sort(deletes.begin(), deletes.end());
  std::vector<std::optional<std::string>> paths;
  std::vector<int64_t> positions;
  for (const PositionDelete& d : deletes) {
    paths.push_back(d.file);
    positions.push_back(d.pos);
  }
  ASSIGN_OR_RETURN(Array pos, ArrayFromVector(MakeType(TypeId::kInt64), positions));
  RecordBatch batch;
  batch.num_rows = static_cast<int64_t>(deletes.size());
  batch.schema.fields = {MakeField("file_path", MakeType(TypeId::kUtf8), false),
                         MakeField("pos", MakeType(TypeId::kInt64), false)};
  batch.schema.fields[0].metadata[format::kParquetFieldIdKey] = std::to_string(kDeleteFilePathId);
  batch.schema.fields[1].metadata[format::kParquetFieldIdKey] = std::to_string(kDeletePosId);
  batch.columns = {StringArray(paths), pos};
  std::string bytes;
  format::ParquetWriteOptions options;
  options.compression = format::ParquetCompression::kZstd;
  ASSIGN_OR_RETURN(auto writer, format::ParquetWriter::Open(
                                    [&bytes](std::span<const uint8_t> b) {
                                      bytes.append(reinterpret_cast<const char*>(b.data()), b.size());
                                      return Status::OK();
                                    },
                                    batch.schema, options));
  RETURN_IF_ERROR(writer->Write(batch));
  RETURN_IF_ERROR(writer->Finish());
  RETURN_IF_ERROR(WriteWhole(path, bytes));
  DataFile file;
  file.content = 1;
  file.file_path = FileUri(path);
  file.record_count = batch.num_rows;
  file.file_size_in_bytes = static_cast<int64_t>(bytes.size());
  return file;
}

}  // namespace

Result<IcebergSyncResult> SyncIceberg(const table::Dataset& dataset, const std::string& table_dir,
                                      const IcebergExportOptions& options) {
  std::error_code ec;
  const fs::path root = fs::absolute(fs::path(table_dir), ec).lexically_normal();
  if (ec) return Status::IOError("cannot resolve " + table_dir);
  const fs::path metadata_dir = root / "metadata";
  const auto metadata_file = [&](int64_t v) { return metadata_dir / ("v" + std::to_string(v) + ".metadata.json"); };
  // The hint is written after the metadata rename (the commit point), so a crash between
  // the two leaves it one behind, or missing after an export: the newest vN counts.
  int64_t version = 0;
  if (fs::exists(metadata_dir / "version-hint.text")) {
    ASSIGN_OR_RETURN(std::string hint, ReadWhole(metadata_dir / "version-hint.text"));
    const std::optional<int64_t> hinted = ParseInt(hint);
    if (!hinted || *hinted < 1) return Status::Corruption(table_dir + ": version-hint.text holds no version");
    version = *hinted;
  }
  const int64_t hinted_version = version;
  while (fs::exists(metadata_file(version + 1))) ++version;
  if (version == 0) return Status::NotFound(table_dir + " holds no Iceberg table (no metadata/v1.metadata.json)");
  if (version != hinted_version) {
    RETURN_IF_ERROR(WriteAtomically(metadata_dir / "version-hint.text", std::to_string(version)));
  }
  ASSIGN_OR_RETURN(std::string text, ReadWhole(metadata_file(version)));
  OrderedJson md = OrderedJson::parse(text, nullptr, /*allow_exceptions=*/false);
  if (md.is_discarded() || !md.is_object() || !md.contains("snapshots") || !md["snapshots"].is_array() ||
      !md.contains("current-snapshot-id") || !md["current-snapshot-id"].is_number_integer() ||
      !md.contains("schemas") || !md["schemas"].is_array() || !md.contains("last-sequence-number") ||
      !md["last-sequence-number"].is_number_integer()) {
    return Status::Corruption(table_dir + ": v" + std::to_string(version) + ".metadata.json is not table metadata");
  }
  const int64_t parent_id = md["current-snapshot-id"].get<int64_t>();
  const Json current = [&] {
    for (const auto& s : md["snapshots"]) {
      if (s.is_object() && s.contains("snapshot-id") && s["snapshot-id"] == parent_id) return Json::parse(s.dump());
    }
    return Json();
  }();
  if (!current.is_object() || !current.contains("summary") || !current["summary"].is_object() ||
      !current.contains("manifest-list") || !current["manifest-list"].is_string()) {
    return Status::Corruption(table_dir + ": the current snapshot is missing or malformed");
  }
  const std::string from_text = SummaryValue(current, "lance.version");
  const std::string map_name = SummaryValue(current, "lance.row-map");
  const std::optional<int64_t> from = ParseInt(from_text);
  if (!from || *from < 0) return Status::InvalidArgument(table_dir + " was not exported by lancet (no lance.version)");

  IcebergSyncResult result;
  result.from_version = static_cast<uint64_t>(*from);
  result.to_version = dataset.version();
  result.snapshot_id = parent_id;
  if (result.to_version == result.from_version) return result;  // up to date: nothing to commit
  if (result.to_version < result.from_version) {
    return Status::InvalidArgument("the table holds version " + from_text + ", newer than the dataset's " +
                                   std::to_string(result.to_version));
  }
  if (map_name.empty()) {
    return Status::NotSupported(table_dir + ": no row map (the dataset was exported without stable row ids)");
  }
  ASSIGN_OR_RETURN(SchemaMapping mapping, MapLanceSchema(dataset.read_schema()));
  const Json& schemas = md["schemas"];
  if (schemas.empty() || Json::parse(SchemaJson(mapping.schema, 0)["fields"].dump()) !=
                             Json::parse(schemas[schemas.size() - 1]["fields"].dump())) {
    return Status::NotSupported("the dataset's schema changed since the export; schema evolution is not synced");
  }
  ASSIGN_OR_RETURN(std::string map_bytes, ReadWhole(metadata_dir / map_name));
  ASSIGN_OR_RETURN(RowMap row_map,
                   RowMap::Parse({reinterpret_cast<const uint8_t*>(map_bytes.data()), map_bytes.size()}));

  // Changes lists inserts and updates first (with the new values), then deletes; the old
  // location of an updated row is taken before the sink records its new one.
  std::vector<PositionDelete> deletes;
  DataFileSink sink(root / "data", mapping, options, &row_map);
  table::ChangesOptions changes_options;
  ASSIGN_OR_RETURN(auto changes, table::Changes(dataset, result.from_version, result.to_version, changes_options));
  const size_t nvalues = dataset.read_schema().fields.size();
  while (true) {
    ASSIGN_OR_RETURN(auto batch, changes->Next());
    if (!batch) break;
    const Array& op = batch->columns[0];
    const Array& row_ids = batch->columns[1];
    if (batch->columns.size() != nvalues + 3 || row_ids.type.id != TypeId::kUInt64) {
      return Status::Internal("unexpected change records: " + batch->schema.ToString());
    }
    std::vector<int64_t> upserts;
    for (int64_t i = 0; i < batch->num_rows; ++i) {
      const std::string_view kind = op.GetView(i);
      const uint64_t id = row_ids.values<uint64_t>()[i];
      if (kind != "insert") {
        const std::optional<RowLocation> at = row_map.Take(id);
        if (!at) return Status::Corruption("row id " + std::to_string(id) + " is not in the table's row map");
        deletes.push_back({row_map.files[at->file], static_cast<int64_t>(at->pos)});
      }
      if (kind != "delete") upserts.push_back(i);
    }
    if (upserts.empty()) continue;
    RecordBatch values;
    values.schema = dataset.read_schema();
    values.num_rows = static_cast<int64_t>(upserts.size());
    for (size_t c = 0; c < nvalues; ++c) {
      ASSIGN_OR_RETURN(Array col, TakeRows(batch->columns[3 + c], upserts));
      values.columns.push_back(std::move(col));
    }
    ASSIGN_OR_RETURN(Array ids, TakeRows(row_ids, upserts));
    RETURN_IF_ERROR(sink.Write(values, &ids));
  }
  RETURN_IF_ERROR(sink.CloseCurrent());

  const int64_t snapshot_id = NewSnapshotId();
  const int64_t sequence_number = md["last-sequence-number"].get<int64_t>() + 1;
  const auto codec = options.deflate_metadata ? avro::Codec::kDeflate : avro::Codec::kNull;
  const std::string commit_uuid = NewUuid();
  std::vector<ManifestFile> added;
  int64_t added_rows = 0;
  for (const DataFile& f : sink.files()) added_rows += f.record_count;
  auto add_manifest = [&](const std::vector<DataFile>& files, bool is_deletes, int64_t rows) -> Status {
    ASSIGN_OR_RETURN(std::string bytes, WriteManifest(files, is_deletes, mapping.schema, 0, snapshot_id, codec));
    const fs::path path = metadata_dir / (commit_uuid + "-m" + std::to_string(added.size()) + ".avro");
    RETURN_IF_ERROR(WriteWhole(path, bytes));
    ManifestFile mf;
    mf.content = is_deletes ? 1 : 0;
    mf.manifest_path = FileUri(path);
    mf.manifest_length = static_cast<int64_t>(bytes.size());
    mf.sequence_number = mf.min_sequence_number = sequence_number;
    mf.added_snapshot_id = snapshot_id;
    mf.added_files_count = static_cast<int32_t>(files.size());
    mf.added_rows_count = rows;
    added.push_back(std::move(mf));
    return Status::OK();
  };
  if (!sink.files().empty()) RETURN_IF_ERROR(add_manifest(sink.files(), false, added_rows));
  std::optional<DataFile> delete_file;
  if (!deletes.empty()) {
    const int64_t count = static_cast<int64_t>(deletes.size());
    ASSIGN_OR_RETURN(delete_file,
                     WritePositionDeletes(std::move(deletes), root / "data" / (commit_uuid + "-deletes.parquet")));
    RETURN_IF_ERROR(add_manifest({*delete_file}, true, count));
  }

  // The parent's manifests stay as they are (their entries keep their sequence numbers).
  ASSIGN_OR_RETURN(fs::path parent_list, PathOfFileUri(current["manifest-list"].get<std::string>()));
  ASSIGN_OR_RETURN(std::string parent_bytes, ReadWhole(parent_list));
  ASSIGN_OR_RETURN(avro::File parent,
                   avro::ReadFile({reinterpret_cast<const uint8_t*>(parent_bytes.data()), parent_bytes.size()}));
  ASSIGN_OR_RETURN(std::string list,
                   WriteManifestList(added, snapshot_id, parent_id, sequence_number, codec, parent.records));
  const fs::path list_path = metadata_dir / ("snap-" + std::to_string(snapshot_id) + "-1-" + commit_uuid + ".avro");
  RETURN_IF_ERROR(WriteWhole(list_path, list));
  const std::string new_map_name = "lance-rowmap-" + std::to_string(snapshot_id) + ".bin";
  RETURN_IF_ERROR(WriteWhole(metadata_dir / new_map_name, row_map.Serialize()));

  const int64_t deleted_rows = delete_file ? delete_file->record_count : 0;
  const int64_t total = ParseInt(SummaryValue(current, "total-records")).value_or(0) + added_rows - deleted_rows;
  Snapshot snap;
  snap.snapshot_id = snapshot_id;
  snap.parent_snapshot_id = parent_id;
  snap.sequence_number = sequence_number;
  snap.timestamp_ms = NowMs();
  snap.manifest_list = FileUri(list_path);
  snap.summary = {{"operation", deleted_rows == 0 ? "append"
                                : added_rows == 0 ? "delete"
                                                  : "overwrite"},
                  {"added-data-files", std::to_string(sink.files().size())},
                  {"added-records", std::to_string(added_rows)},
                  {"added-delete-files", delete_file ? "1" : "0"},
                  {"added-position-deletes", std::to_string(deleted_rows)},
                  {"total-records", std::to_string(total)},
                  {"lance.dataset", SummaryValue(current, "lance.dataset")},
                  {"lance.version", std::to_string(result.to_version)},
                  {"lance.row-map", new_map_name}};

  const fs::path old_json = metadata_file(version);
  md["last-sequence-number"] = sequence_number;
  md["last-updated-ms"] = snap.timestamp_ms;
  md["current-snapshot-id"] = snapshot_id;
  md["refs"]["main"] = {{"snapshot-id", snapshot_id}, {"type", "branch"}};
  md["snapshots"].push_back(SnapshotJson(snap));
  md["snapshot-log"].push_back({{"timestamp-ms", snap.timestamp_ms}, {"snapshot-id", snapshot_id}});
  md["metadata-log"].push_back({{"timestamp-ms", snap.timestamp_ms}, {"metadata-file", FileUri(old_json)}});
  const fs::path new_json = metadata_file(version + 1);
  // The commit point. A concurrent sync that got here first wins; this one then fails.
  if (fs::exists(new_json)) return Status::CommitConflict(new_json.string() + " already exists");
  RETURN_IF_ERROR(WriteAtomically(new_json, md.dump(2)));
  RETURN_IF_ERROR(WriteAtomically(metadata_dir / "version-hint.text", std::to_string(version + 1)));

  result.snapshot_id = snapshot_id;
  result.committed = true;
  result.added_rows = static_cast<uint64_t>(added_rows);
  result.deleted_rows = static_cast<uint64_t>(deleted_rows);
  result.metadata_file = FileUri(new_json);
  return result;
}

}  // namespace lancet::catalog
