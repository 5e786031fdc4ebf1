// The steps of a write (see write_plan.h): planning against the latest version, data
// files with blob placement, and the commit of an append, create or overwrite.
#include "table/write_plan.h"

#include <algorithm>
#include <map>

#include "format/lance_schema.h"
#include "lance_proto/rowids.pb.h"
#include "lancet/format/file_writer.h"
#include "table/blob_info.h"
#include "table/blob_sink.h"
#include "table/compaction_row_ids.h"
#include "table/manifest.h"

namespace lancet::table {
namespace {

using lance::table::DataFragment;
using lance::table::Manifest;
using lance::table::Transaction;

constexpr const char* kDataDir = "data";
// A row address keeps 32 bits for the offset inside a fragment (notes §4.2).
constexpr uint64_t kMaxRowsPerFragment = uint64_t{1} << 32;

// Names and types only: ids, nullability and metadata may differ between the caller's
// schema and the stored one without changing what the rows mean.
bool SameShape(const Field& a, const Field& b) {
  // Blob inputs may carry the optional position/size members; the stored shape never does.
  if (IsBlobV2Field(a) || IsBlobV2Field(b)) return a.name == b.name && IsBlobV2Field(a) && IsBlobV2Field(b);
  if (a.name != b.name || a.type.id != b.type.id || a.type.unit != b.type.unit || a.type.timezone != b.type.timezone ||
      a.type.precision != b.type.precision || a.type.scale != b.type.scale || a.type.byte_width != b.type.byte_width ||
      a.type.list_size != b.type.list_size || a.type.children.size() != b.type.children.size()) {
    return false;
  }
  for (size_t i = 0; i < a.type.children.size(); ++i) {
    if (!SameShape(a.type.children[i], b.type.children[i])) return false;
  }
  return true;
}

// The manifest keeps a blob column's logical shape struct<data, uri> whatever input
// members the caller used.
Field CanonicalBlobInput(const Field& f) {
  Field out = f;
  if (IsBlobV2Field(f)) {
    out.type = MakeBlobField(f.name).type;
    return out;
  }
  for (Field& c : out.type.children) c = CanonicalBlobInput(c);
  return out;
}

Result<RecordBatch> SliceBatch(const RecordBatch& batch, int64_t begin, int64_t length) {
  std::vector<int64_t> rows(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) rows[static_cast<size_t>(i)] = begin + i;
  RecordBatch out{batch.schema, length, {}};
  for (const Array& col : batch.columns) {
    ASSIGN_OR_RETURN(Array taken, TakeRows(col, rows));
    out.columns.push_back(std::move(taken));
  }
  return out;
}

// The input's binary columns named in binary_as_blob, turned into blob input structs
// batch by batch as the writer pulls them.
class BinaryAsBlobReader final : public RecordBatchReader {
 public:
  BinaryAsBlobReader(RecordBatchReader& in, const std::map<std::string, BlobThresholds>& columns, Schema converted)
      : in_(in), columns_(columns), schema_(std::move(converted)) {}
  const Schema& schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, in_.Next());
    if (!batch) return batch;
    Schema scratch = in_.schema();
    std::vector<RecordBatch> one{std::move(*batch)};
    RETURN_IF_ERROR(ConvertBinaryToBlob(columns_, &scratch, &one));
    return std::optional<RecordBatch>(std::move(one[0]));
  }

 private:
  RecordBatchReader& in_;
  const std::map<std::string, BlobThresholds>& columns_;
  Schema schema_;
};

// Gives `frags` ids after everything `base` ever used, and stable row ids from
// next_row_id when the table has them; updates `m`'s counters. With stable row ids the
// rows are also stamped created and last updated at `version`, the one this attempt
// commits (a retry re-stamps), as the reference's commit does (lineage-notes §2.2).
void AssignIds(const Manifest* base, uint64_t version, std::vector<DataFragment>* frags, Manifest* m) {
  std::optional<uint64_t> max = base ? MaxFragmentId(*base) : std::nullopt;
  uint64_t next = max ? *max + 1 : 0;
  bool stable = (m->reader_feature_flags() & kFlagStableRowIds) != 0;
  uint64_t next_row_id = m->next_row_id();
  for (DataFragment& f : *frags) {
    f.set_id(next++);
    if (stable) {
      lance::table::RowIdSequence seq;
      auto* range = seq.add_segments()->mutable_range();
      range->set_start(next_row_id);
      range->set_end(next_row_id + f.physical_rows());
      next_row_id += f.physical_rows();
      f.set_inline_row_ids(seq.SerializeAsString());
      f.set_inline_created_at_versions(EncodeConstantRowVersions(f.physical_rows(), version));
      f.set_inline_last_updated_at_versions(f.inline_created_at_versions());
    }
  }
  if (stable) m->set_next_row_id(next_row_id);
  if (next > 0) m->set_max_fragment_id(static_cast<uint32_t>(next - 1));
}

