// Dataset: a Lance table (a directory of manifests, data files and deletion files).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/io/object_store.h"
#include "lancet/io/storage_options.h"
#include "lancet/record_batch_reader.h"
#include "lancet/table/blob_info_value.h"
#include "lancet/table/blob_location.h"
#include "lancet/table/index_metadata.h"
#include "lancet/table/row_selection.h"
#include "lancet/table/storage_version.h"

namespace lancet::table {

/// Which version to open.
struct OpenOptions {
  std::optional<uint64_t> version;  // default: latest
  std::optional<std::string> tag;   // mutually exclusive with version
  /// The branch to open (lancet/table/branch.h); empty or "main" is the main branch. A
  /// tag names its own branch and overrides this one.
  std::string branch;
  /// The newest storage version to accept; k2_2 reads like a reader that predates
  /// blob_info and refuses 2.3 datasets.
  StorageVersion max_storage_version = StorageVersion::k2_3;
  /// For remote URIs (s3://): io::StorageOptions keys, over the environment's settings.
  io::StorageOptions storage_options;
};

struct VersionInfo {
  uint64_t version = 0;
  int64_t timestamp_ms = 0;  // from the manifest; 0 if absent
  uint64_t num_rows = 0;     // visible rows at that version
};

struct DataFileInfo {
  std::string path;      // relative to the data dir of its base (the dataset's by default)
  std::string location;  // the store path it is read from, through its base path
  std::vector<int32_t> fields;
  std::vector<int32_t> column_indices;
  uint32_t major = 0, minor = 0;
  uint64_t size_bytes = 0;
};

struct FragmentInfo {
  uint64_t id = 0;
  uint64_t physical_rows = 0;
  uint64_t deleted_rows = 0;
  std::vector<DataFileInfo> files;
  std::string deletion_file;  // relative path, empty if none
};

struct ScanOptions {
  /// Columns of read_schema() to output, in this order; empty = all. A nested path
  /// "a.b.c" outputs the top-level struct `a` holding only the members on the path
  /// (paths under one top-level column merge). "_rowid" and "_rowaddr" may be listed
  /// too (then they are output even without the flags below).
  std::vector<std::string> columns;
  /// A predicate in DeleteWhere's filter language (docs/cli.md, delete); empty = every row.
  /// Its columns are read first; the other columns only for the rows that pass.
  std::string filter;
  uint64_t batch_size = 65536;
  /// When not 0, batches also hold no more rows than fit this many bytes, estimated
  /// from the fragment's data file bytes per row (an on-disk size: decoded values may
  /// be larger, and columns left out of the projection count too). At least one row.
  /// Keeps wide rows (large binaries, long lists) from making batches huge.
  uint64_t batch_bytes = 0;
  bool with_row_id = false;    // appends "_rowid" (uint64)
  bool with_row_addr = false;  // appends "_rowaddr" (uint64)
  /// Rows skipped (after the filter) before the first one output.
  uint64_t offset = 0;
  std::optional<uint64_t> limit;
  /// Only these fragments (still in id order); empty = all. NotFound for an id that
  /// is not in the version.
  std::vector<uint64_t> fragment_ids;
  /// Output in row-address order; false hands out batches as they finish.
  bool ordered = true;
  /// Batches read and decoded at once (across fragments); 0 = one per CPU core.
  uint32_t io_parallelism = 0;
  /// Finished batches a scan may hold ahead of its consumer, on top of those in
  /// flight; 0 = io_parallelism. Memory is bounded by these two, not the dataset.
  uint32_t batch_readahead = 0;
  /// Rows an index picked (the scan planner, lancet/scan/scanner.h, sets it): only these
  /// rows of the fragments it names are read. REQUIRES: a filter.
  std::shared_ptr<const RowSelection> selection;
};

/// \brief An opened version of a dataset. Immutable and thread-safe.
///
/// Blob V2 columns read as their descriptor struct
/// struct<kind u8, position u64, size u64, blob_id u32, blob_uri utf8>; schema() reports
/// the logical struct<data large_binary, uri utf8> with the lance.blob.v2 extension.
class Dataset {
 public:
  virtual ~Dataset() = default;

  /// Opens `uri`: a local directory path, file:// or s3://bucket/prefix (io::ResolveUri).
  static Result<std::unique_ptr<Dataset>> Open(const std::string& uri, const OpenOptions& options = {});
  /// Opens the dataset at `root` in `store`.
  static Result<std::unique_ptr<Dataset>> Open(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                               const OpenOptions& options = {});

  /// Where the dataset was opened: the URI as given to Open(uri) (s3://bucket/prefix
  /// for S3, never with credentials), or the root for Open(store, root).
  virtual const std::string& uri() const = 0;
  /// The dataset's directory inside store(): a local path or an S3 key prefix.
  virtual const std::string& root() const { return uri(); }
  /// The branch this version is on; empty for main.
  virtual const std::string& branch() const {
    static const std::string kMain;
    return kMain;
  }
  /// The directory of the table the branch belongs to (where _refs/ and tree/ live):
  /// root() on main.
  virtual const std::string& table_root() const { return root(); }
  virtual uint64_t version() const = 0;
  virtual const Schema& schema() const = 0;
  /// The schema of scan output: blob columns as descriptor structs.
  virtual const Schema& read_schema() const = 0;
  virtual std::shared_ptr<io::ObjectStore> store() const = 0;

  virtual Result<std::vector<VersionInfo>> ListVersions() const = 0;
  virtual Result<std::map<std::string, uint64_t>> ListTags() const = 0;
  virtual Result<std::unique_ptr<Dataset>> Checkout(uint64_t version) const = 0;
  virtual Result<std::unique_ptr<Dataset>> CheckoutTag(const std::string& tag) const = 0;

