// MergeInsert: the source is ingested once (spilled past the budget), then joined with
// the latest version and committed through a RowRewriter; a lost race re-runs the join.
#include "lancet/table/merge_insert.h"

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
  auto keys = MergeKeys::Make(source.schema(), options.on, "source");
  if (!keys.ok()) return Status::InvalidArgument("merge insert into " + dataset.uri() + ": " + keys.status().message());
  ASSIGN_OR_RETURN(std::unique_ptr<MergeSource> rows,
                   MergeSource::Ingest(source, *keys, options.memory_budget_bytes, options.spill_partitions,
                                       options.spill_dir));
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