// The external bases blob URIs may point into: on create/overwrite the caller's
// (numbered from 1, returned in `added` for the new manifest); on append the ones the
// dataset registered, which must include every base the caller names.
Result<std::vector<ExternalBase>> ExternalBasesFor(const std::string& root, const Manifest* appending,
                                                   const BlobWriteOptions& options, std::vector<ExternalBase>* added) {
  std::vector<ExternalBase> bases;
  if (appending) {
    for (const auto& bp : appending->base_paths()) {
      if (bp.is_dataset_root()) continue;
      auto dir = NormalizeBaseDir(bp.path());
      if (dir.ok()) bases.push_back({bp.id(), *dir});
    }
  }
  uint32_t next_id = 1;
  for (const ExternalBase& b : bases) next_id = std::max(next_id, b.id + 1);
  for (const std::string& given : options.external_bases) {
    auto dir = NormalizeBaseDir(given);
    if (!dir.ok()) return dir.status().WithContext(root);
    bool known = false;
    for (const ExternalBase& b : bases) known = known || b.dir == *dir;
    if (known) continue;
    if (appending) {
      return Status::InvalidArgument(root + ": external base " + *dir +
                                     " is not registered with the dataset; bases are registered when the table "
                                     "is created or overwritten");
    }
    bases.push_back({next_id, *dir});
    added->push_back(bases.back());
    ++next_id;
  }
  return bases;
}

// Transforms (blob_info producers) need format 2.3 and must name blob columns.
Status CheckTransforms(const std::string& root, const Schema& schema, const BlobWriteOptions& options, bool blob_info) {
  for (const auto& [path, transform] : options.transforms) {
    if (!blob_info) {
      return Status::InvalidArgument(root + ": blob column '" + path +
                                     "' has a media transform, which needs storage version 2.3");
    }
    if (!transform) return Status::InvalidArgument(root + ": blob column '" + path + "' has a null transform");
    const Field* f = nullptr;
    const std::vector<Field>* level = &schema.fields;
    for (size_t start = 0; level != nullptr;) {
      size_t dot = path.find('.', start);
      std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      f = nullptr;
      for (const Field& c : *level) {
        if (c.name == part) f = &c;
      }
      if (f == nullptr || dot == std::string::npos) break;
      level = f->type.id == TypeId::kStruct ? &f->type.children : nullptr;
      start = dot + 1;
    }
    if (f == nullptr || !IsBlobV2Field(*f)) {
      return Status::InvalidArgument(root + ": media transform for '" + path + "', which is not a blob column");
    }
  }
  return Status::OK();
}

}  // namespace