  virtual const std::vector<FragmentInfo>& fragments() const = 0;
  /// Whether rows carry stable row ids (then indexes record row ids, not addresses).
  virtual bool stable_row_ids() const { return false; }
  /// The indices of this version (the manifest's index section), in stored order.
  /// Corruption naming the manifest for an unreadable section.
  virtual Result<std::vector<IndexMetadata>> ListIndices() const { return std::vector<IndexMetadata>{}; }
  /// The directory of `index`'s files in store(): <root>/_indices/<uuid>, or under the
  /// dataset root its base_id names (shallow clones). Corruption for an unknown base.
  virtual Result<std::string> IndexDirectory(const IndexMetadata& index) const {
    return root() + "/_indices/" + index.uuid;
  }
  /// Visible rows (physical rows minus deletions).
  virtual uint64_t CountRows() const = 0;
  /// Manifest facts for `lancet info`: writer, storage version, feature flags...
  virtual std::map<std::string, std::string> Describe() const = 0;

  /// \brief Streams the visible rows that pass `options.filter`, in batches of at most
  /// batch_size (a batch never spans two fragments).
  ///
  /// Batches are read as Next() asks for them, with at most io_parallelism +
  /// batch_readahead batches in flight. Columns a fragment lacks (added later by a
  /// metadata-only schema change) read as nulls. NotFound for an unknown column or
  /// fragment, InvalidArgument for batch_size 0 or a filter that does not parse or bind
  /// (its message names the column); data and deletion file errors, from Next(), name
  /// the file. REQUIRES: the dataset outlives the reader.
  virtual Result<std::unique_ptr<RecordBatchReader>> NewScan(const ScanOptions& options = {}) const = 0;
  /// NewScan drained into memory: materialises the whole result, so only for results
  /// known to be small (or tests).
  virtual Result<std::vector<RecordBatch>> Scan(const ScanOptions& options = {}) const;
  /// Rows by row address ((fragment_id << 32) | offset), in the given order (repeats
  /// allowed). `columns` as ScanOptions::columns. NotFound for an address that names no
  /// fragment, lies past its rows, or is deleted.
  virtual Result<RecordBatch> TakeRowAddresses(std::span<const uint64_t> addresses,
                                               const std::vector<std::string>& columns = {}) const = 0;
  /// Rows by row id (equals the address unless stable row ids are enabled).
  virtual Result<RecordBatch> TakeRowIds(std::span<const uint64_t> row_ids,
                                         const std::vector<std::string>& columns = {}) const = 0;
  /// Row ids → row addresses (identity without stable row ids); NotFound for unknown ids.
  virtual Result<std::vector<uint64_t>> RowIdsToAddresses(std::span<const uint64_t> row_ids) const = 0;

  /// \brief Where the bytes of blob column `column` (dotted path for nested blobs) live
  /// at each row: nullopt for a null blob. Order and repeats kept.
  ///
  /// `rows` are row ids or row addresses as `key` says. Each distinct object is opened
  /// once to check that every range lies inside it and to give whole-object external
  /// blobs their exact length; empty blobs open nothing.
  /// Errors: NotFound for an unknown column, row id or address, or a missing sidecar
  /// (naming its path); InvalidArgument if the column is not a Blob V2 column;
  /// NotSupported for a path through a list or an external URI scheme other than
  /// file://; Corruption (naming the file) for an unknown kind, an overflowing range or
  /// a range past the end of its object.
  virtual Result<std::vector<std::optional<BlobLocation>>> LocateBlobs(const std::string& column,
                                                                       std::span<const uint64_t> rows,
                                                                       RowKey key = RowKey::kRowId) const = 0;
  /// The bytes of each location LocateBlobs gives (same errors): nullopt for a null
  /// blob, an empty buffer for an empty one. One ReadMany per object (near ranges
  /// merged), different objects read in parallel where reads are not cheap.
  virtual Result<std::vector<std::optional<BufferPtr>>> TakeBlobs(const std::string& column,
                                                                  std::span<const uint64_t> rows,
                                                                  RowKey key = RowKey::kRowId) const = 0;

  /// Opens the object of a BlobLocation: a path in store(), or an external s3:// URI
  /// through a store for its bucket made with the storage options the dataset was
  /// opened with (the dataset's own store when it lives in that bucket).
  virtual Result<std::unique_ptr<io::RandomAccessFile>> OpenBlobObject(const std::string& object) const {
    return store()->OpenRead(object);
  }

  /// A blob's location and, in format 2.3, its blob_info.
  struct BlobWithInfo {
    BlobLocation location;
    std::optional<BlobInfoValue> info;
    /// The location's object, already open (null for an empty blob, or when the caller
    /// built the value itself): reading through it costs no second open (a HEAD on S3).
    std::shared_ptr<io::RandomAccessFile> object;
  };
  /// Like LocateBlobs (same errors) with each row's blob_info, read with the
  /// descriptor in one projection: what extraction starts from. LocateBlobs, TakeBlobs
  /// and everything built on them refuse a row whose blob_info is set, since its
  /// stored bytes are a media plugin's stream rather than the original file.
  // Unnamed parameters: programs that include this header may build with -Wextra -Werror.
  virtual Result<std::vector<std::optional<BlobWithInfo>>> LocateBlobsWithInfo(const std::string& /*column*/,
                                                                               std::span<const uint64_t> /*rows*/,
                                                                               RowKey /*key*/ = RowKey::kRowId) const {
    return Status::NotSupported("this dataset implementation has no blob_info");
  }
};

}  // namespace lancet::table
