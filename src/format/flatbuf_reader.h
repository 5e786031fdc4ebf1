// A small, bounds-checked FlatBuffers reader for untrusted bytes (Arrow IPC
// metadata). Private to the format layer.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

#include "lancet/result.h"

namespace lancet::format {

/// \brief A view of one FlatBuffers table inside a byte span.
///
/// Every accessor checks that what it reads lies inside the span and inside
/// the table's declared size, and returns Corruption otherwise, so hostile
/// bytes can never cause an out-of-bounds read. Views borrow the span: they
/// must not outlive the bytes they were created from. Thread-compatible.
class FbTable {
 public:
  FbTable() = default;

  /// Reads the root table of a FlatBuffers buffer (uoffset at byte 0).
  static Result<FbTable> Root(std::span<const uint8_t> buf);
  /// The table at absolute position `pos`, after checking its vtable.
  static Result<FbTable> At(std::span<const uint8_t> buf, uint64_t pos);

  bool HasField(int slot) const { return FieldOffset(slot) != 0; }

  /// Scalar in `slot`, or `def` if absent.
  template <typename T>
  Result<T> Scalar(int slot, T def) const {
    uint16_t off = FieldOffset(slot);
    if (off == 0) return def;
    if (off + sizeof(T) > table_size_) return Status::Corruption("flatbuffer: scalar field past end of table");
    T v;
    std::memcpy(&v, buf_.data() + pos_ + off, sizeof(T));
    return v;
  }

  /// Sub-table in `slot`, or nullopt if absent.
  Result<std::optional<FbTable>> Table(int slot) const;
  /// String in `slot`, or nullopt if absent. Not NUL-terminated-checked.
  Result<std::optional<std::string_view>> String(int slot) const;

  std::span<const uint8_t> buffer() const { return buf_; }

 private:
  friend class FbVector;
  uint16_t FieldOffset(int slot) const;
  /// Absolute target of the uoffset stored in `slot`, 0 if absent.
  Result<uint64_t> Indirect(int slot) const;

  std::span<const uint8_t> buf_;
  uint64_t pos_ = 0;
  uint64_t vtable_ = 0;
  uint16_t vtable_size_ = 0;
  uint16_t table_size_ = 0;
};

/// \brief A view of a FlatBuffers vector: a uint32 count then the elements.
class FbVector {
 public:
  FbVector() = default;
  /// Reads the vector in `slot` of `table` with `elem_size`-byte elements;
  /// nullopt if absent. Checks that all elements fit in the buffer.
  static Result<std::optional<FbVector>> Get(const FbTable& table, int slot, uint64_t elem_size);

  uint32_t size() const { return size_; }

  template <typename T>
  T ScalarAt(uint32_t i) const {  // REQUIRES: i < size(), sizeof(T) == elem_size.
    T v;
    std::memcpy(&v, buf_.data() + data_ + uint64_t{i} * elem_size_, sizeof(T));
    return v;
  }
  /// Pointer to the i-th inline struct. REQUIRES: i < size().
  const uint8_t* StructAt(uint32_t i) const { return buf_.data() + data_ + uint64_t{i} * elem_size_; }
  /// The i-th element of a vector of tables. REQUIRES: i < size().
  Result<FbTable> TableAt(uint32_t i) const;
  /// The i-th element of a vector of strings. REQUIRES: i < size().
  Result<std::string_view> StringAt(uint32_t i) const;

 private:
  std::span<const uint8_t> buf_;
  uint64_t data_ = 0;
  uint32_t size_ = 0;
  uint64_t elem_size_ = 0;
};

/// Reads a little-endian scalar from untrusted bytes without alignment demands.
template <typename T>
T LoadLE(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace lancet::format