Result<WritePlan> PlanWrite(const std::shared_ptr<io::ObjectStore>& store, const std::string& root_in,
                            RecordBatchReader& input, const WriteParams& params) {
  if (!store) return Status::InvalidArgument("a write needs an object store");
  WritePlan plan;
  plan.root = root_in;
  std::string& root = plan.root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  Schema schema = input.schema();
  if (!params.blobs.binary_as_blob.empty()) {
    std::vector<RecordBatch> none;
    auto st = ConvertBinaryToBlob(params.blobs.binary_as_blob, &schema, &none);
    if (!st.ok()) return st.WithContext(root);
    plan.converted = std::make_unique<BinaryAsBlobReader>(input, params.blobs.binary_as_blob, schema);
  }
  if (auto st = CheckBlobInputSchema(schema); !st.ok()) return st.WithContext(root);
  if (params.max_rows_per_file == 0 || params.max_rows_per_file > kMaxRowsPerFragment) {
    return Status::InvalidArgument(root + ": max_rows_per_file must be in [1, 2^32]");
  }
  // What the write reads: the latest version (none if the dataset does not exist).
  std::optional<Manifest>& read = plan.read;
  uint64_t& read_version = plan.read_version;
  auto listed = ListManifests(*store, root);
  if (!listed.ok() && !listed.status().IsNotFound()) return listed.status();
  if (listed.ok() && !listed->empty()) {
    if (params.mode == WriteMode::kCreate) {
      return Status::AlreadyExists(root + ": dataset already exists (latest version " +
                                   std::to_string(listed->back().version) + ")");
    }
    ASSIGN_OR_RETURN(read, ReadManifest(*store, listed->back().path, listed->back().size));
    read_version = listed->back().version;
  }
  const bool append = plan.append = params.mode == WriteMode::kAppend && read.has_value();

  Schema& write_schema = plan.write_schema;
  if (append) {
    ASSIGN_OR_RETURN(write_schema, format::SchemaFromLance(read->fields(), read->schema_metadata(), root));
    bool same = write_schema.fields.size() == schema.fields.size();
    for (size_t i = 0; same && i < schema.fields.size(); ++i)
      same = SameShape(schema.fields[i], write_schema.fields[i]);
    if (!same) {
      return Status::InvalidArgument(root + ": cannot append rows of schema " + schema.ToString() +
                                     " to a dataset of schema " + write_schema.ToString());
    }
  } else {
    write_schema = schema;
    for (Field& f : write_schema.fields) f = CanonicalBlobInput(f);
    RETURN_IF_ERROR(format::AssignFieldIds(&write_schema));
  }
  ASSIGN_OR_RETURN(plan.lance_fields, format::SchemaToLance(write_schema));

  BlobPlan& blobs = plan.blobs;
  blobs.blob_info =
      append ? (read->reader_feature_flags() & kFlagBlobInfo) != 0 : params.storage_version == StorageVersion::k2_3;
  if (append && !blobs.blob_info && params.storage_version == StorageVersion::k2_3) {
    return Status::InvalidArgument(root +
                                   ": the dataset uses storage version 2.2; the version is chosen when "
                                   "the table is created or overwritten");
  }
  RETURN_IF_ERROR(CheckTransforms(root, write_schema, params.blobs, blobs.blob_info));
  std::vector<ExternalBase>& new_bases = plan.new_bases;
  for (const Field& f : write_schema.fields) blobs.any = blobs.any || HasBlobField(f);
  if (blobs.any) {
    for (const Field& f : write_schema.fields) {
      blobs.read_schema.fields.push_back(blobs.blob_info ? ToBlobInfoReadField(f) : ToReadField(f));
      blobs.file_schema.fields.push_back(ToBlobInfoPhysical(blobs.read_schema.fields.back()));
    }
    blobs.read_schema.metadata = write_schema.metadata;
    blobs.file_schema.metadata = write_schema.metadata;
    blobs.context.blob_info = blobs.blob_info;
    blobs.context.transforms = params.blobs.transforms;
    ASSIGN_OR_RETURN(blobs.context.bases, ExternalBasesFor(root, append ? &*read : nullptr, params.blobs, &new_bases));
    blobs.context.allow_outside_bases = params.blobs.allow_external_outside_bases;
    blobs.context.uri_mode = params.blobs.uri_mode;
    blobs.context.sources = io::LocalFileSystem(/*map_reads=*/false);
    blobs.context.externals = std::make_shared<ExternalStores>(blobs.context.sources, "", params.storage_options);
    blobs.progress = params.blobs.on_progress;
  }

  return plan;
}

