// Buffer: refcounted immutable bytes, the only shared type in Lancet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/result.h"

namespace lancet {

/// \brief Immutable bytes, owned or viewing a parent buffer.
///
/// Buffers are handed around as std::shared_ptr<const Buffer>; a slice keeps
/// its parent alive. Owned allocations are 64-byte aligned. Thread-safe to read.
class Buffer {
 public:
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const uint8_t> span() const { return {data_, static_cast<size_t>(size_)}; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)}; }
  template <typename T>
  const T* data_as() const { return reinterpret_cast<const T*>(data_); }

  /// Allocates `size` zeroed bytes; the caller may fill them through mutable_data()
  /// before sharing the buffer. Fails (rather than aborting) on absurd sizes.
  static Result<std::shared_ptr<Buffer>> Allocate(uint64_t size);
  /// Like Allocate, but the bytes are left uninitialized: for callers that overwrite
  /// every byte they later expose (decoders writing their output).
  static Result<std::shared_ptr<Buffer>> AllocateUninitialized(uint64_t size);
  /// Copies bytes into a new owned buffer.
  static std::shared_ptr<Buffer> Copy(std::span<const uint8_t> bytes);
  static std::shared_ptr<Buffer> Copy(std::string_view bytes);
  /// Takes ownership of a vector without copying.
  static std::shared_ptr<Buffer> FromVector(std::vector<uint8_t> bytes);
  /// A view of [offset, offset+length) of `parent`. REQUIRES: in bounds.
  static std::shared_ptr<Buffer> Slice(std::shared_ptr<const Buffer> parent, uint64_t offset, uint64_t length);
  /// Views `size` bytes at `data` owned elsewhere; `owner` is kept alive as long as the buffer.
  static std::shared_ptr<Buffer> Wrap(const uint8_t* data, uint64_t size, std::shared_ptr<const void> owner);
  /// The shared empty buffer.
  static std::shared_ptr<Buffer> Empty();

  /// Only for the creator, before the buffer is shared.
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }

 private:
  static Result<std::shared_ptr<Buffer>> AllocateImpl(uint64_t size, bool zero);
  Buffer() = default;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  void* owned_ = nullptr;                  // aligned allocation we free
  size_t owned_capacity_ = 0;              // its size as allocated
  std::vector<uint8_t> vec_;               // or a moved-in vector
  std::shared_ptr<const Buffer> parent_;  // or a parent we view
  std::shared_ptr<const void> owner_;      // or foreign memory kept alive by its owner
};

using BufferPtr = std::shared_ptr<const Buffer>;

/// Largest single allocation Lancet makes on behalf of on-disk sizes (4 GiB);
/// bigger claims are treated as corrupt input, never allocated.
inline constexpr uint64_t kMaxAllocation = 4ULL << 30;

/// \brief Growable byte vector used to build buffers; Finish() hands it off.
class BufferBuilder {
 public:
  void Append(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
  }
  template <typename T>
  void AppendValue(const T& v) { Append(&v, sizeof(T)); }
  void AppendZeros(size_t n) { bytes_.resize(bytes_.size() + n, 0); }
  void Reserve(size_t n) { bytes_.reserve(n); }
  size_t size() const { return bytes_.size(); }
  uint8_t* data() { return bytes_.data(); }
  void Resize(size_t n) { bytes_.resize(n, 0); }
  std::vector<uint8_t>& vec() { return bytes_; }
  std::shared_ptr<Buffer> Finish() { return Buffer::FromVector(std::move(bytes_)); }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace lancet
