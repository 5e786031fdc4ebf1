// A small FlatBuffers builder (enough for Arrow IPC metadata). Private to the
// format layer.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace lancet::format {

/// \brief Builds one FlatBuffers buffer back to front, as the format requires
/// (uoffsets only point forward, so children are written before parents).
///
/// Usage: create strings/vectors/sub-tables first, then StartTable(), Add*(),
/// EndTable(), and finally Finish(root). Not thread-safe.
class FbBuilder {
 public:
  /// A written object, named by its distance from the end of the buffer.
  using Ref = uint32_t;

  Ref CreateString(std::string_view s);
  Ref CreateVectorOfRefs(std::span<const Ref> refs);
  /// Vector of inline structs, each `elem_size` bytes aligned to `align`.
  Ref CreateVectorOfStructs(const void* data, size_t elem_size, size_t count, size_t align);
  template <typename T>
  Ref CreateVectorOfScalars(std::span<const T> values) {
    return CreateVectorOfStructs(values.data(), sizeof(T), values.size(), sizeof(T));
  }

  void StartTable();
  /// Adds a scalar field; always written, so readers never depend on defaults.
  template <typename T>
  void AddScalar(int slot, T value) {
    Align(sizeof(T), sizeof(T));
    PushBytes(&value, sizeof(T));
    fields_.emplace_back(slot, used());
  }
  void AddRef(int slot, Ref ref);
  Ref EndTable();

  /// Writes the root offset and returns the finished bytes, whose size is a
  /// multiple of 8.
  std::vector<uint8_t> Finish(Ref root);

 private:
  uint32_t used() const { return static_cast<uint32_t>(buf_.size() - head_); }
  /// Pads so that after pushing `n` more bytes the size is a multiple of `align`.
  void Align(size_t n, size_t align);
  void PushBytes(const void* p, size_t n);
  void PushRef(Ref ref);
  void Reserve(size_t n);

  // Bytes live in buf_[head_, end); the buffer grows toward the front.
  std::vector<uint8_t> buf_;
  size_t head_ = 0;
  size_t max_align_ = 8;
  uint32_t table_start_ = 0;
  std::vector<std::pair<int, uint32_t>> fields_;  // slot, Ref of the field
};

}  // namespace lancet::format