Result<std::vector<DataFragment>> WriteDataFiles(const std::shared_ptr<io::ObjectStore>& store, const WritePlan& plan,
                                                 RecordBatchReader& batches, uint64_t max_rows,
                                                 std::vector<std::string>* written) {
  const std::string& root = plan.root;
  const Schema& schema = plan.write_schema;
  const BlobPlan& blobs = plan.blobs;
  std::vector<DataFragment> frags;
  std::unique_ptr<format::FileWriter> writer;
  std::unique_ptr<BlobSink> sink;
  std::string name;
  uint64_t rows_in_file = 0;
  uint64_t blob_bytes_before = 0;  // progress is cumulative over all files
  auto finish = [&]() -> Status {
    if (sink) {
      RETURN_IF_ERROR(sink->Finish());
      blob_bytes_before += sink->stored();
      sink.reset();
    }
    ASSIGN_OR_RETURN(format::FileStats stats, writer->Finish());
    writer.reset();
    DataFragment frag;
    frag.set_physical_rows(stats.num_rows);
    lance::table::DataFile* file = frag.add_files();
    file->set_path(name);
    // 2.1+ files list leaf fields in column order (notes §4.1).
    for (size_t i = 0; i < stats.columns.size(); ++i) {
      file->add_fields(stats.columns[i].field_id);
      file->add_column_indices(static_cast<int32_t>(i));
    }
    file->set_file_major_version(2);
    file->set_file_minor_version(blobs.blob_info ? 3 : 2);
    file->set_file_size_bytes(stats.file_size);
    frags.push_back(std::move(frag));
    rows_in_file = 0;
    return Status::OK();
  };
  for (size_t b = 0;; ++b) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> next, batches.Next());
    if (!next) break;
    RecordBatch batch = std::move(*next);
    if (batch.columns.size() != schema.fields.size()) {
      return Status::InvalidArgument(root + ": batch " + std::to_string(b) + " has " +
                                     std::to_string(batch.columns.size()) + " columns but the schema has " +
                                     std::to_string(schema.fields.size()));
    }
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      if (batch.columns[c].length != batch.num_rows) {
        return Status::InvalidArgument(root + ": batch " + std::to_string(b) + " column " + schema.fields[c].name +
                                       " has " + std::to_string(batch.columns[c].length) + " rows, not " +
                                       std::to_string(batch.num_rows));
      }
    }
    // The writer checks columns against the schema that carries the Lance field ids.
    batch.schema = schema;
    int64_t offset = 0;
    while (offset < batch.num_rows) {
      if (!writer) {
        name = NewDataFileName();
        std::string path = JoinPath(root, std::string(kDataDir) + "/" + name);
        written->push_back(path);
        format::FileWriterOptions options;
        options.minor_version = blobs.blob_info ? 3 : 2;
        ASSIGN_OR_RETURN(writer,
                         format::FileWriter::Open(store, path, blobs.any ? blobs.file_schema : schema, options));
        if (blobs.any) {
          std::string stem = name.substr(0, name.size() - std::string_view(".lance").size());
          auto progress = [&blobs, &blob_bytes_before](uint64_t bytes) {
            if (blobs.progress) blobs.progress(blob_bytes_before + bytes);
          };
          sink = std::make_unique<BlobSink>(store, JoinPath(root, std::string(kDataDir) + "/" + stem), writer.get(),
                                            written, progress);
        }
      }
      int64_t take = static_cast<int64_t>(
          std::min<uint64_t>(static_cast<uint64_t>(batch.num_rows - offset), max_rows - rows_in_file));
      RecordBatch slice;
      if (offset == 0 && take == batch.num_rows) {
        slice = batch;
      } else {
        ASSIGN_OR_RETURN(slice, SliceBatch(batch, offset, take));
      }
      if (sink) {
        ASSIGN_OR_RETURN(slice, StoreBlobs(slice, blobs.read_schema, blobs.context, sink.get()));
        if (blobs.blob_info) {
          for (size_t c = 0; c < slice.columns.size(); ++c) {
            ASSIGN_OR_RETURN(slice.columns[c], BlobInfoToPhysical(blobs.read_schema.fields[c], slice.columns[c]));
          }
          slice.schema = blobs.file_schema;
        }
      }
      RETURN_IF_ERROR(writer->Write(slice));
      offset += take;
      rows_in_file += static_cast<uint64_t>(take);
      if (rows_in_file == max_rows) RETURN_IF_ERROR(finish());
    }
  }
  if (writer) RETURN_IF_ERROR(finish());
  return frags;
}

