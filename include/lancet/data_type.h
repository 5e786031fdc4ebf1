// DataType, Field and Schema: the Arrow type system as Lancet models it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet {

enum class TypeId : uint8_t {
  kNull,
  kBool,
  kInt8, kInt16, kInt32, kInt64,
  kUInt8, kUInt16, kUInt32, kUInt64,
  kFloat16, kFloat32, kFloat64,
  kUtf8, kLargeUtf8, kBinary, kLargeBinary,
  kFixedSizeBinary,
  kDate32, kDate64,
  kTime32, kTime64,
  kTimestamp,
  kDuration,
  kDecimal128, kDecimal256,
  kList, kLargeList, kFixedSizeList,
  kStruct,
  kMap,
  kDictionary,
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

struct Field;

/// Field metadata: sorted key → value (values may be arbitrary bytes).
using Metadata = std::map<std::string, std::string>;

/// \brief An Arrow data type. Nested types hold their child fields.
struct DataType {
  TypeId id = TypeId::kNull;
  TimeUnit unit = TimeUnit::kSecond;      // time32/64, timestamp, duration
  std::optional<std::string> timezone;    // timestamp
  int32_t precision = 0, scale = 0;       // decimal
  int32_t byte_width = 0;                 // fixed_size_binary
  int32_t list_size = 0;                  // fixed_size_list
  bool keys_sorted = false;               // map
  std::vector<Field> children;            // list: 1 item; struct: members; map: 1 entries struct
  std::shared_ptr<DataType> index_type;   // dictionary: indices
  std::shared_ptr<DataType> value_type;   // dictionary: values

  bool operator==(const DataType& o) const;
  bool operator!=(const DataType& o) const { return !(*this == o); }

  /// Width of one value in bits for fixed-width types (bool = 1), else 0.
  int BitWidth() const;
  bool IsFixedWidth() const { return BitWidth() > 0; }
  bool IsBinaryLike() const;   // utf8, binary (32-bit offsets)
  bool IsLargeBinaryLike() const;  // large_utf8, large_binary
  bool IsNested() const;
  /// A readable form, e.g. "list<int32>", "timestamp[us, UTC]".
  std::string ToString() const;
};

/// \brief A named, typed, nullable column with metadata. Lance field ids are kept
/// where the type came from a Lance schema (-1 otherwise).
struct Field {
  std::string name;
  DataType type;
  bool nullable = true;
  Metadata metadata;
  int32_t id = -1;

  bool operator==(const Field& o) const;
  std::string ToString() const;
};

/// \brief Top-level fields plus schema metadata.
struct Schema {
  std::vector<Field> fields;
  Metadata metadata;

  /// Index of the top-level field named `name`, or -1.
  int FieldIndex(const std::string& name) const;
  std::string ToString() const;
};

// Factories for the common cases.
DataType MakeType(TypeId id);
DataType ListOf(Field item);
DataType LargeListOf(Field item);
DataType FixedSizeListOf(Field item, int32_t size);
DataType StructOf(std::vector<Field> fields);
DataType TimestampType(TimeUnit unit, std::optional<std::string> tz = std::nullopt);
Field MakeField(std::string name, DataType type, bool nullable = true);

/// The base name of a type id: "int32", "fixed_size_binary", "timestamp", "map"...
const char* TypeIdName(TypeId id);
const char* TimeUnitName(TimeUnit unit);  // "s", "ms", "us", "ns"
std::optional<TimeUnit> ParseTimeUnit(std::string_view s);

/// Metadata key that marks a Lance Blob V2 column.
inline constexpr const char* kArrowExtensionName = "ARROW:extension:name";
inline constexpr const char* kBlobV2ExtensionName = "lance.blob.v2";
bool IsBlobV2Field(const Field& field);

}  // namespace lancet
