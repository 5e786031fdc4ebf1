// The key columns of a merge: checked once, then each row's key as comparable bytes.
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <string>
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

}  // namespace lancet::table
