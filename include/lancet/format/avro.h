// Apache Avro object container files (spec: avro.apache.org "Specification", sections
// Binary Encoding and Object Container Files): a writer that keeps the caller's schema
// JSON byte for byte (Iceberg needs its field-id, element-id, logicalType and default
// attributes, which re-serializing writers drop) and a bounded reader for tests and
// tools. Codecs: "null" and "deflate" (raw RFC 1951, as the spec requires).
//
// Types modelled: null, boolean, int, long, float, double, bytes, string, fixed, record,
// array, map, and unions (a branch is chosen by the value's kind; null picks the null
// branch). Named types may be referenced after their definition. enum is NotSupported.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "lancet/result.h"

namespace lancet::format::avro {

struct Value;
/// Array items.
using Array = std::vector<Value>;
/// Map entries in file order.
using MapEntries = std::vector<std::pair<std::string, Value>>;
/// Record fields by name; the writer looks them up by the schema's field names.
struct Record {
  std::vector<std::pair<std::string, Value>> fields;
  /// The field named `name`, or nullptr.
  const Value* Find(std::string_view name) const;
};
/// Bytes, string and fixed values are all byte strings; the schema says which.
struct Bytes {
  std::string data;
  bool operator==(const Bytes&) const = default;
};

/// \brief One Avro datum. monostate is null; int32_t is Avro int, int64_t Avro long.
struct Value {
  std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string, Bytes, Array, MapEntries, Record> v;

  Value() = default;
  Value(bool b) : v(b) {}                      // NOLINT: a value is built from its datum
  Value(int32_t i) : v(i) {}                   // NOLINT
  Value(int64_t l) : v(l) {}                   // NOLINT
  Value(float f) : v(f) {}                     // NOLINT
  Value(double d) : v(d) {}                    // NOLINT
  Value(std::string s) : v(std::move(s)) {}    // NOLINT
  Value(const char* s) : v(std::string(s)) {}  // NOLINT
  Value(Bytes b) : v(std::move(b)) {}          // NOLINT
  Value(Array a) : v(std::move(a)) {}          // NOLINT
  Value(MapEntries m) : v(std::move(m)) {}     // NOLINT
  Value(Record r) : v(std::move(r)) {}         // NOLINT

  bool is_null() const { return std::holds_alternative<std::monostate>(v); }
  /// Equality of kinds and contents (records compare field names and order too).
  bool operator==(const Value& o) const;
};

/// \brief A parsed writer schema (immutable; cheap to copy).
class Schema {
 public:
  /// Parses Avro schema JSON. InvalidArgument names what is malformed; NotSupported for enum.
  static Result<Schema> Parse(std::string_view json);
  struct Node;
  /// REQUIRES: a schema returned by Parse.
  const Node& root() const { return *root_; }

 private:
  const Node* root_ = nullptr;
  std::shared_ptr<const void> nodes_;  // owns every node root_ reaches (named types may recurse)
};

/// Appends `value` in Avro's zigzag varint form (1..10 bytes).
void AppendLong(std::string* out, int64_t value);
/// Reads one zigzag varint at *pos (advancing it). Corruption when truncated or longer
/// than 10 bytes.
Result<int64_t> ReadLong(std::span<const uint8_t> bytes, size_t* pos);

/// Encodes `value` against `schema` (the binary encoding, no container). InvalidArgument
/// when the value does not fit the schema, naming the field path.
Status Encode(const Schema& schema, const Value& value, std::string* out);

enum class Codec : uint8_t { kNull, kDeflate };

struct WriteOptions {
  Codec codec = Codec::kNull;
  int deflate_level = 6;
  /// A block is flushed once its encoded records reach this many bytes.
  uint64_t block_bytes = uint64_t{1} << 20;
};

/// \brief Writes one object container file to `sink`. Not thread-safe.
class Writer {
 public:
  /// Writes the header: magic, `avro.schema` = schema_json verbatim, `avro.codec`, then
  /// `metadata` in the order given, then a random 16-byte sync marker. InvalidArgument
  /// when schema_json does not parse or a metadata key starts with "avro.".
  static Result<std::unique_ptr<Writer>> Open(std::function<Status(std::span<const uint8_t>)> sink,
                                              std::string schema_json,
                                              std::vector<std::pair<std::string, std::string>> metadata,
                                              const WriteOptions& options = {});
  ~Writer();
  Status Append(const Value& datum);
  /// Flushes the last block. The file is complete once this returns OK.
  Status Finish();
  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t records_written() const { return records_written_; }

 private:
  Writer() = default;
  Status FlushBlock();
  Status Emit(std::span<const uint8_t> bytes);

  std::function<Status(std::span<const uint8_t>)> sink_;
  Schema schema_;
  WriteOptions options_;
  std::array<uint8_t, 16> sync_{};
  std::string block_;
  uint64_t block_count_ = 0;
  uint64_t bytes_written_ = 0;
  uint64_t records_written_ = 0;
  bool finished_ = false;
};

struct ReadOptions {
  /// Bounds on hostile input: one block's decompressed bytes, all values decoded, and
  /// nesting depth. Exceeding one is Corruption.
  uint64_t max_block_bytes = uint64_t{256} << 20;
  uint64_t max_values = uint64_t{1} << 26;
  int max_depth = 64;
};

/// \brief A whole container file, decoded against its writer schema.
struct File {
  std::string schema_json;                      // the header's avro.schema, verbatim
  std::map<std::string, std::string> metadata;  // every header key, avro.* included
  Codec codec = Codec::kNull;
  std::array<uint8_t, 16> sync{};
  std::vector<Value> records;
};

/// Reads a container file. Corruption (saying what and where) for malformed bytes,
/// NotSupported for other codecs or enum schemas; never reads past `bytes`.
Result<File> ReadFile(std::span<const uint8_t> bytes, const ReadOptions& options = {});

}  // namespace lancet::format::avro
