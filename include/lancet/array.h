// Array: Arrow-layout columnar data (validity bitmap, offsets, values, children).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/data_type.h"

namespace lancet {

/// \brief Arrow-layout array. Copies are shallow (buffers are shared).
///
/// Buffer slots follow the Arrow C Data Interface for each type:
///   null: none; primitive/bool/fixed_size_binary/decimal: [validity, values];
///   utf8/binary: [validity, offsets(int32), data]; large_*: [validity, offsets(int64), data];
///   list/map: [validity, offsets(int32)] + 1 child; large_list: int64 offsets;
///   fixed_size_list: [validity] + 1 child; struct: [validity] + children;
///   dictionary: [validity, indices] + `dictionary`.
/// A null validity buffer means all valid. `offset` is in values (Arrow semantics);
/// arrays built by Lancet have offset 0.
struct Array {
  DataType type;
  int64_t length = 0;
  int64_t null_count = 0;
  int64_t offset = 0;
  std::vector<BufferPtr> buffers;
  std::vector<Array> children;
  std::shared_ptr<Array> dictionary;

  bool IsValid(int64_t i) const {
    if (type.id == TypeId::kNull) return false;
    if (buffers.empty() || !buffers[0]) return true;
    int64_t j = i + offset;
    return (buffers[0]->data()[j >> 3] >> (j & 7)) & 1;
  }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  template <typename T>
  const T* values() const {
    return buffers[1]->data_as<T>() + offset;
  }
  /// Value i of a utf8/binary/large_* array.
  std::string_view GetView(int64_t i) const;
  /// Offsets of list/map/large_list element i: [begin, end) in the child.
  std::pair<int64_t, int64_t> ListRange(int64_t i) const;
  bool GetBool(int64_t i) const {
    int64_t j = i + offset;
    return (buffers[1]->data()[j >> 3] >> (j & 7)) & 1;
  }

  /// Checks the layout against the type (buffer counts and sizes, offsets monotone
  /// and in bounds, children lengths); Corruption on the first violation.
  Status Validate() const;
};

/// Structural equality of values (types, nulls and every valid value).
bool ArraysEqual(const Array& a, const Array& b);

/// Concatenates arrays of the same type into one.
Result<Array> Concatenate(const std::vector<Array>& arrays);

/// A zero-copy view of rows [begin, begin + length) of `array`. REQUIRES: in bounds.
Array ArraySlice(const Array& array, int64_t begin, int64_t length);

/// Rows `indices` of `array`, in order (repeats allowed).
Result<Array> TakeRows(const Array& array, const std::vector<int64_t>& indices);

/// An array of `length` nulls of `type`, with properly sized buffers.
Result<Array> MakeNullArray(const DataType& type, int64_t length);

/// \brief A set of equal-length columns with a schema.
struct RecordBatch {
  Schema schema;
  int64_t num_rows = 0;
  std::vector<Array> columns;
};

}  // namespace lancet
