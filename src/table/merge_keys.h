// The key columns of a merge: checked once, then each row's key as comparable bytes.
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::table {

/// Rows encoded at a time: enough to hide the index's misses, few enough to stay in cache.
inline constexpr int64_t kMergeKeyRunRows = 1024;

/// \brief The encoded keys of a run of rows and their hashes.
struct MergeKeyRun {
  std::string bytes;
  std::vector<size_t> ends;  // key i is bytes[ends[i - 1] (0 for i = 0), ends[i])
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> valid;  // 0: a key value is null (the row matches nothing)

  size_t size() const { return ends.size(); }
  std::string_view key(size_t i) const {
    const size_t begin = i == 0 ? 0 : ends[i - 1];
    return {bytes.data() + begin, ends[i] - begin};
  }
};

/// \brief Positions of the `on` columns in one schema and an encoding of their values
/// under which equal keys (same types) give equal bytes.
class MergeKeys {
 public:
  /// InvalidArgument naming `what` (e.g. "source") for an empty or repeated `on`, a
  /// column `schema` lacks, or a type no key can have.
  static Result<MergeKeys> Make(const Schema& schema, const std::vector<std::string>& on, const std::string& what);

  /// Column indices of the keys in the schema given to Make.
  const std::vector<int>& indices() const { return indices_; }
  /// Encodes rows [begin, end) of `batch` (key columns at indices(), or, with
  /// `keys_only`, a batch of just the key columns in `on` order) into `run`.
  void EncodeRun(const RecordBatch& batch, bool keys_only, int64_t begin, int64_t end, MergeKeyRun* run) const;
  /// "id = 2, name = abc": for error messages.
  std::string Describe(const RecordBatch& batch, int64_t row) const;

 private:
  std::vector<std::string> names_;
  std::vector<int> indices_;
};

/// The hash EncodeRun gives an encoded key.
uint64_t HashMergeKey(std::string_view key);

/// The partition of an encoded key with hash `hash` among `partitions`.
uint32_t KeyPartition(uint64_t hash, uint32_t partitions);
inline uint32_t KeyPartition(std::string_view key, uint32_t partitions) {
  return KeyPartition(HashMergeKey(key), partitions);
}

/// \brief Encoded keys → a row number: open addressing over one flat slot array and
/// one byte arena (a node-based map's cache misses dominated the join).
class MergeKeyIndex {
 public:
  /// Room for `expected` keys (at most half the slots are ever used).
  explicit MergeKeyIndex(size_t expected);
  /// The row stored for key `i` of `run` (valid), inserting `row` first when the key
  /// is new (`*fresh`). REQUIRES: fewer than `expected` + 1 keys inserted in all.
  int64_t* FindOrInsert(const MergeKeyRun& run, size_t i, int64_t row, bool* fresh);
  /// rows[i] = the row stored for key i of `run`, or -1 (also for a null key). The
  /// slots of keys a little ahead are prefetched: the table is far larger than the
  /// caches, and the misses would otherwise be waited for one at a time.
  void FindRun(const MergeKeyRun& run, int64_t* rows) const;
  /// Starts loading the slot of `hash`.
  void Prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]); }

 private:
  struct Slot {
    uint64_t hash = 0;
    int64_t row = -1;  // -1: empty
    uint64_t offset = 0;
    uint64_t length = 0;
  };
  size_t Probe(std::string_view key, uint64_t hash) const;
  std::vector<Slot> slots_;
  std::string arena_;
};

}  // namespace lancet::table
