// Helpers that assemble Arrays from std::vectors and child arrays, for decoders and tests.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "lancet/array.h"

namespace lancet {

/// Packs `validity` (true = valid) into a bitmap. Returns nullptr (all valid) when
/// `validity` is empty or has no false entry. Sets *null_count.
BufferPtr ValidityFromVector(const std::vector<bool>& validity, int64_t* null_count);

/// \brief An array of a byte-width fixed type (ints, floats, temporal, decimal,
/// fixed_size_binary) from raw little-endian values.
///
/// `values` holds exactly length * width bytes; `validity` is empty (all valid) or
/// has `length` entries. InvalidArgument on mismatched sizes or a non-fixed type.
Result<Array> MakeFixedWidthArray(const DataType& type, std::span<const uint8_t> values, int64_t length,
                                  const std::vector<bool>& validity = {});

/// A bool array; `validity` as for MakeFixedWidthArray.
Result<Array> MakeBoolArray(const std::vector<bool>& values, const std::vector<bool>& validity = {});

/// \brief An array of `type` from C values whose size matches the type's width
/// (e.g. int64_t for int64/timestamp/date64, uint16_t for float16, bool for bool).
///
/// Null slots keep whatever value `values` has there.
template <typename T>
Result<Array> ArrayFromVector(const DataType& type, const std::vector<T>& values,
                              const std::vector<bool>& validity = {}) {
  if constexpr (std::is_same_v<T, bool>) {
    if (type.id != TypeId::kBool) return Status::InvalidArgument("bool values for " + type.ToString());
    return MakeBoolArray(values, validity);
  } else {
    static_assert(std::is_trivially_copyable_v<T>);
    if (type.id == TypeId::kBool || type.BitWidth() != static_cast<int>(sizeof(T) * 8)) {
      return Status::InvalidArgument("values of " + std::to_string(sizeof(T)) + " bytes do not fit " +
                                     type.ToString());
    }
    return MakeFixedWidthArray(
        type, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T)),
        static_cast<int64_t>(values.size()), validity);
  }
}

/// A utf8/binary/large_utf8/large_binary array; nullopt entries are null.
Result<Array> MakeBinaryArray(const DataType& type, const std::vector<std::optional<std::string>>& values);

/// A utf8 array; nullopt entries are null. For tests and small literals: data past
/// the 2 GiB int32 offset range yields an empty array rather than an error.
Array StringArray(const std::vector<std::optional<std::string>>& values);

/// \brief A list, large_list or map array: `offsets` has length+1 entries into `child`.
///
/// InvalidArgument (from Validate) when offsets are not monotone or overrun the child.
Result<Array> MakeListArray(const DataType& type, const std::vector<int64_t>& offsets, Array child,
                            const std::vector<bool>& validity = {});

/// A fixed_size_list array of `length` lists over `child` (length * list_size values).
Result<Array> MakeFixedSizeListArray(const DataType& type, int64_t length, Array child,
                                     const std::vector<bool>& validity = {});

/// A struct array of `length` rows whose children match type.children in order.
Result<Array> MakeStructArray(const DataType& type, int64_t length, std::vector<Array> children,
                              const std::vector<bool>& validity = {});

/// A struct array whose type is derived from `names` and the children's types (nullable fields).
Result<Array> MakeStructArray(const std::vector<std::string>& names, int64_t length, std::vector<Array> children,
                              const std::vector<bool>& validity = {});

/// A dictionary array: `indices` is an integer array (its nulls are the array's nulls).
Result<Array> MakeDictionaryArray(Array indices, Array dictionary);

/// A record batch whose schema fields are `names` with the columns' types.
Result<RecordBatch> MakeRecordBatch(const std::vector<std::string>& names, std::vector<Array> columns);

}  // namespace lancet
