// ObjectStore: where Lancet's bytes live (local disk, memory, later S3).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/io/io_stats.h"
#include "lancet/result.h"

namespace lancet::io {

/// A byte range [offset, offset + length).
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t end() const { return offset + length; }
  bool operator==(const ByteRange&) const = default;
};

/// How ReadMany merges and parallelises.
struct ReadOptions {
  /// Ranges whose gap is at most this many bytes are fetched in one request.
  uint64_t coalesce_gap = 4096;
  /// Merged requests are not grown past this size (0 = unbounded).
  uint64_t max_request_size = 16ULL << 20;
  /// Requests in flight at once for one ReadMany.
  int parallelism = 8;
};

/// \brief An open object for range reads. Implementations are thread-safe.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  /// The path or URI this file was opened from (for error messages).
  virtual const std::string& path() const = 0;
  virtual Result<uint64_t> Size() const = 0;
  /// Reads exactly [offset, offset+length); a range past the end is an IOError naming the path.
  /// Counts one request in the store's IoStats.
  virtual Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) const = 0;
  /// True when a read costs no more than a memory access (mapped or in-memory files):
  /// ReadMany then reads serially instead of paying for thread hand-offs.
  virtual bool cheap_reads() const { return false; }
  /// The counters this file records into (its store's), or nullptr.
  virtual IoStats* stats() const { return nullptr; }
  /// The merge and parallelism settings ReadMany actually uses for `requested`: stores
  /// whose requests cost milliseconds (S3) widen the gap and the parallelism.
  virtual ReadOptions TuneReadOptions(const ReadOptions& requested) const { return requested; }
  /// Reads many ranges: near ranges are merged (options.coalesce_gap) and the merged
  /// requests run in parallel. Returns one buffer per input range, in input order
  /// (views into the merged reads, no copies).
  Result<std::vector<BufferPtr>> ReadMany(std::span<const ByteRange> ranges, const ReadOptions& options = {}) const;
};

/// An entry returned by List.
struct ObjectInfo {
  std::string path;  // relative to the listed prefix's directory
  uint64_t size = 0;
  bool is_dir = false;
  /// Last modification in ms since the Unix epoch, if the store knows it (cleanup keeps
  /// young unreferenced files since they may belong to a commit in progress).
  std::optional<int64_t> modified_ms;
};

/// A streamed write a store began but that was neither completed nor aborted (an S3
/// multipart upload whose writer crashed): no reader sees it, but its parts are stored.
struct PendingUpload {
  std::string path;  // the object it would have become, as a store path
  std::string id;    // the store's handle for it (S3's UploadId)
  /// When it began, in ms since the Unix epoch, if the store knows.
  std::optional<int64_t> initiated_ms;
};

/// \brief An object written in pieces, visible only once Close succeeds. Not thread-safe.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  virtual Status Append(std::span<const uint8_t> bytes) = 0;
  /// Makes the object visible, replacing any existing one. No Append may follow.
  virtual Status Close() = 0;
};

/// \brief A namespace of objects addressed by '/'-separated paths. Thread-safe.
class ObjectStore {
 public:
  virtual ~ObjectStore() = default;
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) const = 0;
  virtual Result<uint64_t> Size(const std::string& path) const = 0;
  virtual Result<bool> Exists(const std::string& path) const = 0;
  /// Direct children of directory `dir` (non-recursive); NotFound if it does not exist.
  virtual Result<std::vector<ObjectInfo>> List(const std::string& dir) const = 0;
  /// Writes a whole object, replacing any existing one (atomically where possible).
  virtual Status Put(const std::string& path, std::span<const uint8_t> bytes) = 0;
  /// Creates the object only if absent; AlreadyExists otherwise. Atomic.
  virtual Status PutIfAbsent(const std::string& path, std::span<const uint8_t> bytes) = 0;
  /// Writes an object as a stream, so large objects need not be held in memory. The
  /// default collects the bytes and Puts them at Close; stores that can stream override it.
  virtual Result<std::unique_ptr<ObjectWriter>> OpenWrite(const std::string& path);
  virtual Status Delete(const std::string& path) = 0;
  /// Deletes every path; for each, whether it was removed (false: it was already absent).
  /// Stores with a batch request override this (S3: DeleteObjects, 1000 keys a request;
  /// S3 does not say whether a key existed, so it reports true). Stops at the first error.
  virtual Result<std::vector<bool>> DeleteMany(const std::vector<std::string>& paths);
  /// Streamed writes under directory `dir` (recursively) still pending; none by default,
  /// since local and in-memory writes leave only temporary files, which List shows.
  virtual Result<std::vector<PendingUpload>> ListUploads(const std::string& dir) const;
  /// Discards a pending upload and its stored parts; NotFound if it is gone already.
  virtual Status AbortUpload(const PendingUpload& upload);

  /// Counters for every request this store (and files it opened) served.
  IoStats& stats() const { return *stats_; }

 protected:
  std::shared_ptr<IoStats> stats_ = std::make_shared<IoStats>();
};

/// The local file system rooted at "/" (paths are absolute or relative to the cwd).
/// Reads view a mapping of the file (large reads give their pages back past a resident
/// budget once released, src/io/mapped_pages.h); with `map_reads` false they copy with
/// pread instead.
std::shared_ptr<ObjectStore> LocalFileSystem(bool map_reads = true);
/// A fresh in-memory store, for tests.
std::shared_ptr<ObjectStore> NewMemoryStore();

/// Plans how ranges are merged: returns merged ranges (sorted) and, for each input
/// range, the index of the merged range containing it. Exposed for tests.
struct CoalescePlan {
  std::vector<ByteRange> merged;
  std::vector<size_t> owner;
};
CoalescePlan PlanCoalesce(std::span<const ByteRange> ranges, const ReadOptions& options);

}  // namespace lancet::io
