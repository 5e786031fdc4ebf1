#include "lancet/buffer.h"

#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace lancet {

namespace {
constexpr size_t kAlignment = 64;

// Recently freed large blocks, reused by the next allocations of a similar size.
// Scans allocate and free batch-sized buffers at a high rate; blocks that big come
// from mmap and go back to the kernel on free, so without reuse every batch pays a
// page fault (and a zeroed page) per 4 KiB written. Bounded in total bytes, so memory
// stays flat however much is read.
class LargeBlockCache {
 public:
  static constexpr size_t kMinBlock = size_t{1} << 20;
  static constexpr size_t kMaxCached = size_t{64} << 20;

  /// The capacity a block for `size` bytes gets: 2^k or 1.5 * 2^k, so a cached block
  /// wastes at most a third of itself.
  static size_t Capacity(size_t size) {
    size_t p = kMinBlock;
    while (p < size) {
      if (p + p / 2 >= size) return p + p / 2;
      p *= 2;
    }
    return p;
  }

  void* Take(size_t capacity) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = blocks_.size(); i-- > 0;) {
      if (blocks_[i].capacity == capacity) {
        void* p = blocks_[i].ptr;
        cached_ -= capacity;
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
        return p;
      }
    }
    return nullptr;
  }

  /// Keeps `p`, freeing the oldest blocks to make room, so sizes no longer asked for
  /// age out; false (the caller frees `p`) for a block bigger than the whole cache.
  bool Put(void* p, size_t capacity) {
    if (capacity > kMaxCached) return false;
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      size_t drop = 0;
      while (cached_ + capacity > kMaxCached) {
        cached_ -= blocks_[drop].capacity;
        evicted.push_back(blocks_[drop].ptr);
        ++drop;
      }
      blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(drop));
      blocks_.push_back({p, capacity});
      cached_ += capacity;
    }
    for (void* e : evicted) std::free(e);
    return true;
  }

 private:
  struct Block {
    void* ptr;
    size_t capacity;
  };
  std::mutex mu_;
  std::vector<Block> blocks_;
  size_t cached_ = 0;
};

// Never destroyed: buffers may be freed by static destructors after main returns.
LargeBlockCache& Cache() {
  static auto* cache = new LargeBlockCache();
  return *cache;
}

}  // namespace

Buffer::~Buffer() {
  if (owned_ != nullptr && owned_capacity_ >= LargeBlockCache::kMinBlock && Cache().Put(owned_, owned_capacity_)) {
    return;
  }
  std::free(owned_);
}

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
    void* p = nullptr;
    if (rounded >= LargeBlockCache::kMinBlock) {
      rounded = LargeBlockCache::Capacity(rounded);
      p = Cache().Take(rounded);
    }
    if (p == nullptr) p = std::aligned_alloc(kAlignment, rounded);
    if (p == nullptr) return Status::OutOfRange("out of memory allocating " + std::to_string(size) + " bytes");
    if (zero) std::memset(p, 0, rounded);
    b->owned_ = p;
    b->owned_capacity_ = rounded;
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
