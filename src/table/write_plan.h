// A write in its three steps — plan (schema, blob placement, what was read), data files,
// commit — shared by WriteDataset, which runs them at once, and the distributed writes of
// lancet/table/fragment_write.h, whose workers write files that a driver commits.
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance_proto/file.pb.h"
#include "lancet/record_batch_reader.h"
#include "lancet/table/write.h"
#include "table/blob_input.h"
#include "table/commit.h"

namespace lancet::table {

struct BlobPlan {
  bool any = false;
  bool blob_info = false;  // format 2.3
  Schema read_schema;
  Schema file_schema;  // read_schema with blob_info descriptors in their on-disk shape
  BlobWriteContext context;
  std::function<void(uint64_t)> progress;
};

struct WritePlan {
  std::string root;                            // without a trailing slash
  std::optional<lance::table::Manifest> read;  // the latest version when planned
  uint64_t read_version = 0;
  bool append = false;  // appending to an existing dataset
  Schema write_schema;  // with Lance field ids
  std::vector<lance::file::Field> lance_fields;
  BlobPlan blobs;
  std::vector<ExternalBase> new_bases;  // external bases a create/overwrite registers
  /// The input with its binary_as_blob columns converted (null when there are none);
  /// read from this instead of the input.
  std::unique_ptr<RecordBatchReader> converted;
};

/// Checks `params` and the input's schema against the dataset at `root` as it is now.
Result<WritePlan> PlanWrite(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                            RecordBatchReader& input, const WriteParams& params);

/// Writes what `batches` yields into data files of at most max_rows rows, one fragment
/// per file without ids (given at commit). Every file written is added to `written`.
Result<std::vector<lance::table::DataFragment>> WriteDataFiles(const std::shared_ptr<io::ObjectStore>& store,
                                                               const WritePlan& plan, RecordBatchReader& batches,
                                                               uint64_t max_rows, std::vector<std::string>* written);

/// What the commit of written fragments needs besides the store.
struct WriteCommitInput {
  std::string root;
  WriteMode mode = WriteMode::kCreate;
  bool append = false;    // the fragments were written against an existing dataset's schema
  bool had_read = false;  // a dataset existed when the fragments were planned
  std::vector<lance::file::Field> lance_fields;
  std::map<std::string, std::string> schema_metadata;
  std::vector<lance::table::DataFragment> fragments;
  std::vector<ExternalBase> new_bases;
  bool blob_info = false;
  bool enable_stable_row_ids = false;
};

/// The commit builder of a write: an append onto the latest version or a create or
/// overwrite. `in` and `store` must outlive the commit.
CommitBuilder BuildWriteCommit(io::ObjectStore& store, const WriteCommitInput& in);

bool IsReplacement(const std::optional<lance::table::Transaction>& txn);
std::string DescribeReplacement(const std::string& root, uint64_t version);
void DeleteAll(io::ObjectStore& store, const std::vector<std::string>& paths);

}  // namespace lancet::table
