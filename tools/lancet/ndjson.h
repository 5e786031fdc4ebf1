// NDJSON input: one JSON object per line, typed by a schema, read in bounded
// batches.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::cli {

/// \brief Checks `value` against `field` and rewrites it into the form
/// ArrayFromJson (util/array_json.h) builds from.
///
/// Accepted values are those of the lance-peer-dump/1 row contract, so `lancet
/// dump` rows read back: null; true/false; integers as numbers or decimal
/// strings; floats as numbers or "NaN", "Infinity"/"Inf", "-Infinity"/"-Inf",
/// "-0"; decimals as the unscaled integer (number or string without '.') or as
/// a scaled string with '.' ("-1.2345"); utf8 as strings; binary and
/// fixed_size_binary as hex strings; lists as arrays; structs as objects (a
/// missing key is null); maps as arrays of {"key", "value"} objects or [key,
/// value] pairs; dictionaries as the decoded value. InvalidArgument naming
/// `path` otherwise, also for a null in a non-nullable field and for digests
/// ({"len", "sha256"}).
Status NormalizeValue(const nlohmann::json& value, const Field& field, const std::string& path, nlohmann::json* out);

/// \brief Reads NDJSON rows of `schema` from a file, `batch_rows` rows at a
/// time.
///
/// Blank lines are skipped. Every row is an object keyed by top-level field
/// name;
/// "_rowaddr" and "_rowid" keys (as `lancet dump` writes them) are ignored,
/// other unknown keys are errors. Errors name the file and line.
class NdjsonReader {
 public:
  static Result<std::unique_ptr<NdjsonReader>> Open(const std::string& path, Schema schema, int64_t batch_rows);

  /// The next batch, or nullopt at the end of the file.
  Result<std::optional<RecordBatch>> Next();
  uint64_t rows_read() const { return rows_read_; }

 private:
  NdjsonReader(std::string path, Schema schema, int64_t batch_rows)
      : path_(std::move(path)), schema_(std::move(schema)), batch_rows_(batch_rows) {}
  Status NormalizeRow(const nlohmann::json& row, nlohmann::json* out) const;

  std::string path_;
  Schema schema_;
  int64_t batch_rows_;
  std::ifstream in_;
  uint64_t line_ = 0;
  uint64_t rows_read_ = 0;
};

}  // namespace lancet::cli
