// The source of a merge, held in memory or hash-partitioned by key into spill files, so
// that it can be joined a partition at a time and replayed after a lost commit.
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/record_batch_reader.h"
#include "lancet/result.h"
#include "table/merge_keys.h"

namespace lancet::table {

/// Bytes of the buffers `batch` references (slices count their whole buffers).
uint64_t BatchBytes(const RecordBatch& batch);

/// \brief A fresh directory under `parent` (the system temp dir when empty), removed
/// with its files when destroyed.
class SpillDir {
 public:
  static Result<std::unique_ptr<SpillDir>> Make(const std::string& parent);
  ~SpillDir();
  SpillDir(const SpillDir&) = delete;
  SpillDir& operator=(const SpillDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  explicit SpillDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

/// \brief Files `<dir>/<stem>-<p>.arrows`, one Arrow IPC stream per partition: rows are
/// routed to partition `part[i]`.
class PartitionedSpill {
 public:
  static Result<std::unique_ptr<PartitionedSpill>> Open(const std::string& dir, const std::string& stem,
                                                        const Schema& schema, uint32_t partitions);
  ~PartitionedSpill();
  Status Write(const RecordBatch& batch, const std::vector<uint32_t>& part);
  Status Finish();
  uint64_t bytes() const { return bytes_; }
  /// The rows written to partition `p`. REQUIRES: Finish() succeeded.
  Result<std::unique_ptr<RecordBatchReader>> Read(uint32_t p) const;

 private:
  class File;
  std::vector<std::unique_ptr<File>> files_;
  std::vector<std::string> paths_;
  uint64_t bytes_ = 0;
};

/// \brief The merge's source rows: kept in memory while they fit `budget` bytes,
/// otherwise every row goes to one of `partitions` spill files by the hash of its key.
class MergeSource {
 public:
  static Result<std::unique_ptr<MergeSource>> Ingest(RecordBatchReader& reader, const MergeKeys& keys, uint64_t budget,
                                                     uint32_t partitions, const std::string& spill_parent);
  const Schema& schema() const { return schema_; }
  /// 1 when the source is in memory.
  uint32_t partitions() const { return spill_ ? partitions_ : 1; }
  uint64_t spilled_bytes() const { return spill_ ? spill_->bytes() : 0; }
  /// Where the join may spill the target's keys; null when the source is in memory.
  const SpillDir* spill_dir() const { return dir_.get(); }
  /// Partition `p`'s rows (rows with a null key are in partition 0): the batches as
  /// read for a source in memory, concatenated into one when `whole` (then kept so),
  /// one batch for a spilled source. A spilled source's batch has one more column
  /// than schema(): each row's position in the source (uint64), so that inserts can be
  /// put back in source order. Never an empty list.
  Result<std::vector<RecordBatch>> Load(uint32_t p, bool whole) const;

 private:
  Status SpillHeld();
  Status SpillBatch(const RecordBatch& batch);
  Result<RecordBatch> Gather() const;
  uint64_t rows_seen_ = 0;
  Schema schema_;
  MergeKeys keys_;
  std::string spill_parent_;
  uint32_t partitions_ = 1;
  // The source's batches while it fits the budget; Load(whole) gathers them into one.
  mutable std::vector<RecordBatch> held_;
  std::unique_ptr<SpillDir> dir_;
  std::unique_ptr<PartitionedSpill> spill_;
};

/// The column MergeSource::Load appends to a spilled source's rows.
inline constexpr const char* kMergeSeqColumn = "__lancet_merge_seq";

/// The partition of each row of `batch` (key columns at keys.indices()).
std::vector<uint32_t> RowPartitions(const RecordBatch& batch, const MergeKeys& keys, bool keys_only,
                                    uint32_t partitions);

/// Concatenates `batches` (all of `schema`) into one batch.
Result<RecordBatch> ConcatenateBatches(const Schema& schema, const std::vector<RecordBatch>& batches);

}  // namespace lancet::table
