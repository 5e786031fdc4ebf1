#include "lancet/buffer.h"

#include <cstdlib>
#include <new>

namespace lancet {

namespace {
constexpr size_t kAlignment = 64;
}

Buffer::~Buffer() { std::free(owned_); }

Result<std::shared_ptr<Buffer>> Buffer::Allocate(uint64_t size) { return AllocateImpl(size, true); }

Result<std::shared_ptr<Buffer>> Buffer::AllocateUninitialized(uint64_t size) { return AllocateImpl(size, false); }

Result<std::shared_ptr<Buffer>> Buffer::AllocateImpl(uint64_t size, bool zero) {
  if (size > kMaxAllocation) {
    return Status::OutOfRange("refusing to allocate " + std::to_string(size) + " bytes (limit " +
                              std::to_string(kMaxAllocation) + ")");
  }
  std::shared_ptr<Buffer> b(new Buffer());
  if (size > 0) {
    size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, rounded);
    if (p == nullptr) return Status::OutOfRange("out of memory allocating " + std::to_string(size) + " bytes");
    if (zero) std::memset(p, 0, rounded);
    b->owned_ = p;
    b->data_ = static_cast<const uint8_t*>(p);
  }
  b->size_ = size;
  return b;
}

std::shared_ptr<Buffer> Buffer::Copy(std::span<const uint8_t> bytes) {
  std::vector<uint8_t> v(bytes.begin(), bytes.end());
  return FromVector(std::move(v));
}

std::shared_ptr<Buffer> Buffer::Copy(std::string_view bytes) {
  return Copy(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

std::shared_ptr<Buffer> Buffer::FromVector(std::vector<uint8_t> bytes) {
  std::shared_ptr<Buffer> b(new Buffer());
  b->vec_ = std::move(bytes);
  b->data_ = b->vec_.data();
  b->size_ = b->vec_.size();
  return b;
}

std::shared_ptr<Buffer> Buffer::Slice(std::shared_ptr<const Buffer> parent, uint64_t offset, uint64_t length) {
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = parent->data() + offset;
  b->size_ = length;
  b->parent_ = std::move(parent);
  return b;
}

std::shared_ptr<Buffer> Buffer::Wrap(const uint8_t* data, uint64_t size, std::shared_ptr<const void> owner) {
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = data;
  b->size_ = size;
  b->owner_ = std::move(owner);
  return b;
}

std::shared_ptr<Buffer> Buffer::Empty() {
  static const std::shared_ptr<Buffer> kEmpty = FromVector({});
  return kEmpty;
}

}  // namespace lancet
