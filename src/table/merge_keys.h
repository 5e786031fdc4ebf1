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

/// \brief Positions of the `on` columns in one schema and an encoding of their values
/// under which equal keys (same types) give equal bytes.
class MergeKeys {
 public:
  /// InvalidArgument naming `what` (e.g. "source") for an empty or repeated `on`, a
  /// column `schema` lacks, or a type no key can have.
  static Result<MergeKeys> Make(const Schema& schema, const std::vector<std::string>& on, const std::string& what);

  /// Column indices of the keys in the schema given to Make.
  const std::vector<int>& indices() const { return indices_; }
  /// Writes row `row`'s key (columns at indices() of `batch`) to `out`; false when a
  /// key value is null (then the row matches nothing).
  bool Encode(const RecordBatch& batch, int64_t row, std::string* out) const;
  /// Same, for a batch holding only the key columns, in `on` order.
  bool EncodeKeysOnly(const RecordBatch& keys, int64_t row, std::string* out) const;
  /// "id = 2, name = abc": for error messages.
  std::string Describe(const RecordBatch& batch, int64_t row) const;

 private:
  bool EncodeColumns(const RecordBatch& batch, int64_t row, bool keys_only, std::string* out) const;
  std::vector<std::string> names_;
  std::vector<int> indices_;
};

/// The partition of an encoded key among `partitions`.
uint32_t KeyPartition(const std::string& key, uint32_t partitions);

/// \brief Encoded keys → a row number: open addressing over one flat slot array and
/// one byte arena (a node-based map's cache misses dominated the join).
class MergeKeyIndex {
 public:
  /// Room for `expected` keys (at most half the slots are ever used).
  explicit MergeKeyIndex(size_t expected);
  /// The row stored for `key`, inserting `row` first when the key is new (`*fresh`).
  /// REQUIRES: fewer than `expected` + 1 keys inserted in all.
  int64_t* FindOrInsert(std::string_view key, int64_t row, bool* fresh);
  /// The row stored for `key`, or -1.
  int64_t Find(std::string_view key) const;

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
