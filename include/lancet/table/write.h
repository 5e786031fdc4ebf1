// Writing Lance tables: new versions from record batches, deletes, tags, restore.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/io/object_store.h"
#include "lancet/io/storage_options.h"
#include "lancet/record_batch_reader.h"
#include "lancet/result.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/dataset.h"
#include "lancet/table/storage_version.h"

namespace lancet::table {

enum class WriteMode : uint8_t {
  kCreate,     // the dataset must not exist yet (AlreadyExists otherwise)
  kAppend,     // add rows to the latest version (creates the dataset if absent)
  kOverwrite,  // replace every row and the schema (creates the dataset if absent)
};

struct WriteParams {
  WriteMode mode = WriteMode::kCreate;
  /// Rows per data file (and so per fragment); must be at least 1.
  uint64_t max_rows_per_file = 1024 * 1024;
  /// Only honoured when the table is created or overwritten: gives every row a
  /// stable row id (reader/writer feature flag 2, Manifest.next_row_id).
  bool enable_stable_row_ids = false;
  /// Commit attempts before CommitConflict (each lost race re-reads the latest version).
  int max_commit_attempts = 20;
  /// Blob V2 columns: binary columns stored as blobs, external URIs, progress.
  BlobWriteOptions blobs;
  /// Only honoured when the table is created or overwritten; appends keep the
  /// dataset's version.
  StorageVersion storage_version = StorageVersion::k2_2;
  /// For URIs that name a remote store (s3://): credentials, endpoint, region
  /// (io::StorageOptions keys); the environment fills in what is not given.
  io::StorageOptions storage_options;
};

/// \brief Writes `batches` as a new version of the dataset at `uri` (a local directory,
/// file:// or s3://bucket/prefix URI, see io::ResolveUri) and returns that version.
///
/// Data files go to data/, one fragment per file. Blob V2 columns (fields with the
/// lance.blob.v2 extension, see blob_write.h, or binary columns named in
/// params.blobs.binary_as_blob) store each value by size: inline in the data file,
/// in a shared pack sidecar or a dedicated sidecar under data/<file stem>/, or as an
/// external reference for a `uri`; scans then return descriptors. The commit is an atomic
/// create-if-absent of the next manifest; a writer that loses a race re-reads the
/// latest version and tries again (appends rebase onto it with fresh fragment ids).
/// Errors: InvalidArgument if a batch does not match `schema` or params are invalid;
/// AlreadyExists for kCreate on an existing dataset; InvalidArgument when appending
/// with a schema that differs from the dataset's; CommitConflict when the retries run
/// out or a concurrent overwrite/restore made an append meaningless.
/// Thread-safe: concurrent writers in one or several processes are serialised by
/// the commit.
Result<uint64_t> WriteDataset(const std::string& uri, const Schema& schema, std::vector<RecordBatch> batches,
                              const WriteParams& params = {});
/// Same, for the dataset at `root` in `store`.
Result<uint64_t> WriteDataset(std::shared_ptr<io::ObjectStore> store, const std::string& root, const Schema& schema,
                              std::vector<RecordBatch> batches, const WriteParams& params = {});

/// \brief Same as above for the rows `batches` yields (of schema batches.schema()),
/// written to data files as they arrive: memory holds about one batch plus the file
/// writer's page buffers, whatever the input's size. A file rolls over every
/// params.max_rows_per_file rows. The commit happens once, after the reader is
/// exhausted; when the reader (or a write) fails, nothing is committed, the data files
/// written so far are deleted and the dataset stays at its version, and the reader's
/// error is returned.
Result<uint64_t> WriteDataset(const std::string& uri, RecordBatchReader& batches, const WriteParams& params = {});
Result<uint64_t> WriteDataset(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                              RecordBatchReader& batches, const WriteParams& params = {});

/// \brief Deletes rows by row address ((fragment_id << 32) | offset) as seen in
/// `dataset`'s version; returns the new version.
///
/// Each touched fragment gets one merged deletion file holding all its deleted rows;
/// a fragment whose rows are all deleted leaves the manifest. Deleting an already
/// deleted row is not an error. Concurrent deletes and appends are merged; a
/// concurrent overwrite, restore or rewrite of a touched fragment gives
/// CommitConflict. NotFound for an address outside `dataset`'s fragments.
Result<uint64_t> DeleteRows(const Dataset& dataset, std::span<const uint64_t> row_addresses,
                            int max_commit_attempts = 20);

/// \brief Deletes the rows of `dataset`'s version for which `predicate` is true and
/// returns the new version (or dataset.version() when no row matches). The predicate
/// is SQL-like: `column op literal` or `literal op column` (op: = != <> < <= > >=;
/// literals: integers, floats, 'strings' with '' for a quote, TRUE/FALSE, NULL),
/// IS [NOT] NULL, AND/OR/NOT (case-insensitive) and parentheses; dotted names reach
/// struct members and `backquotes` quote a name. Dates and timestamps take
/// 'YYYY-MM-DD[ HH:MM[:SS[.f]]][Z|+HH:MM]' strings or raw integers. A comparison with
/// a null value is not true (SQL three-valued logic). InvalidArgument (naming the
/// column and the position) for a parse error, a missing column or member, a type
/// without an order, or a literal that does not fit the column type; nothing is
/// written then. Otherwise as DeleteRows.
Result<uint64_t> DeleteWhere(const Dataset& dataset, const std::string& predicate, int max_commit_attempts = 20);

/// \brief Makes version `version` of `dataset`'s table the newest one again (a new
/// version with its schema and fragments) and returns the new version. Fragment ids
/// keep increasing afterwards. NotFound if `version` does not exist.
Result<uint64_t> Restore(const Dataset& dataset, uint64_t version, int max_commit_attempts = 20);

/// \brief Creates tag `name` (`_refs/tags/<name>.json`) for `version` of `dataset`'s
/// table. InvalidArgument for a bad name, NotFound for an unknown version,
/// AlreadyExists if the tag exists. Creating a tag makes no new version.
Status CreateTag(const Dataset& dataset, const std::string& name, uint64_t version);

/// \brief Deletes tag `name`. NotFound if there is no such tag.
Status DeleteTag(const Dataset& dataset, const std::string& name);

}  // namespace lancet::table
