// MergeInsert: the source is ingested once (spilled past the budget), then joined with
// the latest version and committed through a RowRewriter; a lost race re-runs the join.
#include "lancet/table/merge_insert.h"

#include "table/blob.h"
#include "table/blob_input.h"
#include "table/merge_join.h"
#include "table/merge_spill.h"
#include "table/row_rewrite.h"

namespace lancet::table {
namespace {

class RewriterMergeSink final : public MergeSink {
 public:
  explicit RewriterMergeSink(RowRewriter& rewriter) : rewriter_(rewriter) {}
  Status Add(const RecordBatch& rows, std::span<const uint64_t> replaces) override {
    return rewriter_.Add(rows, replaces);
  }
  Status Remove(std::span<const uint64_t> addresses) override { return rewriter_.Remove(addresses); }

 private:
  RowRewriter& rewriter_;
};

// A source gives a blob column's new values as plain bytes (binary or large_binary, the
// natural shape of a feed) or as the input struct<data, uri>: bytes become that struct,
// as WriteParams::blobs.binary_as_blob makes them for a write.
class BlobBytesSource final : public RecordBatchReader {
 public:
  BlobBytesSource(RecordBatchReader& inner, std::map<std::string, BlobThresholds> columns)
      : inner_(inner), columns_(std::move(columns)), schema_(inner.schema()) {
    std::vector<RecordBatch> none;
    converted_ = ConvertBinaryToBlob(columns_, &schema_, &none);
    // The batches keep the source's width of the data child (StoreBlobs reads either),
    // and so does the schema: a spilled source is written with it.
    for (const auto& [name, unused] : columns_) {
      const size_t i = static_cast<size_t>(inner.schema().FieldIndex(name));
      schema_.fields[i].type =
          StructOf({MakeField("data", inner.schema().fields[i].type), MakeField("uri", MakeType(TypeId::kUtf8))});
    }
  }
  const Schema& schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    RETURN_IF_ERROR(converted_);
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, inner_.Next());
    if (!batch) return batch;
    Schema schema = batch->schema;
    std::vector<RecordBatch> one{std::move(*batch)};
    RETURN_IF_ERROR(ConvertBinaryToBlob(columns_, &schema, &one));
    one[0].schema = schema_;
    return std::optional<RecordBatch>(std::move(one[0]));
  }

 private:
  RecordBatchReader& inner_;
  const std::map<std::string, BlobThresholds> columns_;
  Schema schema_;
  Status converted_;
};

// The source's binary columns that feed Blob V2 columns of `target`.
std::map<std::string, BlobThresholds> BlobBytesColumns(const Schema& source, const Schema& target) {
  std::map<std::string, BlobThresholds> out;
  for (const Field& f : source.fields) {
    const int t = target.FieldIndex(f.name);
    if (t < 0 || !IsBlobV2Field(target.fields[t])) continue;
    if (f.type.id != TypeId::kBinary && f.type.id != TypeId::kLargeBinary) continue;
    auto thresholds = BlobThresholdsOf(target.fields[t]);
    out[f.name] = thresholds.ok() ? *thresholds : BlobThresholds{};
  }
  return out;
}

}  // namespace

Result<MergeInsertResult> MergeInsert(const Dataset& dataset, RecordBatchReader& source,
                                      const MergeInsertOptions& options) {
  if (options.max_commit_attempts < 1) {
    return Status::InvalidArgument("merge insert into " + dataset.uri() + ": max_commit_attempts must be at least 1");
  }
  if (options.max_rows_per_file == 0) {
    return Status::InvalidArgument("merge insert into " + dataset.uri() + ": max_rows_per_file must be at least 1");
  }
  if (options.spill_partitions > 4096) {
    return Status::InvalidArgument("merge insert into " + dataset.uri() + ": spill_partitions " +
                                   std::to_string(options.spill_partitions) + " is above 4096");
  }
  std::optional<BlobBytesSource> blob_bytes;
  RecordBatchReader* input = &source;
  if (auto columns = BlobBytesColumns(source.schema(), dataset.schema()); !columns.empty()) {
    input = &blob_bytes.emplace(source, std::move(columns));
  }
  auto keys = MergeKeys::Make(input->schema(), options.on, "source");
  if (!keys.ok()) return Status::InvalidArgument("merge insert into " + dataset.uri() + ": " + keys.status().message());
  ASSIGN_OR_RETURN(std::unique_ptr<MergeSource> rows, MergeSource::Ingest(*input, *keys, options.memory_budget_bytes,
                                                                          options.spill_partitions, options.spill_dir));
  MergeInsertResult result;
  result.spilled_bytes = rows->spilled_bytes();
  std::unique_ptr<Dataset> latest;
  const Dataset* base = &dataset;
  for (int attempt = 1;; ++attempt) {
    std::unique_ptr<Dataset> next;
    {
      WriteParams params;
      params.mode = WriteMode::kAppend;
      params.max_rows_per_file = options.max_rows_per_file;
      params.max_commit_attempts = options.max_commit_attempts;
      ASSIGN_OR_RETURN(std::unique_ptr<RowRewriter> rewriter, RowRewriter::Make(*base, params));
      RewriterMergeSink sink(*rewriter);
      ASSIGN_OR_RETURN(MergeCounts counts, RunMergeJoin(*base, *rows, options, sink));
      Result<uint64_t> committed = rewriter->Commit();
      if (committed.ok()) {
        result.version = *committed;
        result.rows_inserted = counts.inserted;
        result.rows_updated = counts.updated;
        result.rows_deleted = counts.deleted;
        result.attempts = attempt;
        return result;
      }
      if (!committed.status().IsCommitConflict() || attempt >= options.max_commit_attempts) {
        return committed.status();
      }
      // The rewriter (which refers to `base`) goes before `base` is replaced.
      ASSIGN_OR_RETURN(next, Dataset::Open(base->store(), base->root()));
    }
    latest = std::move(next);
    base = latest.get();
  }
}

}  // namespace lancet::table
