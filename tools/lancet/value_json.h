// Arrow values and types as `lance-peer-dump/1` JSON (tests/peer/README.md, "The JSON contract").
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/array.h"
#include "lancet/data_type.h"
#include "lancet/json_writer.h"

namespace lancet::cli {

/// Values longer than this many bytes are written as {"len", "sha256"} (contract rule).
inline constexpr size_t kContractDigestThreshold = 256;

/// Writes a blob v2 value in place of its descriptor. `path` is the dotted field path,
/// `descriptor` the descriptor struct array and `index` the element in it.
using BlobWriter = std::function<void(JsonWriter& w, std::string_view path, const Array& descriptor, int64_t index)>;

struct ValueOptions {
  /// utf8/binary longer than this are digested; SIZE_MAX never digests.
  size_t digest_threshold = kContractDigestThreshold;
  /// Write float32 with its own shortest text ("0.1") instead of the double's
  /// ("0.10000000149011612"); both read back to the same float32.
  bool float32_shortest = false;
  /// Called for blob v2 fields (found through the logical field's metadata); when
  /// empty, the descriptor struct is written as a plain struct.
  BlobWriter blob_writer;
};

/// \brief Writes element `index` of `array` as one contract value.
///
/// `logical` is the schema field the array was read for (Dataset::schema(), which
/// carries the blob v2 metadata); it may be null when unknown. `path` is its dotted
/// path, used to name blob fields. Returns Corruption/NotSupported for an array whose
/// layout or type cannot be encoded; nothing is guaranteed about `w` then.
Status WriteValue(JsonWriter& w, const Array& array, int64_t index, const Field* logical, std::string_view path,
                  const ValueOptions& options);

/// Writes a field as {name, type, ...type params, nullable, metadata, children?}.
void WriteFieldJson(JsonWriter& w, const Field& field);
/// Writes {"fields": [...], "metadata": {...}}.
void WriteSchemaJson(JsonWriter& w, const Schema& schema);
/// The contract's type name ("int32", "timestamp", "large_list", ...).
std::string_view ContractTypeName(const DataType& type);

/// Dotted paths of blob v2 fields at the top level or nested in structs (not in lists).
std::vector<std::string> BlobFieldPaths(const Schema& schema);

/// Decimal text of a little-endian two's complement integer of any byte width
/// (decimal128/256 unscaled values).
std::string SignedLittleEndianToDecimal(std::span<const uint8_t> bytes);

/// The value of an IEEE 754 binary16 bit pattern.
double HalfToDouble(uint16_t bits);

}  // namespace lancet::cli