CommitBuilder BuildWriteCommit(io::ObjectStore& store, const WriteCommitInput& in) {
  return [&store, &in](const CommitBase& base) -> Result<PreparedCommit> {
    const std::string& root = in.root;
    PreparedCommit prep;
    Manifest& m = prep.manifest;
    std::vector<DataFragment> new_frags = in.fragments;
    if (in.append || (in.mode == WriteMode::kAppend && base.latest)) {
      if (!base.latest) return Status::Corruption(root + ": the dataset's manifests disappeared during the append");
      // An append that found no dataset raced another writer creating it; it read
      // nothing a replacement could invalidate, so it only needs matching columns.
      for (const auto& [version, txn] : base.since_read) {
        if (in.append && IsReplacement(txn)) return Status::CommitConflict(DescribeReplacement(root, version));
      }
      // The data files name field ids; they must still mean the same columns.
      std::map<int32_t, std::pair<std::string, std::string>> latest_fields;
      for (const auto& f : base.latest->fields()) latest_fields[f.id()] = {f.name(), f.logical_type()};
      for (const auto& f : in.lance_fields) {
        auto it = latest_fields.find(f.id());
        if (it == latest_fields.end() || it->second != std::make_pair(f.name(), f.logical_type())) {
          return Status::CommitConflict(root + ": the schema changed under the append (field id " +
                                        std::to_string(f.id()) + " '" + f.name() + "')");
        }
      }
      m = *base.latest;
      ASSIGN_OR_RETURN(prep.index_section, ReadIndexSection(store, base.latest_path, *base.latest));
      AssignIds(&*base.latest, base.latest_version + 1, &new_frags, &m);
      for (DataFragment& f : new_frags) {
        *m.add_fragments() = f;
        DataFragment* t = prep.transaction.mutable_append()->add_fragments();
        *t = f;
        // Append transactions carry fragments before ids and versions are given (notes
        // §5.2, lineage-notes §0.7).
        t->clear_id();
        t->clear_inline_created_at_versions();
        t->clear_inline_last_updated_at_versions();
      }
      return prep;
    }
    if (in.mode == WriteMode::kCreate && base.latest) {
      return Status::AlreadyExists(root + ": dataset already exists (latest version " +
                                   std::to_string(base.latest_version) + ")");
    }
    if (in.mode == WriteMode::kAppend && !base.latest && in.had_read) {
      return Status::CommitConflict(root + ": the dataset disappeared during the append");
    }
    // Create or overwrite: a fresh schema and fragment list, still on the same branch.
    for (const auto& f : in.lance_fields) *m.add_fields() = f;
    if (base.latest && base.latest->has_branch()) m.set_branch(base.latest->branch());
    for (const ExternalBase& b : in.new_bases) {
      lance::table::BasePath* bp = m.add_base_paths();
      bp->set_id(b.id);
      bp->set_is_dataset_root(false);
      bp->set_path(b.dir);
    }
    if (in.blob_info) {
      m.set_reader_feature_flags(m.reader_feature_flags() | kFlagBlobInfo);
      m.set_writer_feature_flags(m.writer_feature_flags() | kFlagBlobInfo);
      m.mutable_data_format()->set_file_format("lance");
      m.mutable_data_format()->set_version("2.3");
    }
    if (!in.new_bases.empty()) {
      // The reference marks manifests that define base paths (feature flag 16).
      m.set_reader_feature_flags(m.reader_feature_flags() | kFlagBasePaths);
      m.set_writer_feature_flags(m.writer_feature_flags() | kFlagBasePaths);
    }
    for (const auto& [k, v] : in.schema_metadata) (*m.mutable_schema_metadata())[k] = v;
    if (in.enable_stable_row_ids) {
      m.set_reader_feature_flags(m.reader_feature_flags() | kFlagStableRowIds);
      m.set_writer_feature_flags(m.writer_feature_flags() | kFlagStableRowIds);
    }
    if (base.latest) {
      // Fragment ids are never reused, also across overwrite (peer README).
      if (auto max = MaxFragmentId(*base.latest)) m.set_max_fragment_id(static_cast<uint32_t>(*max));
      if (in.enable_stable_row_ids) m.set_next_row_id(base.latest->next_row_id());
    }
    AssignIds(base.latest ? &*base.latest : nullptr, base.latest_version + 1, &new_frags, &m);
    auto* ow = prep.transaction.mutable_overwrite();
    for (const DataFragment& f : new_frags) {
      *m.add_fragments() = f;
      DataFragment* t = ow->add_fragments();
      *t = f;
      t->clear_inline_created_at_versions();
      t->clear_inline_last_updated_at_versions();
    }
    *ow->mutable_schema() = m.fields();
    *ow->mutable_schema_metadata() = m.schema_metadata();
    return prep;
  };
}

bool IsReplacement(const std::optional<Transaction>& txn) {
  return txn && (txn->has_overwrite() || txn->has_restore());
}

std::string DescribeReplacement(const std::string& root, uint64_t version) {
  return root + ": version " + std::to_string(version) +
         " replaced the table (overwrite or restore) after this change read it";
}

void DeleteAll(io::ObjectStore& store, const std::vector<std::string>& paths) {
  for (const std::string& p : paths) (void)store.Delete(p);
}

}  // namespace lancet::table
